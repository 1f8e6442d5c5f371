//! The index job's two passes on the real models: every photo's faces, focus and looks first,
//! then the subject where it can change a decision. When the job says its first pass is done,
//! every photo has its row (the proposal can be made from them) and no subject has been looked
//! for; then the frames of the faceless burst get theirs, and the cup alone does not.

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
    let mut heard = Vec::new();
    let mut at_first_pass: Option<Vec<(std::path::PathBuf, PhotoIndex)>> = None;
    let summary = job::run(
        &config,
        &mut models,
        &mut catalog,
        &Control::default(),
        &mut |e| match e {
            Event::Indexed { path, .. } => heard.push(format!("indexed {}", name(&path))),
            Event::FirstPass { to_look } => {
                heard.push(format!("first pass, {to_look} to look in"));
                // Read with a connection of its own, as the window's analysis reads them.
                let reader = Catalog::open(&db, SidecarNaming::default()).expect("reader");
                at_first_pass = Some(reader.indexed_of(&photos).expect("rows"));
            }
            Event::SubjectSought { path, found } => {
                heard.push(format!("sought {} (found: {found})", name(&path)));
            }
            Event::Failed { path, error } => panic!("{error}: {}", path.display()),
            Event::Started { .. } | Event::Progress(_) => {}
        },
    )
    .expect("job");
    assert_eq!((summary.indexed, summary.sought), (4, 2), "{heard:?}");
    let first_pass = heard
        .iter()
        .position(|h| h.starts_with("first pass"))
        .expect("the first pass is said");
    assert_eq!(first_pass, 4, "after every photo's faces: {heard:?}");
    assert_eq!(heard[first_pass], "first pass, 2 to look in");
    let mut sought = heard[first_pass + 1..].to_vec();
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

fn name(path: &std::path::Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
