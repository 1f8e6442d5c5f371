//! The probe cache (spec §4.3): one small JSON file beside the models dir, written atomically,
//! trusted while its inputs equal the current ones. Failures are cached like successes, so a
//! wedged driver costs one probe, not one per launch. A file that cannot be read or parsed
//! means "probe again".

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::device::ProbeInputs;
use super::probe::ProbeResult;
use crate::rungs::{Precision, Rung};
use crate::store::write_atomically;

pub const CACHE_FILE: &str = "probe.json";
/// Bumped when the file's shape changes; an older file is simply re-probed.
pub const FORMAT: u32 = 1;

/// An engine that failed to build, keyed by the model's hash so a corrected model retries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineFailure {
    pub rung: Rung,
    pub model_id: String,
    pub sha256: String,
    pub precision: Precision,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheFile {
    pub format: u32,
    pub inputs: ProbeInputs,
    pub probe: ProbeResult,
    #[serde(default)]
    pub engine_failures: Vec<EngineFailure>,
}

/// Why the cache was not used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheMiss {
    /// No file yet.
    Absent,
    /// Asked to ignore it (`--reprobe`).
    Ignored,
    /// The file could not be read or parsed; it is overwritten by the new probe.
    Unreadable { reason: String },
    /// One or more inputs changed since it was written.
    Stale { changed: Vec<String> },
}

pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(CACHE_FILE)
}

/// The cached result if it is still valid for `inputs`.
pub fn lookup(path: &Path, inputs: &ProbeInputs) -> Result<CacheFile, CacheMiss> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheMiss::Absent),
        Err(e) => {
            return Err(CacheMiss::Unreadable {
                reason: format!("{e}: {}", path.display()),
            });
        }
    };
    let file: CacheFile = serde_json::from_slice(&bytes).map_err(|e| CacheMiss::Unreadable {
        reason: format!("{e}: {}", path.display()),
    })?;
    if file.format != FORMAT {
        return Err(CacheMiss::Stale {
            changed: vec!["format".to_owned()],
        });
    }
    let changed = changed_inputs(&file.inputs, inputs);
    if changed.is_empty() {
        Ok(file)
    } else {
        Err(CacheMiss::Stale { changed })
    }
}

/// Names of the inputs that differ, for the probe record ("device", "models").
pub fn changed_inputs(old: &ProbeInputs, new: &ProbeInputs) -> Vec<String> {
    let mut changed = Vec::new();
    let mut check = |name: &str, same: bool| {
        if !same {
            changed.push(name.to_owned());
        }
    };
    check("darkroom", old.darkroom == new.darkroom);
    check("platform", old.platform == new.platform);
    check("runtime", old.runtime == new.runtime);
    check("device", old.device == new.device);
    check("models", old.models == new.models);
    check("simulated", old.simulated == new.simulated);
    check("workspace_mb", old.workspace_mb == new.workspace_mb);
    changed
}

pub fn store(path: &Path, file: &CacheFile) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    write_atomically(path, &text)
}
