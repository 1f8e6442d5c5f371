//! The index job's two passes on the real models: every photo's faces, focus and looks first,
//! then the subject where it can change a decision. When the job says its first pass is done,
//! every photo has its row (the proposal can be made from them) and no subject has been looked
//! for; a job cancelled there leaves the subjects to the next, which looks in the frames of the
//! faceless burst, and not in the cup alone.

use std::collections::BTreeMap;

use crate::support::*;
use darkroom_catalog::{Catalog, PhotoIndex, SidecarNaming};
use darkroom_engine::rungs::{DEFAULT_WORKSPACE_MB, Placement, Precision, Rung};
use darkroom_engine::{CardSet, JobPin, ModelStore, Sessions};
use darkroom_index::{Control, Event, JobConfig, Thresholds, job};

#[test]
fn the_first_pass_is_whole_before_any_subject_is_looked_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let mut photos = Vec::new();
    for (from, to) in [
        ("rocket.jpg", "rocket.jpg"),
        ("rocket.jpg", "rocket_2.jpg"),
        ("coffee.png", "coffee.png"),
        ("astronaut.png", "astronaut.png"),
    ] {
        std::fs::copy(photo(from), folder.join(to)).expect("copy");
        photos.push(folder.join(to));
    }
    let sessions = Sessions::new(
        in_process_runtime(),
        ModelStore::new(models(), CardSet::builtin().expect("cards")),
        1,
    )
    .expect("sessions");
    let pin = JobPin {
        line: "ONNX Runtime CPU (test)".into(),
        placements: BTreeMap::new(),
        default: Placement {
            rung: Rung::OrtCpu,
            precision: Precision::F32,
            engine_dir: None,
            workspace_mb: DEFAULT_WORKSPACE_MB,
            session: None,
        },
    };
    let mut models = darkroom_index::open_models(&sessions, &pin, None, None).expect("models");
    assert_eq!(models.segmenters.id().as_deref(), Some("u2netp"));
    let db = dir.path().join("catalog.sqlite");
    let mut catalog = Catalog::open(&db, SidecarNaming::default()).expect("catalog");
    let config = JobConfig {
        photos: photos.clone(),
        backend: pin.line.clone(),
        decode_threads: 2,
        work_side: job::WORK_SIDE,
        thresholds: Thresholds::default(),
    };
    // Another job holding this catalog's people (the window's, say): this one finds people
    // too, so it stops before it writes anything.
    let other = Catalog::open(&db, SidecarNaming::default()).expect("another job's catalog");
    let held = other.lock_people().expect("the other job's hold");
    let busy = job::run(
        &config,
        &mut models,
        &mut catalog,
        &Control::default(),
        &mut |_| {},
    )
    .expect_err("a second job on the people at once");
    assert!(busy.to_string().contains("another index job"), "{busy}");
    assert!(catalog.indexed_of(&photos).expect("rows").is_empty());
    drop(held);

    // Cancelled as the first pass ends: every photo's faces are in, no subject is.
    let control = Control::default();
    let mut heard = Vec::new();
    let mut at_first_pass: Option<Vec<(std::path::PathBuf, PhotoIndex)>> = None;
    let summary = job::run(&config, &mut models, &mut catalog, &control, &mut |e| {
        if let Event::FirstPass { .. } = &e {
            // Read with a connection of its own, as the window's analysis reads them.
            let reader = Catalog::open(&db, SidecarNaming::default()).expect("reader");
            at_first_pass = Some(reader.indexed_of(&photos).expect("rows"));
            control.cancel();
        }
        hear(&mut heard, e);
    })
    .expect("job");
    assert_eq!(
        (summary.indexed, summary.sought, summary.cancelled),
        (4, 0, true),
        "{heard:?}"
    );
    assert_eq!(
        heard
            .iter()
            .position(|h| h.starts_with("first pass"))
            .expect("the first pass is said"),
        4,
        "after every photo's faces: {heard:?}"
    );
    assert_eq!(heard[4..], ["first pass, 2 to look in"], "{heard:?}");

    // Run again: nothing to index, the first pass said at once, then the two subjects.
    let mut heard = Vec::new();
    let summary = job::run(
        &config,
        &mut models,
        &mut catalog,
        &Control::default(),
        &mut |e| hear(&mut heard, e),
    )
    .expect("job");
    assert_eq!(
        (summary.skipped, summary.sought, summary.cancelled),
        (4, 2, false),
        "{heard:?}"
    );
    assert_eq!(heard[0], "first pass, 2 to look in", "{heard:?}");
    let mut sought = heard[1..].to_vec();
    sought.sort();
    assert_eq!(
        sought,
        [
            "sought rocket.jpg (found: true)",
            "sought rocket_2.jpg (found: true)"
        ]
    );

    // At the first pass: every row there, no subject yet, and the proposal's grouping made.
    let rows = at_first_pass.expect("the rows at the first pass");
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter()
            .all(|(_, i)| i.stamp.segmenter.is_none() && i.subject.is_none()),
        "no subject looked for yet"
    );
    let analysed = darkroom_index::analyse(&rows, &Thresholds::default());
    let burst_of = |n: &str| {
        analysed
            .iter()
            .find(|a| name(&a.path) == n)
            .and_then(|a| a.burst.as_ref().map(|b| (b.id, b.size)))
    };
    assert_eq!(burst_of("rocket.jpg"), burst_of("rocket_2.jpg"));
    assert_eq!(burst_of("rocket.jpg").map(|b| b.1), Some(2));

    // After: the rockets' subjects with the segmenter that looked; the cup and the astronaut
    // not looked in.
    for p in &photos {
        let i = catalog.photo_index(p).expect("query").expect("indexed");
        let rocket = name(p).starts_with("rocket");
        assert_eq!(
            i.stamp.segmenter.as_deref(),
            rocket.then_some("u2netp"),
            "{}",
            p.display()
        );
        assert_eq!(i.subject.is_some(), rocket, "{}", p.display());
    }
}

/// What a job said, in words; a failure fails the test.
fn hear(heard: &mut Vec<String>, e: Event) {
    match e {
        Event::Indexed { path, .. } => heard.push(format!("indexed {}", name(&path))),
        Event::FirstPass { to_look } => heard.push(format!("first pass, {to_look} to look in")),
        Event::SubjectSought { path, found } => {
            heard.push(format!("sought {} (found: {found})", name(&path)));
        }
        Event::Failed { path, error } => panic!("{error}: {}", path.display()),
        Event::Started { .. } | Event::Progress(_) => {}
    }
}

fn name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
