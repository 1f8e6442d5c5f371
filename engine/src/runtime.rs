//! Runtime selection: which `OrtApi` table this process runs on.
//!
//! It loads an ONNX Runtime library and reads its API table (through `crate::sys`, the one
//! module with `unsafe`) and hands it to `ort::set_api`, or hands over `ort_tract::api()` when
//! no usable library is found. `ort::set_api` is once per process, so the outcome is computed
//! once and kept in a `OnceLock`; the accepted library is leaked so it stays loaded for the life
//! of the process.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;

use crate::sys::ort_lib::{LoadFailure, OrtLibrary};

/// The oldest ONNX Runtime C API this binary accepts (`ort`'s `api-N` feature: 23, Arch's
/// onnxruntime; vendor/ort-tract is patched down from 24 so that unification keeps it there).
pub const REQUIRED_API: u32 = ort::sys::ORT_API_VERSION;

/// Which implementation of the ONNX Runtime API the process runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeKind {
    /// A dynamically loaded ONNX Runtime library.
    OnnxRuntime,
    /// The pure-Rust floor, `tract`, through `ort-tract`.
    Tract,
}

/// Where a candidate library came from, in search order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateSource {
    /// `DARKROOM_ORT_LIB`.
    Explicit,
    /// The directory holding the executable (Windows installer, Flatpak `/app/bin`).
    ExeDir,
    /// The app data dir's `runtime/` folder.
    DataDir,
    /// A bare library name resolved by the system loader (distro packages).
    System,
}

/// Why a candidate library was not used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rejection {
    /// No file at that path (or the system loader found nothing by that name).
    Missing { detail: String },
    /// The file exists but the loader refused it (not a library, wrong architecture, ...).
    NotALibrary { detail: String },
    /// The library loaded but has no `OrtGetApiBase` symbol.
    NoSymbol,
    /// `GetApi(REQUIRED_API)` returned NULL: the library is older than this binary needs.
    TooOld { found: String, required_api: u32 },
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Missing { detail } => write!(f, "not found ({detail})"),
            Rejection::NotALibrary { detail } => write!(f, "not a loadable library ({detail})"),
            Rejection::NoSymbol => {
                write!(f, "no OrtGetApiBase symbol: not an ONNX Runtime library")
            }
            Rejection::TooOld {
                found,
                required_api,
            } => write!(
                f,
                "ONNX Runtime {found} is too old: this build needs C API {required_api} (ONNX Runtime 1.{required_api} or newer)"
            ),
        }
    }
}

/// One library that was tried and not used.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedCandidate {
    pub source: CandidateSource,
    pub path: PathBuf,
    pub reason: Rejection,
    /// `reason` as one line, for people.
    pub message: String,
}

/// What the process runs on, and why.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeOutcome {
    pub kind: RuntimeKind,
    /// The runtime's own version string (`1.31.1`), or tract's crate version.
    pub version: String,
    /// The C API level requested from the library.
    pub api_level: u32,
    /// The library file in use (None for tract).
    pub library: Option<PathBuf>,
    pub library_source: Option<CandidateSource>,
    /// `DARKROOM_RUNTIME=tract` asked for the floor.
    pub forced_tract: bool,
    /// Every candidate that was tried and refused, in search order.
    pub rejected: Vec<RejectedCandidate>,
}

impl RuntimeOutcome {
    /// One line for people: "ONNX Runtime 1.31.1 (/usr/lib/libonnxruntime.so.1)" or
    /// "tract (no ONNX Runtime found: ...)".
    pub fn summary(&self) -> String {
        match self.kind {
            RuntimeKind::OnnxRuntime => match &self.library {
                Some(path) => format!("ONNX Runtime {} ({})", self.version, path.display()),
                None => format!("ONNX Runtime {}", self.version),
            },
            RuntimeKind::Tract if self.forced_tract => {
                "tract (forced by DARKROOM_RUNTIME=tract)".to_owned()
            }
            // The most telling rejection: a library that was there but unusable says more
            // than the places where nothing was.
            RuntimeKind::Tract => match self.rejected.iter().max_by_key(|r| match r.reason {
                Rejection::Missing { .. } => 0,
                Rejection::NotALibrary { .. } => 1,
                Rejection::NoSymbol => 2,
                Rejection::TooOld { .. } => 3,
            }) {
                Some(r) if !matches!(r.reason, Rejection::Missing { .. }) => format!(
                    "tract (no usable ONNX Runtime: {}: {})",
                    r.message,
                    r.path.display()
                ),
                _ => format!(
                    "tract (no ONNX Runtime found in {} places)",
                    self.rejected.len()
                ),
            },
        }
    }
}

