//! Scenes: consecutive frames of one set-up. A posed group over twenty seconds, a ceremony
//! moment from two positions, the same table lit two ways: frames that differ in expression or
//! a step to the side, which a burst's 12-bit hash distance splits. A frame joins the scene
//! before it when it was taken within the time gap of the frame before it and looks like one
//! of that scene's last few frames by [`similarity`]; a frame of the same set (a bracket, a
//! pan) joins regardless of its looks, and a misfire (a lens cap, the ground) joins the scene it
//! was shot in, never being a look to compare with. Bursts are the tight case inside a scene.
//!
//! The similarity is a weighted mean of three measures the index already stores:
//! - the colour layout (8×8 mean CIELAB, each frame's mean lightness taken out): a set-up's
//!   background, light and colours, which stay when people move, change expression or the
//!   photographer steps aside, and which a stop brighter or darker does not change;
//! - the 64-bit perceptual hash: the frame's structure, close for frames of one composition;
//! - the subject's mask overlap, where both frames have one (the index segments photos no face
//!   judges): the subject kept its place.
//!
//! A learned embedding would judge "the same scene" better on some shoots, but none with
//! permissively licensed weights is in a registry this project can fetch; the three measures
//! cost nothing at grouping time and are measured on the same decode as the rest.

use darkroom_engine::subject::Mask;
use serde::{Deserialize, Serialize};

use crate::bursts::{close_in_time, shooting_order};
use crate::{looks, phash};

/// The two controls, as data (Settings and the proposal bar edit them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SceneRules {
    /// How alike a frame must be to the scene's last frames to join it, 0–1 (0: any frame
    /// joins; 1: only the same picture).
    pub similarity: f32,
    /// Longest gap between consecutive frames of one scene, seconds.
    pub max_gap_s: f64,
}

impl Default for SceneRules {
    fn default() -> Self {
        SceneRules {
            similarity: 0.4,
            max_gap_s: 60.0,
        }
    }
}

impl SceneRules {
    /// The controls' ranges, for the sliders and the command line's checks.
    pub const SIMILARITY: std::ops::RangeInclusive<f32> = 0.0..=1.0;
    pub const MAX_GAP_S: std::ops::RangeInclusive<f64> = 0.0..=3600.0;
}

/// How much each measure weighs in [`similarity`].
pub const LAYOUT_WEIGHT: f32 = 0.6;
pub const HASH_WEIGHT: f32 = 0.4;
/// The mask's weight, where both frames have one (the others' are scaled to make room).
pub const MASK_WEIGHT: f32 = 0.25;
/// A colour layout this far (mean ΔE) from another is nothing like it.
pub const LAYOUT_FAR: f32 = 30.0;
/// Hash bits this far apart are nothing alike (unrelated frames differ in about half of 64).
pub const HASH_FAR: f32 = 32.0;
/// A frame is compared with this many of its scene's last frames.
pub const LOOK_BACK: usize = 3;

/// What grouping looks at, per photo.
#[derive(Debug, Clone, Default)]
pub struct SceneFrame {
    pub name: String,
    pub captured_at: Option<f64>,
    pub hash: u64,
    /// The colour layout (`looks::layout`); empty when the row has none.
    pub layout: Vec<u8>,
    pub subject: Option<Mask>,
    /// A misfire: it joins the scene it was shot in without being compared.
    pub misfire: bool,
    /// The set (bracket or pan) it belongs to: its frames are one scene.
    pub set: Option<usize>,
}

/// How alike two frames look, 0–1.
pub fn similarity(a: &SceneFrame, b: &SceneFrame) -> f32 {
    let hash = 1.0 - (phash::distance(a.hash, b.hash) as f32 / HASH_FAR).min(1.0);
    let layout =
        looks::layout_distance(&a.layout, &b.layout).map(|d| 1.0 - (d / LAYOUT_FAR).min(1.0));
    let mask = match (&a.subject, &b.subject) {
        (Some(m), Some(n)) if m.width == n.width && m.height == n.height => Some(m.iou(n)),
        _ => None,
    };
    let (mut sum, mut weight) = (HASH_WEIGHT * hash, HASH_WEIGHT);
    if let Some(l) = layout {
        sum += LAYOUT_WEIGHT * l;
        weight += LAYOUT_WEIGHT;
    }
    let looks = sum / weight;
    // The mask takes its share from the others.
    mask.map_or(looks, |m| (1.0 - MASK_WEIGHT) * looks + MASK_WEIGHT * m)
}

