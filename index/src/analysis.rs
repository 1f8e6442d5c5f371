//! What the index rows say about each photo of a folder, for the grid and the command line:
//! sharpness and the blurry flag, faces and closed eyes, the burst it belongs to (its place in
//! it) and whether it is the burst's suggested keeper.

use std::path::PathBuf;

use darkroom_catalog::PhotoIndex;
use serde::Serialize;

use crate::bursts::{self, Frame};
use crate::job::Thresholds;

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
        })
        .collect()
}
