//! Intents that decide: a change on the selection, undo, the proposal made, refined, applied;
//! every decision job sent to the catalog thread from here.

use darkroom_catalog::Change;

use crate::gui::state::DarkRoom;
use darkroom_index::culling::{DecisionJob, View};

impl DarkRoom {
    /// Record a decision for the selected photos; one photo decided in a view that advances
    /// (Settings) moves on to the next.
    pub fn decide(&mut self, change: Change) {
        let alone = self.cull.selection_len() == 1;
        let jobs = self.cull.decide(change);
        let advance = match self.cull.view {
            View::Loupe | View::Compare => self.cull_settings.advance_in_loupe,
            View::Grid => self.cull_settings.advance_in_grid,
            // A frame picked for its faces is the answer, not a step in a walk.
            View::People => false,
        };
        if alone && advance && !jobs.is_empty() {
            self.step_photo(1);
            self.ui_state.follow_selection = true;
        }
        self.send_decisions(jobs);
    }

    pub fn undo(&mut self) {
        let jobs = self.cull.undo();
        self.send_decisions(jobs);
    }

    /// Propose a cull of the folder from the index (shown, not applied).
    pub fn propose(&mut self) {
        if let Err(why) = self.cull.propose(self.proposal_rules()) {
            self.notices.push(why);
        }
    }

    /// The proposal's rules as Settings has them now.
    pub fn proposal_rules(&self) -> darkroom_index::ProposalRules {
        darkroom_index::ProposalRules {
            strictness: self.cull_settings.strictness,
            keep_per_burst: self.cull_settings.keep_per_burst,
            blurry_below: self.blurry_below,
            // A proposal made again keeps what the photographer set aside in this one.
            without: self
                .cull
                .proposal_rules()
                .map(|r| r.without)
                .unwrap_or_default(),
        }
    }

    /// Set a reason aside in the proposal shown (or take it back): its proposals go.
    pub(in crate::gui) fn refine_proposal(
        &mut self,
        kind: darkroom_index::proposal::ReasonKind,
        aside: bool,
    ) {
        let Some(mut rules) = self.cull.proposal_rules() else {
            return;
        };
        if aside {
            rules.without.insert(kind);
        } else {
            rules.without.remove(&kind);
        }
        if let Err(why) = self.cull.propose(rules) {
            self.notices.push(why);
        }
    }

    pub fn apply_proposal(&mut self) {
        let jobs = self.cull.apply_proposal();
        self.send_decisions(jobs);
    }

    pub(in crate::gui) fn send_decisions(&mut self, jobs: Vec<DecisionJob>) {
        self.tasks.outbox.extend(jobs);
        self.flush_outbox();
    }

    /// Hand queued decisions to the catalog thread while its queue has room; the rest wait for
    /// the next `logic`. Never blocks: a catalog stuck on a slow disk must not freeze the window.
    pub(in crate::gui) fn flush_outbox(&mut self) {
        while let Some(job) = self.tasks.outbox.pop_front() {
            match self.tasks.catalog.send_decision(job) {
                Ok(()) => {}
                Err((job, false)) => {
                    self.tasks.outbox.push_front(job);
                    return;
                }
                Err((job, true)) => {
                    let why = "the catalog thread stopped: the decision was not saved";
                    self.notices.push(why);
                    self.cull.send_failed(job, why.to_owned());
                }
            }
        }
    }
}
