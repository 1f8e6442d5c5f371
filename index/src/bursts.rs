//! Bursts: consecutive frames taken close together that look alike. Frames are ordered by
//! capture time (EXIF DateTimeOriginal + SubSec), falling back to file name where a frame has
//! no time; a frame joins the burst before it when the gap is short and its perceptual hash is
//! close to the previous frame's. Each burst gets a suggested keeper, which the photographer
//! confirms; nothing is rejected automatically.

use serde::{Deserialize, Serialize};

use crate::expression::FacesDoing;
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
    /// What its faces that matter are doing.
    pub doing: FacesDoing,
    /// The sharpness where the camera focused (its AF area), where its file records one and
    /// no face judges the frame.
    pub af_sharpness: Option<f32>,
}

/// The sharpness a burst's frames are ranked by: where the camera focused when every frame of
/// the burst was measured there (frames of one moment, focused by one camera; one basis for
/// all, so the ranking is a total order), else the whole frame.
pub fn focus_of(whole: f32, at_af: Option<f32>, by_af: bool) -> f32 {
    match at_af {
        Some(af) if by_af => af,
        _ => whole,
    }
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

/// Indices of `frames` (capture time, name) in shooting order: by capture time; a frame
/// without one takes the time of the frame named before it (a camera numbers its shots in the
/// order it takes them), so it stays beside its neighbours and the order is total — a
/// comparison that used time for some pairs and names for others was not, and scrambled
/// bursts (or made the sort panic). Bursts, scenes and sets walk the same order.
pub fn shooting_order(frames: &[(Option<f64>, &str)]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..frames.len()).collect();
    by_name.sort_by(|&a, &b| frames[a].1.cmp(frames[b].1).then(a.cmp(&b)));
    let first = by_name.iter().find_map(|&i| frames[i].0).unwrap_or(0.0);
    let mut when = vec![first; frames.len()];
    let mut last = first;
    for &i in &by_name {
        if let Some(t) = frames[i].0 {
            last = t;
        }
        when[i] = last;
    }
    let mut order = by_name;
    order.sort_by(|&a, &b| {
        when[a]
            .total_cmp(&when[b])
            .then_with(|| frames[a].1.cmp(frames[b].1))
            .then(a.cmp(&b))
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

/// The frame to suggest keeping: its faces that matter best (eyes open, at the camera,
/// smiling; key people first: [`FacesDoing::compare`]), then the sharpest, then the one with
/// the most faces found.
pub fn suggest(frames: &[Frame], burst: &[usize]) -> Option<usize> {
    let by_af = burst.iter().all(|&m| frames[m].af_sharpness.is_some());
    burst.iter().copied().max_by(|&a, &b| {
        let (fa, fb) = (&frames[a], &frames[b]);
        let sa = focus_of(fa.sharpness, fa.af_sharpness, by_af);
        let sb = focus_of(fb.sharpness, fb.af_sharpness, by_af);
        (fa.doing.compare(&fb.doing, true, true))
            .then(sa.total_cmp(&sb))
            .then(fa.faces.cmp(&fb.faces))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untimed_frame_stays_beside_its_neighbours_and_the_order_is_total() {
        // A burst at 100 s with its third frame's EXIF stripped, and a later frame at 50 s
        // named after it (another body, its clock behind).
        let frames = [
            (Some(100.0), "IMG_0001"),
            (Some(100.2), "IMG_0002"),
            (None, "IMG_0003"),
            (Some(100.6), "IMG_0004"),
            (Some(50.0), "IMG_0005"),
            (None, "IMG_0000"),
        ];
        let order = shooting_order(&frames);
        let names: Vec<&str> = order.iter().map(|&i| frames[i].1).collect();
        assert_eq!(
            names,
            [
                "IMG_0005", "IMG_0000", "IMG_0001", "IMG_0002", "IMG_0003", "IMG_0004"
            ],
            "the burst whole, the untimed frame in it"
        );

        // Many frames, a third without a time: the sort never sees an inconsistent order
        // (std's sort may panic on one), and the result is sorted by one key.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let names: Vec<String> = (0..2000)
            .map(|i| format!("IMG_{:05}", (i * 7919) % 2000))
            .collect();
        let frames: Vec<(Option<f64>, &str)> = names
            .iter()
            .map(|n| {
                let t = (next() % 3 != 0).then(|| (next() % 500) as f64);
                (t, n.as_str())
            })
            .collect();
        let order = shooting_order(&frames);
        let mut seen = order.clone();
        seen.sort_unstable();
        assert_eq!(
            seen,
            (0..frames.len()).collect::<Vec<_>>(),
            "each frame once"
        );
        for pair in order.windows(2) {
            let (a, b) = (frames[pair[0]], frames[pair[1]]);
            if let (Some(ta), Some(tb)) = (a.0, b.0) {
                assert!(ta <= tb, "timed frames by time: {a:?} {b:?}");
            }
        }
    }
}