/// Where to look, in order. Built from the environment by [`RuntimeSearch::from_env`]; tests
/// build their own.
#[derive(Debug, Clone, Default)]
pub struct RuntimeSearch {
    pub explicit: Option<PathBuf>,
    pub exe_dir: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    /// Whether to ask the system loader for the bare library names.
    pub system: bool,
    pub force_tract: bool,
}

impl RuntimeSearch {
    /// `DARKROOM_ORT_LIB`, the executable's directory, `<data dir>/runtime`, the system loader;
    /// `DARKROOM_RUNTIME=tract` forces the floor.
    pub fn from_env(data_dir: Option<&Path>) -> Self {
        let explicit = std::env::var_os("DARKROOM_ORT_LIB")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf));
        let force_tract = std::env::var("DARKROOM_RUNTIME")
            .map(|v| v.eq_ignore_ascii_case("tract"))
            .unwrap_or(false);
        RuntimeSearch {
            explicit,
            exe_dir,
            data_dir: data_dir.map(|d| d.join("runtime")),
            system: true,
            force_tract,
        }
    }
}

/// File names a runtime directory may hold, in preference order. Versioned Linux names
/// (`libonnxruntime.so.1.31.1`, as the PyPI wheel ships it) are found by scanning.
const DIR_NAMES: &[&str] = if cfg!(windows) {
    &["onnxruntime.dll"]
} else if cfg!(target_os = "macos") {
    &["libonnxruntime.dylib"]
} else {
    &["libonnxruntime.so", "libonnxruntime.so.1"]
};

/// Names handed to the system loader as they are (it searches its own path).
const SYSTEM_NAMES: &[&str] = if cfg!(windows) {
    &["onnxruntime.dll"]
} else if cfg!(target_os = "macos") {
    &["libonnxruntime.dylib"]
} else {
    &["libonnxruntime.so.1", "libonnxruntime.so"]
};

/// A library that passed every check, not yet installed.
pub struct AcceptedLibrary {
    library: libloading::Library,
    api: ort::sys::OrtApi,
    pub version: String,
    pub path: PathBuf,
}

impl std::fmt::Debug for AcceptedLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcceptedLibrary")
            .field("version", &self.version)
            .field("path", &self.path)
            .finish()
    }
}

/// Load `path` (a file path, or a bare name for the system loader) and check it is an ONNX
/// Runtime new enough for this build. Does not install anything.
pub fn check_candidate(path: &Path) -> Result<AcceptedLibrary, Rejection> {
    let is_bare_name = path.components().count() == 1 && !path.is_absolute();
    if !is_bare_name && !path.exists() {
        return Err(Rejection::Missing {
            detail: "no such file".to_owned(),
        });
    }
    let loaded = crate::sys::ort_lib::load(path, REQUIRED_API).map_err(|e| match e {
        LoadFailure::Open(e) if is_bare_name => Rejection::Missing {
            detail: format!("system loader: {e}"),
        },
        LoadFailure::Open(detail) => Rejection::NotALibrary { detail },
        LoadFailure::NoSymbol => Rejection::NoSymbol,
        LoadFailure::TooOld(found) => Rejection::TooOld {
            found,
            required_api: REQUIRED_API,
        },
    })?;
    let OrtLibrary {
        library,
        api,
        version,
    } = loaded;
    Ok(AcceptedLibrary {
        library,
        api,
        version,
        path: path.to_path_buf(),
    })
}

