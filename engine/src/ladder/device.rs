//! Device identity and the probe's inputs: everything whose change must re-probe (spec §4.3).
//! Nothing here links a vendor library; the GPU is asked through the CUDA driver, dlopened in a
//! worker process.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::rungs::Platform;
use crate::runtime::{NvidiaGpu, RuntimeKind, RuntimeOutcome};
use crate::store::{ModelStore, sha256_hex};

/// What the worker learns about the machine: its GPU stack ("no GPU" is a valid answer) and
/// its CPU, whose instruction sets decide which session settings are fastest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    pub gpu: Option<NvidiaGpu>,
    /// Why the driver could not be asked, when it was there but refused.
    pub gpu_error: Option<String>,
    pub tensorrt: Option<String>,
    /// A home directory carried to another machine re-probes and re-tunes. (A cache written
    /// before this field existed reads as the default, which differs: it re-probes too.)
    #[serde(default)]
    pub cpu: CpuIdentity,
}

/// The CPU as far as session speed goes: its model and the instruction-set extensions ONNX
/// Runtime's kernels choose between, and how many cores it has.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuIdentity {
    pub model: String,
    /// The extensions from [`ISA_FLAGS`] this CPU has, in that order.
    pub isa: Vec<String>,
    pub physical_cores: usize,
    pub logical_cores: usize,
}

/// Instruction-set extensions that change which kernels ONNX Runtime (MLAS) runs, by their
/// Linux `/proc/cpuinfo` names (aarch64: `Features`).
pub const ISA_FLAGS: &[&str] = &[
    "sse4_1",
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_int8",
    "amx_bf16",
    "asimd",
    "asimddp",
    "i8mm",
    "bf16",
    "sve",
    "sve2",
];

impl CpuIdentity {
    /// Ask this process's CPU (cheap, no library: safe in the app process).
    pub fn query() -> Self {
        let (model, flags) = cpu_model_and_flags();
        let isa = ISA_FLAGS
            .iter()
            .filter(|f| flags.iter().any(|g| g == *f))
            .map(|f| (*f).to_owned())
            .collect();
        CpuIdentity {
            model,
            isa,
            physical_cores: num_cpus::get_physical(),
            logical_cores: num_cpus::get(),
        }
    }
}

/// The model name and the flag words: from `/proc/cpuinfo` on Linux; elsewhere from the
/// processor's own feature detection and (Windows) `PROCESSOR_IDENTIFIER`.
fn cpu_model_and_flags() -> (String, Vec<String>) {
    if let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") {
        return parse_cpuinfo(&text);
    }
    let model = std::env::var("PROCESSOR_IDENTIFIER").unwrap_or_default();
    (model, detected_flags())
}

/// The first processor's model name (x86 `model name`, else aarch64 `CPU part`) and flags
/// (`flags`, or aarch64 `Features`).
pub fn parse_cpuinfo(text: &str) -> (String, Vec<String>) {
    let field = |names: &[&str]| {
        text.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            names.contains(&key.trim()).then(|| value.trim().to_owned())
        })
    };
    let model = field(&["model name", "CPU part"]).unwrap_or_default();
    let flags = field(&["flags", "Features"])
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    (model, flags)
}

#[cfg(target_arch = "x86_64")]
fn detected_flags() -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |on: bool, name: &str| {
        if on {
            out.push(name.to_owned());
        }
    };
    add(std::arch::is_x86_feature_detected!("sse4.1"), "sse4_1");
    add(std::arch::is_x86_feature_detected!("sse4.2"), "sse4_2");
    add(std::arch::is_x86_feature_detected!("avx"), "avx");
    add(std::arch::is_x86_feature_detected!("avx2"), "avx2");
    add(std::arch::is_x86_feature_detected!("fma"), "fma");
    add(std::arch::is_x86_feature_detected!("f16c"), "f16c");
    add(std::arch::is_x86_feature_detected!("avxvnni"), "avx_vnni");
    add(std::arch::is_x86_feature_detected!("avx512f"), "avx512f");
    add(std::arch::is_x86_feature_detected!("avx512bw"), "avx512bw");
    add(std::arch::is_x86_feature_detected!("avx512vl"), "avx512vl");
    add(
        std::arch::is_x86_feature_detected!("avx512vnni"),
        "avx512_vnni",
    );
    add(
        std::arch::is_x86_feature_detected!("avx512bf16"),
        "avx512_bf16",
    );
    add(
        std::arch::is_x86_feature_detected!("avx512fp16"),
        "avx512_fp16",
    );
    // AMX detection is not stable in std yet; the model name (which names the generation)
    // still tells an AMX machine from one without.
    out
}

#[cfg(not(target_arch = "x86_64"))]
fn detected_flags() -> Vec<String> {
    Vec::new()
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
            cpu: CpuIdentity::query(),
        }
    }

    /// The simulated GPU's identity (the test provider), on this process's CPU.
    pub fn simulated(gpu: NvidiaGpu) -> Self {
        DeviceIdentity {
            gpu: Some(gpu),
            gpu_error: None,
            tensorrt: None,
            cpu: CpuIdentity::query(),
        }
    }

    /// No worker could be asked: the identity of "we do not know", which still keys the cache.
    pub fn unknown(reason: String) -> Self {
        DeviceIdentity {
            gpu: None,
            gpu_error: Some(reason),
            tensorrt: None,
            cpu: CpuIdentity::query(),
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
