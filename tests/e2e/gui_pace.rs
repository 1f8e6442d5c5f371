//! The window at a culler's pace, never settled between keys: decisions made before the
//! folder's imports have landed keep what another tool wrote (exiftool reads it back), keys
//! pressed inside one frame apply in the order pressed, closing while decisions save keeps the
//! window until they are durable, a write the catalog refuses reverts its mark and says which
//! photo, a folder indexed from the command line before it is opened shows its sidecars, and
//! the subject overlay asked for in the frame that moves the loupe is the new photo's.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::gui::{PHOTOS, harness, ort_cpu, sample_folder, settle};
use crate::support::*;
use darkroom_app::gui::DarkRoom;
use darkroom_app::gui::state::Closing;
use darkroom_catalog::{Catalog, Decision, Flag, SidecarNaming};
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn catalog(dir: &Path) -> Catalog {
    Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension).expect("catalog")
}

fn key(key: Key, modifiers: Modifiers) -> egui::Event {
    egui::Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers,
    }
}

/// Several keys inside one frame, as a culler types while a frame is slow.
pub(crate) fn keys_in_one_frame(h: &mut Harness<'static, DarkRoom>, keys: &[(Key, Modifiers)]) {
    for &(k, m) in keys {
        h.input_mut().events.push(key(k, m));
    }
    h.step();
}

/// `n` copies of a real photo whose sidecars exiftool wrote: 5 stars, blue, a title and
/// digiKam's orange label, the way another tool leaves a card.
fn shoot_with_sidecars(dir: &Path, n: usize) -> (PathBuf, Vec<PathBuf>) {
    let folder = dir.join("card");
    let photos = card_with_sidecars(
        &folder,
        n,
        &[
            "-XMP:Rating=5",
            "-XMP:Label=Blue",
            "-XMP-dc:Title=Wedding, first look",
            "-XMP-digiKam:ColorLabel=2",
        ],
    );
    (folder, photos)
}

/// Every sidecar of the folder as exiftool reads it, in one run.
fn sidecars(folder: &Path) -> Vec<serde_json::Value> {
    exiftool_sidecars(
        folder,
        &[
            "-XMP-xmp:Rating",
            "-XMP-xmp:Label",
            "-XMP-dc:Title",
            "-XMP-digiKam:ColorLabel",
            "-XMP-digiKam:PickLabel",
        ],
    )
}

#[test]
fn select_all_and_pick_before_the_imports_land_keeps_every_rating_and_label() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (folder, photos) = shoot_with_sidecars(dir.path(), 300);
    // Another process holds the catalog's write lock for a moment (a backup tool, a slow
    // disk): no import can land before the keys, whatever this machine's speed.
    drop(catalog(dir.path()));
    let mut lock = hold_write_lock(&dir.path().join("catalog.sqlite"), 4.0);
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    let deadline = Instant::now() + Duration::from_secs(30);
    while h.state().cull.len() < photos.len() {
        assert!(Instant::now() < deadline, "the scan never finished");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    keys_in_one_frame(
        &mut h,
        &[(Key::A, Modifiers::COMMAND), (Key::P, Modifiers::NONE)],
    );
    assert_eq!(h.state().cull.selection_len(), photos.len());
    assert_eq!(
        h.state().cull.loading(),
        photos.len(),
        "the pick came before any import answered"
    );
    assert_eq!(h.state().unsaved(), photos.len());
    settle(&mut h);
    assert!(lock.wait().expect("the lock's holder").success());
    let c = catalog(dir.path());
    for p in &photos {
        let d = c.decision(p).expect("query").expect("recorded");
        assert_eq!((d.flag, d.stars), (Flag::Pick, 5), "{}", p.display());
    }
    let tags = sidecars(&folder);
    assert_eq!(tags.len(), photos.len());
    for t in &tags {
        assert_eq!(t["Rating"], 5, "{t:#}");
        assert_eq!(t["Label"], "Blue", "{t:#}");
        assert_eq!(t["PickLabel"], 3, "picked, in digiKam's words: {t:#}");
        assert_eq!(
            t["ColorLabel"], 2,
            "digiKam's orange, which DarkRoom does not map: {t:#}"
        );
        assert_eq!(t["Title"], "Wedding, first look", "{t:#}");
    }
    // One undo takes the picks back and nothing else.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    for t in sidecars(&folder) {
        assert_eq!(
            (t["Rating"].clone(), t["Label"].clone()),
            (5.into(), "Blue".into()),
            "{t:#}"
        );
        assert_eq!(t.get("PickLabel"), None, "{t:#}");
    }
    assert!(
        h.state()
            .cull
            .entries()
            .iter()
            .all(|p| p.decision.stars == 5),
        "the window shows what the sidecars say"
    );
}

