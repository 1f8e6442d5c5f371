//! What the index rows say about each photo of a folder, for the grid and the command line:
//! sharpness and the blurry flag, faces and closed eyes, the burst it belongs to (its place in
//! it) and whether it is the burst's suggested keeper; the subject's focus and the eyes'.

use std::path::PathBuf;

use darkroom_catalog::PhotoIndex;
use serde::Serialize;

use crate::bursts::{self, Frame};
use crate::job::Thresholds;
use crate::subject;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BurstPlace {
    /// Bursts are numbered from 0 in shooting order.
    pub id: usize,
    /// 1-based place in the burst.
    pub position: usize,
    pub size: usize,
    /// The frame suggested to keep (the photographer decides).
    pub suggested: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhotoAnalysis {
    pub path: PathBuf,
    /// The detector's model_id it was indexed with.
    pub detector: String,
    pub sharpness: f32,
    pub blurry: bool,
    pub faces: usize,
    /// Some face has its eyes closed.
    pub eyes_closed: bool,
    /// Each face's person (None without an embedder) and box, as fractions of the photo's
    /// width and height, so any rendition of the photo can show it.
    pub people: Vec<(Option<i64>, [f32; 4])>,
    pub burst: Option<BurstPlace>,
    /// A face of it had its eyes judged, so its faces judge it ([`subject::judged_by_faces`]).
    pub judged_by_faces: bool,
    /// The subject's focus, where a segmenter found one (the index looks only in a photo its
    /// faces do not judge).
    pub subject: Option<SubjectFocus>,
    /// Some face whose eyes could be judged has them softer than the rest of the face.
    pub eyes_soft: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubjectFocus {
    /// The instance's class; None for the salient object.
    pub class: Option<String>,
    pub sharpness: f32,
    pub background: Option<f32>,
    /// Softer than [`Thresholds::subject_soft_below`], or than its background by
    /// [`Thresholds::subject_to_background_at_least`].
    pub soft: bool,
}

/// Whether a subject of `sharpness` before a background of `background` is soft.
pub fn subject_soft(sharpness: f32, background: Option<f32>, t: &Thresholds) -> bool {
    sharpness < t.subject_soft_below
        || background.is_some_and(|b| sharpness < t.subject_to_background_at_least * b)
}

/// Whether eyes of `eyes` sharpness in a face of `face` sharpness are soft.
pub fn eyes_soft(eyes: Option<f32>, face: f32, t: &Thresholds) -> bool {
    eyes.is_some_and(|e| e < t.eyes_to_face_at_least * face)
}

/// Every indexed photo's analysis, in the order given.
pub fn analyse(indexed: &[(PathBuf, PhotoIndex)], thresholds: &Thresholds) -> Vec<PhotoAnalysis> {
    let frames: Vec<Frame> = indexed
        .iter()
        .map(|(path, i)| Frame {
            name: path.to_string_lossy().into_owned(),
            captured_at: i.captured_at,
            hash: i.phash,
            sharpness: i.sharpness,
            faces: i.faces.len(),
            eyes_closed: i
                .faces
                .iter()
                .filter(|f| f.eyes_closed == Some(true))
                .count(),
        })
        .collect();
    let mut places: Vec<Option<BurstPlace>> = vec![None; frames.len()];
    for (id, members) in bursts::group(&frames, &thresholds.bursts)
        .iter()
        .enumerate()
    {
        let keeper = bursts::suggest(&frames, members);
        for (k, &m) in members.iter().enumerate() {
            places[m] = Some(BurstPlace {
                id,
                position: k + 1,
                size: members.len(),
                suggested: keeper == Some(m),
            });
        }
    }
    indexed
        .iter()
        .zip(places)
        .map(|((path, i), burst)| PhotoAnalysis {
            path: path.clone(),
            detector: i.stamp.detector.clone(),
            sharpness: i.sharpness,
            blurry: i.sharpness < thresholds.blurry_below,
            faces: i.faces.len(),
            eyes_closed: i.faces.iter().any(|f| f.eyes_closed == Some(true)),
            people: i
                .faces
                .iter()
                .map(|f| {
                    let (w, h) = (i.width.max(1) as f32, i.height.max(1) as f32);
                    let [x0, y0, x1, y1] = f.bbox;
                    (f.person, [x0 / w, y0 / h, x1 / w, y1 / h])
                })
                .collect(),
            burst,
            judged_by_faces: subject::judged_by_faces(&i.faces),
            subject: i.subject.as_ref().map(|s| SubjectFocus {
                class: s.class.clone(),
                sharpness: s.sharpness,
                background: s.background,
                soft: subject_soft(s.sharpness, s.background, thresholds),
            }),
            eyes_soft: i
                .faces
                .iter()
                .any(|f| eyes_soft(f.eyes_sharpness, f.sharpness, thresholds)),
        })
        .collect()
}
