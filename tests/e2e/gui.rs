//! The window, driven as a user would (keys, clicks found by label), rendered with wgpu on
//! Mesa lavapipe and compared with committed snapshots; and checked against the catalog and
//! the sidecars it writes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::snapshots::Snap;
use crate::support::*;
use darkroom_app::gui::pictures::Faces;
use darkroom_app::gui::windows::settings::{DETECTOR_TIERS, DetectorChoice, EngineKnobs};
use darkroom_app::gui::workers::PickFolder;
use darkroom_app::gui::{DarkRoom, Overlay, Picture, Setup, StatusSource, View};
use darkroom_catalog::{Catalog, Flag, SidecarNaming};
use darkroom_engine::Rung;
use darkroom_engine::ladder::backend::{BackendStatus, Phase, TuningState};
use darkroom_engine::ladder::probe::{RungOutcome, RungState};
use darkroom_engine::ladder::{BackendSettings, Override, OverrideSource};
use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// A limit only against a hang, for waits on events that take milliseconds: far past anything
/// a busy machine takes, and past no product timeout.
const HANG_GUARD: Duration = Duration::from_secs(120);

pub(crate) const PHOTOS: &[&str] = &[
    "astronaut.png",
    "camera.png",
    "chelsea.png",
    "coffee.png",
    "grace_hopper.jpg",
    "rocket.jpg",
];

pub(crate) fn sample_folder(dir: &Path) -> PathBuf {
    let folder = dir.join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for p in PHOTOS {
        std::fs::copy(photo(p), folder.join(p)).expect("copy photo");
    }
    folder
}

pub(crate) fn status(
    line: &str,
    serving: Rung,
    rungs: Vec<(Rung, RungState, Option<&str>)>,
) -> BackendStatus {
    BackendStatus {
        phase: Phase::Ready,
        line: line.to_owned(),
        progress: None,
        serving,
        floor: Rung::OrtCpu,
        selected: Some(serving),
        fallback: None,
        demoted: None,
        forced: None,
        forced_note: None,
        platform: None,
        ladder: rungs.iter().map(|r| r.0).collect(),
        model_id: Some("scrfd_2.5g".into()),
        rungs: rungs
            .into_iter()
            .map(|(rung, state, reason)| RungOutcome {
                rung,
                state,
                reason: reason.map(str::to_owned),
                timing: None,
            })
            .collect(),
        from_cache: true,
        cache_file: PathBuf::from("/home/user/.local/share/darkroom/inference/probe.json"),
        cache_miss: None,
        cache_error: None,
        engines: Vec::new(),
        inputs: None,
        tuning_state: TuningState::Done,
        tuning: Vec::new(),
        tuning_file: PathBuf::from(
            "/home/user/.local/share/darkroom/inference/session-tuning.json",
        ),
        tuning_notes: Vec::new(),
    }
}

pub(crate) fn ort_cpu() -> BackendStatus {
    status(
        "CPU · ONNX Runtime 1.31.1",
        Rung::OrtCpu,
        vec![
            (Rung::OrtCpu, RungState::Floor, None),
            (Rung::Tract, RungState::Unavailable, None),
        ],
    )
}

/// Fixed, so the snapshots do not depend on this machine's cores.
fn knobs() -> EngineKnobs {
    EngineKnobs {
        saved: BackendSettings::default(),
        threads_in_effect: 4,
        threads_env: false,
        workspace_in_effect: 512,
        workspace_env: false,
    }
}

/// The detector tiers as a machine with the fixtures has them, plus a Fast one said to be
/// installed so a switch can be tested (no index job here runs it).
fn detector_choices() -> Vec<DetectorChoice> {
    // Whether a derived form may be offered is the built-in release records' answer.
    let cards = darkroom_engine::CardSet::builtin().expect("cards");
    let releases = darkroom_engine::releases::ReleaseSet::builtin().expect("release records");
    DETECTOR_TIERS
        .iter()
        .map(|t| {
            let card = cards.get(t.model_id).expect("a card per tier");
            DetectorChoice {
                tier: *t,
                installed: t.model_id != "scrfd_10g",
                released: releases.passed(card),
                recall: releases.detector_recall(card).map(|r| r.words()),
            }
        })
        .collect()
}

/// A folder dialog that nobody answers: these tests never open one.
pub(crate) fn no_dialog() -> PickFolder {
    Arc::new(|_| panic!("no folder dialog in this test"))
}

/// The window asked to close, as its close button or the window manager asks (the next frame
/// sees it).
pub(crate) fn ask_to_close(h: &mut Harness<'static, DarkRoom>) {
    h.input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
}

pub(crate) fn harness(
    dir: &Path,
    folder: Option<PathBuf>,
    backend: BackendStatus,
) -> Harness<'static, DarkRoom> {
    harness_with(dir, folder, backend, no_dialog())
}

pub(crate) fn harness_with(
    dir: &Path,
    folder: Option<PathBuf>,
    backend: BackendStatus,
    pick_folder: PickFolder,
) -> Harness<'static, DarkRoom> {
    let mut setup = setup(dir, folder, StatusSource::Fixed(Box::new(backend)));
    setup.pick_folder = pick_folder;
    build(setup)
}

/// The window's set-up for a test in `dir`: nothing persisted but the catalog and the engine's
/// settings, fixed knobs and detector choices, no engine start, no folder dialog.
pub(crate) fn setup(dir: &Path, folder: Option<PathBuf>, status: StatusSource) -> Setup {
    Setup {
        folder,
        catalog: dir.join("catalog.sqlite"),
        thumb_cache: dir.join("thumbs"),
        naming: SidecarNaming::WithExtension,
        words: Default::default(),
        write_to_cards: false,
        recent: Vec::new(),
        status,
        thumb_threads: 2,
        knobs: knobs(),
        settings_file: None,
        inference_dir: Some(dir.join("inference")),
        pick_folder: no_dialog(),
        on_first_frame: Vec::new(),
        models_dir: None,
        detectors: detector_choices(),
        detector_saved: None,
        blurry_below: 40.0,
        culling: Default::default(),
        model_mirror: None,
        notices: Vec::new(),
    }
}