/// The candidates a directory offers: fixed names first, then versioned `.so.1.x.y` files,
/// newest first. An empty directory yields its first fixed name, so the outcome says where it
/// looked.
fn candidates_in_dir(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = DIR_NAMES
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.exists())
        .collect();
    if cfg!(all(unix, not(target_os = "macos"))) {
        let mut versioned: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let rest = name.strip_prefix("libonnxruntime.so.")?;
                let version: Vec<u32> = rest
                    .split('.')
                    .map(|p| p.parse().ok())
                    .collect::<Option<_>>()?;
                (version.len() > 1).then(|| (version, entry.path()))
            })
            .collect();
        versioned.sort_by(|a, b| b.0.cmp(&a.0));
        out.extend(versioned.into_iter().map(|(_, p)| p));
    }
    if out.is_empty() {
        out.push(dir.join(DIR_NAMES[0]));
    }
    out
}

/// Walk the search order without installing anything: the first accepted library (if any)
/// and every rejection before it.
pub fn search(
    search: &RuntimeSearch,
) -> (
    Option<(CandidateSource, AcceptedLibrary)>,
    Vec<RejectedCandidate>,
) {
    let mut rejected = Vec::new();
    let mut candidates: Vec<(CandidateSource, PathBuf)> = Vec::new();
    if let Some(p) = &search.explicit {
        candidates.push((CandidateSource::Explicit, p.clone()));
    }
    for (source, dir) in [
        (CandidateSource::ExeDir, &search.exe_dir),
        (CandidateSource::DataDir, &search.data_dir),
    ] {
        if let Some(dir) = dir {
            candidates.extend(candidates_in_dir(dir).into_iter().map(|p| (source, p)));
        }
    }
    if search.system {
        candidates.extend(
            SYSTEM_NAMES
                .iter()
                .map(|n| (CandidateSource::System, PathBuf::from(n))),
        );
    }
    for (source, path) in candidates {
        match check_candidate(&path) {
            Ok(lib) => return (Some((source, lib)), rejected),
            Err(reason) => {
                if source == CandidateSource::Explicit {
                    // The user named this file: a silent fallback would hide their mistake.
                    eprintln!(
                        "darkroom: DARKROOM_ORT_LIB is set but unusable, falling back: {reason}: {}",
                        path.display()
                    );
                }
                rejected.push(RejectedCandidate {
                    source,
                    message: reason.to_string(),
                    path,
                    reason,
                });
            }
        }
    }
    (None, rejected)
}

static INSTALLED: OnceLock<RuntimeOutcome> = OnceLock::new();

/// The runtime this process runs on, choosing and installing it on first call. Never panics:
/// every failure to find ONNX Runtime ends on tract with the reasons recorded.
pub fn install(search_order: &RuntimeSearch) -> &'static RuntimeOutcome {
    INSTALLED.get_or_init(|| choose_and_install(search_order))
}

/// Install tract regardless of what is on disk (tests, `Sessions::tract`). Returns the outcome
/// the process actually has: if another runtime was installed first, that one.
pub fn install_tract() -> &'static RuntimeOutcome {
    INSTALLED.get_or_init(|| install_floor(true, Vec::new()))
}

/// The installed runtime, if any call has chosen one yet.
pub fn installed() -> Option<&'static RuntimeOutcome> {
    INSTALLED.get()
}

fn choose_and_install(search_order: &RuntimeSearch) -> RuntimeOutcome {
    if search_order.force_tract {
        return install_floor(true, Vec::new());
    }
    let (found, rejected) = search(search_order);
    match found {
        Some((source, lib)) => {
            let AcceptedLibrary {
                library,
                api,
                version,
                path,
            } = lib;
            if !ort::set_api(api) {
                // Someone called ort::set_api behind our back; we cannot know what it is.
                eprintln!(
                    "darkroom: an ONNX Runtime API table was already installed in this process"
                );
            }
            // The table points into the library: it must never be unloaded.
            let _: &'static mut libloading::Library = Box::leak(Box::new(library));
            RuntimeOutcome {
                kind: RuntimeKind::OnnxRuntime,
                version,
                api_level: REQUIRED_API,
                library: Some(path),
                library_source: Some(source),
                forced_tract: false,
                rejected,
            }
        }
        None => install_floor(false, rejected),
    }
}