#[test]
fn keys_pressed_inside_one_frame_apply_in_order_to_the_photo_shown_then() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    h.key_press(Key::ArrowRight);
    settle(&mut h);
    let none = Modifiers::NONE;
    // P then → in one frame: the second photo is picked, then the third shown.
    keys_in_one_frame(&mut h, &[(Key::P, none), (Key::ArrowRight, none)]);
    assert_eq!(h.state().cull.selected, 2);
    // → → → in one frame: three photos on.
    keys_in_one_frame(
        &mut h,
        &[
            (Key::ArrowLeft, none),
            (Key::ArrowRight, none),
            (Key::ArrowRight, none),
        ],
    );
    assert_eq!(h.state().cull.selected, 3);
    // X, ←, 3: the fourth rejected, the third given three stars.
    keys_in_one_frame(
        &mut h,
        &[(Key::X, none), (Key::ArrowLeft, none), (Key::Num3, none)],
    );
    settle(&mut h);
    let c = catalog(dir.path());
    let d = |i: usize| {
        c.decision(&folder.join(PHOTOS[i]))
            .expect("query")
            .unwrap_or_default()
    };
    assert_eq!(
        d(1).flag,
        Flag::Pick,
        "P landed on the photo shown when it was pressed"
    );
    assert_eq!(d(2).flag, Flag::Unflagged);
    assert_eq!(d(2).stars, 3);
    assert_eq!(d(3).flag, Flag::Reject);
    assert_eq!(d(0), Decision::default());
}

/// Closing while a select-all pick is saving: the window stays and says so; asked again it
/// asks; it closes by itself once every decision is durable.
#[test]
fn closing_while_decisions_save_keeps_the_window_until_they_are_durable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (folder, photos) = shoot_with_sidecars(dir.path(), 200);
    let mut h = harness(dir.path(), Some(folder), ort_cpu());
    settle(&mut h);
    let close = crate::gui::ask_to_close;
    let commands = |h: &Harness<'static, DarkRoom>| {
        h.output()
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.commands.clone())
            .unwrap_or_default()
    };
    // Another process holds the catalog's write lock for a while (as a backup tool might), so
    // the decisions stay unsaved long enough to close twice.
    let mut lock = hold_write_lock(&dir.path().join("catalog.sqlite"), 3.0);
    keys_in_one_frame(
        &mut h,
        &[(Key::A, Modifiers::COMMAND), (Key::P, Modifiers::NONE)],
    );
    assert!(h.state().unsaved() > 0, "decisions on their way");
    close(&mut h);
    h.step();
    assert_eq!(h.state().closing(), Closing::Saving);
    assert!(
        commands(&h).contains(&egui::ViewportCommand::CancelClose),
        "kept open"
    );
    h.step();
    h.get_by_label_contains(&format!("Saving {} decisions…", photos.len()));
    close(&mut h);
    h.step();
    assert_eq!(h.state().closing(), Closing::Asking);
    assert!(commands(&h).contains(&egui::ViewportCommand::CancelClose));
    h.step();
    h.get_by_label_contains("200 decisions are not saved yet");
    h.get_by_label("Keep saving").click();
    h.step();
    assert_eq!(h.state().closing(), Closing::Saving);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut closed = false;
    while !closed {
        assert!(Instant::now() < deadline, "never closed");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
        closed = commands(&h).contains(&egui::ViewportCommand::Close);
    }
    assert_eq!(h.state().closing(), Closing::Now);
    assert!(h.state().saved(), "closed only once everything was durable");
    assert!(lock.wait().expect("the lock's holder").success());
    let c = catalog(dir.path());
    for p in &photos {
        assert_eq!(
            c.decision(p).expect("query").map(|d| d.flag),
            Some(Flag::Pick)
        );
    }
    // The close request that follows goes through.
    close(&mut h);
    h.step();
    assert!(!commands(&h).contains(&egui::ViewportCommand::CancelClose));
}

