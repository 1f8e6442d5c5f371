//! `darkroom bench-loupe FOLDER [--rate 1,2,4,8] [--repeat 20 --repeat-steps 60]`: stepping
//! through the loupe at a photographer's pace — tapping at each rate, and skimming at key
//! repeat then stopping —, each walk from fresh caches and then again from the caches it left
//! (a folder seen before): how long from the key to a first picture of the next photo (its grid
//! thumbnail or its preview), to it at screen resolution and, after a stop, to its own
//! full-resolution pixels, p50, p95 and max; the frames over 16 ms and 50 ms while stepping;
//! the process's peak memory. Runs the real window state headless, frames at 60 Hz as a display
//! would ask for them, each frame's texture changes uploaded on a real wgpu device (the GPU,
//! else lavapipe) before the frame counts as done: a picture is on screen once its upload is,
//! and the uploads' own times are reported. The bars (docs/PERFORMANCE.md, issue 39): at 4 and
//! 8 photos a second and at key repeat, key → first picture p95 ≤ 16 ms; at 4/s, key → screen
//! resolution p95 ≤ 100 ms; stop → full resolution p50 ≤ 400 ms, p95 ≤ 800 ms; no frame over
//! 50 ms while stepping.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;

use crate::gui::DarkRoom;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A folder of photos (e.g. 40 at 6000×4000 from scripts/make-thumb-corpus).
    folder: PathBuf,
    /// Photos stepped to per second, a key each; each rate walks in turn.
    #[arg(long, value_delimiter = ',', default_values_t = [1.0, 2.0, 4.0, 8.0])]
    rate: Vec<f64>,
    /// A key held down: this many steps a second (0: no such walk) …
    #[arg(long, default_value_t = 20.0)]
    repeat: f64,
    /// … for this many steps (back at the folder's ends), then a stop.
    #[arg(long, default_value_t = 60)]
    repeat_steps: usize,
    /// Only from fresh caches (no second walk from the caches the first left).
    #[arg(long)]
    fresh_only: bool,
    #[arg(long)]
    json: bool,
}

const SCREEN: egui::Vec2 = egui::vec2(1920.0, 1080.0);
const FRAME: Duration = Duration::from_micros(16_667);
/// A photo that is not at full resolution after this long is reported as such.
const GIVE_UP: Duration = Duration::from_secs(10);

#[derive(Serialize)]
struct Latency {
    count: usize,
    p50_ms: f64,
    p95_ms: f64,
    max_ms: f64,
}

#[derive(Serialize)]
struct Report {
    photos: usize,
    steps: usize,
    rate_per_s: f64,
    /// Tapping a key a step, or holding it down (key repeat), then stopping.
    walk: &'static str,
    /// From fresh caches, or from those an earlier walk over the folder left.
    caches: &'static str,
    /// Every frame while stepping, its wall time (logic, UI and the upload).
    frames: Frames,
    /// The last key of the walk → the photo stopped on at its own resolution.
    stop_full_ms: f64,
    /// Key to a picture of the photo on screen (its grid thumbnail or its preview), walking
    /// at the pace.
    first: Latency,
    /// Key to the photo on screen from its preview, walking at the pace.
    screen: Latency,
    /// Steps of that walk whose full-resolution pixels came before the next key.
    full_in_step: usize,
    /// Photos stopped on after the walk, one by one, until their own pixels were in.
    full_stopped: usize,
    /// Key to the photo's own pixels when stopping on it (the loupe waits a moment at fit).
    full: Latency,
    /// Each frame's upload of at most one loupe picture's pixels (screen resolution), done on
    /// the device.
    upload_preview: Latency,
    /// Each frame's upload of more: a photo at its own resolution (its tiles), or loupe
    /// pictures of several photos at once.
    upload_full: Latency,
    /// The device the uploads went to.
    adapter: String,
    /// VmHWM (Linux); None elsewhere. On a CPU adapter (lavapipe) the textures are in this
    /// process too.
    peak_rss_mib: Option<f64>,
}

#[derive(Serialize)]
struct Frames {
    count: usize,
    over_16_ms: usize,
    over_50_ms: usize,
    p95_ms: f64,
    max_ms: f64,
}

