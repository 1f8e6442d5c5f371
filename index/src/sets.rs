//! Sets: frames shot to be merged, which the proposal keeps together and never thins as each
//! other's duplicates. An exposure bracket is consecutive frames within a second or two that
//! look alike and step through the exposure (the EXIF exposure bias, or the exposure value a
//! manual bracket changes), or that the camera marked as auto-bracketed; a frame that repeats
//! an exposure already in the run starts the next bracket. A panorama sweep is consecutive
//! frames that overlap, each shifted from the one before by a good part of the frame in a
//! consistent direction (`looks::shift` on the stored thumbnails), where a camera that did not
//! move would match best where it stood.

use serde::{Deserialize, Serialize};

use crate::bursts::{close_in_time, shooting_order};
use crate::{looks, phash};

/// When frames are a set, as data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SetRules {
    /// Longest gap between consecutive frames of a bracket, seconds.
    pub bracket_max_gap_s: f64,
    /// The smallest exposure step (EV) between consecutive frames of a bracket.
    pub bracket_min_step_ev: f64,
    /// Most differing hash bits between consecutive frames of a bracket (exposure moves a few).
    pub bracket_max_hash_distance: u32,
    /// Longest gap between consecutive frames of a pan, seconds.
    pub pan_max_gap_s: f64,
    /// The shift between consecutive frames of a pan, as a share of the frame.
    pub pan_min_shift: f32,
    pub pan_max_shift: f32,
    /// The overlap must match at least this well (normalised cross-correlation)…
    pub pan_min_match: f32,
    /// …and this much better than the frames match where they stand.
    pub pan_still_margin: f32,
    /// Consecutive shifts of one sweep point the same way within this angle's cosine.
    pub pan_min_direction_cos: f32,
    /// A sweep has at least this many frames: two frames shifted by a third are as often a
    /// photographer stepping aside for a second angle (`darkroom bench-shoot`'s group).
    #[serde(default = "default_pan_min_frames")]
    pub pan_min_frames: usize,
}

fn default_pan_min_frames() -> usize {
    SetRules::default().pan_min_frames
}