/// The catalog refuses a write (here a trigger stands for a full or failing disk): the mark
/// goes back to what is durable and a notice names the photo and the cause.
#[test]
fn a_refused_write_reverts_the_mark_and_names_the_photo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    {
        // The schema first, so the trigger has its table.
        drop(catalog(dir.path()));
        let file = dir.path().join("catalog.sqlite");
        let conn = sql_on(&file);
        conn(
            "CREATE TRIGGER refuse BEFORE UPDATE ON photos WHEN NEW.flag = 1
             BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END",
        );
    }
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    h.key_press(Key::ArrowRight);
    // Stars are not refused.
    h.key_press(Key::Num2);
    settle(&mut h);
    h.key_press(Key::P);
    settle(&mut h);
    let p = &h.state().cull.entries()[1];
    assert_eq!(p.decision.flag, Flag::Unflagged, "the mark reverted");
    assert_eq!(p.decision.stars, 2);
    assert!(!p.pending());
    // In the notices, and on the photo's cell.
    let said = format!(
        "the decision on {} was not saved: catalog error: disk I/O error (simulated)",
        PHOTOS[1]
    );
    assert!(h.get_all_by_label_contains(&said).count() >= 1, "{said}");
    let recorded = || {
        catalog(dir.path())
            .decision(&folder.join(PHOTOS[1]))
            .expect("query")
            .unwrap_or_default()
    };
    assert_eq!((recorded().flag, recorded().stars), (Flag::Unflagged, 2));
    // Undoing the refused pick changes nothing: the photo keeps what is durable.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert_eq!(h.state().cull.entries()[1].decision.stars, 2);
    assert_eq!(recorded().stars, 2);
}

/// Another process holding the catalog's write lock for `seconds` (shorter than the catalog's
/// 5 s busy timeout), from when this returns.
fn hold_write_lock(catalog: &Path, seconds: f64) -> std::process::Child {
    use std::io::BufRead;
    let mut child = std::process::Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); \
             c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); \
             time.sleep(float(sys.argv[2])); c.execute('ROLLBACK')",
        ])
        .arg(catalog)
        .arg(seconds.to_string())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    let out = child.stdout.take().expect("stdout");
    std::io::BufReader::new(out)
        .read_line(&mut line)
        .expect("read");
    assert_eq!(line.trim(), "locked");
    child
}

/// A statement run on the catalog file from outside DarkRoom (as another process would).
fn sql_on(path: &Path) -> impl Fn(&str) {
    let path = path.to_path_buf();
    move |sql: &str| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()"])
            .arg(&path)
            .arg(sql)
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `darkroom index` on `folder` into the catalog the window in `dir` opens.
fn index_from_the_command_line(dir: &Path, folder: &Path) {
    run_ok(
        darkroom_on(Rt::Ort, dir)
            .env("DARKROOM_MODELS", models())
            .args(["index", "--catalog"])
            .arg(dir.join("catalog.sqlite"))
            .arg(folder),
    );
}

/// `darkroom index` (its rows) before the folder was ever opened: the sidecars' ratings are
/// still what the window shows and keeps.
#[test]
fn a_folder_indexed_before_it_is_opened_shows_its_sidecars() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (folder, photos) = shoot_with_sidecars(dir.path(), 4);
    index_from_the_command_line(dir.path(), &folder);
    assert!(
        catalog(dir.path())
            .photo_index(&photos[0])
            .expect("query")
            .is_some(),
        "indexed"
    );
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    for p in h.state().cull.entries() {
        assert_eq!(p.decision.stars, 5, "{}", p.file_name());
    }
    h.key_press(Key::P);
    settle(&mut h);
    let t = exiftool(
        &["-n", "-XMP-xmp:Rating", "-XMP-xmp:Label"],
        &folder.join("IMG_0000.jpg.xmp"),
    );
    assert_eq!(
        (t["Rating"].clone(), t["Label"].clone()),
        (5.into(), "Blue".into()),
        "{t:#}"
    );
}

