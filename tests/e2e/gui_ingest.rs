//! The Ingest window as a photographer uses it: a card chosen, the names its photos will get
//! previewed live as the pattern changes, a name already taken on the drive asked about, then
//! the copy to a working folder and a backup — the window showing the working folder as the
//! photos land. The snapshots (preview, the question, progress) were looked at.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::gui::{harness_with, ort_cpu, settle};
use crate::snapshots::Snap;
use crate::support::camera_card;
use darkroom_app::gui::DarkRoom;
use darkroom_app::gui::workers::{INGEST_BACKUP, INGEST_CARD, INGEST_TO};
use darkroom_ingest::Progress;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).expect("under").display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn the_ingest_window_previews_names_asks_about_a_taken_one_and_shows_photos_as_they_land() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Fixed folders: their paths are in the snapshots.
    let base: PathBuf = std::env::temp_dir().join("darkroom-gui-ingest");
    let _ = std::fs::remove_dir_all(&base);
    let card = camera_card(&base);
    let (work, backup) = (base.join("work"), base.join("backup"));
    std::fs::create_dir_all(&work).expect("mkdir");
    std::fs::write(work.join("wedding_001.JPG"), b"another shoot's frame").expect("write");
    let answers = (card.clone(), work.clone(), backup.clone());
    let mut h = harness_with(
        dir.path(),
        None,
        ort_cpu(),
        Arc::new(move |ask| match ask.title {
            INGEST_CARD => Some(answers.0.clone()),
            INGEST_TO => Some(answers.1.clone()),
            INGEST_BACKUP => Some(answers.2.clone()),
            _ => None,
        }),
    );
    settle(&mut h);
    h.get_by_label("Ingest a card…").click();
    settle(&mut h);
    h.get_by_label("Card…").click();
    settle(&mut h);
    h.get_by_label_contains("3 photos on the card");
    h.get_by_label("IMG_0002.JPG  →  2003-09-26/IMG_0002.JPG");

    // The preview follows the pattern and the job as they are typed.
    h.state_mut().windows.ingest.pattern = "{job}_{seq:3}".into();
    h.state_mut().windows.ingest.job = "wedding".into();
    h.get_by_label("Working folder…").click();
    settle(&mut h);
    h.get_by_label("Backup…").click();
    settle(&mut h);
    h.get_by_label("IMG_0002.JPG  →  wedding_001.JPG");
    h.get_by_label("IMG_0003.JPG  →  wedding_002.JPG");
    h.get_by_label("IMG_0001.CR3  →  wedding_003.CR3");
    h.snap("ingest_preview");

    // The working folder already has a wedding_001.JPG of another shoot: asked, not assumed.
    h.get_by_label("Copy and verify").click();
    settle(&mut h);
    h.get_by_label_contains("1 photo would land on a name another file already has");
    h.snap("ingest_asks");
    assert_eq!(
        files(&work),
        ["wedding_001.JPG"],
        "nothing copied before the answer"
    );
    h.get_by_label("Number them (-2, -3…)").click();
    settle(&mut h);

    // The working folder is open in the window with what landed; the other file is kept.
    assert_eq!(h.state().cull.root.as_deref(), Some(work.as_path()));
    let mut shown: Vec<String> = h
        .state()
        .cull
        .entries()
        .iter()
        .map(|e| {
            e.item
                .primary
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            "wedding_001-2.JPG",
            "wedding_001.JPG",
            "wedding_002.JPG",
            "wedding_003.CR3"
        ],
        "each photo once, the pair as one"
    );
    assert_eq!(
        std::fs::read(work.join("wedding_001.JPG")).expect("kept"),
        b"another shoot's frame"
    );
    assert_eq!(
        files(&backup),
        [
            "wedding_001-2.JPG",
            "wedding_002.JPG",
            "wedding_003.CR3",
            "wedding_003.CR3.xmp",
            "wedding_003.JPG"
        ]
    );
    assert_eq!(
        std::fs::read(backup.join("wedding_003.CR3")).expect("copy"),
        std::fs::read(card.join("DCIM/100CANON/IMG_0001.CR3")).expect("card")
    );
    h.get_by_label_contains("Ingest: 3 photos copied (5 files");

    // Read again as a photographer reopening it: the grid in the folder's order (above, the
    // photos came in as they landed, around the scan of what was there).
    h.state_mut().open(work.clone());
    settle(&mut h);
    // What a run shows while it copies (a frozen progress: the copy above was too quick to
    // catch), with the way back to culling.
    h.state_mut().windows.ingest.show_progress(Progress {
        files_done: 12,
        files_total: 40,
        bytes_done: 310_000_000,
        bytes_total: 1_020_000_000,
        photos_done: 5,
        photos_total: 16,
        elapsed: std::time::Duration::from_secs(4),
    });
    h.state_mut().overlay = darkroom_app::gui::Overlay::Ingest;
    h.run_steps(2);
    h.get_by_label("12 of 40 files · 310 of 1020 MB · 78 MB/s · 9 s left");
    h.snap("ingest_progress");
    let _ = std::fs::remove_dir_all(&base);
}