pub(crate) fn build(setup: Setup) -> Harness<'static, DarkRoom> {
    // Workers wake a context of their own; the harness steps frames itself.
    build_sized(setup, [1000.0, 640.0], 0.25)
}

/// As [`build`], the window `size` points, its clock moving `step_dt` seconds a frame.
pub(crate) fn build_sized(
    setup: Setup,
    size: [f32; 2],
    step_dt: f32,
) -> Harness<'static, DarkRoom> {
    let app = DarkRoom::new(&egui::Context::default(), setup);
    Harness::builder()
        .with_size(size)
        .with_step_dt(step_dt)
        .wgpu()
        .build_ui_state(
            |ui, app: &mut DarkRoom| {
                // As eframe does: logic, then the frame.
                app.logic(ui.ctx());
                app.ui(ui);
            },
            app,
        )
}

/// Step frames until the background work the view needs has arrived.
pub(crate) fn settle(h: &mut Harness<'static, DarkRoom>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        h.step();
        if h.state().settled() {
            h.run_steps(3);
            if h.state().settled() {
                return;
            }
        }
        assert!(Instant::now() < deadline, "the window never settled");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn empty_state_offers_a_folder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(dir.path(), None, ort_cpu());
    h.run_steps(2);
    h.get_by_label("Open folder…");
    h.snap("empty_state");
}

/// The dialog answers from a thread of its own after a while, as a person would; meanwhile
/// the window keeps drawing and says it is waiting.
fn slow_dialog(
    answer: Option<PathBuf>,
    asked: Arc<std::sync::Mutex<Vec<Option<PathBuf>>>>,
) -> PickFolder {
    Arc::new(move |ask| {
        asked.lock().expect("lock").push(ask.start);
        std::thread::sleep(Duration::from_millis(300));
        answer.clone()
    })
}

#[test]
fn open_folder_uses_the_dialog_without_blocking_the_window() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());

    // Cancelled: still the empty state, the button usable again.
    let asked = Arc::default();
    let mut h = harness_with(
        dir.path(),
        None,
        ort_cpu(),
        slow_dialog(None, Arc::clone(&asked)),
    );
    h.run_steps(2);
    h.get_by_label("Open folder…").click();
    h.run_steps(2);
    assert!(
        h.state().choosing_folder(),
        "the dialog is open, the window draws"
    );
    h.get_by_label("Choosing a folder…");
    let deadline = Instant::now() + HANG_GUARD;
    while h.state().choosing_folder() {
        assert!(Instant::now() < deadline, "the dialog never answered");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(h.state().root().is_none(), "cancelled: nothing opened");
    assert_eq!(asked.lock().expect("lock").as_slice(), &[None]);

    // Chosen with Ctrl+O: the folder opens and joins the recent list.
    let asked = Arc::default();
    let mut h = harness_with(
        dir.path(),
        None,
        ort_cpu(),
        slow_dialog(Some(folder.clone()), Arc::clone(&asked)),
    );
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::O);
    h.step();
    assert!(h.state().choosing_folder());
    settle(&mut h);
    assert_eq!(h.state().root(), Some(folder.as_path()));
    assert_eq!(h.state().cull.len(), PHOTOS.len());
    assert_eq!(h.state().recent.first(), Some(&folder));

    // Open… again from the grid: the dialog starts in the open folder.
    h.get_by_label("Open…").click();
    h.step();
    settle(&mut h);
    assert_eq!(
        asked.lock().expect("lock").as_slice(),
        &[None, Some(folder)]
    );
}

#[test]
fn settings_edits_threads_and_workspace_and_saves_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(dir.path(), None, ort_cpu());
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Comma);
    h.run_steps(2);
    assert_eq!(h.state().overlay, Overlay::Settings);

    let saved =
        || BackendSettings::load(&dir.path().join("inference")).expect("the saved settings parse");
    let wait_for = |h: &mut Harness<'static, DarkRoom>, want: &BackendSettings| {
        let deadline = Instant::now() + HANG_GUARD;
        while saved() != *want {
            assert!(
                Instant::now() < deadline,
                "never saved: {want:?}, have {:?}",
                saved()
            );
            h.step();
            std::thread::sleep(Duration::from_millis(20));
        }
    };

    // One more thread than in effect, by keyboard on the field the label names.
    // Below the fold of a 640 px window: scrolled to, as a person would.
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "Inference threads")
        .scroll_to_me();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "Inference threads")
        .focus();
    h.step();
    h.key_press(Key::ArrowUp);
    h.run_steps(2);
    assert_eq!(h.state().knobs.saved.threads, Some(5));
    let mut want = BackendSettings {
        threads: Some(5),
        ..Default::default()
    };
    wait_for(&mut h, &want);
    assert_eq!(
        h.state().cull.selected,
        0,
        "the arrow went to the field, not the grid"
    );
    h.get_by_label(
        "Automatic: measured per model on this CPU. tract uses one. Takes effect at the next start.",
    );

    // The workspace cap, then the override: each save keeps the others.
    // Below the fold of a 640 px window: scrolled to, as a person would.
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "TensorRT workspace")
        .scroll_to_me();
    h.run_steps(2);
    h.get_by_role_and_label(egui::accesskit::Role::SpinButton, "TensorRT workspace")
        .focus();
    h.step();
    h.key_press(Key::ArrowDown);
    h.run_steps(2);
    want.workspace_mb = Some(496);
    wait_for(&mut h, &want);

    // Back to automatic threads.
    let automatic: Vec<_> = h.query_all_by_label("Automatic").collect();
    assert_eq!(automatic.len(), 2, "one for each field");
    automatic[0].click();
    h.run_steps(2);
    want.threads = None;
    wait_for(&mut h, &want);
    // The window resizes to its new contents over a few frames; however many the save took,
    // the picture is taken once it has.
    h.run_steps(6);
    h.snap("settings_knobs");
}

