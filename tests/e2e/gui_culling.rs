//! Culling a shoot in the window as a photographer does: a selection decided and undone as
//! one, the loupe moving on after a decision, an auto-cull proposal reviewed, applied and
//! undone, and the picks handed off through the export window. Decisions are checked in the
//! real catalog and the sidecars; the snapshots were looked at.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gui::{PHOTOS, harness, harness_with, ort_cpu, sample_folder, settle};
use crate::snapshots::Snap;
use darkroom_app::gui::View;
use darkroom_catalog::{Catalog, Decision, FaceRow, Flag, IndexStamp, PhotoIndex, SidecarNaming};
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;

fn decision(dir: &Path, photo: &Path) -> Decision {
    Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension)
        .expect("catalog")
        .decision(photo)
        .expect("query")
        .unwrap_or_default()
}

#[test]
fn a_selection_of_five_is_decided_and_undone_as_one_and_the_loupe_moves_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    h.key_press(Key::ArrowRight);
    for _ in 0..4 {
        h.key_press_modifiers(Modifiers::SHIFT, Key::ArrowRight);
    }
    settle(&mut h);
    assert_eq!(h.state().cull.selection_len(), 5, "Shift+→ four times");
    assert_eq!(
        h.state().cull.selected,
        5,
        "→ was not also taken as a plain move"
    );
    // Ctrl+click adds a photo, and again takes it away.
    h.get_by_label_contains(PHOTOS[0])
        .click_modifiers(Modifiers::COMMAND);
    settle(&mut h);
    assert_eq!(h.state().cull.selection_len(), 6);
    h.get_by_label_contains(PHOTOS[0])
        .click_modifiers(Modifiers::COMMAND);
    settle(&mut h);
    assert_eq!(h.state().cull.selection_len(), 5);
    h.get_by_label_contains("5 selected");
    h.snap("grid_selection");

    h.key_press(Key::P);
    settle(&mut h);
    for name in &PHOTOS[1..] {
        assert_eq!(
            decision(dir.path(), &folder.join(name)).flag,
            Flag::Pick,
            "{name}"
        );
        let sidecar = std::fs::read_to_string(folder.join(format!("{name}.xmp"))).expect("sidecar");
        assert!(sidecar.contains("darkroom:Pick=\"True\""), "{sidecar}");
    }
    assert_eq!(
        decision(dir.path(), &folder.join(PHOTOS[0])).flag,
        Flag::Unflagged
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    for name in PHOTOS {
        assert_eq!(
            decision(dir.path(), &folder.join(name)).flag,
            Flag::Unflagged,
            "one undo took back all five: {name}"
        );
    }

    // In the loupe a decision moves on to the next photo (Settings: on by default there).
    h.key_press(Key::ArrowLeft);
    h.key_press(Key::Enter);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    let at = h.state().cull.selected;
    h.key_press(Key::X);
    settle(&mut h);
    assert_eq!(h.state().cull.selected, at + 1, "moved on");
    assert_eq!(
        decision(dir.path(), &folder.join(PHOTOS[at])).flag,
        Flag::Reject
    );

    // Walking the whole shoot in the loupe holds only the pictures around the one shown, and
    // the filmstrip shows the photos around it with their decision.
    for _ in 0..PHOTOS.len() {
        h.key_press(Key::ArrowRight);
        settle(&mut h);
    }
    let held = h.state().gallery.loupe_pictures();
    assert!(held <= 4, "{held} loupe pictures held");
    h.get_by_label_contains(&format!("filmstrip {} Reject", PHOTOS[at]))
        .click();
    settle(&mut h);
    assert_eq!(
        h.state().cull.selected,
        at,
        "a filmstrip click shows that photo"
    );
    h.snap("loupe_filmstrip");

    // J marks where the photo clips (red blown out, blue crushed); the histogram says how much.
    h.key_press(Key::J);
    settle(&mut h);
    assert!(h.state().show_clipping);
    let words = {
        use egui_kittest::kittest::NodeT;
        h.get_by_label_contains("histogram blown")
            .accesskit_node()
            .label()
            .unwrap_or_default()
    };
    assert!(
        words.contains("crushed") && !words.contains("crushed 0.0 %"),
        "{words}"
    );
    h.snap("loupe_clipping");
}