/// Culling on the card in the window: it says the card is not written to, a pick lands in the
/// catalog and nowhere on the card, and Ctrl+G ingests this card with the pick going into the
/// working copy's sidecar.
#[test]
fn a_pick_made_on_the_card_is_held_and_lands_in_the_copys_sidecar() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = camera_card(dir.path());
    let before: Vec<(String, Vec<u8>)> = files(&card)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(card.join(&f)).expect("read");
            (f, bytes)
        })
        .collect();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).expect("mkdir");
    let to = work.clone();
    let mut h = harness_with(
        dir.path(),
        Some(card.clone()),
        ort_cpu(),
        Arc::new(move |ask| (ask.title == INGEST_TO).then(|| to.clone())),
    );
    settle(&mut h);
    h.get_by_label_contains("This is a camera card: nothing is written to it");
    // The first photo in the grid is the R6's CR3 (DCIM/100CANON comes first).
    let first = h.state().cull.entries()[0].item.primary.clone();
    assert!(first.ends_with("DCIM/100CANON/IMG_0001.CR3"), "{first:?}");
    h.key_press(egui::Key::P);
    h.key_press(egui::Key::Num3);
    settle(&mut h);
    let decided = darkroom_catalog::Catalog::open(
        &dir.path().join("catalog.sqlite"),
        darkroom_catalog::SidecarNaming::WithExtension,
    )
    .expect("catalog")
    .decision(&first)
    .expect("query")
    .expect("recorded");
    assert_eq!(decided.flag, darkroom_catalog::Flag::Pick);
    assert_eq!(decided.stars, 3);
    let after: Vec<(String, Vec<u8>)> = files(&card)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(card.join(&f)).expect("read");
            (f, bytes)
        })
        .collect();
    assert_eq!(after, before, "nothing written to the card");

    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::G);
    settle(&mut h);
    h.get_by_label_contains("3 photos on the card");
    h.get_by_label("Working folder…").click();
    settle(&mut h);
    h.get_by_label("Copy and verify").click();
    settle(&mut h);
    h.get_by_label_contains(
        "Ingest: 3 photos copied (5 files, 0.5 MB) and verified; 1 decided on the card went into their sidecars",
    );
    let sidecar = std::fs::read_to_string(work.join("2021-05-12/IMG_0001.CR3.xmp"))
        .expect("the copy's sidecar");
    assert!(
        sidecar.contains("darkroom:Pick=\"True\"") && sidecar.contains("xmp:Rating=\"3\""),
        "{sidecar}"
    );
}

