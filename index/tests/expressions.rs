//! The best expression in a burst, from index rows through the analysis to the proposal: the
//! frame where the faces that matter have their eyes open, look at the camera and smile the
//! most is kept, then the sharpest; a group frame is as good as its worst prominent face; a
//! key person outweighs everyone else. The rows are what `darkroom index` stores (the mesh's
//! measures, the eyes' judge's verdict).

use std::path::PathBuf;

use darkroom_catalog::{Decision, ExpressionRow, FaceRow, IndexStamp, MEASURES, PhotoIndex};
use darkroom_engine::face::EXPRESSION_RULES;
use darkroom_index::proposal::{self, Candidate, ProposalRules, Reason, Strictness};
use darkroom_index::{Thresholds, analyse};

/// A face of a frame: where it stands, its size, and what it is doing.
#[derive(Clone, Copy)]
struct Doing {
    x: f32,
    side: f32,
    closed: bool,
    smile: f32,
    gaze: f32,
    person: i64,
    key: bool,
}

fn face(d: Doing) -> FaceRow {
    FaceRow {
        id: 0,
        bbox: [d.x, 100.0, d.x + d.side, 100.0 + d.side],
        score: 0.9,
        landmarks: [[d.x + d.side / 2.0, 100.0 + d.side / 2.0]; 5],
        embedding: None,
        sharpness: 120.0,
        eyes_closed: Some(d.closed),
        person: Some(d.person),
        eyes_sharpness: None,
        expression: Some(ExpressionRow {
            eye_open: if d.closed { [0.06; 2] } else { [0.3; 2] },
            smile: d.smile,
            gaze: [d.gaze, EXPRESSION_RULES.level_pitch_deg],
            head: [0.0, 0.0],
        }),
        key: d.key,
    }
}

fn open(x: f32, person: i64) -> Doing {
    Doing {
        x,
        side: 200.0,
        closed: false,
        smile: 0.0,
        gaze: 0.0,
        person,
        key: false,
    }
}

/// One frame of a burst: the same look (hash) a fifth of a second after the one before.
fn frame(n: usize, sharpness: f32, faces: &[Doing]) -> (PathBuf, PhotoIndex) {
    (
        PathBuf::from(format!("/shoot/IMG_{n:04}.JPG")),
        PhotoIndex {
            stamp: IndexStamp {
                size: 1,
                mtime_ns: 0,
                detector: "scrfd_2.5g".into(),
                embedder: Some("fr_feature".into()),
                eyes: Some("face_mesh+iris_landmark".into()),
                segmenter: None,
                scene: None,
                mesh: Some("face_mesh+iris_landmark".into()),
                measures: MEASURES,
            },
            backend: "test".into(),
            width: 2000,
            height: 1500,
            sharpness,
            phash: 0x0F0F_0F0F_0F0F_0F0F,
            captured_at: Some(1000.0 + n as f64 * 0.2),
            body: None,
            clock_offset_s: 0.0,
            faces: faces.iter().copied().map(face).collect(),
            subject: None,
            look: None,
            exposure: Default::default(),
            scene_classes: Vec::new(),
            af: None,
        },
    )
}

/// Whether each frame is proposed as a pick, its reasons in words and as data.
type Entry = Option<(bool, String, Vec<Reason>)>;

/// The proposal at Balanced, one keeper a burst, and each frame's entry in words.
fn propose(frames: &[(PathBuf, PhotoIndex)]) -> Vec<Entry> {
    propose_at(frames, Strictness::Balanced)
}

fn propose_at(frames: &[(PathBuf, PhotoIndex)], strictness: Strictness) -> Vec<Entry> {
    let analysed = analyse(frames, &Thresholds::default());
    assert!(
        analysed.iter().all(|a| a.burst.is_some()),
        "one burst: {analysed:?}"
    );
    let blank = Decision::default();
    let candidates: Vec<Candidate<'_>> = analysed
        .iter()
        .map(|a| Candidate {
            analysis: Some(a),
            decision: &blank,
        })
        .collect();
    let rules = ProposalRules::new(strictness, 1, 40.0);
    let names = |id: i64| ["Anna", "Ben", "Cleo", "Dev", "Eve"][id as usize].to_owned();
    proposal::propose(&candidates, &rules)
        .into_iter()
        .map(|p| {
            p.map(|p| {
                (
                    p.flag == darkroom_catalog::Flag::Pick,
                    p.describe_with(&names),
                    p.reasons().to_vec(),
                )
            })
        })
        .collect()
}

