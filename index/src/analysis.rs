//! What the index rows say about each photo of a folder, for the grid and the command line:
//! sharpness and the blurry flag, faces and closed eyes, the burst it belongs to (its place in
//! it) and whether it is the burst's suggested keeper; the subject's focus and the eyes'; the
//! scene and the set (bracket, pan) it belongs to; its tones.

use std::path::PathBuf;

use darkroom_catalog::PhotoIndex;
use serde::Serialize;

use darkroom_engine::subject::Mask;

use crate::bursts::{self, Frame};
use crate::exposure;
use crate::expression::FacesDoing;
use crate::scenes::{self, SceneFrame};
use crate::sets::{self, SetFrame, SetKind};
use crate::subject;
use crate::tags::{self, SceneTag};
use crate::thresholds::Thresholds;

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

/// Where a photo stands in its scene.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenePlace {
    /// Scenes are numbered from 0 in shooting order (shown from 1).
    pub id: usize,
    /// 1-based place in the scene.
    pub position: usize,
    pub size: usize,
}

/// Where a photo stands in its set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetPlace {
    /// Sets are numbered from 0 in shooting order (shown from 1).
    pub id: usize,
    pub kind: SetKind,
    pub position: usize,
    pub size: usize,
}

/// The photo's tones (`looks`), as shares of the frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Tones {
    pub black: f32,
    pub white: f32,
    pub clipped: f32,
    pub contrast: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhotoAnalysis {
    pub path: PathBuf,
    /// The detector's model_id it was indexed with.
    pub detector: String,
    pub sharpness: f32,
    pub blurry: bool,
    pub faces: usize,
    /// Some face that matters has its eyes closed.
    pub eyes_closed: bool,
    /// The faces that matter and what they are doing (the mesh's verdicts).
    pub doing: FacesDoing,
    /// Each face's person (None without an embedder) and box, as fractions of the photo's
    /// width and height, so any rendition of the photo can show it.
    pub people: Vec<(Option<i64>, [f32; 4])>,
    pub burst: Option<BurstPlace>,
    /// A face of it had its eyes judged, so its faces judge it ([`subject::judged_by_faces`]).
    pub judged_by_faces: bool,
    /// The subject's focus, where a segmenter found one (the index looks only in a photo its
    /// faces do not judge).
    pub subject: Option<SubjectFocus>,
    /// A segmenter has looked for its subject (`subject` says what it found). The index looks
    /// only where the verdict can decide ([`PhotoAnalysis::subject_can_decide`]); the loupe
    /// looks on request.
    pub subject_sought: bool,
    /// Some face whose eyes could be judged has them softer than the rest of the face.
    pub eyes_soft: bool,
    /// Which faces that matter (indices into `people`) have their eyes closed, and which
    /// faces soft eyes.
    pub closed_eyes: Vec<usize>,
    pub soft_eyes: Vec<usize>,
    pub scene: Option<ScenePlace>,
    pub set: Option<SetPlace>,
    /// None for a row measured before the look was (measures 4).
    pub tones: Option<Tones>,
    /// What the scene model sees in it (sky, water, person…) and the share each covers.
    pub tags: Vec<(SceneTag, f32)>,
    /// Its camera body and capture time, on the body's clock and on the shoot's.
    pub clock: CaptureClock,
    /// Where the camera focused and how sharp it is there, where its file records it.
    pub af: Option<AfFocus>,
}

/// Where the camera focused, from the maker notes, and the frame's sharpness there against
/// the sharpest of its burst (else of its scene, focused at the same place) there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AfFocus {
    /// Left, top, right, bottom as fractions of the photo as shown.
    pub area: [f32; 4],
    /// The AF area mode in the camera's words.
    pub mode: Option<String>,
    /// None when the area could not be measured.
    pub sharpness: Option<f32>,
    /// The sharpest at the AF point among the frames of its burst no face judges, else of its
    /// scene's focused at the same place ([`AF_SAME_AREA`]), itself included; None when it is
    /// not one of two or more such frames measured there.
    pub best: Option<f32>,
    /// That best is its burst's (else its scene's).
    pub best_in_burst: bool,
    /// Less sharp there than [`Thresholds::af_to_best_at_least`] of that best.
    pub soft: bool,
    /// As sharp there as a photo must be not to be blurry ([`Thresholds::blurry_below`]):
    /// something in it has detail.
    pub detail: bool,
    /// Its subject's mask covers less of the AF area than
    /// [`Thresholds::af_on_subject_at_least`]: the camera focused on something else.
    pub off_subject: bool,
}

