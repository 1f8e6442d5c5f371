//! A job's backend, fixed when the job starts: every model's placement at pin time.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cards::Role;
use crate::error::EngineError;
use crate::rungs::Placement;
use crate::sessions::{ModelSession, Sessions};

/// A job's backend, fixed when the job starts.
#[derive(Debug, Clone, Serialize)]
pub struct JobPin {
    pub line: String,
    pub placements: BTreeMap<String, Placement>,
    /// For a model with no card at pin time.
    pub default: Placement,
}

impl JobPin {
    pub fn placement(&self, model_id: &str) -> &Placement {
        self.placements.get(model_id).unwrap_or(&self.default)
    }

    /// A session for `model_id` on the pinned placement.
    pub fn open(
        &self,
        sessions: &Sessions,
        model_id: &str,
        role: Role,
    ) -> Result<ModelSession, EngineError> {
        sessions.open_placed(model_id, role, self.placement(model_id))
    }
}
