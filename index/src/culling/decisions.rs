//! Decisions: shown at once as pending, durable when the catalog answers, undone a step at a
//! time (a step is every photo one decision changed).

use std::path::Path;

use darkroom_catalog::{Change, Decision, Flag};
use darkroom_library::Item;

use super::photo::{DecisionAck, DecisionJob, Edit};
use super::{Culling, EntryId};

/// One photo's part of an undo step: the change, and what the photo showed before it (until
/// the catalog's answer says what it really had).
#[derive(Debug, Clone)]
pub(super) struct Undoable {
    id: EntryId,
    seq: u64,
    change: Change,
    before: Decision,
}

impl Culling {
    pub fn picks(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.decision.flag == Flag::Pick)
            .count()
    }

    /// The picked photos' items, in folder order.
    pub fn pick_items(&self) -> Vec<Item> {
        self.entries
            .iter()
            .filter(|e| e.decision.flag == Flag::Pick)
            .map(|e| e.item.clone())
            .collect()
    }

    /// Decide for the selected photos (one step of undo): shown at once as pending, durable
    /// when the catalog acknowledges each. Returns the jobs to send (none: nothing selected or
    /// nothing changed). A photo whose import has not answered yet is sent the change too:
    /// the catalog makes it on what the photo really has.
    pub fn decide(&mut self, change: Change) -> Vec<DecisionJob> {
        let changes = self
            .targets()
            .into_iter()
            .filter(|&i| {
                let p = &self.entries[i];
                !p.loaded || change.applied_to(&p.decision) != p.decision
            })
            .map(|i| (self.id(i), change.clone()))
            .collect();
        self.record(changes)
    }

    /// Make `changes` one step of undo and mark each pending.
    pub(super) fn record(&mut self, changes: Vec<(EntryId, Change)>) -> Vec<DecisionJob> {
        let mut step = Vec::new();
        let mut jobs = Vec::new();
        for (id, change) in changes {
            let Some(before) = self.get(id).map(|p| p.decision.clone()) else {
                continue;
            };
            let Some(job) = self.mark_pending(id, change.clone(), Edit::Change(change.clone()))
            else {
                continue;
            };
            step.push(Undoable {
                id,
                seq: job.seq,
                change,
                before,
            });
            jobs.push(job);
        }
        if !step.is_empty() {
            self.undo.push(step);
        }
        jobs
    }

    /// Undo this folder's last decision (every photo it changed). Returns the jobs that
    /// restore them: each puts back, in the catalog, what its change replaced there.
    pub fn undo(&mut self) -> Vec<DecisionJob> {
        let Some(step) = self.undo.pop() else {
            return Vec::new();
        };
        step.into_iter()
            .rev()
            .filter_map(|u| {
                let before = self.answered_before.get(&u.seq).unwrap_or(&u.before);
                let shown = u.change.undone_to(before);
                self.mark_pending(u.id, shown, Edit::Revert { of: u.seq })
            })
            .collect()
    }

    /// Show `shown` on photo `id` until the catalog answers job `edit`, which this returns.
    fn mark_pending(&mut self, id: EntryId, shown: Change, edit: Edit) -> Option<DecisionJob> {
        let seq = self.next_seq;
        let photo = self.get_mut(id)?;
        photo.pending.push((seq, shown));
        photo.refresh();
        let files = photo.item.files().map(Path::to_path_buf).collect();
        self.next_seq += 1;
        self.in_flight += 1;
        Some(DecisionJob {
            id,
            seq,
            files,
            edit,
        })
    }

    /// The job never reached the catalog thread: show what is really recorded, and why.
    pub fn send_failed(&mut self, job: DecisionJob, error: String) {
        if let Some(photo) = self.get_mut(job.id)
            && photo.settle(job.seq)
        {
            photo.refresh();
            photo.error = Some(error);
            self.in_flight = self.in_flight.saturating_sub(1);
        }
    }

    /// The catalog answered a decision: durable, showing what the photo now has; or failed,
    /// showing what is durable, and the words for a notice that names the photo. Nothing for a
    /// folder no longer open.
    pub fn acknowledge(&mut self, ack: DecisionAck) -> Option<String> {
        let photo = self.get_mut(ack.id)?;
        if !photo.settle(ack.seq) {
            return None;
        }
        let failed = match ack.result {
            Ok((before, after)) => {
                photo.durable = after;
                photo.loaded = true;
                self.answered_before.insert(ack.seq, before);
                None
            }
            Err(why) => {
                let words = format!("the decision on {} was not saved: {why}", photo.file_name());
                photo.error = Some(words.clone());
                Some(words)
            }
        };
        let photo = self.get_mut(ack.id)?;
        photo.refresh();
        self.in_flight = self.in_flight.saturating_sub(1);
        failed
    }

    /// What the catalog (or a sidecar another tool wrote) says about a photo. The catalog
    /// answers in the order it was asked, so this is the durable decision as of now; changes
    /// still on their way are shown on top of it. None: the import failed, and what the photo
    /// has is still not known (it goes on showing as loading, with the error).
    pub fn imported(&mut self, id: EntryId, decision: Option<Decision>, error: Option<String>) {
        if let Some(photo) = self.get_mut(id) {
            if let Some(decision) = decision {
                photo.durable = decision;
                photo.loaded = true;
                photo.refresh();
            }
            if error.is_some() {
                photo.error = error;
            }
        }
    }

    /// A sidecar of the photo could not be read or written (the catalog has the decision).
    pub fn sidecar_failed(&mut self, id: EntryId, error: String) {
        if let Some(photo) = self.get_mut(id) {
            photo.error = Some(error);
        }
    }

    /// Nothing sent will be answered (the catalog thread is gone): every photo shows what is
    /// durable, and why its decision is not.
    pub fn abandon_pending(&mut self, why: &str) {
        for photo in &mut self.entries {
            if photo.pending() {
                photo.pending.clear();
                photo.refresh();
                photo.error = Some(why.to_owned());
            }
        }
        self.in_flight = 0;
    }

    /// How many decisions are sent and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Photos whose import has not answered yet.
    pub fn loading(&self) -> usize {
        self.entries.iter().filter(|p| !p.loaded).count()
    }

    /// A picture or a close-up could not be made.
    pub fn set_error(&mut self, id: EntryId, error: String) {
        if let Some(photo) = self.get_mut(id) {
            photo.error = Some(error);
        }
    }

    pub fn all_acknowledged(&self) -> bool {
        self.in_flight == 0
    }
}
