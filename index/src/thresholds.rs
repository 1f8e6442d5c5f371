//! The numbers the index and what is derived from it decide by, as data: the job's, the
//! analysis's and the proposal's, in one place (Settings edits some).

use serde::{Deserialize, Serialize};

use crate::bursts::BurstRules;
use crate::eyes::EyeJudge;
use crate::scenes::SceneRules;
use crate::sets::SetRules;
use crate::subject::SubjectScope;

/// The numbers the job and what is derived from it decide by, as data (Settings edits some).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Cosine similarity to a person's centre for a face to join them, for an embedder whose
    /// card states none of its own (`same_person`).
    pub person_similarity: f32,
    /// A photo whose sharpness is below this is "blurry".
    pub blurry_below: f32,
    /// A face whose eyes' mean probability of being open is below this has "eyes closed".
    pub eyes_open_at_least: f32,
    /// Eyes closer together than this many pixels (of the analysed image) are too small to
    /// judge: the face's eye state is left unknown rather than guessed.
    pub eyes_min_distance_px: f32,
    /// A subject whose sharpness is below this is "soft" whatever its background.
    #[serde(default = "default_subject_soft_below")]
    pub subject_soft_below: f32,
    /// A subject less sharp than this share of its background is "soft": the focus went past
    /// or short of it.
    #[serde(default = "default_subject_to_background")]
    pub subject_to_background_at_least: f32,
    /// Eyes less sharp than this multiple of their face are "soft": the focus is on the nose,
    /// the ears or the hair. Above 1: in focus, an eye (lashes, iris, catchlight) is the
    /// sharpest part of a face (1.55–6.6× on the corpus; `darkroom bench-focus`).
    #[serde(default = "default_eyes_to_face")]
    pub eyes_to_face_at_least: f32,
    pub bursts: BurstRules,
    /// What makes frames one scene (the similarity and time-gap controls).
    #[serde(default)]
    pub scenes: SceneRules,
    /// What makes frames a bracket or a pan.
    #[serde(default)]
    pub sets: SetRules,
    /// Whose verdict a face's eyes get: the face mesh's (the default) or the eye-state model's.
    #[serde(default)]
    pub eye_judge: EyeJudge,
    /// A face at least this share of the frame's largest face's area is one that matters: the
    /// frame is judged by the worst of them (`expression::FacesDoing`).
    #[serde(default = "default_prominent_face_share")]
    pub prominent_face_share: f32,
    /// Which photos the index looks for a subject in, after every photo's faces are in.
    #[serde(default)]
    pub subjects: SubjectScope,
    /// Judge a frame no face judges where the camera focused (its maker notes' AF points),
    /// instead of looking for its subject with the segmenter.
    #[serde(default = "default_af_points")]
    pub af_points: bool,
    /// A frame less sharp where the camera focused than this share of the sharpest frame of
    /// its burst (else scene) there is "soft at the AF point".
    #[serde(default = "default_af_to_best")]
    pub af_to_best_at_least: f32,
    /// An AF area less than this share of which the subject's mask covers is "off the
    /// subject": the camera focused on something else.
    #[serde(default = "default_af_on_subject")]
    pub af_on_subject_at_least: f32,
}

fn default_af_points() -> bool {
    true
}

fn default_af_to_best() -> f32 {
    Thresholds::default().af_to_best_at_least
}

fn default_af_on_subject() -> f32 {
    Thresholds::default().af_on_subject_at_least
}

fn default_prominent_face_share() -> f32 {
    Thresholds::default().prominent_face_share
}

fn default_subject_soft_below() -> f32 {
    Thresholds::default().subject_soft_below
}

fn default_subject_to_background() -> f32 {
    Thresholds::default().subject_to_background_at_least
}

fn default_eyes_to_face() -> f32 {
    Thresholds::default().eyes_to_face_at_least
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            person_similarity: 0.45,
            blurry_below: 40.0,
            eyes_open_at_least: 0.5,
            eyes_min_distance_px: 16.0,
            subject_soft_below: 40.0,
            subject_to_background_at_least: 0.25,
            eyes_to_face_at_least: 1.3,
            bursts: BurstRules::default(),
            scenes: SceneRules::default(),
            sets: SetRules::default(),
            eye_judge: EyeJudge::default(),
            prominent_face_share: 0.25,
            subjects: SubjectScope::default(),
            af_points: true,
            af_to_best_at_least: 0.4,
            af_on_subject_at_least: 0.1,
        }
    }
}
