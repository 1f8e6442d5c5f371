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

    /// The file it is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            LibraryError::Image { path, .. } | LibraryError::Io { path, .. } => path,
        }
    }

    /// The message without the path, for callers that print the path themselves.
    pub fn cause(&self) -> String {
        match self {
            LibraryError::Image { reason, .. } => format!("cannot read image: {reason}"),
            LibraryError::Io { what, reason, .. } => format!("{what}: {reason}"),
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
