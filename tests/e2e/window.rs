//! A real window: the binary under Xvfb on the sample photos, a screenshot of the screen, and a
//! check that it shows something (many colours, not one flat fill); and an index job that goes
//! on to the end while another window covers it (eframe then draws no frame at all, only runs
//! `logic`). Needs Xvfb, ImageMagick's `import` and `display`, and xdotool (scripts/test
//! installs them) and Mesa's Vulkan (lavapipe). It runs
//! the binary the tests build, in the test profile: a second, release-profile build of the
//! whole tree would cost CI a third of its budget and test the same code.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An X server of this test's own on a display no other test uses.
fn xvfb(n: u32) -> (Kill, String) {
    let display = format!(":{}", 90 + (std::process::id() * 2 + n) % 200);
    let server = Kill(
        Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1280x820x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is installed"),
    );
    std::thread::sleep(Duration::from_millis(800));
    (server, display)
}

/// `darkroom FOLDER` on `display`, with the fetched runtime and models and a private data dir;
/// its stderr goes to `stderr`.
fn window_on(
    display: &str,
    data: &std::path::Path,
    folder: &std::path::Path,
    stderr: Stdio,
) -> Kill {
    let mut app = darkroom(data);
    Kill(
        app.env("DISPLAY", display)
            .env("DARKROOM_LOG_FRAMES", "1")
            .env("DARKROOM_ORT_LIB", ort_lib())
            .env("DARKROOM_MODELS", models())
            .env("DARKROOM_CACHE_DIR", data.join("cache"))
            .env_remove("WAYLAND_DISPLAY")
            .arg(folder)
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("darkroom starts"),
    )
}

#[test]
fn the_window_opens_on_the_sample_photos_and_is_not_blank() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for p in [
        "astronaut.png",
        "coffee.png",
        "grace_hopper.jpg",
        "chelsea.png",
    ] {
        std::fs::copy(photo(p), folder.join(p)).expect("copy");
    }
    let (_xvfb, display) = xvfb(0);
    let _app = window_on(&display, dir.path(), &folder, Stdio::null());
    let shot = dir.path().join("screen.png");
    let deadline = Instant::now() + Duration::from_secs(90);
    let colours = loop {
        std::thread::sleep(Duration::from_secs(2));
        let ok = Command::new("import")
            .args(["-display", &display, "-window", "root"])
            .arg(&shot)
            .status()
            .is_ok_and(|s| s.success());
        if ok && let Ok(img) = image::open(&shot) {
            let img = img.into_rgb8();
            let mut seen = std::collections::HashSet::new();
            for p in img.pixels().step_by(7) {
                seen.insert(p.0);
            }
            // Thumbnails bring photographs' thousands of colours; a blank or chrome-only
            // window has a handful.
            if seen.len() > 2000 {
                break seen.len();
            }
        }
        assert!(
            Instant::now() < deadline,
            "the window never showed the photos"
        );
    };
    let keep = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("window.png");
    let _ = std::fs::copy(&shot, &keep);
    eprintln!("screenshot with {colours} colours: {}", keep.display());
}