#[test]
fn grid_loupe_compare_and_decisions_reach_catalog_and_sidecars() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    assert_eq!(h.state().cull.len(), PHOTOS.len());
    h.snap("grid");

    // Pick the first photo, give it 3 stars, then undo the stars.
    h.key_press(Key::P);
    h.key_press(Key::Num3);
    settle(&mut h);
    let first = folder.join("astronaut.png");
    let catalog = |p: &Path| {
        Catalog::open(
            &dir.path().join("catalog.sqlite"),
            SidecarNaming::WithExtension,
        )
        .expect("catalog")
        .decision(p)
        .expect("query")
        .expect("row")
    };
    assert_eq!(catalog(&first).flag, Flag::Pick);
    assert_eq!(catalog(&first).stars, 3);
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert_eq!(catalog(&first).stars, 0, "undone");
    let sidecar = std::fs::read_to_string(folder.join("astronaut.png.xmp")).expect("sidecar");
    assert!(
        sidecar.contains("xmp:Rating=\"0\"") && sidecar.contains("darkroom:Pick=\"True\""),
        "{sidecar}"
    );

    // Next photo: reject, red label.
    h.key_press(Key::ArrowRight);
    h.key_press(Key::X);
    h.key_press(Key::Num6);
    settle(&mut h);
    let second = folder.join("camera.png");
    assert_eq!(catalog(&second).flag, Flag::Reject);
    let sidecar = std::fs::read_to_string(folder.join("camera.png.xmp")).expect("sidecar");
    assert!(
        sidecar.contains("xmp:Rating=\"-1\"") && sidecar.contains("xmp:Label=\"Red\""),
        "{sidecar}"
    );
    settle(&mut h);
    h.snap("grid_decided");

    // Full-size photos make large snapshots: the loupe and compare are checked smaller.
    h.set_size(egui::vec2(640.0, 420.0));
    h.key_press(Key::Space);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    h.snap("loupe");

    h.key_press(Key::C);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Compare);
    h.snap("compare");

    h.key_press(Key::Escape);
    h.key_press(Key::F);
    settle(&mut h);
    assert_eq!(
        h.state().cull.visible.len(),
        1,
        "the picks filter shows the one pick"
    );
}

#[test]
fn the_keyboard_walks_a_long_grid_and_the_selection_stays_in_view() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("long");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for i in 0..60 {
        let name = PHOTOS[i % PHOTOS.len()];
        let ext = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("png");
        std::fs::copy(photo(name), folder.join(format!("IMG_{i:04}.{ext}"))).expect("copy");
    }
    let mut h = harness(dir.path(), Some(folder), ort_cpu());
    h.set_size(egui::vec2(560.0, 420.0));
    settle(&mut h);
    // Three columns, two rows on screen: row 8 is far below the first screen.
    assert!(
        h.query_by_label_contains("IMG_0024.png").is_none(),
        "off screen at first"
    );
    for _ in 0..8 {
        h.key_press(Key::ArrowDown);
    }
    settle(&mut h);
    // Scrolling is animated: let it finish.
    h.run();
    assert_eq!(h.state().cull.selected, 24);
    h.get_by_label_contains("IMG_0024.png");
    assert!(
        h.query_by_label_contains("IMG_0000.png").is_none(),
        "scrolled away from the top"
    );
    // And back up to the top.
    for _ in 0..8 {
        h.key_press(Key::ArrowUp);
    }
    settle(&mut h);
    h.run();
    h.get_by_label_contains("IMG_0000.png");
}

/// The window on a live engine: ONNX Runtime in this process, the probe's workers the real
/// binary, as `darkroom FOLDER` runs it.
pub(crate) fn live_harness(dir: &Path, folder: PathBuf) -> Harness<'static, DarkRoom> {
    build(live_setup(dir, folder))
}

/// The set-up `live_harness` builds the window from.
pub(crate) fn live_setup(dir: &Path, folder: PathBuf) -> Setup {
    live_setup_with(dir, folder, models())
}

/// `live_setup` with the models in `models_dir`.
fn live_setup_with(dir: &Path, folder: PathBuf, models_dir: PathBuf) -> Setup {
    use darkroom_engine::{Backend, CardSet, ModelStore};
    let rt = in_process_runtime();
    let config = crate::support::live_config(&dir.join("inference"), vec![1]);
    let store = ModelStore::new(models_dir.clone(), CardSet::builtin().expect("cards"));
    let backend = Backend::start(rt, store, config);
    let mut setup = setup(dir, Some(folder), StatusSource::Live(backend));
    setup.models_dir = Some(models_dir);
    setup
}

