//! Getting model files: DarkRoom's model manager.
//!
//! A model card names its file's canonical upstream download (`[[download]]` in
//! `assets/models.toml`), pinned by sha256 and, where known, size. The manager shows the
//! licence, fetches with resume, refuses a wrong size before the body is read, checks the hash
//! before anything is used, takes the card's file out of an archive, and installs it in the
//! models dir through the engine's store, which checks the hash again on every load. A file
//! that fails is quarantined with a note, never loaded.
//!
//! This crate does the HTTP so that the engine stays free of a network stack. `parity` is the
//! release gate's arithmetic on what a derived form detects against its source (no model run
//! here: `darkroom parity` runs them).

pub mod error;
pub mod fetch;
pub mod manager;
pub mod parity;
pub mod people_accuracy;

pub use error::{FetchError, ManagerError};
pub use fetch::{FetchRequest, Fetcher, Pin, Progress};
pub use manager::{CardState, CardStatus, Installed, MIRROR_ENV, ModelManager, Offer, Quarantined};