fn xdotool(display: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool")
        .env("DISPLAY", display)
        .args(args)
        .output()
        .expect("xdotool is installed (scripts/test installs it)");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Ctrl+I starts the index job; another window covers ours while it runs, and every photo is in
/// the catalog at the end, with no frame drawn meanwhile.
#[test]
fn an_index_job_goes_on_while_the_window_is_covered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let sources = [
        "astronaut.png",
        "grace_hopper.jpg",
        "coffee.png",
        "chelsea.png",
    ];
    let photos: Vec<_> = (0..120)
        .map(|i| {
            let src = sources[i % sources.len()];
            let ext = std::path::Path::new(src)
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("png");
            let p = folder.join(format!("IMG_{i:04}.{ext}"));
            std::fs::copy(photo(src), &p).expect("copy");
            p
        })
        .collect();
    let (_xvfb, display) = xvfb(1);
    let log = dir.path().join("stderr.txt");
    let _app = window_on(
        &display,
        dir.path(),
        &folder,
        std::fs::File::create(&log).expect("log").into(),
    );
    let frames = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("darkroom: frame "))
            .count()
    };
    let catalog_file = dir.path().join("catalog.sqlite");
    let indexed = || -> usize {
        let Ok(c) = darkroom_catalog::Catalog::open(
            &catalog_file,
            darkroom_catalog::SidecarNaming::WithExtension,
        ) else {
            return 0;
        };
        photos
            .iter()
            .filter(|p| c.photo_index(p).ok().flatten().is_some())
            .count()
    };
    // Ctrl+I until the job has started (the engine starts after the first frame).
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the job never started");
        std::thread::sleep(Duration::from_millis(500));
        let Some(id) = xdotool(&display, &["search", "--name", "DarkRoom"]) else {
            continue;
        };
        let id = id.lines().last().unwrap_or_default().to_owned();
        // Keys go to the focused window (XTEST); with no window manager, focus it ourselves.
        let _ = xdotool(&display, &["windowfocus", "--sync", &id]);
        let _ = xdotool(&display, &["key", "ctrl+i"]);
        if indexed() > 0 {
            break;
        }
    }
    // Another window over the whole screen: X reports ours fully obscured, and eframe stops
    // drawing it (an unmapped window would not do: winit never learns of it).
    let _cover = Kill(
        Command::new("display")
            .env("DISPLAY", &display)
            .args(["-geometry", "1400x900+0+0", "-resize", "1400x900!"])
            .arg(photo("coffee.png"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ImageMagick's display is installed"),
    );
    std::thread::sleep(Duration::from_secs(2));
    let covered_at = frames();
    let done_when_covered = indexed();
    assert!(
        done_when_covered < photos.len(),
        "the job had photos left when the window was covered ({done_when_covered} done)"
    );
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let n = indexed();
        if n == photos.len() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{n} of {} photos indexed while the window was covered",
            photos.len()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    assert_eq!(
        frames(),
        covered_at,
        "no frame was drawn while the window was covered: the job ran on logic alone"
    );
}

/// The window's id once it is mapped and has drawn `frames` frames (its log says so).
fn window_id(display: &str, log: &std::path::Path, frames: usize) -> String {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        assert!(
            Instant::now() < deadline,
            "the window never came up: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
        let drawn = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("darkroom: frame "))
            .count();
        if drawn < frames {
            continue;
        }
        if let Some(id) = xdotool(display, &["search", "--name", "DarkRoom"]) {
            return id.lines().last().unwrap_or_default().to_owned();
        }
    }
}

/// Ctrl+A, P as a person types them, to the window (focused first: there is no window
/// manager).
fn select_all_and_pick(display: &str, id: &str) {
    let _ = xdotool(display, &["windowfocus", "--sync", id]);
    assert!(
        xdotool(display, &["key", "ctrl+a", "p"]).is_some(),
        "keys sent"
    );
}

/// Picks in the catalog, and sidecars exiftool reads as picked with the other tool's 5 stars.
fn picked(data: &std::path::Path, photos: &[std::path::PathBuf]) -> (usize, usize) {
    let Ok(c) = darkroom_catalog::Catalog::open(
        &data.join("catalog.sqlite"),
        darkroom_catalog::SidecarNaming::WithExtension,
    ) else {
        return (0, 0);
    };
    let in_catalog = photos
        .iter()
        .filter(|p| {
            c.decision(p)
                .ok()
                .flatten()
                .is_some_and(|d| d.flag == darkroom_catalog::Flag::Pick && d.stars == 5)
        })
        .count();
    let folder = photos[0].parent().expect("a folder");
    let tags = exiftool_sidecars(folder, &["-XMP-xmp:Rating", "-XMP-digiKam:PickLabel"]);
    let in_sidecars = tags
        .iter()
        .filter(|t| t["Rating"] == 5 && t["PickLabel"] == 3)
        .count();
    (in_catalog, in_sidecars)
}

