//! The backend ladder (spec inference-backends §2, §4, §6, §7, §9): which rung serves models on
//! this device, chosen by timing real sessions in worker processes, cached until an input
//! changes, with compiled engines built in the background and jobs pinned to the backend they
//! started on.
//!
//! How a request finds its session: the app starts one [`Backend`] at launch; a job calls
//! [`Backend::pin`] when it starts, and opens every session through [`JobPin::open`], which asks
//! [`crate::Sessions::open_placed`] for the pinned [`Placement`] (rung, precision, engine dir).

pub mod backend;
pub mod cache;
pub mod child;
pub mod device;
pub mod engines;
pub mod probe;
pub mod tune;
pub mod worker;

pub use backend::{
    Backend, BackendConfig, BackendSettings, BackendStatus, JobPin, Override, OverrideSource,
};
pub use child::Launcher;
// Leaves the ladder shares with the sessions, at their old paths.
pub use crate::{fake, rungs};
pub use rungs::{Placement, Precision, Rung};