/// Stepping faster than pictures are made: the loupe shows the grid thumbnail at once (its
/// screen-sized picture is asked for in that very frame), then that photo's own picture
/// replaces it; two steps in one frame land on the right photo's thumbnail, never on the
/// picture of the photo left behind.
#[test]
fn the_loupe_shows_the_thumbnail_until_the_photos_picture_is_made() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    let mut h = harness(dir.path(), Some(folder), ort_cpu());
    settle(&mut h);
    let thumbnail = "photo fit · grid thumbnail until its picture is made";
    let shown = |h: &Harness<'static, DarkRoom>| {
        let id = h.state().cull.selected_id().expect("a photo");
        h.state().cull.get(id).expect("shown").file_name()
    };
    keys_in_one_frame(&mut h, &[(Key::Enter, Modifiers::NONE)]);
    h.get_by_label(thumbnail);
    assert_eq!(shown(&h), PHOTOS[0]);
    settle(&mut h);
    h.get_by_label("photo fit");
    assert!(h.query_by_label(thumbnail).is_none());
    // Two photos on in one frame: the third photo's thumbnail, then its picture.
    keys_in_one_frame(
        &mut h,
        &[
            (Key::ArrowRight, Modifiers::NONE),
            (Key::ArrowRight, Modifiers::NONE),
        ],
    );
    assert_eq!(h.state().cull.selected, 2);
    h.get_by_label(thumbnail);
    assert_eq!(shown(&h), PHOTOS[2]);
    settle(&mut h);
    h.get_by_label("photo fit");
    let id = h.state().cull.selected_id().expect("a photo");
    assert!(
        h.state()
            .gallery
            .get(id)
            .is_some_and(|p| p.loupe.ready().is_some())
    );
}

/// Key repeat through a shoot, a step a frame, never settled: in every one of 20 frames the
/// loupe draws the photo of that step (its grid thumbnail at least; never a spinner, never the
/// photo left behind). Skimming asks for no screen picture of a photo passed; the stop gets
/// its screen picture and its own pixels.
#[test]
fn twenty_steps_in_twenty_frames_each_draw_the_photo_of_their_step() {
    use darkroom_app::gui::pictures::Drew;
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("burst");
    std::fs::create_dir_all(&folder).expect("mkdir");
    // 24 files of their own (each its own cache entry), in the order the loupe walks them.
    let names: Vec<String> = (0..24)
        .map(|k| {
            let from = PHOTOS[k % PHOTOS.len()];
            let ext = Path::new(from)
                .extension()
                .and_then(|e| e.to_str())
                .expect("an extension");
            let name = format!("frame_{k:02}.{ext}");
            std::fs::copy(photo(from), folder.join(&name)).expect("copy photo");
            name
        })
        .collect();
    let setup = crate::gui::setup(
        dir.path(),
        Some(folder),
        darkroom_app::gui::StatusSource::Fixed(Box::new(ort_cpu())),
    );
    // A window whose grid shows every photo: the grid asks for all 24 thumbnails. Its clock
    // moves a display's frame a step (the window's pace is read from it).
    let mut h = crate::gui::build_sized(setup, [1500.0, 1100.0], 1.0 / 60.0);
    settle(&mut h);
    let thumbs = h
        .state()
        .gallery
        .iter()
        .filter(|p| p.thumb.ready().is_some())
        .count();
    assert_eq!(thumbs, 24, "the grid shows every photo");
    keys_in_one_frame(&mut h, &[(Key::Enter, Modifiers::NONE)]);
    for (step, name) in names.iter().enumerate().take(21).skip(1) {
        keys_in_one_frame(&mut h, &[(Key::ArrowRight, Modifiers::NONE)]);
        let app = h.state();
        assert_eq!(app.cull.selected, step);
        let id = app.cull.selected_id().expect("a photo");
        assert_eq!(&app.cull.get(id).expect("shown").file_name(), name);
        let drew = app.loupe_drew();
        assert!(
            drew.is_some_and(|(d, _)| d == id),
            "frame {step}: the loupe drew {drew:?}, not photo {step}"
        );
        // A step a frame (a frame's step on the harness's clock) is skimming: no screen
        // picture is asked for the photo shown (the first photo's and its next were, before
        // the first step).
        if step >= 2 {
            let asked = app
                .gallery
                .get(id)
                .is_some_and(|p| p.loupe.waiting() || p.loupe.ready().is_some());
            assert!(
                !asked,
                "frame {step}: a screen picture asked while skimming"
            );
        }
    }
    // The stop: its screen picture, then its own pixels (drawn where the pane is larger
    // than the screen picture, as here).
    settle(&mut h);
    let id = h.state().cull.selected_id().expect("a photo");
    let drew = h.state().loupe_drew();
    assert!(
        matches!(drew, Some((d, Drew::Screen | Drew::Full)) if d == id),
        "the stop drew {drew:?}"
    );
    assert!(
        h.state()
            .gallery
            .get(id)
            .is_some_and(|p| p.full.ready().is_some()),
        "the photo stopped on has its own pixels"
    );
}

