//! The face pipeline: detect (SCRFD), align (5-point similarity to the ArcFace template),
//! embed (L2-normalised 512-d); the mesh and the irises on each face, and the expression they
//! make. Pre- and post-processing live here; running a graph is
//! `sessions`' job.

mod align;
mod detector;
mod embedder;
mod expression;
mod eyes;
mod mesh;
mod nms;
mod tensor;

pub use align::{ARCFACE_TEMPLATE, DLIB_TEMPLATE, Similarity, warp_affine_rgb};
pub use detector::{FaceDetector, Prepared};
pub use embedder::{FaceEmbedder, cosine};
pub use expression::{
    EXPRESSION_RULES, Expression, ExpressionReader, ExpressionRules, Openness, eye_openness,
    iris_offset,
};
pub use eyes::{EYE_CROP_SIDE, EyeClassifier, EyeReading, EyeState, eye_distance};
pub use mesh::{
    EYE_CORNERS, EYE_CROP_SCALE, EyePoints, FaceMesh, IrisModel, LandmarkCrop, MESH_CROP_SCALE,
    MeshPoints,
};
pub use nms::{iou, nms};
pub use tensor::{
    Fitted, letterbox_centre, letterbox_top_left, normalise_nchw, resize_bilinear, stretched_nchw,
};

use serde::{Deserialize, Serialize};

/// One detected face, in the original photo's pixel coordinates (after EXIF orientation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Face {
    /// [x0, y0, x1, y1].
    #[serde(rename = "box")]
    pub bbox: [f32; 4],
    pub score: f32,
    /// Left eye, right eye, nose, left mouth corner, right mouth corner (as seen in the photo).
    pub landmarks: [[f32; 2]; 5],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f32>>,
}