/// Two cameras, one moment, their clocks 1 h 3 min apart: two bursts in the window, until two
/// frames of the moment are selected and Ctrl+T sets the second camera's clock from the
/// first's — then one burst, the correction in the catalog and in Settings.
#[test]
fn two_frames_of_one_moment_set_the_second_cameras_clock_in_the_window() {
    use darkroom_catalog::{Catalog, IndexStamp, PhotoIndex, SidecarNaming};
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    // As the index writes them: each frame's body and its own clock's time, one look.
    let frames = [
        ("A_0001.jpg", "Canon EOS R6 #111", 50_000.0),
        ("A_0002.jpg", "Canon EOS R6 #111", 50_000.5),
        ("B_0001.jpg", "Canon EOS R6 #222", 50_000.0 - 3_780.0),
        ("B_0002.jpg", "Canon EOS R6 #222", 50_000.5 - 3_780.0),
    ];
    {
        let mut c = Catalog::open(
            &dir.path().join("catalog.sqlite"),
            SidecarNaming::WithExtension,
        )
        .expect("catalog");
        for (name, body, at) in frames {
            let path = folder.join(name);
            std::fs::copy(crate::support::photo("rocket.jpg"), &path).expect("copy");
            let size = std::fs::metadata(&path).expect("stat").len();
            let index = PhotoIndex {
                stamp: IndexStamp {
                    size,
                    mtime_ns: 0,
                    detector: "scrfd_2.5g".into(),
                    embedder: None,
                    eyes: None,
                    segmenter: None,
                    scene: None,
                    mesh: None,
                    measures: darkroom_catalog::MEASURES,
                },
                backend: "CPU · ONNX Runtime 1.31.1".into(),
                width: 512,
                height: 512,
                sharpness: 80.0,
                phash: 0xF0F0_F0F0_F0F0_F0F0,
                captured_at: Some(at),
                body: Some(body.into()),
                clock_offset_s: 0.0,
                faces: Vec::new(),
                subject: None,
                look: None,
                exposure: Default::default(),
                scene_classes: Vec::new(),
                af: None,
            };
            c.store_index(&path, &index, &[]).expect("store");
        }
    }
    let mut h = crate::gui::harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    let bursts = |h: &Harness<'static, DarkRoom>| {
        let mut ids: Vec<usize> = h
            .state()
            .cull
            .entries()
            .iter()
            .filter_map(|e| e.analysis.as_ref()?.burst.as_ref().map(|b| b.id))
            .collect();
        ids.sort();
        ids.dedup();
        ids.len()
    };
    assert_eq!(bursts(&h), 2, "an hour apart on their clocks");
    assert_eq!(
        h.state().cull.visible.len(),
        2,
        "each burst shows as its keeper"
    );

    // One camera's keeper, then the other's added (Shift+→, which shows it): Ctrl+T sets the
    // first camera's clock from the one shown.
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::ArrowRight);
    settle(&mut h);
    assert_eq!(h.state().cull.selection_len(), 2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::T);
    settle(&mut h);
    h.get_by_label_contains("clock corrected");
    assert_eq!(bursts(&h), 1, "one moment, one burst");
    let offsets: Vec<f64> = Catalog::open(
        &dir.path().join("catalog.sqlite"),
        SidecarNaming::WithExtension,
    )
    .expect("catalog")
    .bodies()
    .expect("bodies")
    .iter()
    .map(|b| b.offset_s)
    .collect();
    assert_eq!(
        offsets,
        [-3_780.0, 0.0],
        "#111 set to #222's clock, the one shown"
    );

    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Comma);
    settle(&mut h);
    h.get_by_label_contains("Canon EOS R6 #222 (2)")
        .scroll_to_me();
    h.run_steps(3);
    h.get_by_label("Canon EOS R6 #111 (2)");
    h.snap("settings_clocks");
}

/// Culling while the card is copied: the first photos land in the grid while the rest are on
/// their way, a pick made on one then is kept in catalog and sidecar, and every photo of the
/// card ends in the grid once.
/// A card of `n` camera-sized JPEGs: a real photo, then 4 MB a decoder never reads (after its
/// end), so a copy of it takes a while.
fn big_card(dir: &Path, n: usize) -> PathBuf {
    let card = dir.join("card");
    let folder = card.join("DCIM/100TEST");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let jpeg = std::fs::read(crate::support::photo("rocket.jpg")).expect("photo");
    let mut noise = crate::support::Noise::new(0x2545_F491_4F6C_DD1D);
    for k in 1..=n {
        let mut bytes = jpeg.clone();
        bytes.resize(jpeg.len() + (4 << 20), 0);
        noise.fill(&mut bytes[jpeg.len()..]);
        std::fs::write(folder.join(format!("IMG_{k:04}.JPG")), bytes).expect("write");
    }
    card
}

