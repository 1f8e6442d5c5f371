//! Ingest, one service the window and the command line are thin front ends over: a [`Plan`]
//! first (the card scanned and only read, the photos in shooting order on the shoot's one
//! clock, each photo's files — a RAW, its JPEG twin, their sidecars — named by the pattern under
//! one stem, what was ingested before left out by content, names already on a drive asked
//! about, names an unfinished run gave kept from its journal), then [`run`]: the drives told
//! apart and held, the plan recorded in the journal before a byte is copied, each file read
//! once and written to every drive, verified before it takes its name, recorded as it lands in
//! the commit that marks its journal entry done. A run stopped anywhere (a card pulled, a disk
//! full, cancel, a closed window, kill) is finished by the next exactly as the journal says.
//! Decisions held for the card's files travel into their copies exactly once; clock
//! corrections are written into the working copy only, when asked.

mod error;
mod finish;
pub mod plan;
pub mod run;

pub use error::PlanError;
pub use plan::{
    Collisions, DEFAULT_PATTERN, LandedFile, Options, Plan, PlannedFile, PlannedPhoto, Surveyed,
    plan, preview, survey,
};
pub use run::{Event, Outcome, Progress, run};