/// Index rows as the index job writes them, for a shoot whose first three frames are a burst
/// (same look, half a second apart): frame 1 the sharpest, frame 2 blurry; then a blurry
/// photo, one with closed eyes and a good one.
fn index_rows(dir: &Path, folder: &Path) {
    let mut c =
        Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension).expect("catalog");
    let rows: [(f32, u64, f64, Option<bool>); 6] = [
        (60.0, 0xF0F0_F0F0_F0F0_F0F0, 100.0, Some(false)),
        (140.0, 0xF0F0_F0F0_F0F0_F0F1, 100.5, Some(false)),
        (20.0, 0xF0F0_F0F0_F0F0_F0F3, 101.0, Some(false)),
        (12.0, 0x0123_4567_89AB_CDEF, 500.0, None),
        (90.0, 0xFFFF_0000_FFFF_0000, 900.0, Some(true)),
        (95.0, 0x0000_FFFF_0000_FFFF, 1300.0, Some(false)),
    ];
    for (name, (sharpness, phash, at, eyes)) in PHOTOS.iter().zip(rows) {
        let path = folder.join(name);
        let size = std::fs::metadata(&path).expect("stat").len();
        let faces = eyes
            .map(|closed| FaceRow {
                id: 0,
                bbox: [40.0, 40.0, 160.0, 180.0],
                score: 0.9,
                landmarks: [
                    [80.0, 90.0],
                    [120.0, 90.0],
                    [100.0, 115.0],
                    [85.0, 140.0],
                    [115.0, 140.0],
                ],
                embedding: None,
                sharpness,
                eyes_closed: Some(closed),
                person: None,
                eyes_sharpness: None,
                expression: None,
                key: false,
            })
            .into_iter()
            .collect();
        let index = PhotoIndex {
            stamp: IndexStamp {
                size,
                mtime_ns: 0,
                detector: "scrfd_2.5g".into(),
                embedder: None,
                eyes: Some("fr_eye".into()),
                segmenter: None,
                scene: None,
                mesh: None,
                measures: darkroom_catalog::MEASURES,
            },
            backend: "CPU · ONNX Runtime 1.31.1".into(),
            width: 512,
            height: 512,
            sharpness,
            phash,
            captured_at: Some(at),
            body: None,
            clock_offset_s: 0.0,
            faces,
            subject: None,
            look: None,
            exposure: Default::default(),
            scene_classes: Vec::new(),
            af: None,
        };
        c.store_index(&path, &index, &[]).expect("store");
    }
}

#[test]
fn an_auto_cull_proposal_is_marked_applied_as_real_decisions_in_one_step_and_undone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    index_rows(dir.path(), &folder);
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    // The good last photo already has the photographer's two stars: never proposed for.
    let last = h.state().cull.visible.len() - 1;
    h.state_mut().cull.select_visible(last);
    h.key_press(Key::Num2);
    settle(&mut h);

    h.key_press_modifiers(Modifiers::COMMAND, Key::P);
    settle(&mut h);
    assert_eq!(
        h.state().cull.proposal_counts(),
        Some((1, 4)),
        "pick the burst's best; reject its other two, the blurry photo and the closed eyes"
    );
    h.get_by_label_contains("1 to pick · 4 to reject");
    h.get_by_label_contains("proposed: pick (best of burst)");
    h.get_by_label_contains("proposed: reject (eyes closed)");
    // Nothing is decided yet: it is a proposal.
    assert_eq!(
        decision(dir.path(), &folder.join(PHOTOS[1])).flag,
        Flag::Unflagged
    );
    h.snap("proposal");

    // Each photo says why, with the evidence, on the photo it explains: the burst's keeper
    // and its others by their place among the alike, the blurry one against its scene's best.
    h.get_by_label_contains(
        "proposed: pick (best of burst) — kept: the best of 3 alike in scene 1",
    );
    let words_of = |h: &egui_kittest::Harness<'static, darkroom_app::gui::DarkRoom>, name: &str| {
        let cull = &h.state().cull;
        let i = cull
            .entries()
            .iter()
            .position(|e| e.item.primary.ends_with(name))
            .expect("in the grid");
        cull.proposed(i).map(|p| p.describe()).unwrap_or_default()
    };
    assert_eq!(
        words_of(&h, PHOTOS[1]),
        "kept: the best of 3 alike in scene 1"
    );
    // Stacked under the keeper, the burst's other frames say where they stand among the alike.
    let others: Vec<String> = PHOTOS[..3]
        .iter()
        .filter(|&&n| n != PHOTOS[1])
        .map(|n| words_of(&h, n))
        .collect();
    assert!(
        others.iter().any(|w| w.ends_with(" of 3 alike in scene 1")),
        "{others:?}"
    );
    h.get_by_label_contains("proposed: reject (blurry) — blurry: ")
        .hover();
    // Past egui's tooltip delay (half a second of frames).
    h.run_steps(60);
    h.snap("proposal_tooltip");

    // Refined by a reason: "keep eyes-closed frames" takes exactly the eyes-closed proposal.
    h.get_by_label_contains("keep eyes-closed frames (1)")
        .click();
    settle(&mut h);
    assert_eq!(h.state().cull.proposal_counts(), Some((1, 3)));
    assert!(
        h.query_by_label_contains("proposed: reject (eyes closed)")
            .is_none(),
        "the eyes-closed photo has no proposal left"
    );
    h.get_by_label_contains("proposed: reject (blurry)");
    h.get_by_label_contains("keep eyes-closed frames").click();
    settle(&mut h);
    assert_eq!(h.state().cull.proposal_counts(), Some((1, 4)), "taken back");

    // The loupe says it too, under the photo's facts.
    let blurry =
        h.state()
            .cull
            .visible
            .iter()
            .position(|&i| {
                h.state().cull.proposed(i).is_some_and(|p| {
                    p.reason().kind() == darkroom_index::proposal::ReasonKind::Blurry
                })
            })
            .expect("the blurry photo is shown");
    h.state_mut().cull.select_visible(blurry);
    h.key_press(Key::Enter);
    settle(&mut h);
    h.get_by_label_contains("proposed: reject (blurry) — blurry: ");
    h.snap("proposal_loupe");
    h.key_press(Key::Escape);
    settle(&mut h);

    h.key_press_modifiers(Modifiers::COMMAND, Key::Enter);
    settle(&mut h);
    let want = [
        Flag::Reject,
        Flag::Pick,
        Flag::Reject,
        Flag::Reject,
        Flag::Reject,
        Flag::Unflagged,
    ];
    for (name, flag) in PHOTOS.iter().zip(want) {
        assert_eq!(
            decision(dir.path(), &folder.join(name)).flag,
            flag,
            "{name}"
        );
    }
    let sidecar =
        std::fs::read_to_string(folder.join(format!("{}.xmp", PHOTOS[1]))).expect("sidecar");
    assert!(sidecar.contains("darkroom:Pick=\"True\""), "{sidecar}");
    assert_eq!(
        decision(dir.path(), &folder.join(PHOTOS[5])).stars,
        2,
        "left as it was"
    );
    assert!(h.state().cull.proposal_counts().is_none());
    h.snap("proposal_applied");

    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    for name in &PHOTOS[..5] {
        assert_eq!(
            decision(dir.path(), &folder.join(name)),
            Decision::default(),
            "{name}"
        );
    }
    assert_eq!(decision(dir.path(), &folder.join(PHOTOS[5])).stars, 2);
}