impl Default for SetRules {
    fn default() -> Self {
        SetRules {
            bracket_max_gap_s: 2.0,
            bracket_min_step_ev: 0.3,
            bracket_max_hash_distance: 20,
            pan_max_gap_s: 5.0,
            pan_min_shift: 0.15,
            pan_max_shift: 0.85,
            pan_min_match: 0.75,
            pan_still_margin: 0.15,
            pan_min_direction_cos: 0.7,
            pan_min_frames: 3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetKind {
    Bracket,
    Pan,
}

impl SetKind {
    pub fn word(self) -> &'static str {
        match self {
            SetKind::Bracket => "bracket",
            SetKind::Pan => "pan",
        }
    }
}

/// What finding sets looks at, per photo.
#[derive(Debug, Clone, Default)]
pub struct SetFrame {
    pub name: String,
    pub captured_at: Option<f64>,
    pub hash: u64,
    /// Exposure bias and exposure value (EV), where EXIF has them.
    pub bias: Option<f64>,
    pub ev: Option<f64>,
    pub auto_bracket: bool,
    /// The look's thumbnail (`looks::THUMB_SIDE`²); empty when the row has none.
    pub thumb: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Set {
    pub kind: SetKind,
    /// Indices into the frames, in shooting order; two or more.
    pub members: Vec<usize>,
}

/// Every bracket and pan, in shooting order; a frame is in one set at most.
pub fn find(frames: &[SetFrame], rules: &SetRules) -> Vec<Set> {
    let order = shooting_order(
        &frames
            .iter()
            .map(|f| (f.captured_at, f.name.as_str()))
            .collect::<Vec<_>>(),
    );
    let mut in_bracket = vec![false; frames.len()];
    let mut sets = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let close_run = |run: &mut Vec<usize>, sets: &mut Vec<Set>, in_bracket: &mut Vec<bool>| {
        if run.len() > 1 {
            for &m in run.iter() {
                in_bracket[m] = true;
            }
            sets.push(Set {
                kind: SetKind::Bracket,
                members: std::mem::take(run),
            });
        }
        run.clear();
    };
    for &i in &order {
        let joins = run.last().is_some_and(|&prev| {
            bracket_step(&frames[prev], &frames[i], rules)
                && !run
                    .iter()
                    .any(|&m| same_exposure(&frames[m], &frames[i], rules))
        });
        if !joins {
            close_run(&mut run, &mut sets, &mut in_bracket);
        }
        run.push(i);
    }
    close_run(&mut run, &mut sets, &mut in_bracket);

    let free: Vec<usize> = order.iter().copied().filter(|&i| !in_bracket[i]).collect();
    let mut run: Vec<usize> = Vec::new();
    let mut heading: Option<looks::Shift> = None;
    for (k, &i) in free.iter().enumerate() {
        let step = k
            .checked_sub(1)
            .and_then(|k| pan_step(&frames[free[k]], &frames[i], rules));
        let continues = step.is_some_and(|s| {
            heading.is_none_or(|h| {
                let cos = (h.dx * s.dx + h.dy * s.dy) / (h.length() * s.length()).max(1e-6);
                cos >= rules.pan_min_direction_cos
            })
        });
        if continues {
            run.push(i);
            heading = step;
            continue;
        }
        // A turn ends the sweep at the frame before: that frame is in it, this one starts anew.
        if run.len() >= rules.pan_min_frames.max(2) {
            sets.push(Set {
                kind: SetKind::Pan,
                members: std::mem::take(&mut run),
            });
        }
        run = vec![i];
        heading = None;
    }
    if run.len() >= rules.pan_min_frames.max(2) {
        sets.push(Set {
            kind: SetKind::Pan,
            members: run,
        });
    }
    let mut place = vec![0; frames.len()];
    for (k, &i) in order.iter().enumerate() {
        place[i] = k;
    }
    sets.sort_by_key(|s| place[s.members[0]]);
    sets
}

/// Whether `f` follows `p` as the next frame of a bracket.
fn bracket_step(p: &SetFrame, f: &SetFrame, rules: &SetRules) -> bool {
    if !close_in_time(p.captured_at, f.captured_at, rules.bracket_max_gap_s)
        || phash::distance(p.hash, f.hash) > rules.bracket_max_hash_distance
    {
        return false;
    }
    let steps = |a: Option<f64>, b: Option<f64>| {
        a.zip(b)
            .is_some_and(|(a, b)| (a - b).abs() >= rules.bracket_min_step_ev)
    };
    steps(p.bias, f.bias) || steps(p.ev, f.ev) || (p.auto_bracket && f.auto_bracket)
}

/// Whether two frames were shot at the same exposure (so the second starts another bracket).
fn same_exposure(a: &SetFrame, b: &SetFrame, rules: &SetRules) -> bool {
    let same = |x: Option<f64>, y: Option<f64>| {
        x.zip(y)
            .map(|(x, y)| (x - y).abs() < rules.bracket_min_step_ev)
    };
    match (same(a.bias, b.bias), same(a.ev, b.ev)) {
        (Some(s), Some(t)) => s && t,
        (Some(s), None) | (None, Some(s)) => s,
        (None, None) => false,
    }
}

/// The shift from `p` to `f` when it is a pan's step.
fn pan_step(p: &SetFrame, f: &SetFrame, rules: &SetRules) -> Option<looks::Shift> {
    if !close_in_time(p.captured_at, f.captured_at, rules.pan_max_gap_s) {
        return None;
    }
    let s = looks::shift(&p.thumb, &f.thumb)?;
    let moved = (rules.pan_min_shift..=rules.pan_max_shift).contains(&s.length());
    (moved && s.ncc >= rules.pan_min_match && s.ncc_still <= s.ncc - rules.pan_still_margin)
        .then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::RgbImage;

    fn frame(t: f64, bias: Option<f64>) -> SetFrame {
        SetFrame {
            name: format!("{t:08.2}"),
            captured_at: Some(t),
            hash: 0xF0F0,
            bias,
            ..SetFrame::default()
        }
    }

    fn kinds(sets: &[Set]) -> Vec<(SetKind, Vec<usize>)> {
        sets.iter().map(|s| (s.kind, s.members.clone())).collect()
    }

    #[test]
    fn a_bracket_steps_through_its_bias_and_a_repeated_bias_starts_the_next() {
        let frames = vec![
            frame(0.0, Some(0.0)),
            frame(0.3, Some(-2.0)),
            frame(0.6, Some(2.0)),
            frame(0.9, Some(0.0)),
            frame(1.2, Some(-2.0)),
            frame(1.5, Some(2.0)),
            // A burst at one exposure is no bracket.
            frame(10.0, Some(0.0)),
            frame(10.2, Some(0.0)),
            // Nor is a change of compensation minutes later.
            frame(200.0, Some(1.0)),
        ];
        let sets = find(&frames, &SetRules::default());
        assert_eq!(
            kinds(&sets),
            vec![
                (SetKind::Bracket, vec![0, 1, 2]),
                (SetKind::Bracket, vec![3, 4, 5])
            ]
        );
    }

    #[test]
    fn a_manual_bracket_by_exposure_value_and_a_camera_marked_one_are_brackets() {
        let mut frames: Vec<SetFrame> = [10.0, 12.0, 8.0]
            .iter()
            .enumerate()
            .map(|(k, &ev)| SetFrame {
                ev: Some(ev),
                ..frame(k as f64 * 0.5, None)
            })
            .collect();
        frames.extend((0..3).map(|k| SetFrame {
            auto_bracket: true,
            ..frame(30.0 + k as f64 * 0.5, None)
        }));
        let sets = find(&frames, &SetRules::default());
        assert_eq!(
            kinds(&sets),
            vec![
                (SetKind::Bracket, vec![0, 1, 2]),
                (SetKind::Bracket, vec![3, 4, 5])
            ]
        );
        // Frames that do not look alike are not one bracket, whatever the exposure says.
        frames[0].hash = !frames[1].hash;
        let sets = find(&frames, &SetRules::default());
        assert_eq!(sets[0].members, vec![1, 2]);
    }

    fn textured(w: u32, h: u32) -> RgbImage {
        looks::texture(w, h, 3)
    }

    fn thumb(img: &RgbImage) -> Vec<u8> {
        let l = crate::luma::of(img);
        crate::luma::resize(&l, looks::THUMB_SIDE, looks::THUMB_SIDE).into_raw()
    }

    #[test]
    fn a_sweep_of_overlapping_frames_is_a_pan_and_a_still_burst_is_not() {
        let wide = textured(1200, 240);
        let crop = |x0| image::imageops::crop_imm(&wide, x0, 0, 360, 240).to_image();
        let mut frames: Vec<SetFrame> = [0, 140, 280, 420]
            .iter()
            .enumerate()
            .map(|(k, &x0)| SetFrame {
                thumb: thumb(&crop(x0)),
                ..frame(k as f64, None)
            })
            .collect();
        // Then the camera stands still on the last view.
        for k in 0..2 {
            frames.push(SetFrame {
                thumb: thumb(&crop(420)),
                ..frame(4.0 + k as f64 * 0.5, None)
            });
        }
        let sets = find(&frames, &SetRules::default());
        assert_eq!(kinds(&sets), vec![(SetKind::Pan, vec![0, 1, 2, 3])]);
        // Back the other way breaks the sweep's direction: two frames each way are no sweep,
        // unless two are enough.
        frames[2].thumb = thumb(&crop(0));
        assert_eq!(find(&frames, &SetRules::default()), Vec::new());
        let two = SetRules {
            pan_min_frames: 2,
            ..SetRules::default()
        };
        assert_eq!(
            kinds(&find(&frames, &two)),
            vec![(SetKind::Pan, vec![0, 1])]
        );
    }
}
