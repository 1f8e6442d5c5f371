//! Photos on disk: scanning a folder into items (a RAW and its JPEG twin are one item),
//! finding the JPEG previews cameras embed in RAW files, decoding the right way up within
//! memory limits, cached thumbnails, and handing photos off to another folder. No inference
//! here: the engine depends on this crate for decoding, not the other way round.

pub mod af;
pub mod budget;
pub mod card;
pub mod clock;
pub mod decode;
pub mod durable;
pub mod error;
pub mod export;
pub mod facts;
pub mod formats;
pub mod geometry;
pub mod histogram;
pub mod ingest;
pub mod jpeg;
pub mod jpeg_dc;
pub mod measure;
pub mod peaking;
pub mod preview;
pub mod regular;
// Not in the library's own unit-test build: nothing here uses it, and its SIMD kernels are the
// library's costliest code to compile (about 50 CPU-s a build). tests/library.rs tests it.
#[cfg(not(test))]
pub mod resize;
pub mod scan;
pub mod sidecars;
mod sys;
pub mod thumbs;
pub mod volume;
pub mod working;

pub use budget::Budget;
pub use error::LibraryError;
pub use scan::{Item, ItemKind, ScanEvent};
