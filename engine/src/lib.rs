//! DarkRoom's inference engine: the only crate that names a runtime, a provider, a library
//! file or a vendor. Consumers ask [`Sessions`] for a session for a model card in a role.

pub mod cards;
pub mod error;
pub mod face;
pub mod fake;
pub mod image_io;
pub mod ladder;
pub mod paths;
pub mod releases;
pub mod role;
pub mod rungs;
pub mod runtime;
pub mod scene;
pub mod sessions;
pub mod settings;
pub mod store;
pub mod subject;
mod sys;
pub mod tuning;

pub use cards::{ArchiveKind, CardSet, DownloadSource, ModelCard, NumericForm, Role};
pub use error::EngineError;
pub use ladder::{Backend, BackendConfig, BackendStatus, JobPin, Placement, Precision, Rung};
pub use runtime::{RuntimeKind, RuntimeOutcome, RuntimeSearch};
pub use sessions::{ModelSession, Sessions};
pub use store::ModelStore;
pub use sys::priority::lower_this_thread;
pub use sys::signals::{end_on_closed_pipe, stop_on_interrupt};
pub use tuning::{OptLevel, SessionSettings};
