//! The auto-cull proposal: decisions for a whole folder from what the index knows, for the
//! photographer to review and then apply or discard. It only proposes: nothing here writes a
//! decision, and a photo the photographer already decided is never given one.
//!
//! Per photo, in order: too blurry for the strictness, eyes closed, a photo no face judges
//! whose subject is soft, or eyes softer than their face, each where the strictness rejects it →
//! reject. Per burst: the photographer's own picks there are its keepers;
//! without one, the best `keep_per_burst` frames that were not rejected (eyes open, then
//! sharpest, then most faces, as `bursts::suggest` ranks them) → pick, and where the
//! strictness says so the burst's other frames → reject. A burst whose every frame failed
//! keeps its best one unless the strictness is strict: a moment is not lost to a proposal.
//! Before all of that, a misfire (nearly black or white, or nothing in it) and a frame clipped
//! past the strictness's limit → reject. A bracket's or a pan's frames are never rejected and
//! never compete in their burst: they are kept together (→ pick). Every entry carries its
//! reasons with their evidence, and reasons the photographer sets aside are taken out.

use std::collections::{BTreeMap, BTreeSet};

use darkroom_catalog::{Decision, Flag};
use serde::{Deserialize, Serialize};

use crate::analysis::PhotoAnalysis;
use crate::exposure::{self, ExposureRules, Misfire};
use crate::sets::SetKind;

/// How hard the proposal cuts; the rules are data ([`STRICTNESS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Strictness {
    Lenient,
    Balanced,
    Strict,
}

/// What one strictness does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrictnessRules {
    pub strictness: Strictness,
    pub name: &'static str,
    /// Reject below this multiple of the blurry threshold.
    pub blurry_factor: f32,
    pub reject_eyes_closed: bool,
    /// Reject a photo no face judges (none, or too small for its eyes) whose subject is soft.
    pub reject_subject_soft: bool,
    /// Reject a photo where a face's eyes are softer than the face.
    pub reject_eyes_soft: bool,
    /// Reject a burst's frames other than its keepers.
    pub reject_burst_others: bool,
    /// A burst whose every frame was rejected keeps its best one.
    pub keep_best_of_failed_burst: bool,
    /// What is a misfire, and how much clipping is too much.
    pub exposure: ExposureRules,
}

pub const STRICTNESS: &[StrictnessRules] = &[
    StrictnessRules {
        strictness: Strictness::Lenient,
        name: "Lenient",
        blurry_factor: 0.5,
        reject_eyes_closed: false,
        reject_subject_soft: false,
        reject_eyes_soft: false,
        reject_burst_others: false,
        keep_best_of_failed_burst: true,
        exposure: exposure::LENIENT,
    },
    StrictnessRules {
        strictness: Strictness::Balanced,
        name: "Balanced",
        blurry_factor: 1.0,
        reject_eyes_closed: true,
        reject_subject_soft: true,
        reject_eyes_soft: false,
        reject_burst_others: true,
        keep_best_of_failed_burst: true,
        exposure: exposure::BALANCED,
    },
    StrictnessRules {
        strictness: Strictness::Strict,
        name: "Strict",
        blurry_factor: 1.5,
        reject_eyes_closed: true,
        reject_subject_soft: true,
        reject_eyes_soft: true,
        reject_burst_others: true,
        keep_best_of_failed_burst: false,
        exposure: exposure::STRICT,
    },
];

impl Strictness {
    pub fn rules(self) -> &'static StrictnessRules {
        STRICTNESS
            .iter()
            .find(|r| r.strictness == self)
            .unwrap_or(&STRICTNESS[1])
    }

    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// From a settings file's word (case-insensitive).
    pub fn from_name(name: &str) -> Option<Strictness> {
        STRICTNESS
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
            .map(|r| r.strictness)
    }
}

/// What the proposal is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalRules {
    pub strictness: Strictness,
    /// Frames to keep per burst (at least 1).
    pub keep_per_burst: usize,
    /// The window's blurry threshold (sharpness).
    pub blurry_below: f32,
    /// Reasons the photographer set aside ("keep eyes-closed frames", "no exposure rejects"):
    /// they are taken out of every proposal, and a proposal left with none is dropped.
    pub without: BTreeSet<ReasonKind>,
}

impl ProposalRules {
    pub fn new(strictness: Strictness, keep_per_burst: usize, blurry_below: f32) -> Self {
        ProposalRules {
            strictness,
            keep_per_burst,
            blurry_below,
            without: BTreeSet::new(),
        }
    }
}

/// A face a reason names: its place among the photo's faces (from 1) and its person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FaceRef {
    pub face: usize,
    pub person: Option<i64>,
}