/// Every frame in exactly one scene; scenes in shooting order, each in shooting order.
pub fn group(frames: &[SceneFrame], rules: &SceneRules) -> Vec<Vec<usize>> {
    let order = shooting_order(
        &frames
            .iter()
            .map(|f| (f.captured_at, f.name.as_str()))
            .collect::<Vec<_>>(),
    );
    let mut scenes: Vec<Vec<usize>> = Vec::new();
    for &i in &order {
        let f = &frames[i];
        let joins = scenes.last().is_some_and(|scene| {
            let Some(&prev) = scene.last() else {
                return false;
            };
            let p = &frames[prev];
            if !close_in_time(p.captured_at, f.captured_at, rules.max_gap_s) {
                return false;
            }
            if f.set.is_some() && f.set == p.set {
                return true;
            }
            if f.misfire {
                return true;
            }
            let looks: Vec<&SceneFrame> = scene
                .iter()
                .rev()
                .map(|&m| &frames[m])
                .filter(|m| !m.misfire)
                .take(LOOK_BACK)
                .collect();
            // A scene of misfires alone has no look: the next frame is its set-up.
            looks.is_empty() || looks.iter().any(|m| similarity(m, f) >= rules.similarity)
        });
        match scenes.last_mut() {
            Some(scene) if joins => scene.push(i),
            _ => scenes.push(vec![i]),
        }
    }
    scenes
}

/// Adjusted Rand index of a grouping against the truth (both: a label per frame): 1 the same
/// partition, about 0 as good as chance. The benchmark's and the tests' measure.
pub fn adjusted_rand_index(truth: &[usize], found: &[usize]) -> f64 {
    use std::collections::HashMap;
    let n = truth.len().min(found.len());
    if n < 2 {
        return 1.0;
    }
    let pairs = |k: u64| (k * k.saturating_sub(1)) as f64 / 2.0;
    let mut table: HashMap<(usize, usize), u64> = HashMap::new();
    let mut rows: HashMap<usize, u64> = HashMap::new();
    let mut cols: HashMap<usize, u64> = HashMap::new();
    for i in 0..n {
        *table.entry((truth[i], found[i])).or_default() += 1;
        *rows.entry(truth[i]).or_default() += 1;
        *cols.entry(found[i]).or_default() += 1;
    }
    let index: f64 = table.values().map(|&k| pairs(k)).sum();
    let a: f64 = rows.values().map(|&k| pairs(k)).sum();
    let b: f64 = cols.values().map(|&k| pairs(k)).sum();
    let expected = a * b / pairs(n as u64);
    let max = (a + b) / 2.0;
    if (max - expected).abs() < f64::EPSILON {
        // Both all one group or all singletons: identical partitions.
        return if (index - expected).abs() < f64::EPSILON {
            1.0
        } else {
            0.0
        };
    }
    (index - expected) / (max - expected)
}

