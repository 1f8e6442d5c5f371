//! `darkroom bench-thumbs DIR`: thumbnail throughput against `vipsthumbnail` (libvips'
//! shrink-on-load, the fastest standard thumbnailer) on the same files, same size, both using
//! every core, alternated in one run so the machine's noise hits both. Ours includes encoding
//! and writing the thumbnail, as vipsthumbnail does.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    dir: PathBuf,
    #[arg(long, default_value_t = 256)]
    side: u32,
    #[arg(long, default_value_t = 2)]
    rounds: usize,
    #[arg(long)]
    json: bool,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    run(a.dir, a.side, a.rounds, a.json)
}

#[derive(Serialize)]
struct Round {
    ours_s: f64,
    vips_s: f64,
}

#[derive(Serialize)]
struct Report {
    dir: PathBuf,
    photos: usize,
    side: u32,
    threads: usize,
    rounds: Vec<Round>,
    ours_photos_per_s: f64,
    vips_photos_per_s: f64,
    ratio: f64,
    embedded_previews_used: usize,
}

fn ours(files: &[PathBuf], side: u32, threads: usize, out: &Path) -> anyhow::Result<(f64, usize)> {
    let next = AtomicUsize::new(0);
    let embedded = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else { return };
                    match darkroom_library::thumbs::make(f, side) {
                        Ok(t) => {
                            if t.source == darkroom_library::thumbs::Source::EmbeddedPreview {
                                embedded.fetch_add(1, Ordering::Relaxed);
                            }
                            let mut bytes = Vec::new();
                            let ok =
                                image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 85)
                                    .encode_image(&t.image)
                                    .is_ok()
                                    && std::fs::write(out.join(format!("{i}.jpg")), bytes).is_ok();
                            if !ok {
                                failed.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Err(e) => {
                            eprintln!("darkroom: {e}");
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    let secs = started.elapsed().as_secs_f64();
    anyhow::ensure!(
        failed.load(Ordering::Relaxed) == 0,
        "some thumbnails failed"
    );
    Ok((secs, embedded.load(Ordering::Relaxed)))
}

fn vips(files: &[PathBuf], side: u32, threads: usize, out: &Path) -> anyhow::Result<f64> {
    // xargs -P: one vipsthumbnail process per core, as a batch script would run it.
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    let started = Instant::now();
    let mut child = Command::new("xargs")
        .args([
            "-P",
            &threads.to_string(),
            "-n",
            "4",
            "vipsthumbnail",
            "-s",
            &side.to_string(),
            "-o",
        ])
        .arg(format!("{}/%s.jpg[Q=85]", out.display()))
        .stdin(std::process::Stdio::piped())
        .env("VIPS_CONCURRENCY", "1")
        .spawn()
        .context("cannot run xargs vipsthumbnail (Debian: libvips-tools)")?;
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .context("xargs stdin")?
            .write_all(list.as_bytes())?;
    }
    let status = child.wait()?;
    anyhow::ensure!(status.success(), "vipsthumbnail failed: {status}");
    Ok(started.elapsed().as_secs_f64())
}

pub fn run(dir: PathBuf, side: u32, rounds: usize, json: bool) -> anyhow::Result<ExitCode> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| darkroom_library::formats::is_jpeg(p))
        .collect();
    files.sort();
    anyhow::ensure!(!files.is_empty(), "no JPEGs in {}", dir.display());
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let out = tempfile_dir()?;
    let mut results = Vec::new();
    let mut embedded = 0;
    for _ in 0..rounds.max(1) {
        let vips_s = vips(&files, side, threads, &out)?;
        let (ours_s, e) = ours(&files, side, threads, &out)?;
        embedded = e;
        results.push(Round { ours_s, vips_s });
    }
    let best = |f: fn(&Round) -> f64| results.iter().map(f).fold(f64::INFINITY, f64::min);
    let (o, v) = (best(|r| r.ours_s), best(|r| r.vips_s));
    let n = files.len() as f64;
    let report = Report {
        dir,
        photos: files.len(),
        side,
        threads,
        ours_photos_per_s: n / o,
        vips_photos_per_s: n / v,
        ratio: v / o,
        rounds: results,
        embedded_previews_used: embedded,
    };
    let _ = std::fs::remove_dir_all(&out);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} photos, {} px, {} threads: DarkRoom {:.1} photos/s, vipsthumbnail {:.1} photos/s, ratio {:.2}x (embedded previews used: {})",
            report.photos,
            side,
            threads,
            report.ours_photos_per_s,
            report.vips_photos_per_s,
            report.ratio,
            report.embedded_previews_used
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("darkroom-bench-thumbs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}
