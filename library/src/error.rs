use std::path::PathBuf;

/// A per-photo failure: the cause, then the file.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LibraryError {
    #[error("cannot read image: {reason}: {}", path.display())]
    Image { reason: String, path: PathBuf },

    #[error("{what}: {reason}: {}", path.display())]
    Io {
        what: &'static str,
        reason: String,
        path: PathBuf,
    },
}

impl LibraryError {
    pub fn image(path: &std::path::Path, reason: impl std::fmt::Display) -> Self {
        LibraryError::Image {
            reason: reason.to_string(),
            path: path.to_path_buf(),
        }
    }

    pub fn io(what: &'static str, path: &std::path::Path, e: &std::io::Error) -> Self {
        LibraryError::Io {
            what,
            reason: e.to_string(),
            path: path.to_path_buf(),
        }
    }
}
