//! The window across a folder switch, and with nobody looking: undo never reaches into a folder
//! that was closed, results still on their way for the old folder never land on the new one,
//! and an index job driven by `logic` alone (a minimised window gets no `ui`) runs to the end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::gui::{PHOTOS, build, harness, live_setup, ort_cpu, settle, setup};
use crate::snapshots::Snap;
use crate::support::*;
use darkroom_app::gui::intent::Intent;
use darkroom_app::gui::pictures::{Faces, Picture};
use darkroom_app::gui::{DarkRoom, StatusSource};
use darkroom_catalog::{Catalog, Decision, Flag, SidecarNaming};
use egui::Key;
use egui_kittest::kittest::Queryable;

/// `n` photos named so the scan keeps their order: `name_0000` … from the sample photos.
fn folder_of(dir: &Path, name: &str, n: usize) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("mkdir");
    for i in 0..n {
        let src = PHOTOS[i % PHOTOS.len()];
        let ext = Path::new(src)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("png");
        std::fs::copy(photo(src), folder.join(format!("{name}_{i:04}.{ext}"))).expect("copy");
    }
    folder
}

fn photo_at(folder: &Path, n: usize) -> PathBuf {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("read folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "xmp"))
        .collect();
    files.sort();
    files.swap_remove(n)
}

fn sidecars(folder: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(folder)
        .expect("read folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xmp"))
        .collect()
}

fn catalog(dir: &Path) -> Catalog {
    Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension).expect("catalog")
}

/// Pick the last of six photos, open another folder, press Ctrl+Z.
fn decide_last_of_six_then_switch(
    dir: &Path,
    to: &Path,
) -> egui_kittest::Harness<'static, DarkRoom> {
    let a = folder_of(dir, "a", 6);
    let mut h = harness(dir, Some(a.clone()), ort_cpu());
    settle(&mut h);
    for _ in 0..5 {
        h.key_press(Key::ArrowRight);
    }
    h.key_press(Key::P);
    settle(&mut h);
    let last = photo_at(&a, 5);
    assert_eq!(
        catalog(dir)
            .decision(&last)
            .expect("query")
            .expect("row")
            .flag,
        Flag::Pick
    );
    h.state_mut().handle(Intent::Open(to.to_path_buf()));
    settle(&mut h);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    h
}

#[test]
fn undo_after_opening_a_smaller_folder_changes_nothing_there() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = folder_of(dir.path(), "b", 1);
    let h = decide_last_of_six_then_switch(dir.path(), &b);
    assert_eq!(h.state().cull.len(), 1);
    assert!(
        sidecars(&b).is_empty(),
        "no sidecar written in the new folder"
    );
    let only = photo_at(&b, 0);
    let recorded = catalog(dir.path()).decision(&only).expect("query");
    assert!(
        recorded.as_ref().is_none_or(|d| *d == Decision::default()),
        "no decision recorded for {}: {recorded:?}",
        only.display()
    );
    assert_eq!(h.state().cull.entries()[0].decision, Decision::default());
}

#[test]
fn undo_after_opening_a_larger_folder_keeps_a_rating_another_tool_wrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = folder_of(dir.path(), "c", 7);
    let sixth = photo_at(&c, 5);
    let sidecar = PathBuf::from(format!("{}.xmp", sixth.display()));
    let made = std::process::Command::new("exiftool")
        .args(["-q", "-XMP:Rating=4"])
        .arg(&sidecar)
        .status()
        .expect("exiftool");
    assert!(made.success());
    let before = std::fs::read(&sidecar).expect("sidecar");
    let h = decide_last_of_six_then_switch(dir.path(), &c);
    assert_eq!(h.state().cull.len(), 7);
    assert_eq!(
        exiftool(&["-XMP:Rating"], &sidecar)["Rating"],
        4,
        "the rating exiftool wrote is still there"
    );
    assert_eq!(
        std::fs::read(&sidecar).expect("sidecar"),
        before,
        "untouched"
    );
    assert_eq!(sidecars(&c), vec![sidecar], "and no other sidecar appeared");
    assert_eq!(h.state().cull.entries()[5].decision.stars, 4, "as imported");
}

