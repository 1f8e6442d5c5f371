//! Which faces of a frame matter and what they are doing, for the burst's keeper and the
//! proposal. A frame is as good as its worst *prominent* face: a face at least
//! `Thresholds::prominent_face_share` of the largest face's area, and a key person's (starred)
//! face always. Among those, key people come first: a starred person blinking outweighs
//! everyone else smiling.

use std::cmp::Ordering;

use darkroom_catalog::FaceRow;
use darkroom_engine::face::EXPRESSION_RULES;
use serde::Serialize;

use crate::eyes::expression_of;

/// The faces that matter in one frame and their verdicts, as indices into its faces.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FacesDoing {
    pub prominent: Vec<usize>,
    /// Key people's faces (all of them prominent).
    pub key: Vec<usize>,
    /// Prominent faces whose eyes' judge says closed.
    pub blinking: Vec<usize>,
    /// Prominent faces the mesh sees looking away from the camera.
    pub looking_away: Vec<usize>,
    /// Prominent faces the mesh sees smiling.
    pub smiling: Vec<usize>,
    /// Prominent faces the mesh measured.
    pub measured: usize,
}

impl FacesDoing {
    pub fn of(faces: &[FaceRow], prominent_share: f32) -> FacesDoing {
        let area = |f: &FaceRow| {
            let [x0, y0, x1, y1] = f.bbox;
            ((x1 - x0) * (y1 - y0)).max(0.0)
        };
        let largest = faces.iter().map(area).fold(0.0, f32::max);
        let rules = &EXPRESSION_RULES;
        let mut d = FacesDoing::default();
        for (k, f) in faces.iter().enumerate() {
            if !(f.key || area(f) >= prominent_share * largest) {
                continue;
            }
            d.prominent.push(k);
            if f.key {
                d.key.push(k);
            }
            if f.eyes_closed == Some(true) {
                d.blinking.push(k);
            }
            if let Some(e) = f.expression.as_ref().map(expression_of) {
                d.measured += 1;
                if rules.looking_away(&e) && f.eyes_closed != Some(true) {
                    d.looking_away.push(k);
                }
                if rules.smiling(&e) {
                    d.smiling.push(k);
                }
            }
        }
        d
    }

    fn key_count(&self, of: &[usize]) -> usize {
        of.iter().filter(|k| self.key.contains(k)).count()
    }

    /// How two frames' faces compare, the better as `Ordering::Greater`: key people's eyes
    /// open, then looking at the camera, then smiling; then everyone's, the same way. Without
    /// `blinks` (the photographer set closed eyes aside) blinks count for nothing, and without
    /// `gaze` (looking away set aside) where the eyes look counts for nothing.
    pub fn compare(&self, other: &FacesDoing, blinks: bool, gaze: bool) -> Ordering {
        let fewer = |a: usize, b: usize| if blinks { b.cmp(&a) } else { Ordering::Equal };
        let fewer_away = |a: usize, b: usize| if gaze { b.cmp(&a) } else { Ordering::Equal };
        fewer(
            self.key_count(&self.blinking),
            other.key_count(&other.blinking),
        )
        .then(fewer_away(
            self.key_count(&self.looking_away),
            other.key_count(&other.looking_away),
        ))
        .then(
            self.key_count(&self.smiling)
                .cmp(&other.key_count(&other.smiling)),
        )
        .then(fewer(self.blinking.len(), other.blinking.len()))
        .then(fewer_away(
            self.looking_away.len(),
            other.looking_away.len(),
        ))
        .then(self.smiling.len().cmp(&other.smiling.len()))
    }
}

/// A person in at least this share of a shoot's frames that have faces (and in at least
/// [`SUGGEST_MIN_FRAMES`]) is suggested as a key person: the couple at a wedding, the child at
/// a birthday.
pub const SUGGEST_SHARE: f32 = 0.5;
pub const SUGGEST_MIN_FRAMES: usize = 3;

/// Whether someone in `frames` of a shoot's `with_faces` frames with faces is one to suggest
/// as a key person ([`SUGGEST_SHARE`], [`SUGGEST_MIN_FRAMES`]).
pub fn suggests_key(frames: usize, with_faces: usize) -> bool {
    frames >= SUGGEST_MIN_FRAMES && frames as f32 >= SUGGEST_SHARE * with_faces as f32
}