/// O pressed in the frame that moves the loupe, before the photo's close-ups have come: the
/// overlay that lands is the new photo's own stored mask (its size, its id), never the one
/// left behind. The index looked in neither the cat nor the cup (each alone in its scene): the
/// loupe looks on O, and a look lands on the photo it was asked for even when the person moved
/// on before it ended, while the photo moved to gets its own. On a photo its face judges, O
/// shows nothing, not the last photo's mask.
#[test]
fn the_subject_overlay_asked_for_in_the_moving_frame_is_the_new_photos() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = sample_folder(dir.path());
    index_from_the_command_line(dir.path(), &folder);
    let stored = |name: &str| {
        let i = catalog(dir.path())
            .photo_index(&folder.join(name))
            .expect("query")
            .expect("indexed");
        (
            i.stamp.segmenter.is_some(),
            i.subject
                .map(|s| [s.mask_width as usize, s.mask_height as usize]),
        )
    };
    assert_eq!(
        (stored("chelsea.png"), stored("coffee.png")),
        ((false, None), (false, None)),
        "alone in their scenes: not looked in"
    );
    assert_eq!(
        stored("grace_hopper.jpg"),
        (false, None),
        "her face judges her photo"
    );

    // A live engine: the loupe's look takes its sessions from the backend's pin.
    let mut h = crate::gui::live_harness(dir.path(), folder.clone());
    settle(&mut h);
    let shown = |h: &Harness<'static, DarkRoom>| {
        let id = h.state().cull.selected_id().expect("a photo");
        let name = h.state().cull.get(id).expect("shown").file_name();
        let overlay = h.state().gallery.get(id).and_then(|p| p.subject.clone());
        if let Some(t) = &overlay {
            assert_eq!(
                t.name(),
                format!("subject-{}-{}", id.generation(), id.index()),
                "{name}'s overlay is its own"
            );
        }
        (name, overlay.map(|t| t.size()))
    };
    keys_in_one_frame(&mut h, &[(Key::Enter, Modifiers::NONE)]);
    settle(&mut h);
    assert_eq!(
        shown(&h),
        (PHOTOS[0].to_owned(), None),
        "the astronaut: no subject"
    );

    // Two photos on and O, in one frame: the cat, and the loupe looks for her subject.
    keys_in_one_frame(
        &mut h,
        &[
            (Key::ArrowRight, Modifiers::NONE),
            (Key::ArrowRight, Modifiers::NONE),
            (Key::O, Modifiers::NONE),
        ],
    );
    assert!(h.state().show_subject);
    assert_eq!(shown(&h).0, "chelsea.png");
    let mut frames = 0;
    while h.state().subject_looks.looking.is_none() {
        frames += 1;
        assert!(frames < 5, "O started no look");
        h.step();
    }
    assert_eq!(
        h.state().subject_looks.looking.as_deref(),
        Some(folder.join("chelsea.png").as_path())
    );
    // On to the cup in the very next frame, the cat's look under way (its session still
    // opening): whenever its answer is read, it is the cat's.
    keys_in_one_frame(&mut h, &[(Key::ArrowRight, Modifiers::NONE)]);
    settle(&mut h);
    let (chelsea, coffee) = (stored("chelsea.png"), stored("coffee.png"));
    assert!(
        chelsea.0 && chelsea.1.is_some() && coffee.0 && coffee.1.is_some(),
        "each look landed on its own photo: {chelsea:?} {coffee:?}"
    );
    assert_ne!(chelsea.1, coffee.1);
    assert_eq!(shown(&h), ("coffee.png".to_owned(), coffee.1));

    // Back to the cat and straight past the cup to Grace Hopper in one frame, O off and on
    // again: her face judges her photo, so nothing is laid over it, and nothing looked for.
    keys_in_one_frame(
        &mut h,
        &[
            (Key::ArrowLeft, Modifiers::NONE),
            (Key::O, Modifiers::NONE),
            (Key::O, Modifiers::NONE),
            (Key::ArrowRight, Modifiers::NONE),
            (Key::ArrowRight, Modifiers::NONE),
        ],
    );
    assert!(h.state().show_subject);
    settle(&mut h);
    assert_eq!(shown(&h), ("grace_hopper.jpg".to_owned(), None));
    assert_eq!(stored("grace_hopper.jpg"), (false, None));
    // And back: the cup's own mask, then the cat's.
    keys_in_one_frame(&mut h, &[(Key::ArrowLeft, Modifiers::NONE)]);
    settle(&mut h);
    assert_eq!(shown(&h), ("coffee.png".to_owned(), coffee.1));
    keys_in_one_frame(&mut h, &[(Key::ArrowLeft, Modifiers::NONE)]);
    settle(&mut h);
    assert_eq!(shown(&h), ("chelsea.png".to_owned(), chelsea.1));
}

