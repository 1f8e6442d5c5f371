//! `darkroom backend force RUNG | auto`: the persisted backend override (DARKROOM_BACKEND wins).

use std::process::ExitCode;

use anyhow::Context;
use darkroom_engine::Rung;
use darkroom_engine::ladder::BackendSettings;

use crate::services;

#[derive(Debug, clap::Subcommand)]
pub enum Args {
    /// Always use RUNG (tensorrt, cuda, cpu or tract) when it is below the chosen one.
    Force { rung: String },
    /// Let the probe choose.
    Auto,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    set_override(match &args {
        Args::Force { rung } => Some(rung.as_str()),
        Args::Auto => None,
    })
}

/// `darkroom backend force RUNG` / `darkroom backend auto`.
pub fn set_override(rung: Option<&str>) -> anyhow::Result<ExitCode> {
    let force = match rung {
        None => None,
        Some(name) => Some(Rung::from_setting(name).with_context(|| {
            format!("unknown backend {name:?}: one of tensorrt, cuda, cpu, tract")
        })?),
    };
    let dir = services::inference_dir()?;
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
