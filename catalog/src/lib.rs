//! Culling decisions that are never lost: an SQLite catalog (WAL, synchronous commits) and XMP
//! sidecars that darktable, digiKam and Lightroom read. The catalog is the record; a sidecar is
//! written after every commit and rewritten on the next open if the process died in between.
//! Sidecars written by other tools are merged, never replaced.

pub mod client;
pub mod clocks;
pub mod db;
pub mod decision;
pub mod error;
pub mod faces;
pub mod held;
pub mod ingested;
pub mod journal;
pub mod outside;
pub mod sidecar;
pub mod xmp;

pub use clocks::BodyClock;
pub use db::{Catalog, Changed, ImportOutcome};
pub use decision::{Change, ColourLabel, Decision, Flag, Label};
pub use error::CatalogError;
pub use faces::{
    AfRow, ExposureRow, ExpressionRow, FaceRow, IndexStamp, JudgedFace, LookRow, MEASURES,
    PeopleLock, PersonListed, PersonRow, PhotoIndex, Remeasured, SubjectRow,
};
pub use held::{CardFile, Carried, FileStamp, Head};
pub use ingested::IngestedFile;
pub use journal::JournalEntry;
pub use sidecar::SidecarNaming;
pub use xmp::SidecarWords;
