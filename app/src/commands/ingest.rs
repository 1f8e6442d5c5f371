//! `darkroom ingest CARD --to DRIVE [--backup DRIVE]...` (issue 27, begun): every photo on the
//! card, with its RAW/JPEG twin and sidecars, copied to the working drive and each backup under
//! the naming pattern, each copy verified by its hash read back before it takes its name, and
//! recorded in the catalog by content, so a second ingest of the same card copies nothing
//! (whatever the copies are called now). Photos in shooting order get the sequence numbers;
//! names never land on a file already there. The card is only read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use darkroom_catalog::{Catalog, IngestedFile, SidecarNaming};
use darkroom_library::ingest::{self, Fields, Pattern};
use darkroom_library::{ScanEvent, facts, scan, sidecars};
use serde::Serialize;

/// The naming pattern when none is given: a folder per day, the camera's own name.
pub const DEFAULT_PATTERN: &str = "{date}/{name}";

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
    #[arg(long, default_value = DEFAULT_PATTERN)]
    pub pattern: String,
    /// The job's name, for {job}.
    #[arg(long, default_value = "")]
    pub job: String,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct ItemOut {
    source: PathBuf,
    /// Where its files went on the working drive; empty when it was ingested before.
    copied: Vec<PathBuf>,
    already: bool,
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
    failed: usize,
    seconds: f64,
    items: Vec<ItemOut>,
}

/// A file of an item: where it is, and what follows the photo's stem in its name (".CR3",
/// ".JPG", ".CR3.xmp").
struct Member {
    path: PathBuf,
    suffix: String,
}

fn members(item: &darkroom_library::Item) -> Vec<Member> {
    let stem = item
        .primary
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files: Vec<PathBuf> = item.files().map(Path::to_path_buf).collect();
    for f in item.files() {
        for s in sidecars::of(f) {
            if !files.contains(&s) {
                files.push(s);
            }
        }
    }
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let suffix = name
                .strip_prefix(&stem)
                .map(str::to_owned)
                .unwrap_or_else(|| format!(".{name}"));
            Member { path, suffix }
        })
        .collect()
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    if !args.source.is_dir() {
        anyhow::bail!("not a folder: {}", args.source.display());
    }
    let pattern = Pattern::parse(&args.pattern)?;
    let catalog_path = crate::services::catalog_path(args.catalog.clone())?;
    let mut catalog = Catalog::open(&catalog_path, SidecarNaming::default())?;

    let mut items = Vec::new();
    scan::scan(&args.source, &AtomicBool::new(false), &mut |event| {
        match event {
            ScanEvent::Item(item) => items.push(item),
            ScanEvent::Error(e) => eprintln!("darkroom: {}", e.cause()),
        }
        true
    });
    // Shooting order: the sequence numbers follow the capture times.
    let mut items: Vec<(darkroom_library::Item, facts::Facts)> = items
        .into_iter()
        .map(|item| {
            let f = facts::read(&item.primary).unwrap_or_default();
            (item, f)
        })
        .collect();
    items.sort_by(|a, b| (&a.1.taken, &a.0.primary).cmp(&(&b.1.taken, &b.0.primary)));

    let cancel = AtomicBool::new(false);
    let mut report = Report {
        photos: items.len(),
        copied_photos: 0,
        copied_files: 0,
        bytes: 0,
        already_ingested: 0,
        failed: 0,
        seconds: 0.0,
        items: Vec::new(),
    };
    let mut seq = 0u64;
    for (item, f) in &items {
        let members = members(item);
        // What of it was ingested before, by content: a size never seen needs no hash.
        let mut new = Vec::new();
        for m in members {
            let size = std::fs::metadata(&m.path)
                .with_context(|| format!("cannot read {}", m.path.display()))?
                .len();
            let seen = if catalog.ingested_size(size)? {
                let sha = ingest::copy::hash_of(&m.path)?;
                catalog.ingested(&sha, size)?.is_some()
            } else {
                false
            };
            if !seen {
                new.push(m);
            }
        }
        if new.is_empty() {
            report.already_ingested += 1;
            report.items.push(ItemOut {
                source: item.primary.clone(),
                copied: Vec::new(),
                already: true,
                error: None,
            });
            continue;
        }
        seq += 1;
        let fields = Fields {
            taken: f.taken.as_deref().and_then(parse_taken),
            camera: f.camera.clone(),
            serial: f.serial.clone(),
            original: item
                .primary
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            job: args.job.clone(),
            seq,
        };
        let rendered = pattern.render(&fields);
        let stem = rendered.with_extension("");
        let suffixes: Vec<String> = new
            .iter()
            .map(|m| m.suffix.trim_start_matches('.').to_owned())
            .collect();
        let roots: Vec<&Path> = std::iter::once(args.to.as_path())
            .chain(args.backup.iter().map(PathBuf::as_path))
            .collect();
        let taken = |p: &Path| roots.iter().any(|r| r.join(p).exists());
        let stem = ingest::naming::resolve(&[(stem, suffixes)], &taken)
            .into_iter()
            .next()
            .unwrap_or_default();
        let mut out = ItemOut {
            source: item.primary.clone(),
            copied: Vec::new(),
            already: false,
            error: None,
        };
        for m in &new {
            let rel = with_suffix(&stem, &m.suffix);
            let dests: Vec<PathBuf> = roots.iter().map(|r| r.join(&rel)).collect();
            match ingest::copy_verified(&m.path, &dests, &cancel, &mut |_| {}) {
                Ok(copied) => {
                    catalog.record_ingested(&IngestedFile {
                        sha256: copied.sha256,
                        size: copied.bytes,
                        source: m.path.clone(),
                        dest: dests[0].clone(),
                    })?;
                    report.copied_files += 1;
                    report.bytes += copied.bytes;
                    out.copied.push(dests[0].clone());
                }
                Err(e) => {
                    eprintln!("darkroom: {e}");
                    out.error = Some(e.to_string());
                    break;
                }
            }
        }
        if out.error.is_some() {
            report.failed += 1;
        } else {
            report.copied_photos += 1;
        }
        report.items.push(out);
    }
    report.seconds = started.elapsed().as_secs_f64();
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
    Ok(if report.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// "2026-06-13 14:02:35" → [2026, 6, 13, 14, 2, 35].
fn parse_taken(t: &str) -> Option<[u32; 6]> {
    let n: Vec<u32> = t
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    n.get(..6)?.try_into().ok()
}
