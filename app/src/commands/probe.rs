//! `darkroom probe`: which runtime and backend this machine has, and why.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use darkroom_engine::{BackendStatus, CardSet, ModelStore, RuntimeOutcome};
use serde::Serialize;

use crate::services;

#[derive(Serialize)]
struct ProbeReport<'a> {
    #[serde(flatten)]
    runtime: &'a RuntimeOutcome,
    ladder: BackendStatus,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// Ignore the probe cache and time every rung again.
    #[arg(long)]
    reprobe: bool,
    /// Wait for the selected rung's engines to build (progress on stderr).
    #[arg(long)]
    engines: bool,
    #[arg(long)]
    models: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Args {
        json,
        reprobe,
        engines,
        models,
    } = args;
    let runtime = services::install_runtime();
    let store = ModelStore::new(services::models_dir(models)?, CardSet::builtin()?)
        .with_bundled(darkroom_engine::paths::bundled_models_dirs());
    let (backend, wait) = services::start(store, reprobe)?;
    if !backend.wait_ready(wait) {
        anyhow::bail!(
            "the probe did not report in time: {}",
            backend.status().line
        );
    }
    // The session settings are measured right after the probe (seconds, in a worker): the
    // report shows them, so it waits for them.
    if !backend.wait_tuned(wait) {
        anyhow::bail!(
            "the session tuning did not finish in time: {:?}",
            backend.status().tuning_state
        );
    }
    if engines {
        // Progress on stderr as each engine lands, so a long build is visibly alive.
        let mut last = String::new();
        loop {
            let done = backend.wait_engines(Duration::from_millis(200));
            let status = backend.status();
            if let Some(p) = status.progress.filter(|p| *p != last) {
                eprintln!("{p}");
                last = p;
            }
            if done {
                break;
            }
        }
    }
    let status = backend.status();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&ProbeReport {
                runtime,
                ladder: status,
            })?
        );
    } else {
        println!("{}", status.line);
        if let Some(p) = &status.progress {
            println!("{p}");
        }
        for r in &runtime.rejected {
            println!(
                "  runtime rejected {:?}: {}: {}",
                r.source,
                r.message,
                r.path.display()
            );
        }
        for o in &status.rungs {
            let timing = o
                .timing
                .as_ref()
                .map(|t| format!(" median {:.1} ms", t.median_ms))
                .unwrap_or_default();
            let reason = o
                .reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            println!("  {:<14} {:?}{timing}{reason}", o.rung.label(), o.state);
        }
        for e in &status.engines {
            println!(
                "  engine {} ({}): {:?}",
                e.spec.model_id,
                e.spec.precision.label(),
                e.state
            );
        }
        for t in &status.tuning {
            let timing = t
                .measured
                .iter()
                .find(|m| m.settings == t.chosen)
                .map(|m| format!(" median {:.1} ms", m.median_ms))
                .unwrap_or_default();
            let error = t
                .error
                .as_deref()
                .map(|e| format!(": not measured: {e}"))
                .unwrap_or_default();
            println!(
                "  session {:<12} {}{timing} (of {} settings){error}",
                t.key.model_id,
                t.chosen,
                t.measured.len()
            );
        }
        for note in &status.tuning_notes {
            println!("  tuning: {note}");
        }
        println!(
            "  {} {}",
            if status.from_cache {
                "from cache"
            } else {
                "probed; cache"
            },
            status.cache_file.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
