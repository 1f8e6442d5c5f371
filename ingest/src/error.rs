//! Why a plan could not be made; every failure names its file last.

use std::path::PathBuf;

use darkroom_catalog::CatalogError;
use darkroom_library::ingest::{IngestError, RootsError};

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("the card is not a folder: {}", .0.display())]
    NotAFolder(PathBuf),
    #[error(transparent)]
    Roots(#[from] RootsError),
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error(transparent)]
    Read(#[from] IngestError),
    #[error("cannot read the file: {source}: {}", path.display())]
    Unreadable {
        #[source]
        source: std::io::Error,
        path: PathBuf,
    },
}