fn install_floor(forced: bool, rejected: Vec<RejectedCandidate>) -> RuntimeOutcome {
    ort::set_api(ort_tract::api());
    floor_outcome(forced, rejected)
}

fn floor_outcome(forced: bool, rejected: Vec<RejectedCandidate>) -> RuntimeOutcome {
    RuntimeOutcome {
        kind: RuntimeKind::Tract,
        version: TRACT_VERSION.to_owned(),
        api_level: REQUIRED_API,
        library: None,
        library_source: None,
        forced_tract: forced,
        rejected,
    }
}

/// The NVIDIA GPU the CUDA driver reports as device 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NvidiaGpu {
    pub name: String,
    /// `8.6` for an RTX 30xx.
    pub compute_capability: String,
    /// The CUDA version the driver supports (`12.4`), and on Linux the kernel driver's own
    /// version (`550.54.14`) when `/proc` has it.
    pub driver_version: String,
}

/// Ask the CUDA driver (dlopened, never linked) for device 0. `Ok(None)` when there is no
/// driver or no device, which is the common case. Runs vendor code that can hang or crash on a
/// wedged driver, so the app calls it only in a probe child process.
pub fn query_nvidia_gpu() -> Result<Option<NvidiaGpu>, String> {
    let Some(d) = crate::sys::cuda::device0()? else {
        return Ok(None);
    };
    let v = d.driver_api_version;
    let mut driver_version = format!("CUDA {}.{}", v / 1000, (v % 1000) / 10);
    if let Some(kernel) = linux_kernel_driver_version() {
        driver_version = format!("{kernel} ({driver_version})");
    }
    Ok(Some(NvidiaGpu {
        name: d.name,
        compute_capability: format!("{}.{}", d.compute_major, d.compute_minor),
        driver_version,
    }))
}

/// `550.54.14` from `/proc/driver/nvidia/version`, where there is one.
fn linux_kernel_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    let after = line.split("Kernel Module").nth(1)?;
    after.split_whitespace().next().map(str::to_owned)
}

/// TensorRT's version (`10.3.0`) from its core library, when the loader can find one.
pub fn query_tensorrt_version() -> Option<String> {
    let v = crate::sys::tensorrt::lib_version()?;
    // TensorRT 10 encodes major*10000 + minor*100 + patch; 8.x encoded major*1000 + minor*100.
    Some(if v >= 10000 {
        format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
    } else {
        format!("{}.{}.{}", v / 1000, (v / 100) % 10, v % 100)
    })
}

/// Lower this process's scheduling priority so probes and engine builds yield to the app and
/// its index job. Best effort: a refusal leaves the priority as it was.
pub fn lower_process_priority() {
    crate::sys::priority::lower();
}

/// ort-tract's version (0.5.0 wraps tract 0.23).
const TRACT_VERSION: &str = "ort-tract 0.5.0 (tract 0.23)";

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(reasons: Vec<Rejection>) -> RuntimeOutcome {
        floor_outcome(
            false,
            reasons
                .into_iter()
                .enumerate()
                .map(|(i, reason)| RejectedCandidate {
                    source: CandidateSource::DataDir,
                    path: PathBuf::from(format!("/lib{i}.so")),
                    message: reason.to_string(),
                    reason,
                })
                .collect(),
        )
    }

    #[test]
    fn summary_names_the_most_telling_rejection() {
        let missing = || Rejection::Missing {
            detail: "no such file".into(),
        };
        let o = outcome(vec![
            missing(),
            Rejection::TooOld {
                found: "1.22.1".into(),
                required_api: 23,
            },
            missing(),
        ]);
        assert_eq!(
            o.summary(),
            "tract (no usable ONNX Runtime: ONNX Runtime 1.22.1 is too old: this build needs C API 23 (ONNX Runtime 1.23 or newer): /lib1.so)"
        );
        assert_eq!(
            outcome(vec![missing(), missing()]).summary(),
            "tract (no ONNX Runtime found in 2 places)"
        );
    }
}
