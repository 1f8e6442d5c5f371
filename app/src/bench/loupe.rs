//! `darkroom bench-loupe FOLDER [--rate 1,2,4]`: stepping through the loupe at a
//! photographer's pace (each rate from fresh caches), how long from the key to a first picture
//! of the next photo (its grid thumbnail or its preview), to it at screen resolution (its
//! prefetched preview) and to its own full-resolution pixels, p50 and p95, and the process's
//! peak memory. Runs the real
//! window state headless, frames at 60 Hz as a display would ask for them, each frame's texture
//! changes uploaded on a real wgpu device (the GPU, else lavapipe) before the frame counts as
//! done: a picture is on screen once its upload is, and the uploads' own times are reported. The bar (docs/PERFORMANCE.md): at two photos a
//! second, the next photo at screen resolution within one frame (16 ms) at p95.

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
    /// Photos stepped to per second; each rate walks from fresh caches, in turn.
    #[arg(long, value_delimiter = ',', default_values_t = [1.0, 2.0, 4.0])]
    rate: Vec<f64>,
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
    /// Key to a picture of the photo on screen (its grid thumbnail or its preview), walking
    /// at the pace.
    first: Latency,
    /// Key to the photo on screen from its preview, walking at the pace.
    screen: Latency,
    /// Steps of that walk whose full-resolution pixels came before the next key.
    full_in_step: usize,
    /// Photos stopped on, walking back, until their own pixels were in.
    full_stopped: usize,
    /// Key to the photo's own pixels when stopping on it (the loupe waits a moment at fit).
    full: Latency,
    /// Each upload of a loupe picture (screen resolution) to the device, done on it.
    upload_preview: Latency,
    /// Each upload of a photo at its own resolution (its tiles, in one frame).
    upload_full: Latency,
    /// The device the uploads went to.
    adapter: String,
    /// VmHWM (Linux); None elsewhere. On a CPU adapter (lavapipe) the textures are in this
    /// process too.
    peak_rss_mib: Option<f64>,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    if a.rate.iter().any(|r| !r.is_finite() || *r <= 0.0) {
        bail!("--rate must be above 0");
    }
    let mut reports = Vec::new();
    for &rate in &a.rate {
        reports.push(walk(&a.folder, rate)?);
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

/// One walk at `rate` photos a second, from fresh caches.
fn walk(folder: &std::path::Path, rate: f64) -> anyhow::Result<Report> {
    let tmp = tempfile::tempdir().context("cannot make a temporary folder")?;
    let ctx = egui::Context::default();
    let (setup, _engine) = super::headless_setup(tmp.path(), "loupe", folder.to_path_buf());
    let mut app = DarkRoom::new(&ctx, setup);
    let gpu = std::cell::RefCell::new(super::Uploader::new()?);
    let frame = |app: &mut DarkRoom, keys: &[egui::Key]| {
        std::hint::black_box(super::headless_frame(
            &ctx,
            app,
            SCREEN,
            keys,
            Some(&mut gpu.borrow_mut()),
        ));
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    while app.scanning() || app.cull.is_empty() {
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
    if !until(&mut app, &|app| shown(app).1) {
        bail!("the first photo never reached full resolution");
    }
    // The walk at the pace: each key on time, whatever is still on its way.
    let pace = Duration::from_secs_f64(1.0 / rate);
    let (mut first, mut screen, mut sharp_in_time) = (Vec::new(), Vec::new(), 0);
    for _ in 1..photos {
        let pressed = Instant::now();
        frame(&mut app, &[egui::Key::ArrowRight]);
        let (mut seen, mut any) = (None, None);
        let mut sharp = false;
        loop {
            let (preview, own) = shown(&app);
            if (preview || thumbnail_shown(&app)) && any.is_none() {
                any = Some(pressed.elapsed());
            }
            if preview && seen.is_none() {
                seen = Some(pressed.elapsed());
            }
            sharp |= own;
            if pressed.elapsed() + FRAME >= pace {
                break;
            }
            std::thread::sleep(FRAME);
            frame(&mut app, &[]);
        }
        // Not on screen within the step: it counts as the whole step, and more.
        screen.push(seen.unwrap_or(pace).as_secs_f64() * 1e3);
        first.push(any.unwrap_or(pace).as_secs_f64() * 1e3);
        sharp_in_time += usize::from(sharp);
        std::thread::sleep(pace.saturating_sub(pressed.elapsed()));
    }
    // Then back, stopping on each photo until its own pixels are in: the latency a
    // photographer who pauses to check focus sees.
    let mut full = Vec::new();
    for _ in 1..photos.min(21) {
        let pressed = Instant::now();
        frame(&mut app, &[egui::Key::ArrowLeft]);
        if !until(&mut app, &|app| shown(app).1) {
            bail!(
                "photo {} never reached full resolution",
                app.cull.selected + 1
            );
        }
        full.push(pressed.elapsed().as_secs_f64() * 1e3);
    }
    Ok(Report {
        photos,
        steps: screen.len(),
        rate_per_s: rate,
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
        "{} steps at {}/s over {} photos",
        report.steps, report.rate_per_s, report.photos
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
    for (what, u) in [
        ("a screen-resolution picture", &report.upload_preview),
        ("a full-resolution photo", &report.upload_full),
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

/// Whether the photo shown has its grid thumbnail (what the loupe shows until its preview).
fn thumbnail_shown(app: &DarkRoom) -> bool {
    app.cull
        .selected_id()
        .and_then(|id| app.gallery.get(id))
        .is_some_and(|p| p.thumb.ready().is_some())
}

/// Whether the photo shown is on screen from its preview, and at its own resolution.
fn shown(app: &DarkRoom) -> (bool, bool) {
    let p = app.cull.selected_id().and_then(|id| app.gallery.get(id));
    (
        p.is_some_and(|p| p.loupe.ready().is_some()),
        p.is_some_and(|p| p.full.ready().is_some()),
    )
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