/// Indexes the open folder from the window and waits for the job to end.
fn index_from_the_window(h: &mut Harness<'static, DarkRoom>) {
    settle(h);
    assert!(h.state().can_index());
    h.get_by_label("Index faces").click();
    h.step();
    assert!(h.state().is_indexing());
    let deadline = Instant::now() + Duration::from_secs(180);
    while h.state().is_indexing() {
        assert!(Instant::now() < deadline, "the index job never finished");
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    settle(h);
}

/// A fresh install (only the models the packages ship, nothing downloaded) finds people in the
/// window: Obama's three photos are one person and his chip shows just them; Biden, Grace
/// Hopper and the astronaut are each their own.
#[test]
fn people_on_a_fresh_install_from_the_window() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shipped = shipped_models(dir.path());
    let folder = one_person_in_three_photos(dir.path());
    let mut setup = live_setup_with(dir.path(), folder.clone(), shipped.clone());
    // As `darkroom` starts with no detector chosen: the tiers the models dir has.
    setup.detectors = darkroom_app::gui::shell::detector_choices(&shipped);
    let mut h = build(setup);
    assert_eq!(
        h.state().detector,
        "centerface",
        "the one detector installed"
    );
    index_from_the_window(&mut h);
    let catalog = Catalog::open(
        &dir.path().join("catalog.sqlite"),
        SidecarNaming::WithExtension,
    )
    .expect("catalog");
    let stamp = catalog
        .photo_index(&folder.join("obama.jpg"))
        .expect("query")
        .unwrap_or_else(|| panic!("not indexed: {:?}", h.state().index_summary))
        .stamp;
    assert_eq!(stamp.embedder.as_deref(), Some("dlib_resnet"));
    let people = h.state().cull.people().to_vec();
    assert_eq!(
        people.len(),
        4,
        "Obama, Biden, Grace Hopper, the astronaut: {people:?}"
    );
    assert_eq!(
        people.iter().map(|p| p.photos).collect::<Vec<_>>(),
        [3, 1, 1, 1],
        "{people:?}"
    );
    let obama = people[0].person;
    // In half the photos with faces: suggested as a key person (☆).
    assert!(people[0].suggested, "{people:?}");
    h.get_by_label(&format!("☆ Person {obama} (3)")).click();
    settle(&mut h);
    let shown: Vec<String> = h
        .state()
        .cull
        .visible
        .iter()
        .map(|&i| {
            h.state().cull.entries()[i]
                .item
                .primary
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(shown, ["obama.jpg", "obama2.jpg", "obama3.jpg"]);
    h.snap("people_fresh_install");

    // People × frames over his three photos, asked in the frame that selects them: one row,
    // his face in every frame.
    crate::gui_pace::keys_in_one_frame(
        &mut h,
        &[
            (Key::A, egui::Modifiers::COMMAND),
            (Key::E, egui::Modifiers::NONE),
        ],
    );
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::People);
    for name in ["obama.jpg", "obama2.jpg", "obama3.jpg"] {
        h.get_by_label(&format!("Pick this frame {name}"));
    }
    h.get_by_label(&format!("Person {obama}"));
    assert_eq!(
        h.query_all_by_label("not in this frame").count(),
        0,
        "one person in all three frames"
    );
    h.snap("people_across_fresh_install");
}

#[test]
fn index_faces_from_the_window() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    // A burst: three frames of one portrait, hand-held (shifted) and two of them soft.
    let grace = image::open(photo("grace_hopper.jpg"))
        .expect("photo")
        .into_rgb8();
    let (w, h) = grace.dimensions();
    for (n, (dx, sigma)) in [(0u32, 2.0f32), (6, 0.0), (12, 1.5)]
        .into_iter()
        .enumerate()
    {
        let frame = image::imageops::crop_imm(&grace, dx, 0, w - 12, h).to_image();
        let frame = if sigma > 0.0 {
            image::imageops::blur(&frame, sigma)
        } else {
            frame
        };
        frame
            .save(folder.join(format!("burst_{}.png", n + 1)))
            .expect("save");
    }
    let mut h = live_harness(dir.path(), folder.clone());
    index_from_the_window(&mut h);
    assert_eq!(
        h.state().index_summary.as_deref(),
        Some("Indexed · 9 photos · 6 faces"),
        "astronaut, camera, grace_hopper and the burst's three frames have one face each"
    );
    // The burst is one stack of three; the sharp frame is the suggestion.
    let state = h.state();
    let burst: Vec<_> = state
        .cull
        .entries()
        .iter()
        .filter(|e| e.item.primary.to_string_lossy().contains("burst_"))
        .map(|e| {
            e.analysis
                .as_ref()
                .and_then(|a| a.burst.clone())
                .expect("in a burst")
        })
        .collect();
    assert_eq!(burst.len(), 3);
    assert!(
        burst.iter().all(|b| b.size == 3 && b.id == burst[0].id),
        "{burst:?}"
    );
    let suggested: Vec<_> = state
        .cull
        .entries()
        .iter()
        .filter(|e| {
            e.analysis
                .as_ref()
                .and_then(|a| a.burst.as_ref())
                .is_some_and(|b| b.suggested)
        })
        .map(|e| {
            e.item
                .primary
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(suggested, ["burst_2.png"]);
    assert!(
        state.cull.entries().iter().all(|e| e.analysis.is_some()),
        "every photo has its marks"
    );
    let catalog = Catalog::open(
        &dir.path().join("catalog.sqlite"),
        SidecarNaming::WithExtension,
    )
    .expect("catalog");
    for name in PHOTOS {
        let i = catalog
            .photo_index(&folder.join(name))
            .expect("query")
            .unwrap_or_else(|| panic!("{name} not indexed"));
        assert_eq!(i.stamp.detector, "scrfd_2.5g");
    }
    let mut results = egui_kittest::SnapshotResults::new();
    h.snap("grid_indexed");
    results.extend_harness(&mut h);

    // S: sharpest first, and back.
    h.key_press(Key::S);
    h.run_steps(2);
    let sharpness: Vec<f32> = h
        .state()
        .cull
        .visible
        .iter()
        .map(|&i| {
            h.state().cull.entries()[i]
                .analysis
                .as_ref()
                .expect("indexed")
                .sharpness
        })
        .collect();
    assert!(sharpness.windows(2).all(|w| w[0] >= w[1]), "{sharpness:?}");
    h.key_press(Key::S);
    h.run_steps(2);
    assert!(
        h.state().cull.visible.windows(2).all(|w| w[0] < w[1]),
        "folder order again"
    );

    // People: the portrait and the burst's three frames are one person; the chip filters.
    let people = h.state().cull.people();
    assert_eq!(
        people.len(),
        3,
        "Grace Hopper, the astronaut, the cameraman: {people:?}"
    );
    let (grace, count) = (people[0].person, people[0].photos);
    assert_eq!(count, 4);
    h.get_by_label(&format!("☆ Person {grace} (4)")).click();
    settle(&mut h);
    assert_eq!(h.state().cull.visible.len(), 4);
    h.snap("people_filter");
    results.extend_harness(&mut h);
    // Named, in the chip and in the catalog.
    h.state_mut().name_person(grace, "Grace Hopper");
    h.run_steps(2);
    // In four of the six photos with faces: suggested as a key person.
    h.get_by_label("☆ Grace Hopper (4)");
    let catalog = Catalog::open(
        &dir.path().join("catalog.sqlite"),
        SidecarNaming::WithExtension,
    )
    .expect("catalog");
    let embedder = catalog
        .photo_index(&folder.join("grace_hopper.jpg"))
        .expect("query")
        .expect("indexed")
        .stamp
        .embedder
        .expect("an embedder ran");
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let named = catalog
            .people(&embedder)
            .expect("people")
            .into_iter()
            .any(|p| p.id == grace && p.name.as_deref() == Some("Grace Hopper"));
        if named {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the name never reached the catalog"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    // Starred as a key person: in the catalog, and once the analysis is read again, in the
    // chip and in her faces' rows.
    h.state_mut().star_person(grace, true);
    let deadline = Instant::now() + HANG_GUARD;
    while !h
        .state()
        .cull
        .people()
        .iter()
        .any(|p| p.person == grace && p.key)
    {
        assert!(
            Instant::now() < deadline,
            "the star never came back with the analysis"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run_steps(2);
    h.get_by_label("★ Grace Hopper (4)");
    assert!(
        catalog
            .people_all()
            .expect("people")
            .iter()
            .any(|p| p.id == grace && p.starred)
    );
    // A strip too narrow for its chips scrolls: no name wraps letter by letter into the width
    // left at its end.
    h.set_size(egui::vec2(200.0, 640.0));
    h.run_steps(2);
    let people = h.state().cull.people().to_vec();
    assert!(people.len() >= 3, "a strip of chips: {}", people.len());
    let mut strip_width = 0.0;
    for person in people {
        let label = format!(
            "{}{} ({})",
            match (person.key, person.suggested) {
                (true, _) => "★ ",
                (false, true) => "☆ ",
                (false, false) => "",
            },
            h.state().cull.person_label(person.person),
            person.photos
        );
        let chip = h.get_by_label(&label).rect();
        assert!(
            chip.height() < 30.0 && chip.width() > chip.height(),
            "{label} wraps: {chip:?}"
        );
        strip_width += chip.width();
    }
    assert!(
        strip_width > 200.0,
        "the chips must not fit the window, or nothing here is tested: {strip_width}"
    );
    h.set_size(egui::vec2(1000.0, 640.0));
    h.run_steps(2);
    h.get_by_label("★ Grace Hopper (4)").click();
    settle(&mut h);
    assert_eq!(
        h.state().cull.visible.len(),
        7,
        "a second click shows everyone again, the burst as its suggested frame"
    );
    // B opens the burst and closes it again.
    h.get_by_label_contains("burst_2.png").click();
    h.run_steps(2);
    h.key_press(Key::B);
    h.run_steps(2);
    assert_eq!(h.state().cull.visible.len(), 9, "the burst open");
    h.get_by_label_contains("burst 2/3");
    h.key_press(Key::B);
    h.run_steps(2);
    assert_eq!(h.state().cull.visible.len(), 7, "the burst stacked again");
    h.get_by_label_contains("burst of 3 (B opens)");

    // Another detector in Settings: the rows made with this one are marked, not mixed in.
    h.key_press_modifiers(egui::Modifiers::COMMAND, Key::Comma);
    h.run_steps(2);
    h.get_by_label("Fast (scrfd_500m)").click();
    h.run_steps(2);
    assert_eq!(h.state().detector, "scrfd_500m");
    h.key_press(Key::Escape);
    h.run_steps(2);
    h.get_by_label_contains("astronaut.png · indexed with scrfd_2.5g");

    // The loupe shows the astronaut's face at 100%, with its focus, open eyes and her eyes'
    // focus. Her face judges the photo: no subject was looked for.
    h.get_by_label_contains("astronaut.png").click();
    h.run_steps(2);
    h.set_size(egui::vec2(640.0, 480.0));
    h.key_press(Key::Space);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    h.get_by_label("eyes open");
    assert_eq!(
        h.query_all_by_label_contains("subject focus ").count(),
        0,
        "a photo its face judges has no subject"
    );
    assert_eq!(
        h.query_all_by_label("face sharp").count(),
        1,
        "the close-up's focus, in words"
    );
    assert_eq!(
        h.query_all_by_label_contains("eyes ").count(),
        2,
        "eyes open, and her eyes' focus"
    );
    // The face mesh's verdict: she smiles.
    h.get_by_label("smiling");
    h.snap("loupe_faces");
    // A photo without faces, alone in its scene: the index did not look for its subject (its
    // verdict decides nothing there), and the loupe says so. O asks: the loupe looks, says it
    // is looking, then shows the coffee cup's focus beside the facts and lays its mask over
    // the photo, as the catalog now holds it.
    h.key_press(Key::Escape);
    h.run_steps(2);
    h.get_by_label_contains("coffee.png").click();
    h.run_steps(2);
    h.key_press(Key::Space);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    h.get_by_label("subject not looked for · O looks");
    assert_eq!(
        h.query_all_by_label_contains("subject focus ").count(),
        0,
        "not looked for"
    );
    h.key_press(Key::O);
    // The look starts in a frame's logic and its answer is read in a later one's: the frame
    // that started it says so.
    let mut frames = 0;
    while h.state().subject_looks.looking.is_none() {
        frames += 1;
        assert!(frames < 5, "O started no look");
        h.step();
    }
    h.get_by_label("looking for the subject…");
    settle(&mut h);
    assert!(h.state().show_subject);
    h.get_by_label_contains("subject focus ");
    let cup = catalog
        .photo_index(&folder.join("coffee.png"))
        .expect("query")
        .expect("indexed");
    assert_eq!(cup.stamp.segmenter.as_deref(), Some("u2netp"));
    assert!(cup.subject.is_some(), "the look is in the catalog");
    let id = h.state().cull.selected_id().expect("a photo in the loupe");
    assert!(
        h.state()
            .gallery
            .get(id)
            .is_some_and(|p| p.subject.is_some()),
        "the subject's overlay came with the close-ups"
    );
    h.snap("loupe_subject");
    results.extend_harness(&mut h);
    results.unwrap();
}

#[test]
fn the_help_overlay_lists_the_keymap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = harness(dir.path(), None, ort_cpu());
    h.run_steps(2);
    h.key_press(Key::F1);
    h.run_steps(3);
    assert_eq!(h.state().overlay, Overlay::Help);
    h.get_by_label("Undo the last decision");
    h.snap("help");
}

#[test]
fn settings_shows_every_backend_state() {
    let mut trt = status(
        "TensorRT fp16 · preparing engines 3 of 6",
        Rung::TensorRt,
        vec![
            (Rung::TensorRt, RungState::Selected, None),
            (Rung::Cuda, RungState::Fallback, None),
            (Rung::OrtCpu, RungState::Floor, None),
            (Rung::Tract, RungState::Unavailable, None),
        ],
    );
    trt.progress = Some("Preparing GPU engines · 3 of 6".into());
    let mut forced = ort_cpu();
    forced.line = "CPU (forced) · ONNX Runtime 1.31.1".into();
    forced.selected = Some(Rung::Cuda);
    forced.ladder = vec![Rung::TensorRt, Rung::Cuda, Rung::OrtCpu, Rung::Tract];
    forced.forced = Some(Override {
        rung: Rung::OrtCpu,
        source: OverrideSource::Setting,
    });
    let mut tract = status(
        "tract (no usable ONNX Runtime: ONNX Runtime 1.22.1 is too old: this build needs C API 23 (ONNX Runtime 1.23 or newer): /usr/lib/libonnxruntime.so.1)",
        Rung::Tract,
        vec![(Rung::Tract, RungState::Floor, None)],
    );
    tract.floor = Rung::Tract;
    let states = [
        ("settings_tract", tract),
        ("settings_ort_cpu", ort_cpu()),
        ("settings_tensorrt_preparing", trt),
        (
            "settings_probe_failed",
            status(
                "CPU · ONNX Runtime 1.31.1 · TensorRT probe failed: TensorRT execution provider is not enabled in this build.",
                Rung::OrtCpu,
                vec![
                    (
                        Rung::TensorRt,
                        RungState::Failed,
                        Some("TensorRT execution provider is not enabled in this build."),
                    ),
                    (Rung::OrtCpu, RungState::Floor, None),
                ],
            ),
        ),
        ("settings_override", forced),
    ];
    let mut results = egui_kittest::SnapshotResults::new();
    for (name, s) in states {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = s.line.clone();
        let progress = s.progress.clone();
        let mut h = harness(dir.path(), None, s);
        h.run_steps(2);
        h.get_by_label("Settings").click();
        // The click is carried out at the end of its frame; the window sizes itself over the
        // three after.
        h.run_steps(4);
        assert_eq!(h.state().overlay, Overlay::Settings, "{name}");
        h.get_by_label(&line);
        if let Some(p) = progress {
            assert!(
                h.query_all_by_label(&p).count() >= 1,
                "{name}: progress row"
            );
        }
        h.snapshot(name);
        results.extend_harness(&mut h);
    }
    results.unwrap();
}

#[test]
fn settings_offers_the_int8_detector_on_onnx_runtime_only() {
    let int8 = "Balanced, int8 (scrfd_2.5g_i8)";
    let mut tract = status(
        "tract",
        Rung::Tract,
        vec![(Rung::Tract, RungState::Floor, None)],
    );
    tract.floor = Rung::Tract;
    for (s, offered) in [(ort_cpu(), true), (tract, false)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut h = harness(dir.path(), None, s);
        h.run_steps(2);
        h.get_by_label("Settings").click();
        h.run_steps(4);
        assert_eq!(
            h.query_all_by_label(int8).count(),
            usize::from(offered),
            "offered: {offered}"
        );
        h.get_by_label("Balanced (scrfd_2.5g)");
    }
}

#[test]
fn about_carries_the_backend_line_runtime_and_models() {
    use darkroom_engine::ladder::device::{
        DeviceIdentity, ModelStamp, ProbeInputs, RuntimeIdentity,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = ort_cpu();
    let stamp = |id: &str, sha: &str| ModelStamp {
        model_id: id.into(),
        sha256: sha.into(),
        size: 1,
        verified: true,
    };
    s.inputs = Some(ProbeInputs {
        darkroom: "0.1.0".into(),
        platform: darkroom_engine::ladder::rungs::Platform::NoNvidia,
        runtime: RuntimeIdentity {
            kind: darkroom_engine::RuntimeKind::OnnxRuntime,
            version: "1.31.1".into(),
            library: None,
            providers: Vec::new(),
        },
        device: DeviceIdentity {
            gpu: None,
            gpu_error: None,
            tensorrt: None,
            cpu: Default::default(),
        },
        models: vec![
            stamp("fr_feature", "1f2e3d4c5b6a79880000000000000000"),
            stamp("scrfd_2.5g", "bc24bb349491481c0000000000000000"),
        ],
        simulated: None,
        workspace_mb: 512,
    });
    let mut h = harness(dir.path(), None, s);
    h.run_steps(2);
    h.get_by_label("About").click();
    h.run_steps(3);
    assert_eq!(h.state().overlay, Overlay::About);
    h.get_by_label("CPU · ONNX Runtime 1.31.1");
    h.get_by_label("scrfd_2.5g");
    h.get_by_label("bc24bb349491");
    h.snap("about");
}

/// The error a grid cell shows for the photo whose file name ends with `name`.
fn cell_error(h: &Harness<'static, DarkRoom>, name: &str) -> Option<String> {
    h.state()
        .cull
        .entries()
        .iter()
        .find(|e| e.item.primary.ends_with(name))
        .unwrap_or_else(|| panic!("{name} not in the grid"))
        .error
        .clone()
}

#[test]
fn hostile_files_get_an_error_badge_and_the_rest_carry_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("hostile");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::copy(photo("coffee.png"), folder.join("a_good.png")).expect("copy");
    std::fs::write(folder.join("b_zero.jpg"), b"").expect("write");
    std::fs::write(
        folder.join("c_text.jpg"),
        b"a text file with a photo's name",
    )
    .expect("write");
    std::fs::write(
        folder.join("d_not_xmp.png"),
        std::fs::read(photo("chelsea.png")).expect("read"),
    )
    .expect("write");
    std::fs::write(folder.join("d_not_xmp.png.xmp"), b"<x:xmpmeta><unclosed>").expect("write");
    let full = std::fs::read(photo("grace_hopper.jpg")).expect("read");
    std::fs::write(folder.join("e_truncated.jpg"), &full[..full.len() / 2]).expect("write");
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    let error = |n: &str| cell_error(&h, n);
    assert!(error("a_good.png").is_none());
    for bad in ["b_zero.jpg", "c_text.jpg", "e_truncated.jpg"] {
        let err = error(bad).unwrap_or_else(|| panic!("{bad}: no error"));
        assert!(err.ends_with(bad), "{err}");
    }
    let xmp = error("d_not_xmp.png").expect("malformed sidecar reported");
    assert!(xmp.contains("malformed XMP"), "{xmp}");
    assert_eq!(
        std::fs::read(folder.join("d_not_xmp.png.xmp")).expect("read"),
        b"<x:xmpmeta><unclosed>",
        "left untouched"
    );
    h.snap("grid_errors");
}

/// The window on a folder of hostile files — a FIFO, a link to `/dev/zero` and a symlink loop
/// named like photos, a sparse 12 GiB RAW, and a real photo whose sidecar is a link to
/// `/dev/zero` — settles (no worker or the catalog thread waits for ever), shows the good
/// photos, and says each odd photo with its cause.
#[cfg(unix)]
#[test]
fn a_folder_of_hostile_files_settles_and_says_each() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("hostile");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::copy(photo("coffee.png"), folder.join("a_good.png")).expect("copy");
    std::fs::copy(photo("chelsea.png"), folder.join("b_zero_sidecar.png")).expect("copy");
    symlink("/dev/zero", folder.join("b_zero_sidecar.png.xmp")).expect("link");
    let made = std::process::Command::new("mkfifo")
        .arg(folder.join("c_fifo.jpg"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    symlink("/dev/zero", folder.join("d_zero.jpg")).expect("link");
    symlink("e_loop.jpg", folder.join("e_loop.jpg")).expect("loop");
    std::fs::File::create(folder.join("f_huge.cr3"))
        .and_then(|f| f.set_len(12 << 30))
        .expect("sparse");
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    assert!(cell_error(&h, "a_good.png").is_none());
    let huge = cell_error(&h, "f_huge.cr3").expect("the sparse RAW's error");
    assert!(
        huge.contains("more than the 3.0 GiB a photo may have"),
        "{huge}"
    );
    // A device is no sidecar: the photo beside it loads as one without any.
    assert!(cell_error(&h, "b_zero_sidecar.png").is_none());
    let problems = h.state().problems.join("\n");
    for (odd, cause) in [
        ("c_fifo.jpg", "not a regular file"),
        ("d_zero.jpg", "not a regular file"),
        ("e_loop.jpg", "Too many levels of symbolic links"),
    ] {
        assert!(
            problems
                .lines()
                .any(|l| l.contains(odd) && l.contains(cause)),
            "{odd}: {problems}"
        );
    }
}

/// A first run whose catalog is still being made when the folder's scan ends (the catalog
/// thread slower than the scan, as on a busy machine): the folder's analysis reads it as
/// empty, with no problem reported, and the imports land once it is made.
#[test]
fn a_catalog_still_being_made_is_read_as_empty_not_as_a_problem() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    // Another connection part-way through making the catalog: WAL on, its tables written in
    // a transaction not yet committed, so the catalog thread's own open waits for it.
    let mut maker = rusqlite::Connection::open(dir.path().join("catalog.sqlite")).expect("open");
    maker
        .pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    let making = maker
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .expect("begin");
    making
        .execute_batch("CREATE TABLE photos (id INTEGER PRIMARY KEY);")
        .expect("a table");
    // The catalog thread waits for the lock as long as the maker holds it, saying so; the
    // scan and the analysis read the catalog as empty meanwhile. Both are events: nothing here
    // races the catalog's busy timeout.
    let mut h = harness(dir.path(), Some(folder), ort_cpu());
    let waiting = |h: &Harness<'_, DarkRoom>| {
        h.state()
            .notices
            .iter()
            .any(|n| n.starts_with("another program holds the catalog"))
    };
    // A limit only against a hang: the catalog thread waits for the lock without one.
    let deadline = Instant::now() + Duration::from_secs(300);
    while h.state().scanning() || h.state().analysing() || !waiting(&h) {
        assert!(
            Instant::now() < deadline,
            "never waited on the lock, or never finished"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(h.state().problems, Vec::<String>::new());
    // The maker gives up; the catalog thread makes the catalog and the imports land.
    drop(making);
    drop(maker);
    settle(&mut h);
    assert_eq!(h.state().problems, Vec::<String>::new());
    assert_eq!(h.state().cull.len(), PHOTOS.len());
    assert!(
        !h.state()
            .notices
            .iter()
            .any(|n| n.contains("cannot be saved")),
        "the catalog opened once the lock was let go"
    );
    let catalog = Catalog::open(
        &dir.path().join("catalog.sqlite"),
        SidecarNaming::WithExtension,
    )
    .expect("made");
    drop(catalog);
}

#[test]
fn real_camera_raws_show_their_previews_and_a_stripped_one_says_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("camera");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let set = assets().join("exiv2/test-data");
    // The CR3 and the CRW show their embedded previews; the DNG's previews were stripped.
    for name in [
        "Canon-R6-pruned.CR3",
        "IMG_1361.dng",
        "exiv2-canon-powershot-s40.crw",
    ] {
        std::fs::copy(set.join(name), folder.join(name)).expect("copy the exiv2 test file");
    }
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    let error = |n: &str| cell_error(&h, n);
    assert_eq!(error("Canon-R6-pruned.CR3"), None);
    assert_eq!(error("exiv2-canon-powershot-s40.crw"), None);
    let dng = error("IMG_1361.dng").expect("the stripped DNG says why");
    assert!(dng.contains("no embedded preview large enough"), "{dng}");
    h.snap("grid_camera_raws");
    // The first cell, the CR3: its 1620x1080 preview in the loupe.
    h.set_size(egui::vec2(640.0, 420.0));
    h.key_press(Key::Space);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    // What the picture is made of, said before it is compared.
    let app = h.state();
    let id = app.cull.selected_id().expect("a photo shown");
    let shown = app.gallery.get(id).expect("its pictures");
    let size = |p: &Picture| p.ready().map(|t| t.size());
    assert_eq!(size(&shown.loupe), Some([1620, 1080]), "the PRVW preview");
    assert_eq!(size(&shown.thumb), Some([256, 171]));
    let full = shown.full.ready().map(|f| f.size);
    assert_eq!(
        full,
        Some(egui::vec2(1620.0, 1080.0)),
        "its own pixels: the PRVW"
    );
    if let Faces::Failed(e) = &shown.faces {
        panic!("the close-ups failed: {e}");
    }
    h.snap("loupe_cr3");
}

#[test]
fn the_models_window_downloads_after_the_licence_is_ticked() {
    use egui_kittest::kittest::NodeT;
    let dir = tempfile::tempdir().expect("tempdir");
    let eye = std::fs::read(assets().join("models/fr_eye.onnx")).expect("fetched model");
    let server = crate::http::Server::start(std::collections::HashMap::from([(
        "/fr_eye.onnx".to_owned(),
        crate::http::Serve::Whole(eye.clone()),
    )]));
    // The window shows the models folder's path: a fixed one keeps the snapshot stable.
    let models = std::env::temp_dir().join("darkroom-gui-test-models");
    let _ = std::fs::remove_dir_all(&models);
    let mut setup = setup(
        dir.path(),
        Some(sample_folder(dir.path())),
        StatusSource::Fixed(Box::new(ort_cpu())),
    );
    setup.models_dir = Some(models.clone());
    setup.model_mirror = Some(server.base.clone());
    // First run: no detector installed, so the window points at the Models window.
    setup.detectors.iter_mut().for_each(|d| d.installed = false);
    let mut h = build(setup);
    settle(&mut h);
    h.get_by_label("Get face models…").click();
    h.step();
    assert_eq!(h.state().overlay, Overlay::Models);
    settle(&mut h);

    // Download stays off until the licence is ticked; nothing is fetched before. The list is
    // taller than a 640 px window: scrolled to the row, as a person would.
    h.get_by_label("Download fr_eye.onnx").scroll_to_me();
    h.run_steps(2);
    let download = h.get_by_label("Download fr_eye.onnx");
    assert!(
        download.accesskit_node().is_disabled(),
        "enabled before the licence"
    );
    download.click();
    h.run_steps(2);
    assert!(
        server.seen().is_empty(),
        "fetched before the licence was accepted"
    );
    h.get_by_label("I accept the licence of fr_eye.onnx")
        .click();
    h.run_steps(2);
    h.get_by_label("Download fr_eye.onnx").click();
    h.step();
    settle(&mut h);

    assert_eq!(server.seen().len(), 1);
    assert_eq!(
        std::fs::read(models.join("fr_eye.onnx")).expect("installed"),
        eye
    );
    h.get_by_label_contains("1afcea006abc");
    h.get_by_label("fr_eye installed and verified");
    h.snap("models_window");
    let _ = std::fs::remove_dir_all(&models);
}
