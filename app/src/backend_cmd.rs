//! The backend ladder on the command line: `darkroom probe`, `darkroom backend`, and the hidden
//! worker the ladder runs vendor code in.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use darkroom_engine::ladder::child::{REPORTED_ERROR, WorkerError};
use darkroom_engine::ladder::probe::{self, WorkerRequest};
use darkroom_engine::ladder::{BackendSettings, Launcher, fake};
use darkroom_engine::{
    Backend, BackendConfig, BackendStatus, CardSet, ModelStore, Rung, RuntimeOutcome, Sessions,
    paths,
};
use serde::Serialize;

/// The hidden subcommand workers run as.
pub const WORKER_COMMAND: &str = "ladder-worker";

pub fn inference_dir() -> anyhow::Result<PathBuf> {
    paths::inference_dir()
        .context("no data directory for the probe cache: set DARKROOM_DATA_DIR or HOME")
}

/// This executable as a worker, loading exactly the library this process chose.
pub fn launcher(runtime: &RuntimeOutcome) -> anyhow::Result<Launcher> {
    let program = std::env::current_exe().context("cannot find this executable")?;
    let mut env = Vec::new();
    if let Some(lib) = &runtime.library {
        env.push((
            "DARKROOM_ORT_LIB".to_string(),
            lib.to_string_lossy().into_owned(),
        ));
    }
    Ok(Launcher {
        program,
        prefix: vec![WORKER_COMMAND.to_string()],
        env,
    })
}

/// Start the process's backend (returns at once; the probe runs in the background), and how
/// long a command may wait for it to report: a worker per rung plus the identity query.
pub fn start(store: ModelStore, reprobe: bool) -> anyhow::Result<(Backend, Duration)> {
    let runtime = crate::cli::install_runtime();
    let mut config = BackendConfig::from_env(inference_dir()?, launcher(runtime)?)?;
    config.reprobe = reprobe;
    let wait = config.probe_limit * 8 + Duration::from_secs(30);
    Ok((Backend::start(runtime, store, config), wait))
}

#[derive(Serialize)]
struct ProbeReport<'a> {
    #[serde(flatten)]
    runtime: &'a RuntimeOutcome,
    ladder: BackendStatus,
}

pub fn probe(
    models: Option<PathBuf>,
    json: bool,
    reprobe: bool,
    engines: bool,
) -> anyhow::Result<ExitCode> {
    let runtime = crate::cli::install_runtime();
    let store = ModelStore::new(crate::cli::models_dir(models)?, CardSet::builtin()?);
    let (backend, wait) = start(store, reprobe)?;
    if !backend.wait_ready(wait) {
        anyhow::bail!(
            "the probe did not report in time: {}",
            backend.status().line
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

/// `darkroom backend force RUNG` / `darkroom backend auto`.
pub fn set_override(rung: Option<&str>) -> anyhow::Result<ExitCode> {
    let force = match rung {
        None => None,
        Some(name) => Some(Rung::from_setting(name).with_context(|| {
            format!("unknown backend {name:?}: one of tensorrt, cuda, cpu, tract")
        })?),
    };
    let dir = inference_dir()?;
    // The other settings (threads, workspace) stay as they are.
    let mut settings = BackendSettings::load(&dir)?;
    settings.force = force;
    settings.store(&dir)?;
    match force {
        Some(r) => println!("backend forced to {r} (takes effect for the next job)"),
        None => println!("backend chosen automatically"),
    }
    Ok(ExitCode::SUCCESS)
}

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
    let models = match &request {
        WorkerRequest::Identity => None,
        WorkerRequest::Time { models, .. } | WorkerRequest::Engine { models, .. } => {
            Some(models.clone())
        }
    };
    let sessions = match models {
        None => None,
        Some(dir) => {
            let cards = CardSet::builtin().map_err(|e| e.to_string())?;
            Some(
                Sessions::new(
                    crate::cli::install_runtime(),
                    ModelStore::new(dir, cards),
                    darkroom_engine::sessions::default_threads(),
                )
                .map_err(|e| e.to_string())?,
            )
        }
    };
    probe::serve(&request, sessions.as_ref(), fake.as_ref())
}
