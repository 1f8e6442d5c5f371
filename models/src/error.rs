use std::path::PathBuf;

/// Why a download did not produce a verified file. Paths and URLs come last.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("download failed after {attempts} attempts ({cause}): {url}")]
    Transport {
        attempts: u32,
        cause: String,
        url: String,
    },
    #[error("the server answered {status}: {url}")]
    Status { status: u16, url: String },
    #[error("the server offers {offered} bytes but the pinned size is {pinned}; refused: {url}")]
    SizeRefused {
        offered: u64,
        pinned: u64,
        url: String,
    },
    #[error("the download is larger than the {limit} bytes it may be; refused: {url}")]
    TooLarge { limit: u64, url: String },
    #[error(
        "the download's sha256 is {found}, not the pinned {expected}; it was quarantined, never \
         loaded: {}",
        quarantined.display()
    )]
    HashMismatch {
        expected: String,
        found: String,
        quarantined: PathBuf,
    },
    #[error("cancelled; the part already fetched is kept and the next try resumes it")]
    Cancelled,
    #[error("{what}: {source}: {}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why the model manager could not install a model.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Engine(#[from] darkroom_engine::EngineError),
    #[error(
        "{model_id} has no download this build knows and no mirror serves it: import a file you \
         have with `darkroom models import FILE --as {model_id}`, or install from a folder"
    )]
    NoSource { model_id: String },
    #[error("{model_id}: the licence must be accepted before the download: {licence}")]
    LicenceNotAccepted { model_id: String, licence: String },
    #[error("{member} is not in the archive ({reason}): {}", path.display())]
    Archive {
        member: String,
        reason: String,
        path: PathBuf,
    },
    #[error(
        "{model_id}: the file's sha256 is {found}, not the pinned {expected}; it was quarantined, \
         never loaded: {}",
        quarantined.display()
    )]
    Mismatch {
        model_id: String,
        expected: String,
        found: String,
        quarantined: PathBuf,
    },
    #[error("{what}: {source}: {}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}