/// A window on a card of 2,000 photos whose sidecars say 5 stars, blue, its folder loaded and
/// Ctrl+A, P just typed into it.
struct Picking {
    _xvfb: Kill,
    app: Kill,
    display: String,
    id: String,
    photos: Vec<std::path::PathBuf>,
    log: std::path::PathBuf,
}

fn picking(dir: &std::path::Path, screen: u32) -> Picking {
    let photos = card_with_sidecars(
        &dir.join("card"),
        2000,
        &["-XMP:Rating=5", "-XMP:Label=Blue"],
    );
    let (xvfb, display) = xvfb(screen);
    let log = dir.join("stderr.txt");
    let app = window_on(
        &display,
        dir,
        &dir.join("card"),
        std::fs::File::create(&log).expect("log").into(),
    );
    let id = window_id(&display, &log, 3);
    std::thread::sleep(Duration::from_secs(1));
    select_all_and_pick(&display, &id);
    Picking {
        _xvfb: xvfb,
        app,
        display,
        id,
        photos,
        log,
    }
}

/// A select-all pick on a card of 2,000 photos, and the window closed at once the way a window
/// manager closes it: the window stays until every decision is durable, then the process
/// exits with each in the catalog and its sidecar.
#[test]
fn closing_the_real_window_mid_save_loses_no_decision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = picking(dir.path(), 2);
    let (display, id, photos, log) = (&w.display, &w.id, &w.photos, &w.log);
    let app = &mut w.app;
    let xlib = assets().join("downloads/venv-xlib/bin/python");
    let closed = Command::new(&xlib)
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/data/wm-close.py"))
        .args([display.as_str(), id.as_str()])
        .status()
        .expect("python-xlib's venv (scripts/fetch-assets makes it)");
    assert!(closed.success());
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = app.0.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() >= deadline {
            // What the window said, less its frames: whether the close ever reached it.
            let said = std::fs::read_to_string(log).unwrap_or_default();
            let said: Vec<&str> = said
                .lines()
                .filter(|l| !l.starts_with("darkroom: frame "))
                .collect();
            panic!("the window never closed: {}", said.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let said = std::fs::read_to_string(log).unwrap_or_default();
    assert!(status.success(), "{said}");
    eprintln!(
        "closed {}",
        if said.contains("darkroom: closing Saving") {
            "while decisions were saving (kept open until they were durable)"
        } else {
            "after every decision was already durable"
        }
    );
    assert_eq!(
        picked(dir.path(), photos),
        (photos.len(), photos.len()),
        "{said}"
    );
}

/// kill -9 of the window's process while a select-all pick is saving: every decision the
/// window had shown as saved is in the catalog.
#[test]
fn sigkill_mid_save_keeps_every_decision_shown_as_saved() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut w = picking(dir.path(), 3);
    let (photos, log) = (&w.photos, &w.log);
    let app = &mut w.app;
    // The first acknowledgement, then at once the kill.
    let durable = || -> usize {
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix("darkroom: durable "))
            .filter_map(|n| n.trim().parse().ok())
            .max()
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while durable() == 0 {
        assert!(Instant::now() < deadline, "no decision was ever saved");
        std::thread::sleep(Duration::from_millis(5));
    }
    app.0.kill().expect("SIGKILL");
    let _ = app.0.wait();
    let shown = durable();
    let (in_catalog, _) = picked(dir.path(), photos);
    eprintln!("killed with {shown} decisions shown as saved; {in_catalog} in the catalog");
    assert!(
        in_catalog >= shown,
        "{shown} shown as saved, {in_catalog} in the catalog"
    );
    // The sidecars follow the catalog: those a kill left unwritten are written on the next
    // open, each durable decision's.
    let mut c = darkroom_catalog::Catalog::open(
        &dir.path().join("catalog.sqlite"),
        darkroom_catalog::SidecarNaming::WithExtension,
    )
    .expect("catalog");
    assert!(c.flush_pending().expect("pending sidecars").is_empty());
    assert_eq!(picked(dir.path(), photos), (in_catalog, in_catalog));
}
