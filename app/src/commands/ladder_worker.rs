//! The hidden `ladder-worker` subcommand: one probe timing or engine build in a process of its
//! own, so vendor code that crashes or hangs takes only the worker down.

use std::path::Path;
use std::process::ExitCode;

use darkroom_engine::ladder::child::{REPORTED_ERROR, WorkerError};
use darkroom_engine::ladder::fake;
use darkroom_engine::ladder::probe;
use darkroom_engine::ladder::worker::WorkerRequest;
use darkroom_engine::{CardSet, ModelStore, Sessions};

use crate::services;

/// The worker: serve one request and print one line; a reported error exits with
/// `REPORTED_ERROR` so the parent can tell it from a crash.
pub fn worker(request: &str) -> ExitCode {
    darkroom_engine::runtime::lower_process_priority();
    match serve(request) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            let line = serde_json::to_string(&WorkerError { error }).unwrap_or_default();
            println!("{line}");
            ExitCode::from(REPORTED_ERROR as u8)
        }
    }
}

fn serve(request: &str) -> Result<String, String> {
    let request: WorkerRequest =
        serde_json::from_str(request).map_err(|e| format!("bad worker request: {e}"))?;
    let fake = fake::from_env()?;
    let sessions = match request.models().map(Path::to_path_buf) {
        None => None,
        Some(dir) => {
            let cards = CardSet::builtin().map_err(|e| e.to_string())?;
            Some(
                Sessions::new(
                    services::install_runtime(),
                    ModelStore::new(dir, cards)
                        .with_bundled(darkroom_engine::paths::bundled_models_dirs()),
                    darkroom_engine::sessions::default_threads(),
                )
                .map_err(|e| e.to_string())?,
            )
        }
    };
    probe::serve(&request, sessions.as_ref(), fake.as_ref())
}
