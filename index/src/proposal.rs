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

use darkroom_catalog::{Decision, Flag};
use serde::{Deserialize, Serialize};

use crate::analysis::PhotoAnalysis;

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProposalRules {
    pub strictness: Strictness,
    /// Frames to keep per burst (at least 1).
    pub keep_per_burst: usize,
    /// The window's blurry threshold (sharpness).
    pub blurry_below: f32,
}

/// Why a photo is proposed for what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Reason {
    /// One of its burst's best frames.
    BurstKeeper,
    /// The best frame of a burst where every frame failed.
    BestOfFailedBurst,
    /// Another frame of its burst is kept.
    BurstOther,
    Blurry,
    EyesClosed,
    /// No face judges it (none, or too small to judge), and its subject is softer than the
    /// photo allows.
    SubjectSoft,
    /// A face's eyes are softer than the face: the focus missed them.
    EyesSoft,
}

impl Reason {
    pub fn describe(self) -> &'static str {
        match self {
            Reason::BurstKeeper => "best of burst",
            Reason::BestOfFailedBurst => "best of weak burst",
            Reason::BurstOther => "burst has better",
            Reason::Blurry => "blurry",
            Reason::EyesClosed => "eyes closed",
            Reason::SubjectSoft => "subject soft",
            Reason::EyesSoft => "eyes soft",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Proposed {
    pub flag: Flag,
    pub reason: Reason,
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

/// The proposal, one entry per candidate (None: nothing proposed).
pub fn propose(photos: &[Candidate<'_>], rules: &ProposalRules) -> Vec<Option<Proposed>> {
    let strict = rules.strictness.rules();
    let mut out: Vec<Option<Proposed>> = photos
        .iter()
        .map(|c| {
            let a = c.analysis?;
            if decided(c.decision) {
                return None;
            }
            let reason = if a.sharpness < rules.blurry_below * strict.blurry_factor {
                Reason::Blurry
            } else if strict.reject_eyes_closed && a.eyes_closed {
                Reason::EyesClosed
            } else if strict.reject_subject_soft
                && !a.judged_by_faces
                && a.subject.as_ref().is_some_and(|s| s.soft)
            {
                Reason::SubjectSoft
            } else if strict.reject_eyes_soft && a.eyes_soft {
                Reason::EyesSoft
            } else {
                return None;
            };
            Some(Proposed {
                flag: Flag::Reject,
                reason,
            })
        })
        .collect();

    let mut bursts: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, c) in photos.iter().enumerate() {
        if let Some(b) = c.analysis.and_then(|a| a.burst.as_ref()) {
            bursts.entry(b.id).or_default().push(i);
        }
    }
    for members in bursts.values() {
        let photographer_picked = members
            .iter()
            .any(|&i| photos[i].decision.flag == Flag::Pick);
        let mut open: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| !decided(photos[i].decision))
            .collect();
        open.sort_by(|&x, &y| rank(photos, y, x));
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
            out[best] = Some(Proposed {
                flag: Flag::Pick,
                reason: Reason::BestOfFailedBurst,
            });
            vec![best]
        } else {
            Vec::new()
        };
        for &i in &open {
            if keepers.contains(&i) {
                if out[i].is_none() {
                    out[i] = Some(Proposed {
                        flag: Flag::Pick,
                        reason: Reason::BurstKeeper,
                    });
                }
            } else if out[i].is_none()
                && strict.reject_burst_others
                && (photographer_picked || !keepers.is_empty())
            {
                out[i] = Some(Proposed {
                    flag: Flag::Reject,
                    reason: Reason::BurstOther,
                });
            }
        }
    }
    out
}

/// The burst ranking of `bursts::suggest`: eyes open, then sharpest, then most faces.
fn rank(photos: &[Candidate<'_>], x: usize, y: usize) -> std::cmp::Ordering {
    let (Some(a), Some(b)) = (photos[x].analysis, photos[y].analysis) else {
        return std::cmp::Ordering::Equal;
    };
    b.eyes_closed
        .cmp(&a.eyes_closed)
        .then(a.sharpness.total_cmp(&b.sharpness))
        .then(a.faces.cmp(&b.faces))
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
            people: Vec::new(),
            burst: burst.map(|(id, position)| BurstPlace {
                id,
                position,
                size: 3,
                suggested: false,
            }),
            judged_by_faces: true,
            subject: None,
            eyes_soft: false,
        }
    }

    fn rules(strictness: Strictness) -> ProposalRules {
        ProposalRules {
            strictness,
            keep_per_burst: 1,
            blurry_below: 40.0,
        }
    }

    fn run(
        photos: &[PhotoAnalysis],
        decisions: &[Decision],
        rules: &ProposalRules,
    ) -> Vec<Option<(Flag, Reason)>> {
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
            .map(|p| p.map(|p| (p.flag, p.reason)))
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
                Some((Flag::Reject, Reason::BurstOther)),
                Some((Flag::Pick, Reason::BurstKeeper)),
                Some((Flag::Reject, Reason::EyesClosed)),
                Some((Flag::Reject, Reason::Blurry)),
                Some((Flag::Reject, Reason::Blurry)),
                Some((Flag::Reject, Reason::EyesClosed)),
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
                Some((Flag::Pick, Reason::BurstKeeper)),
                None,
                None,
                Some((Flag::Reject, Reason::Blurry)),
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
            Some((Flag::Reject, Reason::BurstOther)),
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
        assert_eq!(p[1], Some((Flag::Pick, Reason::BestOfFailedBurst)));
        assert_eq!(p[0], Some((Flag::Reject, Reason::Blurry)));
        let p = run(&weak, &none, &rules(Strictness::Strict));
        assert_eq!(p[1], Some((Flag::Reject, Reason::Blurry)));

        let none = vec![Decision::default(); 7];
        let two = ProposalRules {
            keep_per_burst: 2,
            ..rules(Strictness::Balanced)
        };
        let p = run(&shoot(), &none, &two);
        assert_eq!(p[0], Some((Flag::Pick, Reason::BurstKeeper)));
        assert_eq!(p[1], Some((Flag::Pick, Reason::BurstKeeper)));
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
            ..photo(200.0, false, None)
        };
        let soft_eyes = PhotoAnalysis {
            eyes_soft: true,
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
                reject(Reason::SubjectSoft),
                reject(Reason::SubjectSoft),
                None,
                None
            ],
            "a face's own measures judge a photo its faces can judge"
        );
        assert_eq!(
            run(&photos, &none, &rules(Strictness::Strict)),
            vec![
                reject(Reason::SubjectSoft),
                reject(Reason::SubjectSoft),
                None,
                reject(Reason::EyesSoft)
            ]
        );
    }
}
