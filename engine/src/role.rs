//! A leaf: what a model is for. The cards, the sessions and the ladder's precision rules all
//! speak of it.

use serde::{Deserialize, Serialize};

/// What a model is for. Consumers ask for a session by role; the role decides precision rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Detector,
    Embedder,
    EyeState,
    Segmenter,
    Scene,
    /// Points on a face (MediaPipe's mesh): lids, mouth, outline.
    FaceMesh,
    /// Points on one eye: its lids' contour and its iris.
    Iris,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Detector => "detector",
            Role::Embedder => "embedder",
            Role::EyeState => "eye-state",
            Role::Segmenter => "segmenter",
            Role::Scene => "scene",
            Role::FaceMesh => "face-mesh",
            Role::Iris => "iris",
        })
    }
}