#[test]
fn the_export_window_copies_the_picks_and_asks_before_touching_what_is_there() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    // A fixed destination: its path is in the snapshot.
    let dest: PathBuf = std::env::temp_dir().join("darkroom-gui-export-to-editor");
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::create_dir(&dest).expect("mkdir");
    let answer = dest.clone();
    let mut h = harness_with(
        dir.path(),
        Some(folder.clone()),
        ort_cpu(),
        Arc::new(move |_| Some(answer.clone())),
    );
    settle(&mut h);
    h.key_press(Key::P);
    h.key_press(Key::ArrowRight);
    h.key_press(Key::P);
    settle(&mut h);

    h.key_press_modifiers(Modifiers::COMMAND, Key::E);
    settle(&mut h);
    h.get_by_label_contains("4 files");
    h.get_by_label("Copy").click();
    settle(&mut h);
    h.get_by_label_contains("4 files copied");
    for name in &PHOTOS[..2] {
        for file in [name.to_string(), format!("{name}.xmp")] {
            assert_eq!(
                std::fs::read(dest.join(&file)).expect("copied"),
                std::fs::read(folder.join(&file)).expect("original"),
                "{file}"
            );
        }
    }
    h.get_by_label("Close").click();
    settle(&mut h);

    // Again: the files are there. Copy waits until the photographer says what to do.
    std::fs::write(dest.join(PHOTOS[0]), b"the editor's version").expect("write");
    h.get_by_label("Export…").click();
    settle(&mut h);
    h.get_by_label_contains("4 files already in the destination");
    h.snap("export_asks");
    h.get_by_label("Copy").click();
    settle(&mut h);
    assert_eq!(
        std::fs::read(dest.join(PHOTOS[0])).expect("read"),
        b"the editor's version",
        "nothing replaced before the photographer said so"
    );
    h.get_by_label("Leave them, copy the rest").click();
    h.get_by_label("Copy").click();
    settle(&mut h);
    h.get_by_label_contains("0 files copied, 4 already there left alone");
    assert_eq!(
        std::fs::read(dest.join(PHOTOS[0])).expect("read"),
        b"the editor's version"
    );
    let _ = std::fs::remove_dir_all(&dest);
}

/// Settings → "Sidecars also speak": unticked, a tool's words leave the sidecars written from
/// then on; the words every tool reads stay.
#[test]
fn the_sidecars_speak_the_tools_ticked_in_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    h.key_press(Key::P);
    settle(&mut h);
    let first =
        std::fs::read_to_string(folder.join(format!("{}.xmp", PHOTOS[0]))).expect("sidecar");
    assert!(
        first.contains("digiKam:PickLabel=\"3\"")
            && first.contains("photomechanic:Tagged=\"True\""),
        "both by default: {first}"
    );
    h.key_press_modifiers(Modifiers::COMMAND, Key::Comma);
    settle(&mut h);
    h.get_by_label("digiKam (pick label, colour label)").click();
    settle(&mut h);
    assert!(!h.state().words.digikam);
    h.key_press(Key::Escape);
    h.key_press(Key::ArrowRight);
    h.key_press(Key::P);
    settle(&mut h);
    let second =
        std::fs::read_to_string(folder.join(format!("{}.xmp", PHOTOS[1]))).expect("sidecar");
    assert!(!second.contains("digiKam"), "{second}");
    assert!(
        second.contains("photomechanic:Tagged=\"True\"")
            && second.contains("darkroom:Pick=\"True\""),
        "{second}"
    );
}
