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
    let mut order: Vec<usize> = (0..frames.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (&frames[a], &frames[b]);
        match (fa.captured_at, fb.captured_at) {
            (Some(ta), Some(tb)) => ta.total_cmp(&tb).then_with(|| fa.name.cmp(&fb.name)),
            _ => fa.name.cmp(&fb.name),
        }
    });
    let mut bursts = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for &i in &order {
        let joins = current.last().is_some_and(|&prev| {
            let (p, f) = (&frames[prev], &frames[i]);
            let close_in_time = match (p.captured_at, f.captured_at) {
                (Some(a), Some(b)) => (b - a).abs() <= rules.max_gap_s,
                // Without times, neighbours by name are judged on their looks alone.
                _ => true,
            };
            close_in_time && phash::distance(p.hash, f.hash) <= rules.max_hash_distance
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