/// A window with the ingest of `card` into `work` (named as on the card) started.
fn copying_in_window(dir: &Path, card: &Path, work: &Path) -> Harness<'static, DarkRoom> {
    let mut h = harness_with(dir, None, ort_cpu(), Arc::new(|_| None));
    settle(&mut h);
    h.state_mut().windows.ingest.card = Some(card.to_path_buf());
    h.state_mut().windows.ingest.to = Some(work.to_path_buf());
    h.state_mut().windows.ingest.pattern = "{name}".into();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::G);
    h.run_steps(2);
    h.get_by_label("Copy and verify").click();
    h
}

#[test]
fn a_pick_made_while_the_rest_is_copied_is_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = big_card(dir.path(), 80);
    let work = dir.path().join("work");
    let mut h = copying_in_window(dir.path(), &card, &work);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while h.state().cull.entries().len() < 2 {
        assert!(std::time::Instant::now() < deadline, "nothing landed");
        h.step();
    }
    // At a culler's pace, in one frame: the window goes (the copy goes on behind the grid),
    // the first photo picked, the next rejected.
    let (first, second) = {
        let e = h.state().cull.entries();
        (e[0].item.primary.clone(), e[1].item.primary.clone())
    };
    use egui::{Key, Modifiers};
    crate::gui_pace::keys_in_one_frame(
        &mut h,
        &[
            (Key::Escape, Modifiers::NONE),
            (Key::P, Modifiers::NONE),
            (Key::ArrowRight, Modifiers::NONE),
            (Key::X, Modifiers::NONE),
        ],
    );
    let copying_when_picked = h.state().windows.ingest.busy();
    settle(&mut h);
    assert!(
        copying_when_picked,
        "the pick was made while the card was still being copied"
    );
    assert_eq!(h.state().cull.entries().len(), 80, "every photo once");
    let catalog = darkroom_catalog::Catalog::open(
        &dir.path().join("catalog.sqlite"),
        darkroom_catalog::SidecarNaming::WithExtension,
    )
    .expect("catalog");
    let flag_of = |photo: &Path| {
        catalog
            .decision(photo)
            .expect("query")
            .expect("recorded")
            .flag
    };
    assert_eq!(flag_of(&first), darkroom_catalog::Flag::Pick, "{first:?}");
    assert_eq!(
        flag_of(&second),
        darkroom_catalog::Flag::Reject,
        "{second:?}"
    );
    let sidecar = std::fs::read_to_string(format!("{}.xmp", first.display())).expect("sidecar");
    assert!(sidecar.contains("darkroom:Pick=\"True\""), "{sidecar}");
    h.get_by_label_contains("Ingest: 80 photos copied (80 files");
}

/// Whether the last frame asked the window to do `c`.
fn commanded(h: &Harness<'static, DarkRoom>, c: egui::ViewportCommand) -> bool {
    h.output()
        .viewport_output
        .get(&egui::ViewportId::ROOT)
        .is_some_and(|v| v.commands.contains(&c))
}

/// A card of `n` photos whose `at`th has a RAW (4 KB, read by the plan) beside its JPEG, the
/// gate: [`Gate::shut`] holds the JPEG shut, and the copy, reaching it, waits on it until the
/// test opens the gate — a card that stopped answering, or one that answers when told.
fn card_with_a_gate(dir: &Path, n: usize, at: usize) -> (PathBuf, PathBuf) {
    let card = big_card(dir, n);
    let folder = card.join("DCIM/100TEST");
    std::fs::write(folder.join(format!("IMG_{at:04}.CR3")), vec![7u8; 4096]).expect("the RAW");
    (card, folder.join(format!("IMG_{at:04}.JPG")))
}

/// A card file held shut: a child process holds a write lease on it, so the copy's open of it
/// waits, as on a card that stopped answering, until the gate opens (the holder ends). The
/// kernel breaks a lease after its lease-break-time (45 s by default): each test is done with
/// the gate within a few frames of the copy reaching it.
struct Gate {
    holder: std::process::Child,
    said: std::sync::mpsc::Receiver<String>,
}

