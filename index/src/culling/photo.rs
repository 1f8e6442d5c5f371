//! One photo as the culling state knows it, and the decision jobs it sends for it.

use std::path::PathBuf;

use crate::PhotoAnalysis;
use darkroom_catalog::{Change, Decision};
use darkroom_library::Item;

use super::EntryId;

/// What the culling state knows of one photo.
#[derive(Debug, Clone)]
pub struct Photo {
    pub item: Item,
    /// What the index says (None: not indexed).
    pub analysis: Option<PhotoAnalysis>,
    /// What is shown: the durable decision with the changes still on their way made on it.
    pub decision: Decision,
    /// What the catalog (or the photo's sidecar, when it was imported) last said.
    pub(super) durable: Decision,
    /// The catalog has answered for this photo (its import, or a change that imported it);
    /// until then its decision is not known, and it shows as loading, never as blank.
    pub loaded: bool,
    /// Changes sent and not yet answered, oldest first: their sequence numbers and what each
    /// is shown as.
    pub(super) pending: Vec<(u64, Change)>,
    pub error: Option<String>,
}

impl Photo {
    pub(super) fn new(item: Item) -> Self {
        Photo {
            item,
            analysis: None,
            decision: Decision::default(),
            durable: Decision::default(),
            loaded: false,
            pending: Vec::new(),
            error: None,
        }
    }

    /// Sent to the catalog, not yet acknowledged as durable ("saving…").
    pub fn pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub(super) fn refresh(&mut self) {
        self.decision = self
            .pending
            .iter()
            .fold(self.durable.clone(), |d, (_, c)| c.applied_to(&d));
    }

    /// Takes change `seq` off the pending list; false when it was not on it.
    pub(super) fn settle(&mut self, seq: u64) -> bool {
        let before = self.pending.len();
        self.pending.retain(|(s, _)| *s != seq);
        self.pending.len() != before
    }

    pub fn file_name(&self) -> String {
        self.item
            .primary
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// What a decision job asks of the catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A change as pressed (the flag, the stars or the label).
    Change(Change),
    /// Undo: put back what change `of` replaced.
    Revert { of: u64 },
}

/// A decision on every file of one photo, for the catalog thread.
#[derive(Debug, Clone)]
pub struct DecisionJob {
    pub id: EntryId,
    /// Names this job in its answer and in a later undo.
    pub seq: u64,
    pub files: Vec<PathBuf>,
    pub edit: Edit,
}

/// The catalog thread's answer: durable in the catalog with the photo's decision before and
/// after, or failed (nothing recorded) and why.
#[derive(Debug, Clone)]
pub struct DecisionAck {
    pub id: EntryId,
    pub seq: u64,
    pub result: Result<(Decision, Decision), String>,
}
