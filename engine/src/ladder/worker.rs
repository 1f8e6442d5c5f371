//! The protocol between the ladder and its worker processes (this executable's hidden
//! `ladder-worker` subcommand): what a worker is asked, as one command-line argument, and the
//! fixed input every timing feeds. A leaf the probe, the tuning and the engine builds share.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::rungs::{Precision, Rung};
use crate::tuning::SessionSettings;

/// What a worker is asked to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum WorkerRequest {
    /// Report the device identity (GPU stack and CPU).
    Identity,
    /// Build a session for `model_id` on `rung` and time it.
    Time {
        rung: Rung,
        models: PathBuf,
        model_id: String,
        workspace_mb: u64,
    },
    /// Time `model_id` on the CPU floor under each of `grid`'s settings (the session tuning).
    Tune {
        models: PathBuf,
        model_id: String,
        grid: Vec<SessionSettings>,
        runs: usize,
    },
    /// Build `model_id`'s engine for `rung` into `out`.
    Engine {
        rung: Rung,
        models: PathBuf,
        model_id: String,
        precision: Precision,
        out: PathBuf,
        workspace_mb: u64,
    },
}

impl WorkerRequest {
    /// The models folder the worker opens sessions from (None: it needs no runtime).
    pub fn models(&self) -> Option<&Path> {
        match self {
            WorkerRequest::Identity => None,
            WorkerRequest::Time { models, .. }
            | WorkerRequest::Tune { models, .. }
            | WorkerRequest::Engine { models, .. } => Some(models),
        }
    }
}

/// A request as one command-line argument.
pub fn encode(request: &WorkerRequest) -> String {
    serde_json::to_string(request).unwrap_or_default()
}

/// A fixed, non-degenerate input: the same bytes on every rung and every run.
pub fn fixed_input(len: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_u32;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        })
        .collect()
}
