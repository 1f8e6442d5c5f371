//! `darkroom bench-grid PHOTOS`: is the grid as smooth on 10,000 photos as on 100? Runs the
//! real window state headless (egui without a GPU) on two folders, made of hard links to the
//! sample photos, and times each frame's UI pass plus tessellation while the keyboard walks
//! the grid ten rows down and back, again and again; the two folders alternate frame by frame
//! so the machine's noise hits both. Rendering is the GPU's and does not grow with the folder.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;

use crate::gui::DarkRoom;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos to fill the folders with (hard links, cycled).
    photos: std::path::PathBuf,
    #[arg(long, default_value_t = 10_000)]
    count: usize,
    #[arg(long, default_value_t = 400)]
    frames: usize,
    /// Instead: scroll the whole of a `--count`-photo folder a screen at a time, each screen's
    /// thumbnails loaded, and report memory as it goes (flat once the budget is reached).
    #[arg(long)]
    scroll: bool,
    #[arg(long)]
    json: bool,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    if a.scroll {
        return scroll(&a.photos, a.count, a.json);
    }
    run(&a.photos, a.count, a.frames.max(1), a.json)
}

/// Memory while scrolling, sampled every twentieth of the folder.
#[derive(Serialize)]
struct Sample {
    /// Photos scrolled past.
    photos: usize,
    /// Thumbnails and close-ups held as textures.
    texture_mib: f64,
    rss_mib: Option<f64>,
}

#[derive(Serialize)]
struct ScrollReport {
    photos: usize,
    budget_mib: f64,
    samples: Vec<Sample>,
    peak_rss_mib: Option<f64>,
    peak_texture_mib: f64,
}

const MIB: f64 = (1 << 20) as f64;

