//! `darkroom ingest CARD --to DRIVE [--backup DRIVE]...`: every photo on the card, with its
//! RAW/JPEG twin and sidecars, copied to the working drive and each backup under the naming
//! pattern, each copy verified before it takes its name and recorded by content, so a second
//! ingest copies nothing and a stopped one is continued. `--plan` shows the names and copies
//! nothing. The card is only read (`darkroom_ingest`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_library::ingest::Pattern;
use serde::Serialize;

use darkroom_ingest::{self as ingest, Collisions, Event, Options, Plan};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The card (a DCIM root or any folder); only read.
    pub source: PathBuf,
    /// The working drive's folder the photos go to (made if missing).
    #[arg(long)]
    pub to: PathBuf,
    /// A backup folder that gets the same files under the same names (repeatable).
    #[arg(long)]
    pub backup: Vec<PathBuf>,
    /// Folders and file name from {date} {year} {month} {day} {time} {camera} {serial} {name}
    /// {number} {job} {seq:N}, folders split by '/'; the original extension is kept.
    #[arg(long, default_value = ingest::DEFAULT_PATTERN)]
    pub pattern: String,
    /// The job's name, for {job}.
    #[arg(long, default_value = "")]
    pub job: String,
    /// A name already taken on a drive by another file: number the photo (-2, -3, …) or
    /// leave it on the card. Nothing is ever overwritten.
    #[arg(long, value_enum, default_value_t = OnCollision::Number)]
    pub on_collision: OnCollision,
    /// Write each body's clock correction (`darkroom clock`) into the copies' EXIF times.
    #[arg(long)]
    pub write_times: bool,
    /// Show what would be copied and its names; copy nothing.
    #[arg(long)]
    pub plan: bool,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum OnCollision {
    Number,
    Skip,
}

