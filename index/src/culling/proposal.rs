//! The auto-cull proposal for the folder open now, until applied or discarded.

use crate::proposal::Candidate;
use crate::{ProposalRules, Proposed, proposal};
use darkroom_catalog::Change;

use super::photo::DecisionJob;
use super::{Culling, EntryId};

/// An auto-cull proposal for the folder open now, until applied or discarded.
#[derive(Debug, Clone)]
pub(super) struct Proposal {
    pub(super) rules: ProposalRules,
    /// One entry per photo of the folder.
    pub(super) proposed: Vec<Option<Proposed>>,
}

impl Culling {
    /// Propose decisions for the folder from what the index knows. Err: nothing to go on.
    pub fn propose(&mut self, rules: ProposalRules) -> Result<(usize, usize), &'static str> {
        if self.entries.iter().all(|e| e.analysis.is_none()) {
            return Err("nothing in this folder is indexed yet: index it first (Ctrl+I)");
        }
        let candidates: Vec<Candidate<'_>> = self
            .entries
            .iter()
            .map(|e| Candidate {
                analysis: e.analysis.as_ref(),
                decision: &e.decision,
            })
            .collect();
        let proposed = proposal::propose(&candidates, &rules);
        self.proposal = Some(Proposal { rules, proposed });
        Ok(self.proposal_counts().unwrap_or_default())
    }

    /// What the proposal says for entry `i`; nothing once the photographer decided it.
    pub fn proposed(&self, i: usize) -> Option<Proposed> {
        let p = self.proposal.as_ref()?.proposed.get(i).cloned().flatten()?;
        let photo = self.entries.get(i)?;
        // A photo whose import has not answered may have a decision another tool made.
        (photo.loaded && !proposal::decided(&photo.decision)).then_some(p)
    }

    /// (picks, rejects) proposed and still open, while a proposal is shown.
    pub fn proposal_counts(&self) -> Option<(usize, usize)> {
        let p = self.proposal.as_ref()?;
        let open: Vec<Option<Proposed>> = (0..p.proposed.len()).map(|i| self.proposed(i)).collect();
        Some(proposal::counts(&open))
    }

    pub fn proposal_rules(&self) -> Option<ProposalRules> {
        self.proposal.as_ref().map(|p| p.rules.clone())
    }

    /// The proposal becomes real decisions, one step of undo; photos decided since it was
    /// made keep their decision.
    pub fn apply_proposal(&mut self) -> Vec<DecisionJob> {
        let changes: Vec<(EntryId, Change)> = (0..self.entries.len())
            .filter_map(|i| Some((self.id(i), Change::Flag(self.proposed(i)?.flag))))
            .collect();
        self.proposal = None;
        self.record(changes)
    }

    pub fn discard_proposal(&mut self) {
        self.proposal = None;
    }

    /// How many open proposals give each reason, while a proposal is shown.
    pub fn proposal_reasons(
        &self,
    ) -> std::collections::BTreeMap<crate::proposal::ReasonKind, usize> {
        let mut counts = std::collections::BTreeMap::new();
        if let Some(p) = &self.proposal {
            for i in 0..p.proposed.len() {
                if let Some(proposed) = self.proposed(i) {
                    for r in proposed.reasons() {
                        *counts.entry(r.kind()).or_default() += 1;
                    }
                }
            }
        }
        counts
    }
}
