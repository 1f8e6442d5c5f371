//! Culling intelligence over a library: the index job (decode → detect → align → embed → eye
//! state, stages overlapping through bounded queues, pinned to one backend and one set of
//! model_ids), and what is derived from its rows: focus, bursts, people and the auto-cull
//! proposal. Sessions come from the engine through a `JobPin`; rows go to the catalog.

pub mod across;
pub mod analysis;
pub mod bursts;
pub mod cull;
pub mod culling;
pub mod exposure;
pub mod expression;
pub mod eyes;
pub mod focus;

pub mod job;
pub mod looks;
pub mod luma;
pub mod models;
pub mod people;
pub mod phash;
pub mod proposal;
pub mod scenes;
pub mod sets;
pub mod subject;
pub mod tags;
pub mod thresholds;

pub use analysis::{BurstPlace, PhotoAnalysis, analyse};
pub use bursts::{BurstRules, Frame};
pub use job::{Control, Event, JobConfig, Models, Progress, Summary};
pub use models::{OpenError, open_models, pick_model};
pub use people::People;
pub use proposal::{Candidate, ProposalRules, Proposed, Reason, Strictness};
pub use thresholds::Thresholds;