/// Another tool (exiftool standing for Lightroom or darktable) changes a photo's rating and
/// label while the folder is open: the window shows it without reopening, says so, and a
/// pick made after keeps what that tool wrote.
#[test]
fn another_tools_edit_shows_live_and_a_pick_keeps_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (folder, photos) = shoot_with_sidecars(dir.path(), 3);
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    let first = h.state().cull.id(0);
    let shown = |h: &Harness<'static, DarkRoom>| {
        h.state()
            .cull
            .get(first)
            .map(|p| p.decision.clone())
            .expect("the first photo")
    };
    assert_eq!(shown(&h).stars, 5, "the sidecar's rating, read on import");
    // The watch is set up on a thread of its own: the edit comes once it is in place.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !h.state().watching_sidecars() {
        assert!(Instant::now() < deadline, "the folder was never watched");
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    let sidecar = folder.join("IMG_0000.jpg.xmp");
    let edited = std::process::Command::new("exiftool")
        .args([
            "-q",
            "-overwrite_original",
            "-XMP-xmp:Rating=2",
            "-XMP-xmp:Label=Red",
        ])
        .arg(&sidecar)
        .status()
        .expect("exiftool runs");
    assert!(edited.success());
    // The event, not a guess at how long it takes: the window shows it, however long.
    while shown(&h).stars != 2 {
        assert!(
            Instant::now() < deadline,
            "another tool's edit never showed"
        );
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    assert!(
        shown(&h).label.is_some_and(|l| l.xmp_value() == "Red"),
        "{:?}",
        shown(&h)
    );
    assert!(
        h.state()
            .notices
            .iter()
            .any(|n| n.starts_with("Another program changed IMG_0000.jpg's rating or label")),
        "said so"
    );
    // A pick on it: their rating and label stay, in the sidecar and in the catalog.
    keys_in_one_frame(&mut h, &[(Key::P, Modifiers::NONE)]);
    settle(&mut h);
    let tags = exiftool(&["-XMP:Rating", "-XMP:Label", "-XMP-dc:Title"], &sidecar);
    assert_eq!(tags["Rating"], 2, "{tags}");
    assert_eq!(tags["Label"], "Red", "{tags}");
    assert_eq!(tags["Title"], "Wedding, first look", "{tags}");
    let row = catalog(dir.path())
        .decision(&photos[0])
        .expect("query")
        .expect("a row");
    assert_eq!((row.flag, row.stars), (Flag::Pick, 2));
}