/// The people to suggest as key people in these frames, with the frames each is in, most
/// first.
pub fn suggested_key_people(frames: &[&[FaceRow]]) -> Vec<(i64, usize)> {
    let with_faces = frames.iter().filter(|f| !f.is_empty()).count();
    let mut counts: std::collections::BTreeMap<i64, usize> = Default::default();
    for faces in frames {
        let mut seen: Vec<i64> = faces.iter().filter_map(|f| f.person).collect();
        seen.sort_unstable();
        seen.dedup();
        for p in seen {
            *counts.entry(p).or_default() += 1;
        }
    }
    let mut out: Vec<(i64, usize)> = counts
        .into_iter()
        .filter(|&(_, n)| suggests_key(n, with_faces))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkroom_catalog::ExpressionRow;

    fn face(x: f32, side: f32, closed: bool, smile: f32, gaze: f32, key: bool) -> FaceRow {
        FaceRow {
            id: 0,
            bbox: [x, 0.0, x + side, side],
            score: 0.9,
            landmarks: [[0.0; 2]; 5],
            embedding: None,
            sharpness: 100.0,
            eyes_closed: Some(closed),
            person: None,
            eyes_sharpness: None,
            expression: Some(ExpressionRow {
                eye_open: if closed { [0.05; 2] } else { [0.3; 2] },
                smile,
                gaze: [gaze, EXPRESSION_RULES.level_pitch_deg],
                head: [0.0, 0.0],
            }),
            key,
        }
    }

    #[test]
    fn a_small_face_behind_does_not_judge_the_frame_but_a_key_person_always_does() {
        let faces = [
            face(0.0, 100.0, false, 0.2, 0.0, false),
            // A quarter of the largest's side: a sixteenth of its area.
            face(200.0, 25.0, true, 0.0, 0.0, false),
            face(300.0, 25.0, true, 0.0, 40.0, true),
        ];
        let d = FacesDoing::of(&faces, 0.25);
        assert_eq!(d.prominent, vec![0, 2]);
        assert_eq!(d.blinking, vec![2]);
        assert_eq!(d.smiling, vec![0]);
        // Closed eyes look nowhere: a blink is not also "looking away".
        assert!(d.looking_away.is_empty());
    }

    #[test]
    fn people_in_most_frames_are_suggested() {
        let with = |people: &[i64]| -> Vec<FaceRow> {
            people
                .iter()
                .map(|&p| FaceRow {
                    person: Some(p),
                    ..face(0.0, 100.0, false, 0.0, 0.0, false)
                })
                .collect()
        };
        let frames = [
            with(&[1, 2]),
            with(&[1, 2, 3]),
            with(&[1]),
            with(&[2, 4]),
            with(&[]),
        ];
        let refs: Vec<&[FaceRow]> = frames.iter().map(Vec::as_slice).collect();
        // 4 frames with faces: 1 and 2 are in three each; 3 and 4 in one.
        assert_eq!(suggested_key_people(&refs), vec![(1, 3), (2, 3)]);
        // Two frames are too few to tell.
        assert!(suggested_key_people(&refs[..2]).is_empty());
    }

    #[test]
    fn a_starred_person_blinking_outweighs_three_others_smiling() {
        // Anna (starred) blinks while Ben, Cleo and Dev smile; in the other frame Anna's eyes
        // are open, nobody smiles and Ben blinks: one blink each, so only the star decides.
        let anna_blinks = FacesDoing::of(
            &[
                face(0.0, 100.0, true, 0.0, 0.0, true),
                face(200.0, 100.0, false, 0.3, 0.0, false),
                face(400.0, 100.0, false, 0.3, 0.0, false),
                face(600.0, 100.0, false, 0.3, 0.0, false),
            ],
            0.25,
        );
        let ben_blinks = FacesDoing::of(
            &[
                face(0.0, 100.0, false, 0.0, 0.0, true),
                face(200.0, 100.0, true, 0.0, 0.0, false),
                face(400.0, 100.0, false, 0.0, 0.0, false),
                face(600.0, 100.0, false, 0.0, 0.0, false),
            ],
            0.25,
        );
        assert_eq!(
            ben_blinks.compare(&anna_blinks, true, true),
            Ordering::Greater
        );
        // Without the star, the three smiles win: the star is what turned it.
        let unstar = |d: &FacesDoing| FacesDoing {
            key: Vec::new(),
            ..d.clone()
        };
        assert_eq!(
            unstar(&anna_blinks).compare(&unstar(&ben_blinks), true, true),
            Ordering::Greater
        );
        // A blink is worse than no smile: everyone open beats three smiles and a blink.
        let everyone_open = FacesDoing::of(
            &[
                face(0.0, 100.0, false, 0.0, 0.0, false),
                face(200.0, 100.0, false, 0.0, 0.0, false),
            ],
            0.25,
        );
        assert_eq!(
            everyone_open.compare(&unstar(&anna_blinks), true, true),
            Ordering::Greater
        );
        // Closed eyes set aside: the three smiles win even against the star.
        assert_eq!(
            anna_blinks.compare(&ben_blinks, false, true),
            Ordering::Greater
        );
        // With everyone's eyes open, more smiles win, and looking away loses, unless where the
        // eyes look is set aside.
        let smiles = FacesDoing::of(&[face(0.0, 100.0, false, 0.3, 0.0, false)], 0.25);
        let plain = FacesDoing::of(&[face(0.0, 100.0, false, 0.0, 0.0, false)], 0.25);
        let away = FacesDoing::of(&[face(0.0, 100.0, false, 0.3, 30.0, false)], 0.25);
        assert_eq!(smiles.compare(&plain, true, true), Ordering::Greater);
        assert_eq!(plain.compare(&away, true, true), Ordering::Greater);
        assert_eq!(away.compare(&plain, true, false), Ordering::Greater);
    }
}
