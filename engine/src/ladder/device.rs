//! Device identity and the probe's inputs: everything whose change must re-probe (spec §4.3).
//! Nothing here links a vendor library; the GPU is asked through the CUDA driver, dlopened in a
//! worker process.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::rungs::Platform;
use crate::runtime::{NvidiaGpu, RuntimeKind, RuntimeOutcome};
use crate::store::{ModelStore, sha256_hex};

/// What the worker learns about the machine's GPU stack. "No GPU" is a valid answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    pub gpu: Option<NvidiaGpu>,
    /// Why the driver could not be asked, when it was there but refused.
    pub gpu_error: Option<String>,
    pub tensorrt: Option<String>,
}

impl DeviceIdentity {
    /// Ask the CUDA driver and TensorRT (run in the identity worker, never in the app).
    pub fn query() -> Self {
        let (gpu, gpu_error) = match crate::runtime::query_nvidia_gpu() {
            Ok(gpu) => (gpu, None),
            Err(e) => (None, Some(e)),
        };
        DeviceIdentity {
            gpu,
            gpu_error,
            tensorrt: crate::runtime::query_tensorrt_version(),
        }
    }

    /// No worker could be asked: the identity of "we do not know", which still keys the cache.
    pub fn unknown(reason: String) -> Self {
        DeviceIdentity {
            gpu: None,
            gpu_error: Some(reason),
            tensorrt: None,
        }
    }
}

/// A file's identity without reading it: a runtime or provider update changes size or mtime.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub path: PathBuf,
    pub size: u64,
    pub modified_s: u64,
}

impl FileStamp {
    pub fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            path: path.to_path_buf(),
            size: meta.len(),
            modified_s: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs())
                .unwrap_or(0),
        })
    }
}

/// The runtime as the cache sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeIdentity {
    pub kind: RuntimeKind,
    pub version: String,
    pub library: Option<FileStamp>,
    /// ONNX Runtime's provider libraries beside it (`libonnxruntime_providers_cuda.so`, ...),
    /// which a GPU build of ONNX Runtime adds and a CPU build lacks.
    pub providers: Vec<FileStamp>,
}

impl RuntimeIdentity {
    pub fn of(runtime: &RuntimeOutcome) -> Self {
        let library = runtime.library.as_deref().and_then(FileStamp::of);
        let providers = runtime
            .library
            .as_deref()
            .and_then(Path::parent)
            .map(provider_libraries)
            .unwrap_or_default();
        RuntimeIdentity {
            kind: runtime.kind,
            version: runtime.version.clone(),
            library,
            providers,
        }
    }
}

fn provider_libraries(dir: &Path) -> Vec<FileStamp> {
    let mut found: Vec<FileStamp> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_ascii_lowercase();
            name.contains("onnxruntime_providers_")
        })
        .filter_map(|e| FileStamp::of(&e.path()))
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// One installed model file, by content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelStamp {
    pub model_id: String,
    pub sha256: String,
    pub size: u64,
    /// The hash matches the card's pin or the recorded import: the file will load. Engines are
    /// built only for these, so a stray file cannot demote the rung.
    pub verified: bool,
}

/// Every installed model file, hashed. Files that cannot be read are skipped: a model that
/// cannot load is the session's error to report, not the probe's.
pub fn model_stamps(store: &ModelStore) -> Vec<ModelStamp> {
    let mut out: Vec<ModelStamp> = store
        .cards()
        .iter()
        .filter_map(|card| {
            let bytes = std::fs::read(store.path_of(card)).ok()?;
            let sha256 = sha256_hex(&bytes);
            let verified = store
                .expected_hash(card)
                .ok()
                .flatten()
                .is_some_and(|h| h.eq_ignore_ascii_case(&sha256));
            Some(ModelStamp {
                model_id: card.model_id(),
                sha256,
                size: bytes.len() as u64,
                verified,
            })
        })
        .collect();
    out.sort_by(|a, b| a.model_id.cmp(&b.model_id));
    out
}

/// Everything the probe's result depends on. The cache is trusted only while every field is
/// equal: a driver, runtime or model change invalidates it by construction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeInputs {
    /// The engine's version: a change to the probe itself re-probes.
    pub darkroom: String,
    pub platform: Platform,
    pub runtime: RuntimeIdentity,
    pub device: DeviceIdentity,
    pub models: Vec<ModelStamp>,
    /// The test provider's settings, when it is on.
    pub simulated: Option<String>,
    /// TensorRT's workspace cap changes what an engine build may do.
    pub workspace_mb: u64,
}

/// The platform a device identity puts us on.
pub fn platform_of(device: &DeviceIdentity, simulated_rung: bool) -> Platform {
    if simulated_rung {
        Platform::SimulatedGpu
    } else if cfg!(target_os = "macos") {
        Platform::MacOs
    } else if device.gpu.is_some() {
        Platform::NvidiaGpu
    } else {
        Platform::NoNvidia
    }
}
