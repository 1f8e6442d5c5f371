//! The engine's one error type. Messages put the cause first and the path last.

use std::path::PathBuf;

use crate::role::Role;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("model cards are invalid: {reason}: {origin}")]
    CardsInvalid { reason: String, origin: String },

    #[error("model release records are invalid: {reason}: {origin}")]
    ReleasesInvalid { reason: String, origin: String },

    #[error("model {model_id} is not released: {reason}")]
    NotReleased { model_id: String, reason: String },

    #[error("no model card named {model_id}")]
    UnknownModel { model_id: String },

    #[error("model {model_id} is not installed: {}", path.display())]
    ModelMissing { model_id: String, path: PathBuf },

    #[error("cannot read model {model_id}: {source}: {}", path.display())]
    ModelRead {
        model_id: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "model {model_id} refused: sha256 mismatch, expected {expected}, found {found}: {}",
        path.display()
    )]
    HashMismatch {
        model_id: String,
        expected: String,
        found: String,
        path: PathBuf,
    },

    #[error(
        "model {model_id} has no pinned hash: import it first with `darkroom models import FILE --as {model_id}`: {}",
        path.display()
    )]
    NotImported { model_id: String, path: PathBuf },

    #[error("model {model_id} is not a usable ONNX model: {reason}: {}", path.display())]
    ModelInvalid {
        model_id: String,
        reason: String,
        path: PathBuf,
    },

    #[error("model {model_id} does not fit its card: {reason}: {}", path.display())]
    ContractMismatch {
        model_id: String,
        reason: String,
        path: PathBuf,
    },

    /// The card itself is inconsistent: its role's decoder cannot read what it declares.
    #[error("the card of model {model_id} does not fit its decoder: {reason}")]
    CardMismatch { model_id: String, reason: String },

    #[error("model {model_id} has role {actual}, asked for as {wanted}")]
    WrongRole {
        model_id: String,
        wanted: Role,
        actual: Role,
    },

    #[error(
        "model {model_id} must be f32 to serve as an embedder (embeddings stay comparable across backends)"
    )]
    EmbedderNotF32 { model_id: String },

    #[error("{rung} refused model {model_id}: {reason}")]
    Provider {
        model_id: String,
        rung: crate::rungs::Rung,
        reason: String,
    },

    #[error("{name} is invalid: {reason}: {}", path.display())]
    Setting {
        name: &'static str,
        reason: String,
        path: PathBuf,
    },

    #[error("inference failed in {model_id}: {reason}")]
    Inference { model_id: String, reason: String },

    #[error("cannot read image: {reason}: {}", path.display())]
    Image { reason: String, path: PathBuf },

    #[error("{what}: {source}: {}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("the {wanted} runtime was asked for, but this process already runs on {installed}")]
    RuntimeMismatch {
        wanted: &'static str,
        installed: String,
    },
}
