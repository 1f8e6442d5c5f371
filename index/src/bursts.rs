//! Bursts: consecutive frames taken close together that look alike. Frames are ordered by
//! capture time (EXIF DateTimeOriginal + SubSec), falling back to file name where a frame has
//! no time; a frame joins the burst before it when the gap is short and its perceptual hash is
//! close to the previous frame's. Each burst gets a suggested keeper, which the photographer
//! confirms; nothing is rejected automatically.

use serde::{Deserialize, Serialize};

use crate::phash;

/// When two frames are one burst.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BurstRules {
    /// Longest gap between consecutive frames, seconds.
    pub max_gap_s: f64,
    /// Most differing bits of the 64-bit perceptual hash between consecutive frames.
    pub max_hash_distance: u32,
}

impl Default for BurstRules {
    fn default() -> Self {
        BurstRules {
            max_gap_s: 2.0,
            max_hash_distance: 12,
        }
    }
}

/// What the grouping and the suggestion look at, per photo.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Tie-break and fallback order (the file name).
    pub name: String,
    /// Seconds, any fixed origin.
    pub captured_at: Option<f64>,
    pub hash: u64,
    pub sharpness: f32,
    pub faces: usize,
    /// Faces whose eyes were found closed.
    pub eyes_closed: usize,
}

/// Bursts of two or more frames, as indices into `frames`, each in shooting order.
pub fn group(frames: &[Frame], rules: &BurstRules) -> Vec<Vec<usize>> {
    let order = shooting_order(
        &frames
            .iter()
            .map(|f| (f.captured_at, f.name.as_str()))
            .collect::<Vec<_>>(),
    );
    let mut bursts = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for &i in &order {
        let joins = current.last().is_some_and(|&prev| {
            let (p, f) = (&frames[prev], &frames[i]);
            close_in_time(p.captured_at, f.captured_at, rules.max_gap_s)
                && phash::distance(p.hash, f.hash) <= rules.max_hash_distance
        });
        if !joins {
            if current.len() > 1 {
                bursts.push(std::mem::take(&mut current));
            }
            current.clear();
        }
        current.push(i);
    }
    if current.len() > 1 {
        bursts.push(current);
    }
    bursts
}

/// Indices of `frames` (capture time, name) in shooting order: by capture time, by name where
/// a frame has none. Bursts, scenes and sets walk the same order.
pub fn shooting_order(frames: &[(Option<f64>, &str)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..frames.len()).collect();
    order.sort_by(|&a, &b| {
        let ((ta, na), (tb, nb)) = (frames[a], frames[b]);
        match (ta, tb) {
            (Some(ta), Some(tb)) => ta.total_cmp(&tb).then_with(|| na.cmp(nb)),
            _ => na.cmp(nb),
        }
    });
    order
}

/// Whether two frames in shooting order are at most `max_gap_s` apart; frames without a time
/// are judged on their looks alone.
pub fn close_in_time(a: Option<f64>, b: Option<f64>, max_gap_s: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (b - a).abs() <= max_gap_s,
        _ => true,
    }
}

/// The frame to suggest keeping: eyes open on every face first, then the sharpest, then the
/// one with the most faces found.
pub fn suggest(frames: &[Frame], burst: &[usize]) -> Option<usize> {
    burst.iter().copied().max_by(|&a, &b| {
        let (fa, fb) = (&frames[a], &frames[b]);
        (fb.eyes_closed.cmp(&fa.eyes_closed))
            .then(fa.sharpness.total_cmp(&fb.sharpness))
            .then(fa.faces.cmp(&fb.faces))
    })
}