#[derive(Serialize)]
struct PhotoOut {
    source: PathBuf,
    seq: u64,
    /// Its files' new paths on the working drive; empty when ingested before.
    names: Vec<PathBuf>,
    already: bool,
    collided: bool,
    skipped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct Report {
    photos: usize,
    copied_photos: usize,
    copied_files: usize,
    bytes: u64,
    already_ingested: usize,
    collisions: usize,
    skipped: usize,
    /// Photos an unfinished run had named, finished here under those names.
    resumed: usize,
    failed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<String>,
    decisions_carried: usize,
    times_written: usize,
    seconds: f64,
    items: Vec<PhotoOut>,
}

fn report_of(plan: &Plan, options: &Options, outcome: Option<&ingest::Outcome>) -> Report {
    let failed = |p: &std::path::Path| {
        outcome.and_then(|o| {
            o.failed
                .iter()
                .find(|(s, _)| s == p)
                .map(|(_, e)| e.clone())
        })
    };
    Report {
        photos: plan.photos.len(),
        copied_photos: outcome.map_or(0, |o| o.copied_photos),
        copied_files: outcome.map_or(0, |o| o.copied_files),
        bytes: outcome.map_or(0, |o| o.bytes),
        already_ingested: plan.already(),
        collisions: plan.collisions(),
        skipped: plan.photos.iter().filter(|p| p.skipped).count(),
        resumed: plan.resumed(),
        failed: outcome.map_or(0, |o| o.failed.len()),
        stopped: outcome.and_then(|o| o.stopped.clone()),
        decisions_carried: outcome.map_or(0, |o| o.decisions_carried),
        times_written: outcome.map_or(0, |o| o.times_written),
        seconds: outcome.map_or(0.0, |o| o.elapsed.as_secs_f64()),
        items: plan
            .photos
            .iter()
            .map(|p| PhotoOut {
                source: p.source.clone(),
                seq: p.seq,
                names: p.files.iter().map(|f| options.to.join(&f.rel)).collect(),
                already: p.already(),
                collided: p.collided,
                skipped: p.skipped,
                body: p.body.clone(),
                error: failed(&p.source),
            })
            .collect(),
    }
}

/// The exit status of a command stopped by Ctrl+C or SIGTERM, as a shell reports one (128 + 2).
const INTERRUPTED: u8 = 130;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let settings = crate::services::window_settings();
    let options = Options {
        source: args.source.clone(),
        to: args.to.clone(),
        backups: args.backup.clone(),
        pattern: Pattern::parse(&args.pattern)?,
        job: args.job.clone(),
        write_times: args.write_times,
        // The copies' sidecars as the window's Settings name and word them.
        naming: settings.naming,
        words: settings.sidecar_words,
    };
    let collisions = match args.on_collision {
        OnCollision::Number => Collisions::Number,
        OnCollision::Skip => Collisions::Skip,
    };
    let catalog_path = crate::services::catalog_path(args.catalog.clone())?;
    let mut catalog = Catalog::open(&catalog_path, SidecarNaming::default())?;
    if !args.plan {
        // Sidecars an earlier run (a carry, a decision) could not write go first, as every
        // writing command does: the copies' sidecars then say what the catalog says.
        catalog.set_naming(options.naming);
        catalog.set_words(options.words);
        for e in catalog.flush_pending()? {
            eprintln!("darkroom: {e}");
        }
    }
    // Ctrl+C or SIGTERM stops the copy at a file's end, not mid-file (a second one at once).
    let cancel: &AtomicBool = if args.plan {
        &AtomicBool::new(false)
    } else {
        darkroom_engine::stop_on_interrupt()
    };
    let plan = ingest::plan(&options, &catalog, cancel)?.with_collisions(collisions);
    if cancel.load(Ordering::SeqCst) {
        eprintln!("darkroom: stopped before anything was copied");
        return Ok(ExitCode::from(INTERRUPTED));
    }
    for cause in &plan.unreadable {
        eprintln!("darkroom: {cause}");
    }
    if args.plan {
        let report = report_of(&plan, &options, None);
        if args.json {
            println!("{}", serde_json::to_string(&report)?);
        } else {
            for p in plan.photos.iter().filter(|p| !p.already()) {
                let note = match (p.collided, p.skipped) {
                    (_, true) => "  (name taken: left on the card)",
                    (true, false) => "  (name taken: numbered)",
                    _ => "",
                };
                for f in &p.files {
                    println!("{} → {}{note}", f.source.display(), f.rel.display());
                }
            }
            println!(
                "{} photos to copy ({} files, {:.1} MB) · {} ingested before · {} names taken",
                plan.new_photos(),
                plan.files(),
                plan.bytes() as f64 / 1e6,
                plan.already(),
                plan.collisions()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }

    if plan.resumed() > 0 {
        eprintln!(
            "darkroom: resuming {} photo(s) an unfinished ingest had named, under those names",
            plan.resumed()
        );
    }
    let live = std::io::stderr().is_terminal();
    let outcome = ingest::run(
        &plan,
        &options,
        &mut catalog,
        cancel,
        &mut |event| match event {
            Event::Progress(p) if live => {
                eprint!("\r{}\x1b[K", p.line());
                let _ = std::io::stderr().flush();
            }
            // The photo a stop abandoned is said once, with what is left, below.
            Event::Failed { source, error } if !cancel.load(Ordering::SeqCst) => {
                eprintln!(
                    "{}darkroom: {error} ({})",
                    if live { "\n" } else { "" },
                    source.display()
                );
            }
            _ => {}
        },
    );
    if live {
        eprintln!();
    }
    let interrupted = cancel.load(Ordering::SeqCst);
    if interrupted {
        let left = plan.new_photos().saturating_sub(outcome.copied_photos);
        eprintln!(
            "darkroom: stopped at a file's end with {left} photo(s) left to copy; the next ingest will finish them"
        );
    } else if let Some(why) = &outcome.stopped {
        eprintln!("darkroom: ingest stopped: {why}; run it again to continue");
    }
    for why in &outcome.times_not_written {
        eprintln!("darkroom: capture time not corrected: {why}");
    }
    let report = report_of(&plan, &options, Some(&outcome));
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} photos · {} copied ({} files, {:.1} MB, verified on {} drive(s)) · {} ingested before · {} failed · {:.1} s",
            report.photos,
            report.copied_photos,
            report.copied_files,
            report.bytes as f64 / 1e6,
            1 + args.backup.len(),
            report.already_ingested,
            report.failed,
            report.seconds
        );
    }
    Ok(if interrupted {
        ExitCode::from(INTERRUPTED)
    } else if report.failed > 0 || report.stopped.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