/// Why a photo is proposed for what it is, with the evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// One of its burst's best frames (`rank` of `size` alike).
    BurstKeeper {
        burst: usize,
        rank: usize,
        size: usize,
        scene: Option<usize>,
        /// Its faces that matter: how many smile of how many the mesh measured (None where it
        /// measured none).
        #[serde(skip_serializing_if = "Option::is_none")]
        smiling: Option<(usize, usize)>,
        /// More of them smile than in any other frame of the burst.
        #[serde(default)]
        best_smiles: bool,
    },
    /// The best frame of a burst where every frame failed.
    BestOfFailedBurst {
        burst: usize,
        size: usize,
        scene: Option<usize>,
    },
    /// Other frames of its burst are kept: it is `rank` of `size` alike.
    BurstOther {
        burst: usize,
        rank: usize,
        size: usize,
        scene: Option<usize>,
    },
    /// Softer than the strictness allows; the sharpest frame of its scene for comparison.
    Blurry {
        sharpness: f32,
        best_in_scene: Option<f32>,
    },
    EyesClosed {
        faces: Vec<FaceRef>,
    },
    /// No face judges it (none, or too small to judge), and its subject is softer than the
    /// photo allows.
    SubjectSoft {
        sharpness: f32,
        background: Option<f32>,
        best_in_scene: Option<f32>,
    },
    /// No face judges it, and where the camera focused (its AF area) it is less sharp than
    /// the sharpest frame of its burst (else of its scene, focused at the same place) there.
    AfSoft {
        sharpness: f32,
        best: f32,
        best_in_burst: bool,
    },
    /// Its subject is soft, and the camera's AF area is not on it: it focused on something
    /// else.
    AfOffSubject,
    /// A face's eyes are softer than the face: the focus missed them.
    EyesSoft {
        faces: Vec<FaceRef>,
    },
    /// Faces that matter look away from the camera where its burst's keeper's do not: why it
    /// lost.
    LookingAway {
        faces: Vec<FaceRef>,
    },
    /// Nearly black, nearly white, or nothing in it.
    Misfire {
        misfire: Misfire,
    },
    /// More of it clipped than the strictness allows.
    Clipped {
        share: f32,
    },
    /// Kept with the rest of its bracket or pan, never thinned.
    SetKept {
        set: usize,
        set_kind: SetKind,
        position: usize,
        size: usize,
    },
}

/// Reasons by what they are about, for refining a proposal and the command line's filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReasonKind {
    /// Best of a burst (or of a weak one).
    Keeper,
    /// Other frames alike are kept.
    Alike,
    Blurry,
    EyesClosed,
    SubjectSoft,
    AfSoft,
    EyesSoft,
    Misfire,
    /// Clipping past the limit.
    Exposure,
    /// Kept with its set.
    Set,
    /// Looking away where its burst's keeper looks at the camera.
    LookingAway,
}

impl ReasonKind {
    pub const ALL: [ReasonKind; 11] = [
        ReasonKind::Keeper,
        ReasonKind::Alike,
        ReasonKind::Blurry,
        ReasonKind::EyesClosed,
        ReasonKind::SubjectSoft,
        ReasonKind::AfSoft,
        ReasonKind::EyesSoft,
        ReasonKind::Misfire,
        ReasonKind::Exposure,
        ReasonKind::Set,
        ReasonKind::LookingAway,
    ];

    /// Whether proposals of this kind are rejects (the ones a photographer refines away).
    pub fn rejects(self) -> bool {
        !matches!(self, ReasonKind::Keeper | ReasonKind::Set)
    }

    /// The word the command line takes (`--without eyes-closed`) and the window shows.
    pub fn word(self) -> &'static str {
        match self {
            ReasonKind::Keeper => "keeper",
            ReasonKind::Alike => "alike",
            ReasonKind::Blurry => "blurry",
            ReasonKind::EyesClosed => "eyes-closed",
            ReasonKind::SubjectSoft => "subject-soft",
            ReasonKind::AfSoft => "af-soft",
            ReasonKind::EyesSoft => "eyes-soft",
            ReasonKind::Misfire => "misfire",
            ReasonKind::Exposure => "exposure",
            ReasonKind::Set => "set",
            ReasonKind::LookingAway => "looking-away",
        }
    }

    pub fn from_word(word: &str) -> Option<ReasonKind> {
        ReasonKind::ALL
            .into_iter()
            .find(|k| k.word().eq_ignore_ascii_case(word))
    }

    /// What setting this kind aside does, in the photographer's words.
    pub fn refine_words(self) -> &'static str {
        match self {
            ReasonKind::Keeper => "no burst picks",
            ReasonKind::Alike => "keep alike frames",
            ReasonKind::Blurry => "keep blurry frames",
            ReasonKind::EyesClosed => "keep eyes-closed frames",
            ReasonKind::SubjectSoft => "keep soft subjects",
            ReasonKind::AfSoft => "keep frames soft at the AF point",
            ReasonKind::EyesSoft => "keep soft eyes",
            ReasonKind::Misfire => "no misfire rejects",
            ReasonKind::Exposure => "no exposure rejects",
            ReasonKind::Set => "no set picks",
            ReasonKind::LookingAway => "ignore where eyes look",
        }
    }
}

/// "1st", "2nd", "3rd", "4th", "11th", "22nd".
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn in_scene(scene: Option<usize>) -> String {
    scene.map_or_else(String::new, |s| format!(" in scene {}", s + 1))
}

fn against_best(sharpness: f32, best: Option<f32>) -> String {
    match best {
        Some(b) if b > sharpness => format!("{sharpness:.0} vs {b:.0} for the best of the scene"),
        _ => format!("sharpness {sharpness:.0}"),
    }
}

impl Reason {
    pub fn kind(&self) -> ReasonKind {
        match self {
            Reason::BurstKeeper { .. } | Reason::BestOfFailedBurst { .. } => ReasonKind::Keeper,
            Reason::BurstOther { .. } => ReasonKind::Alike,
            Reason::Blurry { .. } => ReasonKind::Blurry,
            Reason::EyesClosed { .. } => ReasonKind::EyesClosed,
            Reason::SubjectSoft { .. } | Reason::AfOffSubject => ReasonKind::SubjectSoft,
            Reason::AfSoft { .. } => ReasonKind::AfSoft,
            Reason::EyesSoft { .. } => ReasonKind::EyesSoft,
            Reason::LookingAway { .. } => ReasonKind::LookingAway,
            Reason::Misfire { .. } => ReasonKind::Misfire,
            Reason::Clipped { .. } => ReasonKind::Exposure,
            Reason::SetKept { .. } => ReasonKind::Set,
        }
    }

