//! A real window: the binary under Xvfb on the sample photos, a screenshot of the screen, and a
//! check that it shows something (many colours, not one flat fill). Needs Xvfb and
//! ImageMagick's `import` (scripts/test installs both) and Mesa's Vulkan (lavapipe). It runs
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
    let display = format!(":{}", 90 + std::process::id() % 100);
    let _xvfb = Kill(
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
    let mut app = darkroom(dir.path());
    let _app = Kill(
        app.env("DISPLAY", &display)
            .env("DARKROOM_ORT_LIB", ort_lib())
            .env("DARKROOM_MODELS", models())
            .env("DARKROOM_CACHE_DIR", dir.path().join("cache"))
            .env_remove("WAYLAND_DISPLAY")
            .arg(&folder)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("darkroom starts"),
    );
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