/// When a photo was taken and by which body: what a clock correction is worked out from.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CaptureClock {
    pub body: Option<String>,
    /// Seconds since 1970 on the body's own clock.
    pub captured_at: Option<f64>,
    /// The body's correction (less what the file's own metadata already carries).
    pub offset_s: f64,
}

impl CaptureClock {
    /// On the shoot's one clock: what bursts, scenes and sorting use.
    pub fn corrected(&self) -> Option<f64> {
        self.captured_at.map(|t| t + self.offset_s)
    }
}

impl PhotoAnalysis {
    /// Whether the subject's verdict can change a decision on this photo as far as `scope`
    /// goes (its faces aside): it competes with others of its burst or scene, outside a set
    /// (whose frames are judged together), or the scope is every photo.
    pub fn subject_can_decide(&self, scope: subject::SubjectScope) -> bool {
        let competes = |size: Option<usize>| size.is_some_and(|n| n >= 2);
        match scope {
            subject::SubjectScope::Everywhere => true,
            subject::SubjectScope::Deciding => {
                self.set.is_none()
                    && (competes(self.burst.as_ref().map(|b| b.size))
                        || competes(self.scene.as_ref().map(|s| s.size)))
            }
        }
    }

    /// A face or a sharp subject gives the photo something to judge it by.
    pub fn has_subject(&self) -> bool {
        self.faces > 0
            || self.subject.as_ref().is_some_and(|s| !s.soft)
            || self.af.as_ref().is_some_and(|f| f.detail && !f.soft)
    }

    /// The sharpness a frame is called blurry by: the whole frame's, or where the camera
    /// focused when that is sharper and no face judges it (a shallow depth of field is the
    /// photographer's choice, not blur).
    pub fn focus_sharpness(&self) -> f32 {
        blur_measure(
            self.sharpness,
            self.af
                .as_ref()
                .filter(|f| !f.soft)
                .and_then(|f| f.sharpness),
            self.judged_by_faces,
        )
    }
}