    /// A word or two for a grid cell's chip ("blurry", "best of burst").
    pub fn short(&self) -> &'static str {
        match self {
            Reason::BurstKeeper { .. } => "best of burst",
            Reason::BestOfFailedBurst { .. } => "best of weak burst",
            Reason::BurstOther { .. } => "burst has better",
            Reason::Blurry { .. } => "blurry",
            Reason::EyesClosed { .. } => "eyes closed",
            Reason::SubjectSoft { .. } => "subject soft",
            Reason::AfSoft { .. } => "soft at the AF point",
            Reason::AfOffSubject => "AF point off the subject",
            Reason::EyesSoft { .. } => "eyes soft",
            Reason::LookingAway { .. } => "looking away",
            Reason::Misfire { .. } => "misfire",
            Reason::Clipped { .. } => "clipped",
            Reason::SetKept {
                set_kind: SetKind::Bracket,
                ..
            } => "bracket",
            Reason::SetKept {
                set_kind: SetKind::Pan,
                ..
            } => "pan",
        }
    }

    /// The reason in words, with its evidence; people unnamed ("Person 4").
    pub fn describe(&self) -> String {
        self.describe_with(&|id| format!("Person {id}"))
    }

    /// As [`Reason::describe`], naming each person with `person`.
    pub fn describe_with(&self, person: &dyn Fn(i64) -> String) -> String {
        let faces = |faces: &[FaceRef]| {
            faces
                .iter()
                .map(|f| f.person.map_or_else(|| format!("face {}", f.face), person))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let smiles = |smiling: &Option<(usize, usize)>| match smiling {
            Some((n, of)) if *of > 0 => format!(" ({n} of {of} smiling)"),
            _ => String::new(),
        };
        match self {
            Reason::BurstKeeper {
                rank,
                size,
                scene,
                smiling,
                ..
            } if *size > 1 && *rank > 1 => {
                format!(
                    "kept: {} best of {size} alike{}{}",
                    ordinal(*rank),
                    in_scene(*scene),
                    smiles(smiling)
                )
            }
            Reason::BurstKeeper {
                size,
                scene,
                smiling,
                best_smiles: true,
                ..
            } if *size > 1 => {
                format!(
                    "kept: best smiles of {size} alike{}{}",
                    in_scene(*scene),
                    smiles(smiling)
                )
            }
            Reason::BurstKeeper {
                size,
                scene,
                smiling,
                ..
            } => {
                format!(
                    "kept: the best of {size} alike{}{}",
                    in_scene(*scene),
                    smiles(smiling)
                )
            }
            Reason::BestOfFailedBurst { size, scene, .. } => {
                format!("kept: the best of {size} weak frames{}", in_scene(*scene))
            }
            Reason::BurstOther {
                rank, size, scene, ..
            } => format!("{} of {size} alike{}", ordinal(*rank), in_scene(*scene)),
            Reason::Blurry {
                sharpness,
                best_in_scene,
            } => format!("blurry: {}", against_best(*sharpness, *best_in_scene)),
            Reason::EyesClosed { faces: f } => format!("eyes closed: {}", faces(f)),
            Reason::SubjectSoft {
                sharpness,
                best_in_scene,
                ..
            } => format!("subject soft: {}", against_best(*sharpness, *best_in_scene)),
            Reason::AfSoft {
                sharpness,
                best,
                best_in_burst,
            } => format!(
                "soft at the AF point: {sharpness:.0} vs {best:.0} for the best of the {}",
                if *best_in_burst { "burst" } else { "scene" }
            ),
            Reason::AfOffSubject => "AF point off the subject".to_owned(),
            Reason::EyesSoft { faces: f } => format!("eyes soft: {}", faces(f)),
            Reason::LookingAway { faces: f } => format!("{} looking away", faces(f)),
            Reason::Misfire { misfire } => match misfire {
                Misfire::Black { share } => format!("misfire: {:.0}% black", share * 100.0),
                Misfire::White { share } => format!("misfire: {:.0}% white", share * 100.0),
                Misfire::NoDetail {
                    sharpness,
                    contrast,
                } => format!(
                    "misfire: no subject, no detail (sharpness {sharpness:.0}, contrast {:.0}%)",
                    contrast * 100.0
                ),
            },
            Reason::Clipped { share } => format!("exposure: {:.0}% clipped", share * 100.0),
            Reason::SetKept {
                set,
                set_kind,
                position,
                size,
            } => format!(
                "kept: {} set {}, frame {position} of {size}",
                set_kind.word(),
                set + 1
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposed {
    pub flag: Flag,
    /// Never empty (made here only, and `refine` drops an entry left with none); the first is
    /// the main one.
    reasons: Vec<Reason>,
}

impl Proposed {
    fn new(flag: Flag, reason: Reason) -> Self {
        Proposed {
            flag,
            reasons: vec![reason],
        }
    }

    /// The main reason.
    pub fn reason(&self) -> &Reason {
        &self.reasons[0]
    }

    /// Every reason, the main one first.
    pub fn reasons(&self) -> &[Reason] {
        &self.reasons
    }

    /// Every reason in words, main first, joined by "; ".
    pub fn describe_with(&self, person: &dyn Fn(i64) -> String) -> String {
        self.reasons
            .iter()
            .map(|r| r.describe_with(person))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn describe(&self) -> String {
        self.describe_with(&|id| format!("Person {id}"))
    }
}

/// A photo the proposal looks at: what the index says (None: not indexed, never proposed)
/// and what the photographer decided.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub analysis: Option<&'a PhotoAnalysis>,
    pub decision: &'a Decision,
}

/// Whether the photographer has said anything about this photo (a flag, stars or a label):
/// such a photo is never proposed for.
pub fn decided(d: &Decision) -> bool {
    *d != Decision::default()
}

fn face_refs(a: &PhotoAnalysis, faces: &[usize]) -> Vec<FaceRef> {
    faces
        .iter()
        .map(|&k| FaceRef {
            face: k + 1,
            person: a.people.get(k).and_then(|p| p.0),
        })
        .collect()
}

/// Why one photo is rejected on its own, strongest first; empty when it passes.
fn rejections(
    a: &PhotoAnalysis,
    rules: &ProposalRules,
    best_in_scene: impl Fn(fn(&PhotoAnalysis) -> Option<f32>) -> Option<f32>,
) -> Vec<Reason> {
    let strict = rules.strictness.rules();
    let mut out = Vec::new();
    let verdict = a
        .tones
        .map(|t| {
            let look = darkroom_catalog::LookRow {
                black: t.black,
                white: t.white,
                clipped: t.clipped,
                contrast: t.contrast,
                ..Default::default()
            };
            exposure::judge(&look, a.sharpness, a.has_subject(), &strict.exposure)
        })
        .unwrap_or_default();
    if let Some(misfire) = verdict.misfire {
        out.push(Reason::Misfire { misfire });
    }
    // A misfire has nothing in it to be sharp: blur would say it twice.
    if verdict.misfire.is_none() && a.focus_sharpness() < rules.blurry_below * strict.blurry_factor
    {
        out.push(Reason::Blurry {
            sharpness: a.focus_sharpness(),
            best_in_scene: best_in_scene(|p| Some(p.focus_sharpness())),
        });
    }
    if strict.reject_eyes_closed && a.eyes_closed {
        out.push(Reason::EyesClosed {
            faces: face_refs(a, &a.closed_eyes),
        });
    }
    if strict.reject_subject_soft
        && verdict.misfire.is_none()
        && !a.judged_by_faces
        && let Some(s) = a.subject.as_ref().filter(|s| s.soft)
    {
        out.push(Reason::SubjectSoft {
            sharpness: s.sharpness,
            background: s.background,
            best_in_scene: best_in_scene(|p| p.subject.as_ref().map(|s| s.sharpness)),
        });
        if a.af.as_ref().is_some_and(|f| f.off_subject) {
            out.push(Reason::AfOffSubject);
        }
    }
    // A frame no face judges, where the camera said where it focused: judged there against
    // the frames it competes with.
    if strict.reject_subject_soft
        && verdict.misfire.is_none()
        && !a.judged_by_faces
        && let Some(f) = a.af.as_ref().filter(|f| f.soft)
        && let (Some(sharpness), Some(best)) = (f.sharpness, f.best)
    {
        out.push(Reason::AfSoft {
            sharpness,
            best,
            best_in_burst: f.best_in_burst,
        });
    }
    if strict.reject_eyes_soft && a.eyes_soft {
        out.push(Reason::EyesSoft {
            faces: face_refs(a, &a.soft_eyes),
        });
    }
    if let Some(c) = verdict.clipped {
        out.push(Reason::Clipped { share: c.share });
    }
    out
}

/// The proposal, one entry per candidate (None: nothing proposed).
pub fn propose(photos: &[Candidate<'_>], rules: &ProposalRules) -> Vec<Option<Proposed>> {
    let strict = rules.strictness.rules();
    let mut scenes: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, c) in photos.iter().enumerate() {
        if let Some(s) = c.analysis.and_then(|a| a.scene.as_ref()) {
            scenes.entry(s.id).or_default().push(i);
        }
    }
    let mut out: Vec<Option<Proposed>> = photos
        .iter()
        .map(|c| {
            let a = c.analysis?;
            // A set's frames are judged as a set, never one by one: a bracket's dark and bright
            // frames are what it is for.
            if decided(c.decision) || a.set.is_some() {
                return None;
            }
            let best_in_scene = |measure: fn(&PhotoAnalysis) -> Option<f32>| {
                let members = scenes.get(&a.scene.as_ref()?.id)?;
                members
                    .iter()
                    .filter_map(|&m| photos[m].analysis.and_then(measure))
                    .max_by(f32::total_cmp)
            };
            let mut reasons = rejections(a, rules, best_in_scene);
            // A reason set aside rejects nothing: the frame competes in its burst as one
            // that passed.
            reasons.retain(|r| !rules.without.contains(&r.kind()));
            (!reasons.is_empty()).then_some(Proposed {
                flag: Flag::Reject,
                reasons,
            })
        })
        .collect();

    // Sets: every open frame kept, together.
    for (i, c) in photos.iter().enumerate() {
        if let Some(set) = c.analysis.and_then(|a| a.set.as_ref())
            && !decided(c.decision)
        {
            out[i] = Some(Proposed::new(
                Flag::Pick,
                Reason::SetKept {
                    set: set.id,
                    set_kind: set.kind,
                    position: set.position,
                    size: set.size,
                },
            ));
        }
    }

    let mut bursts: BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, c) in photos.iter().enumerate() {
        if let Some(a) = c.analysis
            && let Some(b) = a.burst.as_ref()
        {
            bursts.entry(b.id).or_default().push(i);
        }
    }
    for (&burst, members) in &bursts {
        let size = members.len();
        let scene = photos[members[0]]
            .analysis
            .and_then(|a| a.scene.as_ref())
            .map(|s| s.id);
        let photographer_picked = members
            .iter()
            .any(|&i| photos[i].decision.flag == Flag::Pick);
        // A set inside a burst is kept as a set: its frames neither compete nor lose.
        let mut open: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| {
                !decided(photos[i].decision) && photos[i].analysis.is_some_and(|a| a.set.is_none())
            })
            .collect();
        // Eyes closed, or where they look, set aside: the burst's best is chosen without them
        // too.
        let eyes = !rules.without.contains(&ReasonKind::EyesClosed);
        let gaze = !rules.without.contains(&ReasonKind::LookingAway);
        // Ranked where the camera focused only when every frame was measured there.
        let by_af = open.iter().all(|&i| {
            photos[i]
                .analysis
                .is_some_and(|a| !a.judged_by_faces && at_af(a).is_some())
        });
        open.sort_by(|&x, &y| rank(photos, y, x, (eyes, gaze), by_af));
        let passed: Vec<usize> = open.iter().copied().filter(|&i| out[i].is_none()).collect();
        let keepers: Vec<usize> = if photographer_picked {
            Vec::new()
        } else if !passed.is_empty() {
            passed
                .iter()
                .copied()
                .take(rules.keep_per_burst.max(1))
                .collect()
        } else if strict.keep_best_of_failed_burst
            && let Some(&best) = open.first()
        {
            out[best] = Some(Proposed::new(
                Flag::Pick,
                Reason::BestOfFailedBurst { burst, size, scene },
            ));
            vec![best]
        } else {
            Vec::new()
        };
        let doing = |i: usize| photos[i].analysis.map(|a| &a.doing);
        let smiles = |i: usize| doing(i).map_or(0, |d| d.smiling.len());
        // What a frame that lost is held against: the burst's keeper, or the photographer's
        // own pick.
        let kept = keepers.first().copied().or_else(|| {
            members
                .iter()
                .copied()
                .find(|&i| photos[i].decision.flag == Flag::Pick)
        });
        let keeper_away: usize = kept.and_then(doing).map_or(0, |d| d.looking_away.len());
        for (k, &i) in open.iter().enumerate() {
            if keepers.contains(&i) {
                if out[i].is_none() {
                    let measured = doing(i).map_or(0, |d| d.measured);
                    out[i] = Some(Proposed::new(
                        Flag::Pick,
                        Reason::BurstKeeper {
                            burst,
                            rank: k + 1,
                            size,
                            scene,
                            smiling: (measured > 0).then(|| (smiles(i), measured)),
                            best_smiles: smiles(i) > 0
                                && open.iter().all(|&o| o == i || smiles(o) < smiles(i)),
                        },
                    ));
                }
            } else if out[i].is_none()
                && strict.reject_burst_others
                && (photographer_picked || !keepers.is_empty())
            {
                let mut lost = Proposed::new(
                    Flag::Reject,
                    Reason::BurstOther {
                        burst,
                        rank: k + 1,
                        size,
                        scene,
                    },
                );
                if let Some(a) = photos[i].analysis
                    && a.doing.looking_away.len() > keeper_away
                {
                    lost.reasons.push(Reason::LookingAway {
                        faces: face_refs(a, &a.doing.looking_away),
                    });
                }
                out[i] = Some(lost);
            }
        }
    }
    refine(&mut out, &rules.without);
    out
}

/// Take the reasons set aside out of every proposal; a proposal left with none is dropped.
pub fn refine(proposal: &mut [Option<Proposed>], without: &BTreeSet<ReasonKind>) {
    if without.is_empty() {
        return;
    }
    for entry in proposal.iter_mut() {
        if let Some(p) = entry {
            p.reasons.retain(|r| !without.contains(&r.kind()));
            if p.reasons.is_empty() {
                *entry = None;
            }
        }
    }
}

/// The burst ranking of `bursts::suggest`: the faces that matter with their eyes open (unless
/// `eyes` is false: the photographer set closed eyes aside), at the camera (unless `gaze` is
/// false) and smiling, key people first ([`FacesDoing::compare`]), then sharpest, then most
/// faces.
///
/// [`FacesDoing::compare`]: crate::expression::FacesDoing::compare
fn rank(
    photos: &[Candidate<'_>],
    x: usize,
    y: usize,
    (eyes, gaze): (bool, bool),
    by_af: bool,
) -> std::cmp::Ordering {
    let (Some(a), Some(b)) = (photos[x].analysis, photos[y].analysis) else {
        return std::cmp::Ordering::Equal;
    };
    let sa = crate::bursts::focus_of(a.sharpness, at_af(a), by_af);
    let sb = crate::bursts::focus_of(b.sharpness, at_af(b), by_af);
    a.doing
        .compare(&b.doing, eyes, gaze)
        .then(sa.total_cmp(&sb))
        .then(a.faces.cmp(&b.faces))
}

/// A frame's sharpness where the camera focused, where measured.
fn at_af(a: &PhotoAnalysis) -> Option<f32> {
    a.af.as_ref().and_then(|f| f.sharpness)
}

/// How many of each flag a proposal holds.
pub fn counts(proposal: &[Option<Proposed>]) -> (usize, usize) {
    let picks = proposal
        .iter()
        .flatten()
        .filter(|p| p.flag == Flag::Pick)
        .count();
    let rejects = proposal
        .iter()
        .flatten()
        .filter(|p| p.flag == Flag::Reject)
        .count();
    (picks, rejects)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::BurstPlace;
    use std::path::PathBuf;

    fn photo(sharpness: f32, eyes_closed: bool, burst: Option<(usize, usize)>) -> PhotoAnalysis {
        PhotoAnalysis {
            path: PathBuf::from("/p.jpg"),
            detector: "scrfd_2.5g".into(),
            sharpness,
            blurry: false,
            faces: 1,
            eyes_closed,
            people: vec![(Some(2), [0.1, 0.1, 0.3, 0.3])],
            burst: burst.map(|(id, position)| BurstPlace {
                id,
                position,
                size: 3,
                suggested: false,
            }),
            judged_by_faces: true,
            subject: None,
            subject_sought: false,
            eyes_soft: false,
            closed_eyes: if eyes_closed { vec![0] } else { Vec::new() },
            soft_eyes: Vec::new(),
            scene: None,
            set: None,
            tones: None,
            tags: Vec::new(),
            clock: Default::default(),
            af: None,
            doing: crate::expression::FacesDoing {
                prominent: vec![0],
                blinking: if eyes_closed { vec![0] } else { Vec::new() },
                ..Default::default()
            },
        }
    }

    fn rules(strictness: Strictness) -> ProposalRules {
        ProposalRules::new(strictness, 1, 40.0)
    }

    fn run(
        photos: &[PhotoAnalysis],
        decisions: &[Decision],
        rules: &ProposalRules,
    ) -> Vec<Option<(Flag, ReasonKind)>> {
        let candidates: Vec<Candidate<'_>> = photos
            .iter()
            .zip(decisions)
            .map(|(a, d)| Candidate {
                analysis: Some(a),
                decision: d,
            })
            .collect();
        propose(&candidates, rules)
            .into_iter()
            .map(|p| p.map(|p| (p.flag, p.reason().kind())))
            .collect()
    }

    fn shoot() -> Vec<PhotoAnalysis> {
        vec![
            photo(100.0, false, Some((0, 1))),
            photo(200.0, false, Some((0, 2))),
            photo(150.0, true, Some((0, 3))),
            photo(30.0, false, None),
            photo(15.0, false, None),
            photo(120.0, true, None),
            photo(120.0, false, None),
        ]
    }

    #[test]
    fn balanced_keeps_the_best_frame_and_rejects_blur_closed_eyes_and_the_rest() {
        let none = vec![Decision::default(); 7];
        let p = run(&shoot(), &none, &rules(Strictness::Balanced));
        assert_eq!(
            p,
            vec![
                Some((Flag::Reject, ReasonKind::Alike)),
                Some((Flag::Pick, ReasonKind::Keeper)),
                Some((Flag::Reject, ReasonKind::EyesClosed)),
                Some((Flag::Reject, ReasonKind::Blurry)),
                Some((Flag::Reject, ReasonKind::Blurry)),
                Some((Flag::Reject, ReasonKind::EyesClosed)),
                None,
            ]
        );
    }

    #[test]
    fn lenient_rejects_only_the_very_blurry_and_leaves_the_burst_rest() {
        let none = vec![Decision::default(); 7];
        let p = run(&shoot(), &none, &rules(Strictness::Lenient));
        assert_eq!(
            p,
            vec![
                None,
                Some((Flag::Pick, ReasonKind::Keeper)),
                None,
                None,
                Some((Flag::Reject, ReasonKind::Blurry)),
                None,
                None,
            ]
        );
    }

    #[test]
    fn a_decided_photo_is_never_proposed_for_and_a_pick_in_a_burst_is_its_keeper() {
        let mut d = vec![Decision::default(); 7];
        d[0].flag = Flag::Pick;
        d[4].stars = 2;
        let p = run(&shoot(), &d, &rules(Strictness::Balanced));
        assert_eq!(p[0], None);
        assert_eq!(
            p[1],
            Some((Flag::Reject, ReasonKind::Alike)),
            "the photographer's pick is the burst's keeper"
        );
        assert_eq!(p[4], None, "stars are a decision too");
    }

    #[test]
    fn a_failed_burst_keeps_its_best_unless_strict_and_keep_per_burst_keeps_more() {
        let weak = vec![
            photo(20.0, false, Some((3, 1))),
            photo(30.0, false, Some((3, 2))),
        ];
        let none = vec![Decision::default(); 2];
        let p = run(&weak, &none, &rules(Strictness::Balanced));
        assert_eq!(p[1], Some((Flag::Pick, ReasonKind::Keeper)));
        assert_eq!(p[0], Some((Flag::Reject, ReasonKind::Blurry)));
        let p = run(&weak, &none, &rules(Strictness::Strict));
        assert_eq!(p[1], Some((Flag::Reject, ReasonKind::Blurry)));

        let none = vec![Decision::default(); 7];
        let two = ProposalRules {
            keep_per_burst: 2,
            ..rules(Strictness::Balanced)
        };
        let p = run(&shoot(), &none, &two);
        assert_eq!(p[0], Some((Flag::Pick, ReasonKind::Keeper)));
        assert_eq!(p[1], Some((Flag::Pick, ReasonKind::Keeper)));
        assert_eq!(counts(&propose(&[], &two)), (0, 0));
    }

    #[test]
    fn strictness_names_round_trip() {
        for r in STRICTNESS {
            assert_eq!(Strictness::from_name(r.name), Some(r.strictness));
            assert_eq!(r.strictness.rules(), r);
        }
        assert_eq!(Strictness::from_name("nope"), None);
    }

    #[test]
    fn a_soft_subject_without_faces_and_soft_eyes_are_rejected_as_the_strictness_says() {
        let soft_subject = |faces: usize, judged_by_faces: bool| PhotoAnalysis {
            faces,
            judged_by_faces,
            subject: Some(crate::analysis::SubjectFocus {
                class: None,
                sharpness: 20.0,
                background: Some(300.0),
                soft: true,
            }),
            subject_sought: true,
            ..photo(200.0, false, None)
        };
        let soft_eyes = PhotoAnalysis {
            eyes_soft: true,
            soft_eyes: vec![0],
            ..photo(200.0, false, None)
        };
        // No face; a face too small to judge (a figure in a landscape); a face judged.
        let photos = [
            soft_subject(0, false),
            soft_subject(1, false),
            soft_subject(1, true),
            soft_eyes,
        ];
        let none: [Decision; 4] = Default::default();
        let reject = |r| Some((Flag::Reject, r));
        assert_eq!(
            run(&photos, &none, &rules(Strictness::Lenient)),
            vec![None, None, None, None]
        );
        assert_eq!(
            run(&photos, &none, &rules(Strictness::Balanced)),
            vec![
                reject(ReasonKind::SubjectSoft),
                reject(ReasonKind::SubjectSoft),
                None,
                None
            ],
            "a face's own measures judge a photo its faces can judge"
        );
        assert_eq!(
            run(&photos, &none, &rules(Strictness::Strict)),
            vec![
                reject(ReasonKind::SubjectSoft),
                reject(ReasonKind::SubjectSoft),
                None,
                reject(ReasonKind::EyesSoft)
            ]
        );
    }

    #[test]
    fn a_faceless_burst_is_judged_where_the_camera_focused() {
        let af = |sharpness: f32, soft: bool, off_subject: bool| crate::analysis::AfFocus {
            area: [0.6, 0.6, 0.7, 0.7],
            mode: Some("Single Point".into()),
            sharpness: Some(sharpness),
            best: Some(180.0),
            best_in_burst: true,
            soft,
            detail: sharpness >= 40.0,
            off_subject,
        };
        let frame = |position, whole: f32, at_af: crate::analysis::AfFocus| PhotoAnalysis {
            faces: 0,
            judged_by_faces: false,
            people: Vec::new(),
            doing: Default::default(),
            af: Some(at_af),
            ..photo(whole, false, Some((0, position)))
        };
        // The second frame is the sharpest over the whole frame, soft where the camera
        // focused; the first is sharp there: it is the burst's keeper.
        let photos = [
            frame(1, 90.0, af(180.0, false, false)),
            frame(2, 300.0, af(40.0, true, false)),
            frame(3, 100.0, af(150.0, false, false)),
        ];
        let none: [Decision; 3] = Default::default();
        let candidates: Vec<Candidate<'_>> = photos
            .iter()
            .zip(&none)
            .map(|(a, d)| Candidate {
                analysis: Some(a),
                decision: d,
            })
            .collect();
        let out = propose(&candidates, &rules(Strictness::Balanced));
        assert_eq!(out[0].as_ref().map(|p| p.flag), Some(Flag::Pick));
        let soft = out[1].as_ref().expect("the soft frame");
        assert_eq!(
            (soft.flag, soft.reason().describe()),
            (
                Flag::Reject,
                "soft at the AF point: 40 vs 180 for the best of the burst".to_owned()
            )
        );
        // Lenient rejects nothing for it.
        let lenient = propose(&candidates, &rules(Strictness::Lenient));
        assert!(lenient[1].as_ref().is_none_or(|p| p.flag == Flag::Pick));

        // Shallow depth of field: soft over the whole frame, sharp where the camera focused.
        let shallow = PhotoAnalysis {
            burst: None,
            ..frame(1, 10.0, af(180.0, false, false))
        };
        let alone = |a: &PhotoAnalysis, strictness| {
            let decision = Decision::default();
            let candidate = Candidate {
                analysis: Some(a),
                decision: &decision,
            };
            propose(&[candidate], &rules(strictness)).remove(0)
        };
        let out = alone(&shallow, Strictness::Strict);
        assert!(out.is_none(), "not blurry: {out:?}");

        // A soft subject the AF area missed says why.
        let missed = PhotoAnalysis {
            subject: Some(crate::analysis::SubjectFocus {
                class: Some("bird".into()),
                sharpness: 20.0,
                background: Some(300.0),
                soft: true,
            }),
            subject_sought: true,
            burst: None,
            ..frame(1, 200.0, af(180.0, false, true))
        };
        let out = alone(&missed, Strictness::Balanced);
        let words: Vec<String> = out
            .as_ref()
            .expect("rejected")
            .reasons()
            .iter()
            .map(Reason::describe)
            .collect();
        assert!(
            words.iter().any(|w| w == "AF point off the subject"),
            "{words:?}"
        );
    }

    fn tones(black: f32, white: f32) -> crate::analysis::Tones {
        crate::analysis::Tones {
            black,
            white,
            clipped: white,
            contrast: 0.02,
        }
    }

    /// A burst of eight: two sharp frames, a bracket's three frames (its dark one nearly black),
    /// a lens-cap misfire and a pan of two (both blurry).
    fn burst_with_sets() -> Vec<PhotoAnalysis> {
        let set = |id, kind, position, size| {
            Some(crate::analysis::SetPlace {
                id,
                kind,
                position,
                size,
            })
        };
        let scene = Some(crate::analysis::ScenePlace {
            id: 6,
            position: 1,
            size: 8,
        });
        let mut photos = vec![
            photo(120.0, false, Some((4, 1))),
            photo(150.0, false, Some((4, 2))),
            PhotoAnalysis {
                tones: Some(tones(0.97, 0.0)),
                set: set(2, SetKind::Bracket, 1, 3),
                ..photo(5.0, false, Some((4, 3)))
            },
            PhotoAnalysis {
                set: set(2, SetKind::Bracket, 2, 3),
                ..photo(140.0, false, Some((4, 4)))
            },
            PhotoAnalysis {
                tones: Some(tones(0.0, 0.7)),
                set: set(2, SetKind::Bracket, 3, 3),
                ..photo(90.0, false, Some((4, 5)))
            },
            PhotoAnalysis {
                faces: 0,
                judged_by_faces: false,
                people: Vec::new(),
                tones: Some(tones(0.98, 0.0)),
                ..photo(1.0, false, Some((4, 6)))
            },
            PhotoAnalysis {
                set: set(3, SetKind::Pan, 1, 2),
                ..photo(20.0, false, Some((4, 7)))
            },
            PhotoAnalysis {
                set: set(3, SetKind::Pan, 2, 2),
                ..photo(25.0, false, Some((4, 8)))
            },
        ];
        for p in &mut photos {
            p.scene = scene.clone();
        }
        photos
    }

    #[test]
    fn a_bracket_and_a_pan_inside_a_burst_are_kept_together_and_a_misfire_in_it_is_rejected() {
        let photos = burst_with_sets();
        let none = vec![Decision::default(); photos.len()];
        for strictness in [
            Strictness::Lenient,
            Strictness::Balanced,
            Strictness::Strict,
        ] {
            let p = run(&photos, &none, &rules(strictness));
            for i in [2, 3, 4, 6, 7] {
                assert_eq!(
                    p[i],
                    Some((Flag::Pick, ReasonKind::Set)),
                    "{strictness:?} {i}"
                );
            }
            assert_eq!(
                p[5],
                Some((Flag::Reject, ReasonKind::Misfire)),
                "{strictness:?}"
            );
            assert_eq!(
                p[1],
                Some((Flag::Pick, ReasonKind::Keeper)),
                "{strictness:?}"
            );
        }
        let p = run(&photos, &none, &rules(Strictness::Balanced));
        assert_eq!(p[0], Some((Flag::Reject, ReasonKind::Alike)));
    }

    #[test]
    fn each_reason_carries_its_evidence_in_words() {
        let photos = burst_with_sets();
        let mut more = photos.clone();
        more.push(PhotoAnalysis {
            scene: photos[0].scene.clone(),
            ..photo(12.0, true, None)
        });
        let none = Decision::default();
        let candidates: Vec<Candidate<'_>> = more
            .iter()
            .map(|a| Candidate {
                analysis: Some(a),
                decision: &none,
            })
            .collect();
        let p = propose(&candidates, &rules(Strictness::Balanced));
        let words = |i: usize| p[i].as_ref().map(Proposed::describe).unwrap_or_default();
        assert_eq!(words(0), "2nd of 8 alike in scene 7");
        assert_eq!(words(1), "kept: the best of 8 alike in scene 7");
        assert_eq!(words(2), "kept: bracket set 3, frame 1 of 3");
        assert_eq!(words(5), "misfire: 98% black");
        assert_eq!(words(7), "kept: pan set 4, frame 2 of 2");
        assert_eq!(
            words(8),
            "blurry: 12 vs 150 for the best of the scene; eyes closed: Person 2"
        );
        let named = p[8]
            .as_ref()
            .map(|p| p.describe_with(&|id| format!("Ann ({id})")))
            .unwrap_or_default();
        assert!(named.ends_with("eyes closed: Ann (2)"), "{named}");
    }

    #[test]
    fn refining_by_a_reason_removes_exactly_its_proposals() {
        let mut photos = burst_with_sets();
        photos.push(photo(120.0, true, None));
        photos.push(photo(12.0, true, None));
        let none = vec![Decision::default(); photos.len()];
        let all = run(&photos, &none, &rules(Strictness::Balanced));
        for kind in ReasonKind::ALL {
            let mut refined = rules(Strictness::Balanced);
            refined.without.insert(kind);
            let candidates: Vec<Candidate<'_>> = photos
                .iter()
                .zip(&none)
                .map(|(a, d)| Candidate {
                    analysis: Some(a),
                    decision: d,
                })
                .collect();
            let before = propose(&candidates, &rules(Strictness::Balanced));
            let after = propose(&candidates, &refined);
            for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                let left: Vec<&Reason> = a.iter().flat_map(|p| &p.reasons).collect();
                assert!(
                    left.iter().all(|r| r.kind() != kind),
                    "{kind:?} photo {i}: {left:?}"
                );
                // A frame of a burst may now pass and compete in it: the burst is chosen
                // again. Everywhere else exactly the reasons set aside go.
                if photos[i].burst.is_some() {
                    continue;
                }
                let kept: Vec<&Reason> = b
                    .iter()
                    .flat_map(|p| &p.reasons)
                    .filter(|r| r.kind() != kind)
                    .collect();
                assert_eq!(left, kept, "{kind:?} photo {i}");
                assert_eq!(a.is_none(), kept.is_empty(), "{kind:?} photo {i}");
            }
        }
        // Keeping eyes-closed frames leaves the blurry one rejected for its blur alone.
        let mut keep_closed = rules(Strictness::Balanced);
        keep_closed.without.insert(ReasonKind::EyesClosed);
        let p = run(&photos, &none, &keep_closed);
        assert_eq!(all[8], Some((Flag::Reject, ReasonKind::EyesClosed)));
        assert_eq!(p[8], None);
        assert_eq!(p[9], Some((Flag::Reject, ReasonKind::Blurry)));
        assert_eq!(
            ReasonKind::from_word("eyes-closed"),
            Some(ReasonKind::EyesClosed)
        );
        for kind in ReasonKind::ALL {
            assert_eq!(ReasonKind::from_word(kind.word()), Some(kind));
        }
    }

    #[test]
    fn closed_eyes_set_aside_make_the_sharpest_frame_the_burst_keeper() {
        // The sharpest frame of the burst has closed eyes.
        let photos = vec![
            photo(100.0, false, Some((0, 1))),
            photo(300.0, true, Some((0, 2))),
            photo(150.0, false, Some((0, 3))),
        ];
        let none = vec![Decision::default(); photos.len()];
        let as_shot = run(&photos, &none, &rules(Strictness::Balanced));
        assert_eq!(as_shot[2], Some((Flag::Pick, ReasonKind::Keeper)));
        assert_eq!(as_shot[1], Some((Flag::Reject, ReasonKind::EyesClosed)));
        let mut keep_closed = rules(Strictness::Balanced);
        keep_closed.without.insert(ReasonKind::EyesClosed);
        let refined = run(&photos, &none, &keep_closed);
        assert_eq!(
            refined[1],
            Some((Flag::Pick, ReasonKind::Keeper)),
            "chosen again without the reason set aside"
        );
        assert_ne!(refined[2], Some((Flag::Pick, ReasonKind::Keeper)));
    }
}