fn scroll(photos: &Path, count: usize, json: bool) -> anyhow::Result<ExitCode> {
    let tmp = tempfile::tempdir().context("cannot make a temporary folder")?;
    let mut folder = Subject::new(tmp.path(), "scroll", photos, count)?;
    let deadline = Instant::now() + Duration::from_secs(600);
    while !folder.ready() {
        if Instant::now() > deadline {
            bail!("the folder did not load in 10 minutes");
        }
        folder.frame(&[]);
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut samples = Vec::new();
    let mut peak_texture = 0usize;
    let mut next_sample = 0;
    loop {
        // A screen down (four rows, in one frame), then wait for its thumbnails.
        folder.frame(&[egui::Key::ArrowDown; 4]);
        let at = folder.app.cull.selected;
        let wait = Instant::now() + Duration::from_secs(60);
        loop {
            folder.frame(&[]);
            if !folder.app.gallery.iter().any(|p| p.thumb.waiting()) || Instant::now() > wait {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let held = folder.app.gallery.small_bytes();
        peak_texture = peak_texture.max(held);
        let done = at + 1 >= count;
        if at >= next_sample || done {
            samples.push(Sample {
                photos: at + 1,
                texture_mib: held as f64 / MIB,
                rss_mib: darkroom_library::measure::status_mib("VmRSS"),
            });
            next_sample += count.div_ceil(20).max(1);
        }
        if done {
            break;
        }
    }
    let report = ScrollReport {
        photos: count,
        budget_mib: crate::gui::SMALL_PICTURES_BUDGET as f64 / MIB,
        samples,
        peak_rss_mib: darkroom_library::measure::status_mib("VmHWM"),
        peak_texture_mib: peak_texture as f64 / MIB,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "scrolling {} photos (thumbnail budget {:.0} MiB):",
            report.photos, report.budget_mib
        );
        for s in &report.samples {
            println!(
                "{:>7} photos  textures {:>6.1} MiB  resident {}",
                s.photos,
                s.texture_mib,
                s.rss_mib.map_or("?".into(), |r| format!("{r:.0} MiB"))
            );
        }
        println!(
            "peak: textures {:.1} MiB, resident {}",
            report.peak_texture_mib,
            report
                .peak_rss_mib
                .map_or("?".into(), |r| format!("{r:.0} MiB"))
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct Side {
    photos: usize,
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

#[derive(Serialize)]
struct Report {
    frames: usize,
    small: Side,
    large: Side,
    /// large / small, medians.
    ratio: f64,
}

struct Subject {
    ctx: egui::Context,
    app: DarkRoom,
    photos: usize,
    times: Vec<f64>,
    _engine: std::sync::mpsc::SyncSender<Result<darkroom_engine::Backend, String>>,
}

const SCREEN: egui::Vec2 = egui::vec2(1280.0, 820.0);

impl Subject {
    fn new(dir: &Path, name: &str, photos: &Path, count: usize) -> anyhow::Result<Self> {
        let folder = dir.join(name);
        super::first_frame::fill(photos, &folder, count)?;
        let ctx = egui::Context::default();
        let (setup, engine) = super::headless_setup(dir, name, folder);
        let app = DarkRoom::new(&ctx, setup);
        Ok(Subject {
            ctx,
            app,
            photos: count,
            times: Vec::new(),
            _engine: engine,
        })
    }

    /// One frame with these key presses; its UI pass and tessellation in ms.
    fn frame(&mut self, keys: &[egui::Key]) -> f64 {
        let started = Instant::now();
        std::hint::black_box(super::headless_frame(
            &self.ctx,
            &mut self.app,
            SCREEN,
            keys,
            None,
        ));
        started.elapsed().as_secs_f64() * 1e3
    }

    /// Scanned, and every thumbnail asked for (the first screen's) in.
    fn ready(&self) -> bool {
        use crate::gui::Picture;
        let first = self.app.cull.ids().next();
        !self.app.scanning()
            && self.app.cull.len() == self.photos
            && first
                .and_then(|id| self.app.gallery.get(id))
                .is_some_and(|p| matches!(p.thumb, Picture::Ready(_) | Picture::Failed(_)))
            && !self.app.gallery.iter().any(|p| p.thumb.waiting())
    }

    fn side(&self) -> Side {
        let q = darkroom_library::measure::Quantiles::or_nan(&self.times);
        Side {
            photos: self.photos,
            median_ms: q.p50_ms,
            p99_ms: q.p99_ms,
            max_ms: q.max_ms,
        }
    }
}

pub fn run(photos: &Path, count: usize, frames: usize, json: bool) -> anyhow::Result<ExitCode> {
    let tmp = tempfile::tempdir().context("cannot make a temporary folder")?;
    let mut small = Subject::new(tmp.path(), "small", photos, 100)?;
    let mut large = Subject::new(tmp.path(), "large", photos, count)?;
    let deadline = Instant::now() + Duration::from_secs(600);
    while !(small.ready() && large.ready()) {
        if Instant::now() > deadline {
            bail!("the folders did not load in 10 minutes");
        }
        small.frame(&[]);
        large.frame(&[]);
        std::thread::sleep(Duration::from_millis(10));
    }
    // The walk: ten rows down, ten back; the first cycle is a warm-up.
    let walk = |i: usize| {
        if (i / 10).is_multiple_of(2) {
            egui::Key::ArrowDown
        } else {
            egui::Key::ArrowUp
        }
    };
    for i in 0..frames + 20 {
        let key = [walk(i)];
        let (a, b) = (small.frame(&key), large.frame(&key));
        if i >= 20 {
            small.times.push(a);
            large.times.push(b);
        }
    }
    if small.app.cull.selected != large.app.cull.selected {
        bail!(
            "the two grids walked differently ({} vs {}): not comparable",
            small.app.cull.selected,
            large.app.cull.selected
        );
    }
    let report = Report {
        frames,
        ratio: large.side().median_ms / small.side().median_ms,
        small: small.side(),
        large: large.side(),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for s in [&report.small, &report.large] {
            println!(
                "{:>6} photos: frame {:.2} ms median, {:.2} ms p99, {:.2} ms max",
                s.photos, s.median_ms, s.p99_ms, s.max_ms
            );
        }
        println!("{} / 100 photos: {:.2}x", count, report.ratio);
    }
    Ok(ExitCode::SUCCESS)
}