/// How a walk steps: a key each `1 / rate` s for `steps` steps (None: through the folder
/// once), back at the folder's ends.
#[derive(Clone, Copy)]
struct Pace {
    rate: f64,
    steps: Option<usize>,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    if a.rate.iter().any(|r| !r.is_finite() || *r <= 0.0) {
        bail!("--rate must be above 0");
    }
    if !a.repeat.is_finite() || a.repeat < 0.0 {
        bail!("--repeat must be 0 or above");
    }
    let mut paces: Vec<Pace> = a
        .rate
        .iter()
        .map(|&rate| Pace { rate, steps: None })
        .collect();
    if a.repeat > 0.0 && a.repeat_steps > 0 {
        paces.push(Pace {
            rate: a.repeat,
            steps: Some(a.repeat_steps),
        });
    }
    let mut reports = Vec::new();
    for pace in paces {
        // One folder of caches a pace: fresh for its first walk, left as it was for its second.
        let caches = tempfile::tempdir().context("cannot make a temporary folder")?;
        reports.push(walk(&a.folder, pace, caches.path(), "fresh")?);
        if !a.fresh_only {
            reports.push(walk(&a.folder, pace, caches.path(), "warm")?);
        }
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        for report in &reports {
            print(report);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One walk at `pace`, its window state new, its caches in `caches` (`how`: fresh, or as an
/// earlier walk left them).
fn walk(
    folder: &std::path::Path,
    pace: Pace,
    caches: &std::path::Path,
    how: &'static str,
) -> anyhow::Result<Report> {
    let rate = pace.rate;
    let ctx = egui::Context::default();
    let (setup, _engine) = super::headless_setup(caches, "loupe", folder.to_path_buf());
    let mut app = DarkRoom::new(&ctx, setup);
    let gpu = std::cell::RefCell::new(super::Uploader::new()?);
    // Each frame's wall time while `timing` (stepping), in ms.
    let frame_ms = std::cell::RefCell::new((false, Vec::<f64>::new()));
    let frame = |app: &mut DarkRoom, keys: &[egui::Key]| {
        let started = Instant::now();
        std::hint::black_box(super::headless_frame(
            &ctx,
            app,
            SCREEN,
            keys,
            Some(&mut gpu.borrow_mut()),
        ));
        let mut f = frame_ms.borrow_mut();
        if f.0 {
            f.1.push(started.elapsed().as_secs_f64() * 1e3);
        }
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    while app.opening() || app.scanning() || app.cull.is_empty() {
        if !app.opening() && !app.scanning() && app.cull.is_empty() {
            bail!("{} holds no photos", folder.display());
        }
        if Instant::now() > deadline {
            bail!("{} did not scan in 5 minutes", folder.display());
        }
        frame(&mut app, &[]);
        std::thread::sleep(FRAME);
    }
    let photos = app.cull.visible.len();
    if photos < 3 {
        bail!(
            "{} has {photos} photos; the walk needs 3 or more",
            folder.display()
        );
    }
    frame(&mut app, &[egui::Key::Enter]);
    let until = |app: &mut DarkRoom, done: &dyn Fn(&DarkRoom) -> bool| -> bool {
        let deadline = Instant::now() + GIVE_UP;
        while !done(app) {
            if Instant::now() > deadline {
                return false;
            }
            frame(app, &[]);
            std::thread::sleep(FRAME);
        }
        true
    };
    if !until(&mut app, &full_in) {
        bail!("the first photo never reached full resolution");
    }
    // The walk at the pace: each key on time, whatever is still on its way; back at the ends.
    let step_every = Duration::from_secs_f64(1.0 / rate);
    let steps = pace.steps.unwrap_or(photos - 1);
    let (mut first, mut screen, mut sharp_in_time) = (Vec::new(), Vec::new(), 0);
    let mut key = egui::Key::ArrowRight;
    frame_ms.borrow_mut().0 = true;
    let mut last_key = Instant::now();
    // When the last step's own pixels came, if within the step (a slow pace's dwell is over).
    let mut last_own = None;
    for _ in 0..steps {
        let at = app.cull.selected;
        if key == egui::Key::ArrowRight && at + 1 >= photos {
            key = egui::Key::ArrowLeft;
        } else if key == egui::Key::ArrowLeft && at == 0 {
            key = egui::Key::ArrowRight;
        }
        let pressed = Instant::now();
        last_key = pressed;
        frame(&mut app, &[key]);
        if app.cull.selected == at {
            bail!("a step from photo {} moved nothing", at + 1);
        }
        let (mut seen, mut any) = (None, None);
        let mut own_at = None;
        loop {
            let (picture, preview) = drawn(&app);
            let own = full_in(&app);
            if picture && any.is_none() {
                any = Some(pressed.elapsed());
            }
            if preview && seen.is_none() {
                seen = Some(pressed.elapsed());
            }
            if own && own_at.is_none() {
                own_at = Some(pressed.elapsed());
            }
            if pressed.elapsed() + FRAME >= step_every {
                break;
            }
            std::thread::sleep(FRAME);
            frame(&mut app, &[]);
        }
        // Not on screen within the step: it counts as the whole step, and more.
        screen.push(seen.unwrap_or(step_every).as_secs_f64() * 1e3);
        first.push(any.unwrap_or(step_every).as_secs_f64() * 1e3);
        sharp_in_time += usize::from(own_at.is_some());
        last_own = own_at;
        std::thread::sleep(step_every.saturating_sub(pressed.elapsed()));
    }
    frame_ms.borrow_mut().0 = false;
    // The stop: the photo stepped to last, until its own pixels are in.
    if !until(&mut app, &full_in) {
        bail!(
            "photo {} never reached full resolution after the walk",
            app.cull.selected + 1
        );
    }
    let stop_full_ms = last_own.unwrap_or_else(|| last_key.elapsed()).as_secs_f64() * 1e3;
    // Then on, stopping on each photo until its own pixels are in: the latency a photographer
    // who pauses to check focus sees; towards the farther end, up to 20 stops.
    let at = app.cull.selected;
    let (back, stops) = if at >= photos - 1 - at {
        (egui::Key::ArrowLeft, at.min(20))
    } else {
        (egui::Key::ArrowRight, (photos - 1 - at).min(20))
    };
    let mut full = Vec::new();
    for _ in 0..stops {
        let pressed = Instant::now();
        let from = app.cull.selected;
        frame(&mut app, &[back]);
        if app.cull.selected == from {
            bail!("a stop from photo {} moved nothing", from + 1);
        }
        if !until(&mut app, &full_in) {
            bail!(
                "photo {} never reached full resolution",
                app.cull.selected + 1
            );
        }
        full.push(pressed.elapsed().as_secs_f64() * 1e3);
    }
    let frames = {
        let ms = &frame_ms.borrow().1;
        let q = darkroom_library::measure::Quantiles::or_nan(ms);
        Frames {
            count: ms.len(),
            over_16_ms: ms.iter().filter(|&&m| m > 16.0).count(),
            over_50_ms: ms.iter().filter(|&&m| m > 50.0).count(),
            p95_ms: q.p95_ms,
            max_ms: q.max_ms,
        }
    };
    Ok(Report {
        photos,
        steps: screen.len(),
        rate_per_s: rate,
        walk: if pace.steps.is_some() {
            "key repeat"
        } else {
            "tapping"
        },
        caches: how,
        frames,
        stop_full_ms,
        first: latency(first),
        screen: latency(screen),
        full_in_step: sharp_in_time,
        full_stopped: full.len(),
        full: latency(full),
        upload_preview: uploads(&gpu.borrow(), |px| px <= SCREEN_PICTURE),
        upload_full: uploads(&gpu.borrow(), |px| px > SCREEN_PICTURE),
        adapter: gpu.borrow().adapter.clone(),
        peak_rss_mib: darkroom_library::measure::status_mib("VmHWM"),
    })
}

fn print(report: &Report) {
    println!(
        "{} steps at {}/s ({}), {} caches, over {} photos",
        report.steps, report.rate_per_s, report.walk, report.caches, report.photos
    );
    for (what, l) in [
        ("key → first picture (thumbnail or preview)", &report.first),
        ("key → screen resolution", &report.screen),
    ] {
        println!(
            "  {what}: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            l.p50_ms, l.p95_ms, l.max_ms
        );
    }
    println!(
        "  full resolution before the next key: {} of {} steps",
        report.full_in_step, report.steps
    );
    let f = &report.frames;
    println!(
        "  frames while stepping: {} over 16 ms, {} over 50 ms of {}; p95 {:.1} ms, max {:.1} ms",
        f.over_16_ms, f.over_50_ms, f.count, f.p95_ms, f.max_ms
    );
    println!(
        "  the stop after the walk → full resolution: {:.1} ms",
        report.stop_full_ms
    );
    for (what, u) in [
        ("a screen-resolution picture", &report.upload_preview),
        (
            "more (a full-resolution photo, or previews together)",
            &report.upload_full,
        ),
    ] {
        println!(
            "  texture upload of {what} ({} of them, {}): p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            u.count, report.adapter, u.p50_ms, u.p95_ms, u.max_ms
        );
    }
    let l = &report.full;
    println!(
        "  stopping on {} photos, key → full resolution: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        report.full_stopped, l.p50_ms, l.p95_ms, l.max_ms
    );
    match report.peak_rss_mib {
        Some(m) => println!("  peak RSS {m:.0} MiB (the process's, all walks so far)"),
        None => println!("  peak RSS: not measured on this system"),
    }
}

/// Whether the loupe drew the photo selected in the last frame: from any of its pictures, and
/// from its screen picture or its own pixels.
fn drawn(app: &DarkRoom) -> (bool, bool) {
    use crate::gui::pictures::Drew;
    match (app.loupe_drew(), app.cull.selected_id()) {
        (Some((drew_id, drew)), Some(id)) if drew_id == id => (true, drew != Drew::Thumbnail),
        _ => (false, false),
    }
}

/// Whether the photo selected has its own pixels in (its histogram and 100 % are ready).
fn full_in(app: &DarkRoom) -> bool {
    app.cull
        .selected_id()
        .and_then(|id| app.gallery.get(id))
        .is_some_and(|p| p.full.ready().is_some())
}

/// The most a frame uploads for one loupe picture (`LOUPE_SIDE` on its long edge); a frame
/// that uploads more holds a full-resolution photo's tiles.
const SCREEN_PICTURE: usize = (crate::services::LOUPE_SIDE as usize).pow(2);

/// The uploads whose pixels pass `which`.
fn uploads(gpu: &super::Uploader, which: impl Fn(usize) -> bool) -> Latency {
    latency(
        gpu.pictures
            .iter()
            .filter(|(px, _)| which(*px))
            .map(|(_, d)| d.as_secs_f64() * 1e3)
            .collect(),
    )
}

fn latency(ms: Vec<f64>) -> Latency {
    let q = darkroom_library::measure::Quantiles::or_nan(&ms);
    Latency {
        count: q.count,
        p50_ms: q.p50_ms,
        p95_ms: q.p95_ms,
        max_ms: q.max_ms,
    }
}