#[test]
fn results_in_flight_for_the_old_folder_never_land_on_the_new_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = folder_of(dir.path(), "a", 6);
    // A rating another tool gave the first photo of A, which its import brings in.
    let first = photo_at(&a, 0);
    let made = std::process::Command::new("exiftool")
        .args(["-q", "-XMP:Rating=5"])
        .arg(format!("{}.xmp", first.display()))
        .status()
        .expect("exiftool");
    assert!(made.success());
    let b = dir.path().join("b");
    std::fs::create_dir_all(&b).expect("mkdir");
    // B's only photo is a different shape from A's first (the astronaut, square), so whose
    // thumbnail a cell holds shows.
    std::fs::copy(photo("rocket.jpg"), b.join("b_0000.jpg")).expect("copy");

    let mut h = harness(dir.path(), Some(a.clone()), ort_cpu());
    let ctx = h.ctx.clone();
    // Scan A and hand its photos to the catalog thread, drawing only once so that the grid
    // asks for its thumbnails; then decide, and ask for the first photo's close-ups.
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().root().is_none() || h.state().scanning() {
        assert!(Instant::now() < deadline, "the scan never ended");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    h.step();
    let first_id = h.state().cull.id(0);
    h.state_mut()
        .handle(Intent::Key(darkroom_app::gui::keymap::Action::Pick));
    h.state_mut().handle(Intent::CloseUps(first_id));
    // Nobody takes the answers in now: the workers finish and their results wait. The
    // thumbnails' cache files, the pick's sidecar and the import of all six are their
    // traces on disk.
    let thumbs = dir.path().join("thumbs");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let cached = walk_files(&thumbs);
        let picked = std::fs::read_to_string(format!("{}.xmp", first.display()))
            .is_ok_and(|x| x.contains("darkroom:Pick=\"True\""));
        let imported = (0..6).all(|n| {
            catalog(dir.path())
                .decision(&photo_at(&a, n))
                .is_ok_and(|d| d.is_some())
        });
        if cached >= 6 && picked && imported {
            break;
        }
        assert!(Instant::now() < deadline, "the workers never finished");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));

    // Switch, and take the old answers in with logic alone (no frame asks for B's pictures).
    h.state_mut().handle(Intent::Open(b.clone()));
    let deadline = Instant::now() + Duration::from_secs(120);
    while h.state().scanning() {
        assert!(Instant::now() < deadline, "B's scan never ended");
        let _ = ctx.run_logic(&egui::RawInput::default(), |ctx| h.state_mut().logic(ctx));
        std::thread::sleep(Duration::from_millis(10));
    }
    for _ in 0..20 {
        let _ = ctx.run_logic(&egui::RawInput::default(), |ctx| h.state_mut().logic(ctx));
        std::thread::sleep(Duration::from_millis(10));
    }
    let state = h.state();
    assert_eq!(state.cull.len(), 1);
    let only = &state.cull.entries()[0];
    assert_eq!(
        only.decision,
        Decision::default(),
        "neither A's pick nor its import"
    );
    assert!(!only.pending() && only.error.is_none());
    let id = state.cull.id(0);
    let pictures = state.gallery.get(id).expect("B's slot");
    assert!(
        matches!(pictures.thumb, Picture::None),
        "no thumbnail of A in B's cell"
    );
    assert!(matches!(pictures.loupe, Picture::None));
    assert!(matches!(pictures.faces, Faces::None), "no close-ups of A");
    assert!(
        state.gallery.get(first_id).is_none(),
        "A's ids address nothing now"
    );

    // Drawn, B's cell gets B's own thumbnail: the rocket, wider than tall.
    settle(&mut h);
    let Picture::Ready(tex) = &h.state().gallery.get(id).expect("slot").thumb else {
        panic!("B's thumbnail never arrived");
    };
    let [w, ht] = tex.size();
    assert!(
        w > ht,
        "the rocket is landscape, the astronaut square: {w}×{ht}"
    );
    assert!(sidecars(&b).is_empty());
}

fn walk_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() { walk_files(&p) } else { 1 }
        })
        .sum()
}

/// A window minimised from the start, never drawn: its folder opens and an index job over 100
/// photos, started and then driven by `logic` alone, completes with its rows in the catalog.
#[test]
fn an_index_job_runs_to_the_end_with_logic_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = folder_of(dir.path(), "many", 100);
    let ctx = egui::Context::default();
    let mut app = DarkRoom::new(&ctx, live_setup(dir.path(), folder.clone()));
    let mut minimised = egui::RawInput::default();
    minimised.viewports.insert(
        egui::ViewportId::ROOT,
        egui::ViewportInfo {
            minimized: Some(true),
            ..Default::default()
        },
    );
    let logic = |app: &mut DarkRoom| {
        let _ = ctx.run_logic(&minimised, |ctx| app.logic(ctx));
        std::thread::sleep(Duration::from_millis(20));
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while app.scanning() || !app.can_index() {
        assert!(Instant::now() < deadline, "never ready to index");
        logic(&mut app);
    }
    app.handle(Intent::StartIndex);
    assert!(app.is_indexing());
    let deadline = Instant::now() + Duration::from_secs(600);
    while app.is_indexing() {
        assert!(Instant::now() < deadline, "the index job never ended");
        logic(&mut app);
    }
    assert_eq!(
        app.index_summary
            .as_deref()
            .map(|s| s.starts_with("Indexed · 100 photos")),
        Some(true),
        "{:?}",
        app.index_summary
    );
    let catalog = catalog(dir.path());
    for n in 0..100 {
        let p = photo_at(&folder, n);
        assert!(
            catalog.photo_index(&p).expect("query").is_some(),
            "{} has no index row",
            p.display()
        );
    }
}

/// The engine failing to start says why, in the window.
#[test]
fn an_engine_that_did_not_start_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The notice names the file, and the snapshot shows it: a fixed path, not a random one.
    let inference = std::path::Path::new("/tmp/darkroom-snapshot-engine-failed/inference");
    let _ = std::fs::remove_dir_all(inference);
    std::fs::create_dir_all(inference).expect("mkdir");
    // A settings file another version (or a bad disk) left behind: the real start refuses it.
    std::fs::write(
        inference.join(darkroom_engine::settings::SETTINGS_FILE),
        b"{ this is not json",
    )
    .expect("write");
    in_process_runtime();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    darkroom_app::gui::shell::start_engine(models(), inference.to_path_buf(), tx);
    let mut h = build(setup(dir.path(), None, StatusSource::Starting(rx)));
    h.run_steps(3);
    let notice = h
        .state()
        .notices
        .iter()
        .next()
        .map(str::to_owned)
        .expect("a notice");
    assert!(
        notice.starts_with("the inference engine did not start: ")
            && notice.contains("backend-settings.json"),
        "{notice}"
    );
    h.get_by_label(&notice);
    h.snap("engine_failed_notice");
}