#[test]
fn she_blinks_in_the_second_frame_and_smiles_at_the_camera_in_the_third() {
    let anna = open(800.0, 0);
    let frames = [
        // The sharpest: eyes open, no smile, looking off to the side.
        frame(1, 160.0, &[Doing { gaze: 30.0, ..anna }]),
        frame(
            2,
            150.0,
            &[Doing {
                closed: true,
                ..anna
            }],
        ),
        frame(
            3,
            140.0,
            &[Doing {
                smile: 0.25,
                ..anna
            }],
        ),
    ];
    let p = propose(&frames);
    let (picked, words, _) = p[2].clone().expect("the third frame is proposed");
    assert!(picked, "{p:?}");
    assert_eq!(
        words, "kept: best smiles of 3 alike in scene 1 (1 of 1 smiling)",
        "{p:?}"
    );
    let (picked, words, _) = p[1].clone().expect("the blink is proposed");
    assert!(!picked && words.starts_with("eyes closed: Anna"), "{words}");
    let (picked, words, reasons) = p[0].clone().expect("the first is proposed");
    assert!(!picked, "{p:?}");
    assert!(
        reasons
            .iter()
            .any(|r| matches!(r, Reason::LookingAway { .. })),
        "{words}"
    );
    assert!(words.ends_with("Anna looking away"), "{words}");

    // The first frame sharper still and looking at the camera, without a smile: the smile in
    // the third is still what is kept.
    let frames = [
        frame(1, 200.0, &[anna]),
        frame(
            2,
            150.0,
            &[Doing {
                closed: true,
                ..anna
            }],
        ),
        frame(
            3,
            140.0,
            &[Doing {
                smile: 0.25,
                ..anna
            }],
        ),
    ];
    let p = propose(&frames);
    assert!(p[2].as_ref().is_some_and(|e| e.0), "{p:?}");
    assert!(p[0].as_ref().is_some_and(|e| !e.0), "{p:?}");
}

#[test]
fn a_group_is_as_good_as_its_worst_prominent_face() {
    let five = |closed_at: Option<usize>| -> Vec<Doing> {
        (0..5)
            .map(|k| Doing {
                closed: closed_at == Some(k),
                ..open(100.0 + 300.0 * k as f32, k as i64)
            })
            .collect()
    };
    // A face in the back, a sixteenth of the others' area, blinks in every frame: it does
    // not matter.
    let behind = Doing {
        side: 50.0,
        closed: true,
        ..open(1700.0, 4)
    };
    let with_behind = |mut v: Vec<Doing>| {
        v.push(behind);
        v
    };
    let frames = [
        // The sharpest frame, and one of the five blinks in it.
        frame(1, 180.0, &with_behind(five(Some(3)))),
        frame(2, 150.0, &with_behind(five(None))),
    ];
    let p = propose(&frames);
    let (picked, words, _) = p[1].clone().expect("the second frame");
    assert!(picked, "everyone's eyes open: kept ({words}) {p:?}");
    assert!(
        words.starts_with("kept: the best of 2 alike"),
        "a keeper that passed, not the best of a weak burst: {words}"
    );
    let (picked, words, _) = p[0].clone().expect("the first frame");
    assert_eq!(
        (picked, words.as_str()),
        (false, "eyes closed: Dev"),
        "the face behind (Eve) is not among the closed eyes"
    );
    // Without the blink among the five, the sharpest frame is kept: the face behind never
    // judged it.
    let frames = [
        frame(1, 180.0, &with_behind(five(None))),
        frame(2, 150.0, &with_behind(five(None))),
    ];
    let p = propose(&frames);
    assert!(p[0].as_ref().is_some_and(|e| e.0), "{p:?}");
}

#[test]
fn a_key_person_blinking_outweighs_three_others_smiling() {
    let key = Doing {
        key: true,
        ..open(100.0, 0)
    };
    let smiling = |x: f32, p: i64| Doing {
        smile: 0.3,
        ..open(x, p)
    };
    let frames = [
        // Anna (starred) blinks while Ben, Cleo and Dev smile.
        frame(
            1,
            150.0,
            &[
                Doing {
                    closed: true,
                    ..key
                },
                smiling(400.0, 1),
                smiling(700.0, 2),
                smiling(1000.0, 3),
            ],
        ),
        // Anna's eyes open, nobody smiles, and Ben blinks: a blink in each frame, so only
        // Anna's star tells them apart.
        frame(
            2,
            150.0,
            &[
                key,
                Doing {
                    closed: true,
                    ..open(400.0, 1)
                },
                open(700.0, 2),
                open(1000.0, 3),
            ],
        ),
    ];
    // Lenient rejects no closed eyes: the burst's ranking alone decides.
    let p = propose_at(&frames, Strictness::Lenient);
    assert!(
        p[1].as_ref().is_some_and(|e| e.0),
        "Anna's open eyes win over three smiles: {p:?}"
    );
    assert!(p[0].as_ref().is_none_or(|e| !e.0), "{p:?}");
    // Without the star the three smiles win: the star is what turned it.
    let unstarred: Vec<_> = frames
        .iter()
        .map(|(path, i)| {
            let mut i = i.clone();
            i.faces.iter_mut().for_each(|f| f.key = false);
            (path.clone(), i)
        })
        .collect();
    let p = propose_at(&unstarred, Strictness::Lenient);
    assert!(p[0].as_ref().is_some_and(|e| e.0), "{p:?}");
}