/// See [`PhotoAnalysis::focus_sharpness`].
pub fn blur_measure(whole: f32, at_af: Option<f32>, judged_by_faces: bool) -> f32 {
    match at_af {
        Some(af) if !judged_by_faces => whole.max(af),
        _ => whole,
    }
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
    let doing: Vec<FacesDoing> = indexed
        .iter()
        .map(|(_, i)| FacesDoing::of(&i.faces, thresholds.prominent_face_share))
        .collect();
    let frames: Vec<Frame> = indexed
        .iter()
        .zip(&doing)
        .map(|((path, i), d)| Frame {
            name: path.to_string_lossy().into_owned(),
            captured_at: i.capture_time(),
            hash: i.phash,
            sharpness: i.sharpness,
            faces: i.faces.len(),
            doing: d.clone(),
            af_sharpness: i
                .af
                .as_ref()
                .filter(|_| thresholds.af_points && !subject::judged_by_faces(&i.faces))
                .and_then(|a| a.sharpness),
        })
        .collect();
    let set_frames: Vec<SetFrame> = indexed
        .iter()
        .map(|(path, i)| SetFrame {
            name: path.to_string_lossy().into_owned(),
            captured_at: i.capture_time(),
            hash: i.phash,
            bias: i.exposure.bias,
            ev: i.exposure.ev,
            auto_bracket: i.exposure.auto_bracket,
            thumb: i.look.as_ref().map(|l| l.thumb.clone()).unwrap_or_default(),
        })
        .collect();
    let mut set_places: Vec<Option<SetPlace>> = vec![None; indexed.len()];
    for (id, set) in sets::find(&set_frames, &thresholds.sets).iter().enumerate() {
        for (k, &m) in set.members.iter().enumerate() {
            set_places[m] = Some(SetPlace {
                id,
                kind: set.kind,
                position: k + 1,
                size: set.members.len(),
            });
        }
    }
    let scene_frames: Vec<SceneFrame> = indexed
        .iter()
        .zip(&set_places)
        .map(|((path, i), set)| SceneFrame {
            name: path.to_string_lossy().into_owned(),
            captured_at: i.capture_time(),
            hash: i.phash,
            layout: i
                .look
                .as_ref()
                .map(|l| l.layout.clone())
                .unwrap_or_default(),
            subject: i
                .subject
                .as_ref()
                .and_then(|s| Mask::from_packed(s.mask_width, s.mask_height, &s.mask)),
            misfire: i.look.as_ref().is_some_and(|l| {
                let subject = !i.faces.is_empty()
                    || i.subject
                        .as_ref()
                        .is_some_and(|s| !subject_soft(s.sharpness, s.background, thresholds));
                exposure::judge(l, i.sharpness, subject, &exposure::BALANCED)
                    .misfire
                    .is_some()
            }),
            set: set.as_ref().map(|s| s.id),
        })
        .collect();
    let mut scene_places: Vec<Option<ScenePlace>> = vec![None; indexed.len()];
    for (id, members) in scenes::group(&scene_frames, &thresholds.scenes)
        .iter()
        .enumerate()
    {
        for (k, &m) in members.iter().enumerate() {
            scene_places[m] = Some(ScenePlace {
                id,
                position: k + 1,
                size: members.len(),
            });
        }
    }
    let mut places: Vec<Option<BurstPlace>> = vec![None; frames.len()];
    let mut burst_members: Vec<Vec<usize>> = Vec::new();
    for (id, members) in bursts::group(&frames, &thresholds.bursts)
        .iter()
        .enumerate()
    {
        burst_members.push(members.clone());
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
    let af = af_focus(
        indexed,
        (&places, &burst_members),
        &scene_places,
        thresholds,
    );
    indexed
        .iter()
        .zip(places)
        .zip(af)
        .zip(scene_places.into_iter().zip(set_places))
        .zip(doing)
        .map(
            |(((((path, i), burst), af), (scene, set)), doing)| PhotoAnalysis {
                path: path.clone(),
                detector: i.stamp.detector.clone(),
                sharpness: i.sharpness,
                blurry: blur_measure(
                    i.sharpness,
                    af.as_ref().filter(|f| !f.soft).and_then(|f| f.sharpness),
                    subject::judged_by_faces(&i.faces),
                ) < thresholds.blurry_below,
                faces: i.faces.len(),
                eyes_closed: !doing.blinking.is_empty(),
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
                // An older build recorded its segmenter on a portrait's row too.
                subject_sought: i.stamp.segmenter.is_some() && !subject::judged_by_faces(&i.faces),
                eyes_soft: i
                    .faces
                    .iter()
                    .any(|f| eyes_soft(f.eyes_sharpness, f.sharpness, thresholds)),
                closed_eyes: doing.blinking.clone(),
                soft_eyes: (0..i.faces.len())
                    .filter(|&k| {
                        let f = &i.faces[k];
                        eyes_soft(f.eyes_sharpness, f.sharpness, thresholds)
                    })
                    .collect(),
                clock: CaptureClock {
                    body: i.body.clone(),
                    captured_at: i.captured_at,
                    offset_s: i.clock_offset_s,
                },
                scene,
                set,
                tones: i.look.as_ref().map(|l| Tones {
                    black: l.black,
                    white: l.white,
                    clipped: l.clipped,
                    contrast: l.contrast,
                }),
                tags: tags::tags(&i.scene_classes),
                doing,
                af,
            },
        )
        .collect()
}

/// Each photo's focus at its AF area, held against the sharpest of its burst there (frames of
/// one moment, focused by one camera, compared where it focused), else of the frames of its
/// scene whose AF area is where its own is ([`AF_SAME_AREA`]: a scene's frames may hold other
/// things at their AF points). Only frames no face judges are compared (a face's own measures
/// judge the rest).
fn af_focus(
    indexed: &[(PathBuf, PhotoIndex)],
    (bursts, burst_members): (&[Option<BurstPlace>], &[Vec<usize>]),
    scenes: &[Option<ScenePlace>],
    t: &Thresholds,
) -> Vec<Option<AfFocus>> {
    let measured = |m: usize| {
        let i = &indexed[m].1;
        i.af.as_ref()
            .filter(|_| !subject::judged_by_faces(&i.faces))
            .and_then(|a| a.sharpness)
    };
    let best_of = |members: &mut dyn Iterator<Item = usize>| {
        let all: Vec<f32> = members.filter_map(measured).collect();
        (all.len() >= 2).then(|| all.into_iter().fold(f32::MIN, f32::max))
    };
    let mut scene_members: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (k, s) in scenes.iter().enumerate() {
        if let Some(s) = s {
            scene_members.entry(s.id).or_default().push(k);
        }
    }
    let area_of = |m: usize| indexed[m].1.af.as_ref().map(|a| a.area);
    indexed
        .iter()
        .enumerate()
        .map(|(k, (_, i))| {
            let row = i.af.as_ref().filter(|_| t.af_points)?;
            let in_burst = bursts[k]
                .as_ref()
                .and_then(|b| best_of(&mut burst_members[b.id].iter().copied()));
            let in_scene =
                || {
                    let members = &scene_members[&scenes[k].as_ref()?.id];
                    best_of(&mut members.iter().copied().filter(|&m| {
                        area_of(m).is_some_and(|a| overlap(a, row.area) >= AF_SAME_AREA)
                    }))
                };
            let best = in_burst.or_else(in_scene);
            let sharpness = measured(k);
            let soft =
                matches!((sharpness, best), (Some(s), Some(b)) if s < t.af_to_best_at_least * b);
            let off_subject = row.sharpness.is_some()
                && i.subject
                    .as_ref()
                    .and_then(|s| Mask::from_packed(s.mask_width, s.mask_height, &s.mask))
                    .is_some_and(|mask| covered(&mask, row.area) < t.af_on_subject_at_least);
            Some(AfFocus {
                area: row.area,
                mode: row.mode.clone(),
                sharpness: row.sharpness,
                best: best.filter(|_| sharpness.is_some()),
                best_in_burst: in_burst.is_some() && sharpness.is_some(),
                soft,
                detail: row.sharpness.is_some_and(|s| s >= t.blurry_below),
                off_subject,
            })
        })
        .collect()
}

/// Two AF areas this much alike (intersection over union) are one place: frames of a scene
/// focused there are held against each other.
pub const AF_SAME_AREA: f32 = 0.5;

/// Intersection over union of two rectangles (left, top, right, bottom).
fn overlap(a: [f32; 4], b: [f32; 4]) -> f32 {
    let w = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let h = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = w * h;
    let area = |r: [f32; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let union = area(a) + area(b) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

/// The share of `area` (fractions of the photo) that `mask` (the photo's size, any scale)
/// covers; 0 for an area outside the photo.
fn covered(mask: &Mask, area: [f32; 4]) -> f32 {
    let (w, h) = (mask.width as f32, mask.height as f32);
    let x0 = (area[0] * w).floor().clamp(0.0, w) as u32;
    let x1 = (area[2] * w).ceil().clamp(0.0, w) as u32;
    let y0 = (area[1] * h).floor().clamp(0.0, h) as u32;
    let y1 = (area[3] * h).ceil().clamp(0.0, h) as u32;
    let (mut inside, mut all) = (0usize, 0usize);
    for y in y0..y1 {
        for x in x0..x1 {
            all += 1;
            inside += usize::from(mask.get(x, y));
        }
    }
    if all == 0 {
        0.0
    } else {
        inside as f32 / all as f32
    }
}
