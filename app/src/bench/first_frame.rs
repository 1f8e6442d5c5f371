//! `darkroom bench-first-frame PHOTOS`: how long this binary takes to put its first frame on
//! screen, measured from spawn to the window's own "first-frame" line, in two configurations
//! alternated in one run: (a) no folder, the probe cached; (b) a folder of 1,000 photos, an
//! empty thumbnail cache and no probe cache, so the scan, the thumbnail workers and a cold
//! probe (real ONNX Runtime and tract sessions, timed in worker processes) all start with the
//! window. The window must not wait for any of them, so (b) should match (a). Then the
//! frames of the 1.5 s after the first, while (in (b)) that work runs beside them: the window
//! must stay smooth, so their p95 interval should match too.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos to fill the 1,000-photo folder with (hard links, cycled).
    photos: PathBuf,
    #[arg(long, default_value_t = 1000)]
    count: usize,
    #[arg(long, default_value_t = 10)]
    runs: usize,
    #[arg(long)]
    json: bool,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    run(&a.photos, a.count, a.runs, a.json)
}

#[derive(Serialize)]
struct Report {
    photos: usize,
    runs: usize,
    alone_ms: Vec<f64>,
    loaded_ms: Vec<f64>,
    alone_median_ms: f64,
    loaded_median_ms: f64,
    /// loaded / alone, medians.
    ratio: f64,
    /// The frames of the 1.5 s after the first (the deferred work starting beside them in
    /// (b)): the p95 interval between frames of each run, its median over the runs.
    alone_busy_p95_ms: f64,
    loaded_busy_p95_ms: f64,
}

/// One launch: spawn → first frame, and the p95 interval of the frames drawn after it.
struct Launch {
    first_ms: f64,
    busy_p95_ms: f64,
}

fn median(v: &[f64]) -> f64 {
    darkroom_library::measure::median(v).unwrap_or(f64::NAN)
}

/// `count` photos made by hard-linking (else copying) the photos in `from`, cycled.
pub fn fill(from: &Path, to: &Path, count: usize) -> anyhow::Result<()> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(from)
        .with_context(|| format!("cannot list {}", from.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && darkroom_library::formats::is_raster(p))
        .collect();
    sources.sort();
    if sources.is_empty() {
        bail!("no photos in {}", from.display());
    }
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for i in 0..count {
        let src = &sources[i % sources.len()];
        let ext = src.extension().and_then(|e| e.to_str()).unwrap_or("jpg");
        let dst = to.join(format!("IMG_{i:04}.{ext}"));
        if std::fs::hard_link(src, &dst).is_err() {
            std::fs::copy(src, &dst).with_context(|| format!("cannot copy {}", src.display()))?;
        }
    }
    Ok(())
}

/// Spawn the window, wait for its first frame and the frames after it, then kill it and
/// everything it started.
fn first_frame(
    exe: &Path,
    data: &Path,
    cache: &Path,
    folder: Option<&Path>,
) -> anyhow::Result<Launch> {
    let mut cmd = Command::new(exe);
    cmd.arg("--report-first-frame")
        .env("DARKROOM_DATA_DIR", data)
        .env("DARKROOM_CACHE_DIR", cache)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // Its own process group: the probe workers it starts go with it.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    if let Some(f) = folder {
        cmd.arg(f);
    }
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start {}", exe.display()))?;
    let stdout = child.stdout.take().context("no stdout")?;
    let (tx, rx) = std::sync::mpsc::sync_channel(2);
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stdout);
        for _ in 0..2 {
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send((started.elapsed(), line));
        }
    });
    let answer = rx.recv_timeout(Duration::from_secs(60));
    let busy = rx.recv_timeout(Duration::from_secs(60));
    #[cfg(unix)]
    let _ = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{}", child.id())])
        .status();
    let _ = child.kill();
    let _ = child.wait();
    let first_ms = match answer {
        Ok((t, line)) if line.trim() == "first-frame" => t.as_secs_f64() * 1e3,
        Ok((_, line)) => bail!("the window closed without a first frame (said {line:?})"),
        Err(_) => bail!("no first frame within 60 s"),
    };
    // "busy-frames N p50 p95 max"
    let busy_p95_ms = match busy {
        Ok((_, line)) => line
            .split_whitespace()
            .nth(3)
            .and_then(|v| v.parse().ok())
            .with_context(|| format!("no frames after the first (said {line:?})"))?,
        Err(_) => bail!("no frames after the first within 60 s"),
    };
    Ok(Launch {
        first_ms,
        busy_p95_ms,
    })
}

pub fn run(photos: &Path, count: usize, runs: usize, json: bool) -> anyhow::Result<ExitCode> {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        bail!("no display: run under Xvfb (scripts/bench-first-frame)");
    }
    let runs = runs.max(1);
    let exe = std::env::current_exe().context("cannot find this binary")?;
    let tmp = tempfile::tempdir().context("cannot make a temporary folder")?;
    let folder = tmp.path().join("photos");
    fill(photos, &folder, count)?;
    // (a)'s probe is cached: run it once now.
    let warm = tmp.path().join("warm");
    let probe = Command::new(&exe)
        .arg("probe")
        .env("DARKROOM_DATA_DIR", &warm)
        .stdout(Stdio::null())
        .status()
        .context("cannot run the probe")?;
    if !probe.success() {
        bail!("the probe failed; fix `darkroom probe` first");
    }
    let (mut alone, mut loaded) = (Vec::new(), Vec::new());
    let (mut alone_busy, mut loaded_busy) = (Vec::new(), Vec::new());
    // One unmeasured launch of each warms the page cache and the Vulkan driver's.
    for round in 0..=runs {
        let a = first_frame(
            &exe,
            &warm,
            &tmp.path().join(format!("cache-a{round}")),
            None,
        )?;
        let b = first_frame(
            &exe,
            &tmp.path().join(format!("cold{round}")),
            &tmp.path().join(format!("cache-b{round}")),
            Some(&folder),
        )?;
        if round > 0 {
            alone.push(a.first_ms);
            loaded.push(b.first_ms);
            alone_busy.push(a.busy_p95_ms);
            loaded_busy.push(b.busy_p95_ms);
        }
        if !json {
            eprintln!(
                "round {round}: alone {:.0} ms (frames after it p95 {:.1} ms), with {count} photos and a cold probe {:.0} ms (p95 {:.1} ms)",
                a.first_ms, a.busy_p95_ms, b.first_ms, b.busy_p95_ms
            );
        }
    }
    let report = Report {
        photos: count,
        runs,
        alone_median_ms: median(&alone),
        loaded_median_ms: median(&loaded),
        ratio: median(&loaded) / median(&alone),
        alone_busy_p95_ms: median(&alone_busy),
        loaded_busy_p95_ms: median(&loaded_busy),
        alone_ms: alone,
        loaded_ms: loaded,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "first frame: alone {:.0} ms (min {:.0}), with {count} photos and a cold probe {:.0} ms (min {:.0}): {:.2}x",
            report.alone_median_ms,
            report
                .alone_ms
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min),
            report.loaded_median_ms,
            report
                .loaded_ms
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min),
            report.ratio
        );
        println!(
            "the 1.5 s after it, p95 between frames: alone {:.1} ms, while the scan, thumbnails and probe start {:.1} ms",
            report.alone_busy_p95_ms, report.loaded_busy_p95_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}
