//! Where the index's second pass looks for the subject: from the rows the first pass wrote,
//! only in a frame no face judges that competes with others of its burst or scene, outside a
//! set, and not already looked in by this segmenter; every frame no face judges when the scope
//! says so.

use std::path::PathBuf;

use darkroom_catalog::{AfRow, ExposureRow, FaceRow, IndexStamp, MEASURES, PhotoIndex};
use darkroom_index::Thresholds;
use darkroom_index::job::{judged_at_af, subjects_wanted};
use darkroom_index::subject::SubjectScope;

const SEGMENTER: &str = "u2netp";

/// A frame shot at `at` seconds with the look `hash`, the segmenter that looked in it (if
/// any), and a face whose eyes judge it (or none).
fn frame(
    name: &str,
    at: f64,
    hash: u64,
    sought_by: Option<&str>,
    face: bool,
) -> (PathBuf, PhotoIndex) {
    (
        PathBuf::from(format!("/shoot/{name}.JPG")),
        PhotoIndex {
            stamp: IndexStamp {
                size: 1,
                mtime_ns: 0,
                detector: "scrfd_2.5g".into(),
                embedder: None,
                eyes: None,
                segmenter: sought_by.map(str::to_owned),
                scene: None,
                mesh: None,
                measures: MEASURES,
            },
            backend: "test".into(),
            width: 2000,
            height: 1500,
            sharpness: 120.0,
            phash: hash,
            captured_at: Some(at),
            body: None,
            clock_offset_s: 0.0,
            faces: if face {
                vec![FaceRow {
                    id: 0,
                    bbox: [800.0, 400.0, 1200.0, 900.0],
                    score: 0.9,
                    landmarks: [[1000.0, 600.0]; 5],
                    embedding: None,
                    sharpness: 120.0,
                    eyes_closed: Some(false),
                    person: None,
                    eyes_sharpness: Some(300.0),
                    expression: None,
                    key: false,
                }]
            } else {
                Vec::new()
            },
            subject: None,
            look: None,
            exposure: ExposureRow::default(),
            scene_classes: Vec::new(),
            af: None,
        },
    )
}

/// A bracket's frame: the camera marked it, a stop apart from the next.
fn bracketed(name: &str, at: f64, bias: f64) -> (PathBuf, PhotoIndex) {
    let (path, mut index) = frame(name, at, 0x3C3C_3C3C_3C3C_3C3C, None, false);
    index.exposure = ExposureRow {
        bias: Some(bias),
        ev: Some(12.0 + bias),
        auto_bracket: true,
    };
    (path, index)
}

/// A shoot with every case, hours apart so nothing groups across them.
fn shoot() -> Vec<(PathBuf, PhotoIndex)> {
    let burst = 0x0F0F_0F0F_0F0F_0F0F;
    vec![
        // A burst of a bird: two frames without a face and one whose face judges it.
        frame("bird_1", 1000.0, burst, None, false),
        frame("bird_2", 1000.2, burst, None, false),
        frame("bird_3_portrait", 1000.4, burst, None, true),
        // A landscape alone.
        frame("alone", 5000.0, 0x1234_5678_9ABC_DEF0, None, false),
        // A bracket: its frames are judged as a set.
        bracketed("bracket_1", 9000.0, -1.0),
        bracketed("bracket_2", 9000.3, 0.0),
        bracketed("bracket_3", 9000.6, 1.0),
        // A burst whose first frame this segmenter looked in already, and whose second an
        // older segmenter did.
        frame(
            "car_1",
            13000.0,
            0x00FF_00FF_00FF_00FF,
            Some(SEGMENTER),
            false,
        ),
        frame(
            "car_2",
            13000.2,
            0x00FF_00FF_00FF_00FF,
            Some("u2netp_old"),
            false,
        ),
    ]
}

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_subject_is_looked_for_only_where_it_can_change_a_decision() {
    let rows = shoot();
    let analysed = darkroom_index::analyse(&rows, &Thresholds::default());
    let place = |name: &str| {
        let a = analysed
            .iter()
            .find(|a| a.path.file_stem().and_then(|s| s.to_str()) == Some(name))
            .expect("the frame");
        (
            a.burst.as_ref().map(|b| b.size),
            a.scene.as_ref().map(|s| s.size),
            a.set.is_some(),
        )
    };
    // The shoot is what it says: the cases below are the rule's, not the grouping's.
    assert_eq!(place("bird_1"), (Some(3), Some(3), false));
    assert_eq!(place("alone"), (None, Some(1), false));
    assert!(place("bracket_2").2, "the bracket is a set: {analysed:?}");
    assert_eq!(place("car_2").0, Some(2));

    assert_eq!(
        names(&subjects_wanted(&rows, &Thresholds::default(), SEGMENTER)),
        ["bird_1", "bird_2", "car_2"],
        "the burst's frames without a judging face, and the one another segmenter looked in"
    );
}

