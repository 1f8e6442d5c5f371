//! The segmenter role: what the photo is of. A salient-object segmenter (U²-Net) answers "where
//! is the subject"; an instance segmenter (YOLO-seg) answers "which things, of which class".
//! Both give masks at the size the caller measures at. Running a graph is `sessions`' job.

mod instances;
mod mask;
mod salient;
mod sample;

pub use crate::face::Fitted;
pub use instances::{Instance, InstanceSegmenter, YoloSegDecode};
pub use mask::Mask;
pub use salient::{Salient, SalientSegmenter};
pub use sample::bilinear;

use crate::cards::Resize;
use crate::error::EngineError;
use crate::role::Role;
use crate::sessions::ModelSession;

/// What both segmenters ask of their session's card before they decode with it: the segmenter
/// role, and the resize their decode inverts. The contract's own fields each constructor reads.
fn check_card(session: &ModelSession, resize: Resize) -> Result<(), EngineError> {
    if session.card.role != Role::Segmenter {
        return Err(EngineError::WrongRole {
            model_id: session.model_id(),
            wanted: Role::Segmenter,
            actual: session.card.role,
        });
    }
    if session.card.input.resize != resize {
        return Err(EngineError::CardMismatch {
            model_id: session.model_id(),
            reason: format!(
                "its input is resized by {:?}, its decoder inverts {resize:?}",
                session.card.input.resize
            ),
        });
    }
    Ok(())
}

/// The error for a card whose output contract is another decoder's.
fn other_contract(session: &ModelSession, wanted: &str) -> EngineError {
    EngineError::CardMismatch {
        model_id: session.model_id(),
        reason: format!("its output contract is not {wanted}"),
    }
}