/// A label per frame from scenes (the scene's number).
pub fn labels(scenes: &[Vec<usize>], frames: usize) -> Vec<usize> {
    let mut out = vec![usize::MAX; frames];
    for (id, members) in scenes.iter().enumerate() {
        for &m in members {
            out[m] = id;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(l: u8, a: u8, b: u8) -> Vec<u8> {
        [l, a, b].repeat(64)
    }

    fn frame(t: f64, hash: u64, layout: Vec<u8>) -> SceneFrame {
        SceneFrame {
            name: format!("{t:08.1}"),
            captured_at: Some(t),
            hash,
            layout,
            ..SceneFrame::default()
        }
    }

    /// Two set-ups: a warm room where the people move (the hash wanders), then a green garden.
    fn shoot() -> Vec<SceneFrame> {
        let room = |t, h| frame(t, h, layout(150, 140, 150));
        let garden = |t, h| frame(t, h, layout(120, 90, 160));
        vec![
            room(0.0, 0x0000_0000_0000_0000),
            room(4.0, 0x0000_0000_00FF_FFFF), // 24 bits: outside any burst
            room(11.0, 0x0000_0000_FFFF_0000),
            garden(20.0, 0xFFFF_FFFF_0000_0000),
            garden(26.0, 0xFFFF_FFFF_F000_0000),
        ]
    }

    fn scene_labels(frames: &[SceneFrame], rules: &SceneRules) -> Vec<usize> {
        labels(&group(frames, rules), frames.len())
    }

    #[test]
    fn frames_of_one_set_up_are_one_scene_and_another_set_up_starts_the_next() {
        let rules = SceneRules::default();
        assert_eq!(scene_labels(&shoot(), &rules), vec![0, 0, 0, 1, 1]);
    }

    #[test]
    fn the_controls_at_their_extremes_give_every_frame_its_own_scene_or_one_scene() {
        let frames = shoot();
        let apart = SceneRules {
            max_gap_s: 0.0,
            ..SceneRules::default()
        };
        assert_eq!(scene_labels(&frames, &apart), vec![0, 1, 2, 3, 4]);
        let identical_only = SceneRules {
            similarity: 1.0,
            ..SceneRules::default()
        };
        assert_eq!(scene_labels(&frames, &identical_only), vec![0, 1, 2, 3, 4]);
        let anything = SceneRules {
            similarity: 0.0,
            max_gap_s: *SceneRules::MAX_GAP_S.end(),
        };
        assert_eq!(scene_labels(&frames, &anything), vec![0; 5]);
    }

    #[test]
    fn a_misfire_and_a_set_join_the_scene_they_were_shot_in() {
        let mut frames = shoot();
        // A lens cap between the room's frames, then a bracket whose last frame is bright.
        frames.insert(1, {
            let mut f = frame(2.0, 0x5555_5555_5555_5555, layout(5, 128, 128));
            f.misfire = true;
            f
        });
        let mut bright = frame(11.5, 0xAAAA_AAAA_AAAA_AAAA, layout(250, 128, 128));
        bright.set = Some(0);
        frames[3].set = Some(0);
        frames.insert(4, bright);
        assert_eq!(
            scene_labels(&frames, &SceneRules::default()),
            vec![0, 0, 0, 0, 0, 1, 1]
        );
    }

    #[test]
    fn the_adjusted_rand_index_is_one_for_the_truth_and_near_zero_for_chance() {
        assert_eq!(adjusted_rand_index(&[0, 0, 1, 1], &[5, 5, 7, 7]), 1.0);
        assert!(adjusted_rand_index(&[0, 0, 1, 1], &[0, 1, 0, 1]) < 0.0);
        let one = adjusted_rand_index(&[0, 0, 0, 1, 1, 1], &[0, 0, 0, 0, 0, 0]);
        assert!(one.abs() < 1e-9, "{one}");
        assert_eq!(adjusted_rand_index(&[0, 1, 2], &[0, 1, 2]), 1.0);
    }

    #[test]
    fn similarity_is_one_for_the_same_frame_and_weighs_the_mask_where_both_have_one() {
        let f = frame(0.0, 7, layout(100, 128, 128));
        assert!((similarity(&f, &f) - 1.0).abs() < 1e-6);
        let mut a = f.clone();
        let mut b = frame(1.0, 7, layout(100, 128, 128));
        a.subject = Some(Mask::from_fn(8, 8, |x, _| x < 4));
        b.subject = Some(Mask::from_fn(8, 8, |x, _| x >= 4));
        let s = similarity(&a, &b);
        assert!((s - (1.0 - MASK_WEIGHT)).abs() < 1e-5, "{s}");
    }
}
