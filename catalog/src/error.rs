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

    /// A person's id is another embedder's person: storing it would overwrite them.
    #[error(
        "person {id} is {owner}'s, not {embedder}'s: nothing stored for this photo: {}",
        path.display()
    )]
    PersonOfAnotherEmbedder {
        id: i64,
        owner: String,
        embedder: String,
        path: PathBuf,
    },

    /// Another index job is grouping this catalog's people ([`crate::Catalog::lock_people`]).
    #[error(
        "another index job is finding people in this catalog; try again when it is done: {}",
        path.display()
    )]
    PeopleBusy { path: PathBuf },

    /// A catalog of a schema this build does not read: newer (a later DarkRoom wrote it) or
    /// older and not yet upgraded (the catalog thread upgrades it when it opens it).
    #[error("catalog schema {found} where this DarkRoom reads {reads}: {}", path.display())]
    Schema {
        found: i32,
        reads: i32,
        path: PathBuf,
    },
}

impl CatalogError {
    /// Another connection holds the catalog's lock (past the busy timeout).
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            CatalogError::Db {
                source: rusqlite::Error::SqliteFailure(e, _),
                ..
            } if matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            )
        )
    }

    /// The same failure again, for another photo it befell (one folder flush or one commit
    /// shared by a batch).
    pub(crate) fn duplicate(&self) -> CatalogError {
        match self {
            CatalogError::Io { what, source, path } => CatalogError::Io {
                what,
                source: std::io::Error::new(source.kind(), source.to_string()),
                path: path.clone(),
            },
            CatalogError::MalformedXmp { reason, path } => CatalogError::MalformedXmp {
                reason: reason.clone(),
                path: path.clone(),
            },
            CatalogError::InvalidDecision { reason } => CatalogError::InvalidDecision {
                reason: reason.clone(),
            },
            CatalogError::Schema { found, reads, path } => CatalogError::Schema {
                found: *found,
                reads: *reads,
                path: path.clone(),
            },
            CatalogError::PeopleBusy { path } => CatalogError::PeopleBusy { path: path.clone() },
            CatalogError::PersonOfAnotherEmbedder {
                id,
                owner,
                embedder,
                path,
            } => CatalogError::PersonOfAnotherEmbedder {
                id: *id,
                owner: owner.clone(),
                embedder: embedder.clone(),
                path: path.clone(),
            },
            CatalogError::Db { source, path } => CatalogError::Io {
                what: "catalog error",
                source: std::io::Error::other(source.to_string()),
                path: path.clone(),
            },
        }
    }
}