#[test]
fn every_frame_no_face_judges_when_the_scope_is_everywhere() {
    let thresholds = Thresholds {
        subjects: SubjectScope::Everywhere,
        ..Thresholds::default()
    };
    assert_eq!(
        names(&subjects_wanted(&shoot(), &thresholds, SEGMENTER)),
        [
            "bird_1",
            "bird_2",
            "alone",
            "bracket_1",
            "bracket_2",
            "bracket_3",
            "car_2"
        ]
    );
}

#[test]
fn a_frame_alone_is_looked_in_once_another_joins_its_scene() {
    // The landscape gets a second frame a few seconds later: now they compete.
    let mut rows = shoot();
    rows.push(frame(
        "alone_again",
        5003.0,
        0x1234_5678_9ABC_DEF1,
        None,
        false,
    ));
    let wanted = names(&subjects_wanted(&rows, &Thresholds::default(), SEGMENTER));
    assert!(
        wanted.contains(&"alone".to_owned()) && wanted.contains(&"alone_again".to_owned()),
        "{wanted:?}"
    );
}

#[test]
fn a_frame_whose_camera_said_where_it_focused_is_judged_there_not_segmented() {
    let af = |sharpness| AfRow {
        area: [0.45, 0.45, 0.55, 0.55],
        mode: Some("Single Point".into()),
        sharpness,
    };
    let with = |first: Option<f32>, second: Option<f32>| {
        let mut rows = shoot();
        for (path, i) in &mut rows {
            if path.ends_with("bird_1.JPG") {
                i.af = Some(af(first));
            }
            if path.ends_with("bird_2.JPG") {
                i.af = Some(af(second));
            }
        }
        rows
    };
    // Both faceless frames of the burst measured where the camera focused: judged there
    // against each other, the segmenter not run on them.
    let rows = with(Some(180.0), Some(60.0));
    assert_eq!(
        names(&subjects_wanted(&rows, &Thresholds::default(), SEGMENTER)),
        ["car_2"]
    );
    assert_eq!(judged_at_af(&rows, &Thresholds::default(), SEGMENTER), 2);
    // An AF area that could not be measured leaves its frame, and the one it would have been
    // held against, to the segmenter.
    let rows = with(Some(180.0), None);
    assert_eq!(
        names(&subjects_wanted(&rows, &Thresholds::default(), SEGMENTER)),
        ["bird_1", "bird_2", "car_2"]
    );
    assert_eq!(judged_at_af(&rows, &Thresholds::default(), SEGMENTER), 0);
    // Told not to use the AF points, the job looks as before.
    let off = Thresholds {
        af_points: false,
        ..Thresholds::default()
    };
    let rows = with(Some(180.0), Some(60.0));
    assert_eq!(
        names(&subjects_wanted(&rows, &off, SEGMENTER)),
        ["bird_1", "bird_2", "car_2"]
    );
}

#[test]
fn frames_of_a_scene_are_held_against_each_other_only_where_they_focused_at_one_place() {
    // The landscape and a second frame of it a few seconds later: one scene, not a burst.
    let at = |area: [f32; 4], sharpness: f32| AfRow {
        area,
        mode: Some("Zone".into()),
        sharpness: Some(sharpness),
    };
    let scene = |second: [f32; 4]| {
        let mut rows = shoot();
        rows.push(frame(
            "alone_again",
            5003.0,
            0x1234_5678_9ABC_DEF1,
            None,
            false,
        ));
        for (path, i) in &mut rows {
            if path.ends_with("alone.JPG") {
                i.af = Some(at([0.40, 0.40, 0.50, 0.50], 200.0));
            }
            if path.ends_with("alone_again.JPG") {
                i.af = Some(at(second, 50.0));
            }
        }
        darkroom_index::analyse(&rows, &Thresholds::default())
            .into_iter()
            .find(|a| a.path.ends_with("alone_again.JPG"))
            .expect("the second frame")
    };
    let same_place = scene([0.41, 0.40, 0.51, 0.50]);
    assert!(same_place.burst.is_none() && same_place.scene.is_some());
    let af = same_place.af.expect("its AF area");
    assert!(af.soft && !af.best_in_burst, "{af:?}");
    assert_eq!(af.best, Some(200.0));
    // Focused elsewhere in the frame: nothing to hold it against.
    let elsewhere = scene([0.70, 0.10, 0.80, 0.20]).af.expect("its AF area");
    assert!(!elsewhere.soft && elsewhere.best.is_none(), "{elsewhere:?}");
}
