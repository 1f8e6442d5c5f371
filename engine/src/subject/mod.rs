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
