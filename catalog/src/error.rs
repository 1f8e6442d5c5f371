use std::path::PathBuf;

/// Every failure names its file last.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("catalog error: {source}: {}", path.display())]
    Db {
        #[source]
        source: rusqlite::Error,
        path: PathBuf,
    },

    #[error("{what}: {source}: {}", path.display())]
    Io {
        what: &'static str,
        #[source]
        source: std::io::Error,
        path: PathBuf,
    },

    #[error("malformed XMP sidecar (left untouched): {reason}: {}", path.display())]
    MalformedXmp { reason: String, path: PathBuf },

    #[error("invalid decision: {reason}")]
    InvalidDecision { reason: String },
}