impl Gate {
    fn shut(path: &Path) -> Gate {
        let mut holder = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/data/hold-lease.py"))
            .arg(path)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let out = holder.stdout.take().expect("its stdout");
        let (tx, said) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(out)).map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let first = said
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the lease holder said something");
        assert_eq!(first, "held", "the lease is taken");
        Gate { holder, said }
    }

    /// Whether the copy has come to the gate and waits there.
    fn reached(&self) -> bool {
        self.said.try_recv().is_ok_and(|l| l == "reached")
    }
}

impl Drop for Gate {
    /// The gate opens: the copy's open goes on.
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

/// The card stops answering mid-copy (the copy waits on a photo that never comes): "Stop and
/// close" cannot stop at a file's end, so the window offers "Close now", which closes it
/// without waiting for the copy; what landed stays.
#[test]
fn a_card_that_stops_answering_does_not_keep_the_window_open() {
    use darkroom_app::gui::state::Closing;
    let dir = tempfile::tempdir().expect("tempdir");
    let (card, gate) = card_with_a_gate(dir.path(), 30, 10);
    let work = dir.path().join("work");
    // Another program's file under the first photo's name: the window asks, the plan made,
    // before a byte is copied — the moment to shut the gate.
    std::fs::create_dir_all(&work).expect("mkdir");
    std::fs::write(work.join("IMG_0001.JPG"), b"another program's").expect("theirs");
    let mut h = copying_in_window(dir.path(), &card, &work);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while h.query_by_label("Leave them on the card").is_none() {
        assert!(std::time::Instant::now() < deadline, "never asked");
        h.step();
    }
    let shut = Gate::shut(&gate);
    // The question takes its size and place first (it is centred on what it holds).
    h.run_steps(3);
    h.get_by_label("Leave them on the card").click();
    h.step();
    assert!(
        h.state().windows.ingest.copying(),
        "answered: the copy runs"
    );
    // The copy reaches the photo and waits on it (the window keeps taking its reports).
    while !shut.reached() {
        assert!(std::time::Instant::now() < deadline, "never reached");
        std::thread::sleep(std::time::Duration::from_millis(5));
        h.step();
    }
    crate::gui::ask_to_close(&mut h);
    h.step();
    assert_eq!(h.state().closing(), Closing::AskStopIngest);
    h.step();
    h.get_by_label("Stop and close").click();
    h.step();
    assert_eq!(h.state().closing(), Closing::StoppingIngest);
    // The dialog takes its new size and place (it is centred on what it holds).
    h.run_steps(3);
    h.get_by_label_contains("stopped answering");
    h.get_by_label("Close now").click();
    h.step();
    while !commanded(&h, egui::ViewportCommand::Close) {
        assert!(std::time::Instant::now() < deadline, "never closed");
        h.step();
    }
    assert!(
        h.state().windows.ingest.copying(),
        "closed while the copy was still stuck on the card"
    );
    // The photos verified before it stay under their names (the first copied lands alone;
    // the rest of those before the stuck one wait in a batch).
    let named: Vec<String> = files(&work)
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert!(
        named.contains(&"IMG_0002.JPG".to_owned()) && !named.contains(&"IMG_0010.JPG".to_owned()),
        "what landed stays: {named:?}"
    );
    // The card answers at last.
    drop(shut);
    drop(h);
}

/// Closing the window while the card is copied asks first; "Keep copying" keeps it going,
/// "Stop and close" stops at a file's end and closes; the next ingest finishes the rest, each
/// file once. The copy cannot get past a known photo (the JPEG of a RAW+JPEG pair, held shut
/// until the test has asked to stop; only the RAW is read before the copy), so every step
/// happens while it is still copying, on any machine.
#[test]
fn closing_while_the_card_is_copied_asks_and_the_next_ingest_finishes_it() {
    use darkroom_app::gui::state::Closing;
    let dir = tempfile::tempdir().expect("tempdir");
    let (card, gate) = card_with_a_gate(dir.path(), 40, 20);
    let folder = card.join("DCIM/100TEST");
    let work = dir.path().join("work");
    // Shut before the window opens: the scan and the plan only look at the JPEG (its size and
    // time), which a lease lets them.
    let shut = Gate::shut(&gate);
    let mut h = copying_in_window(dir.path(), &card, &work);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !h.state().windows.ingest.copying() {
        assert!(std::time::Instant::now() < deadline, "never copied");
        h.step();
    }
    while h.state().cull.entries().is_empty() {
        assert!(std::time::Instant::now() < deadline, "nothing landed");
        h.step();
    }
    let close = |h: &mut Harness<'static, DarkRoom>| {
        crate::gui::ask_to_close(h);
        h.step();
    };
    close(&mut h);
    assert_eq!(h.state().closing(), Closing::AskStopIngest);
    assert!(
        commanded(&h, egui::ViewportCommand::CancelClose),
        "kept open"
    );
    h.step();
    h.get_by_label_contains("stop and close?");
    h.get_by_label("Keep copying").click();
    h.step();
    assert_eq!(h.state().closing(), Closing::No);
    assert!(h.state().windows.ingest.copying(), "the copy goes on");
    close(&mut h);
    assert_eq!(h.state().closing(), Closing::AskStopIngest);
    h.step();
    h.get_by_label("Stop and close").click();
    h.step();
    assert_eq!(h.state().closing(), Closing::StoppingIngest);
    // Asked again while it stops: still kept open, still stopping.
    close(&mut h);
    assert_eq!(h.state().closing(), Closing::StoppingIngest);
    assert!(commanded(&h, egui::ViewportCommand::CancelClose));
    // The photo the copy may be waiting on comes (if the stop reached the copy before it got
    // there, nothing waits on the gate); the copy stops at a file's end, and the window
    // closes.
    drop(shut);
    while !commanded(&h, egui::ViewportCommand::Close) {
        assert!(std::time::Instant::now() < deadline, "never closed");
        std::thread::sleep(std::time::Duration::from_millis(10));
        h.step();
    }
    assert!(!h.state().windows.ingest.copying());
    let landed = files(&work);
    assert!(
        !landed.is_empty() && !landed.contains(&"IMG_0020.JPG".to_owned()),
        "stopped before the photo it could not pass: {landed:?}"
    );
    drop(h);
    // The card back as a card: the JPEG a plain file. The next ingest finishes what the
    // stopped one left, the pair on its one name, and copies nothing twice.
    std::fs::remove_file(&gate).expect("rm");
    std::fs::write(&gate, b"\xFF\xD8 the JPEG \xFF\xD9").expect("the JPEG");
    let mut catalog = darkroom_catalog::Catalog::open(
        &dir.path().join("catalog.sqlite"),
        darkroom_catalog::SidecarNaming::WithExtension,
    )
    .expect("catalog");
    let options = darkroom_ingest::Options {
        source: card.clone(),
        to: work.clone(),
        backups: Vec::new(),
        pattern: darkroom_library::ingest::Pattern::parse("{name}").expect("pattern"),
        job: String::new(),
        write_times: false,
        naming: darkroom_catalog::SidecarNaming::WithExtension,
        words: Default::default(),
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let plan = darkroom_ingest::plan(&options, &catalog, &cancel).expect("plan");
    assert_eq!(plan.already() + plan.new_photos(), 40);
    assert!(
        plan.new_photos() >= 21,
        "the photo it stopped at, and all after"
    );
    assert_eq!(
        plan.resumed(),
        plan.new_photos(),
        "named as the stopped run named them"
    );
    let outcome = darkroom_ingest::run(&plan, &options, &mut catalog, &cancel, &mut |_| {});
    assert!(
        outcome.stopped.is_none() && outcome.failed.is_empty(),
        "{outcome:?}"
    );
    let all = files(&work);
    assert_eq!(all.len(), 41, "each file once: {all:?}");
    for name in &all {
        assert_eq!(
            std::fs::read(work.join(name)).expect("copy"),
            std::fs::read(folder.join(name)).expect("card"),
            "{name} whole"
        );
    }
}
