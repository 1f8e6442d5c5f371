//! The engine's persisted settings (`backend-settings.json` beside the probe cache) and the
//! environment variables that win over them: the backend override, threads, the TensorRT
//! workspace. A leaf: the sessions and the ladder both read it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::EngineError;
use crate::rungs::Rung;
use crate::store::write_atomically;

/// Where an override came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverrideSource {
    /// `DARKROOM_BACKEND`.
    Environment,
    /// The persisted setting (Settings, `darkroom backend force`).
    Setting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Override {
    pub rung: Rung,
    pub source: OverrideSource,
}

/// The persisted backend settings, beside the probe cache. Each is None for "automatic"; an
/// environment variable wins over each (see `BackendConfig::from_env`, [`threads_for`]).
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendSettings {
    /// A rung to force.
    #[serde(default)]
    pub force: Option<Rung>,
    /// ONNX Runtime intra-op threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// TensorRT builder workspace cap, MB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_mb: Option<u64>,
}

pub const SETTINGS_FILE: &str = "backend-settings.json";

impl BackendSettings {
    pub fn load(inference_dir: &Path) -> Result<Self, EngineError> {
        let path = inference_dir.join(SETTINGS_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| EngineError::Setting {
                name: "backend setting",
                reason: e.to_string(),
                path,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(EngineError::Io {
                what: "cannot read the backend setting",
                path,
                source,
            }),
        }
    }

    pub fn store(&self, inference_dir: &Path) -> Result<(), EngineError> {
        let path = inference_dir.join(SETTINGS_FILE);
        let io = |source| EngineError::Io {
            what: "cannot write the backend setting",
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(inference_dir).map_err(io)?;
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| io(std::io::Error::other(e)))?;
        write_atomically(&path, &bytes).map_err(io)
    }
}

/// The override in force: `DARKROOM_BACKEND` first, else the persisted setting.
pub fn override_from(inference_dir: &Path) -> Result<Option<Override>, EngineError> {
    override_in(&BackendSettings::load(inference_dir)?)
}

pub(crate) fn override_in(settings: &BackendSettings) -> Result<Option<Override>, EngineError> {
    if let Ok(v) = std::env::var("DARKROOM_BACKEND")
        && !v.trim().is_empty()
        && !v.trim().eq_ignore_ascii_case("auto")
    {
        let rung = Rung::from_setting(&v).ok_or_else(|| EngineError::Setting {
            name: "DARKROOM_BACKEND",
            reason: format!("unknown backend {v:?} (tensorrt, cuda, cpu, tract or auto)"),
            path: PathBuf::from("(environment)"),
        })?;
        return Ok(Some(Override {
            rung,
            source: OverrideSource::Environment,
        }));
    }
    Ok(settings.force.map(|rung| Override {
        rung,
        source: OverrideSource::Setting,
    }))
}

/// A positive whole number from the environment, or None when the variable is unset or empty.
pub fn env_number(name: &'static str) -> Result<Option<u64>, EngineError> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or_else(|| EngineError::Setting {
                name,
                reason: format!("expected a positive whole number, found {v:?}"),
                path: PathBuf::from("(environment)"),
            }),
        _ => Ok(None),
    }
}

/// The variable that overrides the thread setting.
pub const THREADS_ENV: &str = "DARKROOM_THREADS";
/// The variable that overrides the TensorRT workspace setting.
pub const WORKSPACE_ENV: &str = "DARKROOM_TRT_WORKSPACE_MB";

/// ONNX Runtime intra-op threads: `DARKROOM_THREADS`, else the persisted setting, else physical
/// cores minus two (the UI and decoding keep theirs), at least one. tract is single-threaded.
/// This is what an untuned session gets; a tuned one gets what was measured fastest.
pub fn threads_for(settings: &BackendSettings) -> usize {
    explicit_threads(settings).unwrap_or_else(|| num_cpus::get_physical().saturating_sub(2).max(1))
}

/// The thread count a person chose (`DARKROOM_THREADS`, else the persisted setting), which
/// the tuning measures at instead of choosing one.
pub fn explicit_threads(settings: &BackendSettings) -> Option<usize> {
    let from_env = env_number(THREADS_ENV).ok().flatten();
    from_env
        .map(|n| n as usize)
        .or(settings.threads.filter(|n| *n > 0))
}
