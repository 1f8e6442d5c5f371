//! `darkroom bench-decisions`: how fast decisions become durable and a folder's sidecars
//! become known, through the catalog thread the window uses, batched (one transaction and one
//! folder flush per batch) against one request at a time (a commit and a flush for each, as it
//! was before batching), side by side in one run on the same disk.
//!
//! Two measures: a select-all pick on `--photos` photos whose sidecars another tool wrote
//! (decisions answered as durable per second, and until every sidecar is written), and the
//! import of a `--folder`-photo folder with sidecars (until every photo's rating is known).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use anyhow::Context;
use darkroom_catalog::client::{BATCH, CatalogClient, Report, Request};
use darkroom_catalog::{Change, ColourLabel, Decision, Flag, Label, SidecarNaming};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Photos selected and picked at once.
    #[arg(long, default_value_t = 1000)]
    photos: usize,
    /// Photos of the folder whose sidecars are read on opening.
    #[arg(long, default_value_t = 2000)]
    folder: usize,
    /// Where the folders and catalogs are made (default: a temporary folder).
    #[arg(long)]
    dir: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Side {
    batch: usize,
    /// Select-all pick: every decision answered as durable in the catalog.
    decided_s: f64,
    decisions_per_s: f64,
    /// ... and every sidecar written and flushed.
    sidecars_s: f64,
    /// The folder opened: every photo's sidecar rating known.
    imported_s: f64,
}

#[derive(Serialize)]
struct Out {
    photos: usize,
    folder: usize,
    batched: Side,
    one_by_one: Side,
    /// one by one / batched, for each measure.
    decided_ratio: f64,
    sidecars_ratio: f64,
    imported_ratio: f64,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    let tmp = tempfile::tempdir().context("cannot make a temporary folder")?;
    let dir = a.dir.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let batched = side(&dir.join("batched"), BATCH, a.photos, a.folder)?;
    let one_by_one = side(&dir.join("one-by-one"), 1, a.photos, a.folder)?;
    let out = Out {
        photos: a.photos,
        folder: a.folder,
        decided_ratio: one_by_one.decided_s / batched.decided_s,
        sidecars_ratio: one_by_one.sidecars_s / batched.sidecars_s,
        imported_ratio: one_by_one.imported_s / batched.imported_s,
        batched,
        one_by_one,
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "select-all pick of {} photos, durable:  batched {:.2} s ({:.0}/s)   one by one {:.2} s ({:.0}/s)   {:.1}×",
            out.photos,
            out.batched.decided_s,
            out.batched.decisions_per_s,
            out.one_by_one.decided_s,
            out.one_by_one.decisions_per_s,
            out.decided_ratio
        );
        println!(
            "  ... every sidecar written:            batched {:.2} s   one by one {:.2} s   {:.1}×",
            out.batched.sidecars_s, out.one_by_one.sidecars_s, out.sidecars_ratio
        );
        println!(
            "opening {} photos, every rating known: batched {:.2} s   one by one {:.2} s   {:.1}×",
            out.folder, out.batched.imported_s, out.one_by_one.imported_s, out.imported_ratio
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `n` photos in `dir`, each with a sidecar another tool wrote (5 stars, blue). The catalog
/// reads sidecars only: the photos are placeholders.
fn shoot(dir: &Path, n: usize) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let theirs = Decision {
        flag: Flag::Unflagged,
        stars: 5,
        label: Some(Label::Colour(ColourLabel::Blue)),
    };
    let packet = darkroom_catalog::xmp::new_packet(&theirs, Default::default());
    (0..n)
        .map(|i| {
            let photo = dir.join(format!("IMG_{i:05}.jpg"));
            std::fs::write(&photo, b"")
                .and_then(|()| std::fs::write(dir.join(format!("IMG_{i:05}.jpg.xmp")), &packet))
                .with_context(|| format!("cannot write {}", photo.display()))?;
            Ok(photo)
        })
        .collect()
}

fn side(dir: &Path, batch: usize, photos: usize, folder: usize) -> anyhow::Result<Side> {
    let picked = shoot(&dir.join("picked"), photos)?;
    let opened = shoot(&dir.join("opened"), folder)?;
    let (tx, rx) = std::sync::mpsc::channel();
    let mut client = CatalogClient::start_batched(
        dir.join("catalog.sqlite"),
        SidecarNaming::WithExtension,
        Default::default(),
        batch,
        move |r| {
            let _ = tx.send(r);
        },
    )?;

    let started = Instant::now();
    for (i, p) in picked.iter().enumerate() {
        let pick = Request::Change {
            tag: i,
            seq: i as u64,
            files: vec![p.clone()],
            change: Change::Flag(Flag::Pick),
        };
        if client.send(pick).is_err() {
            anyhow::bail!("the catalog thread stopped");
        }
    }
    wait(&rx, photos, |r| matches!(r, Report::Decided { .. }))?;
    let decided_s = started.elapsed().as_secs_f64();
    while client.unfinished() > 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let sidecars_s = started.elapsed().as_secs_f64();

    let started = Instant::now();
    for (i, p) in opened.iter().enumerate() {
        let import = Request::Import {
            tag: i,
            photo: p.clone(),
        };
        if client.send(import).is_err() {
            anyhow::bail!("the catalog thread stopped");
        }
    }
    wait(&rx, folder, |r| matches!(r, Report::Imported { .. }))?;
    let imported_s = started.elapsed().as_secs_f64();
    client.close();
    Ok(Side {
        batch,
        decided_s,
        decisions_per_s: photos as f64 / decided_s,
        sidecars_s,
        imported_s,
    })
}

/// Wait for `n` answers `counts`; anything that failed stops the bench.
fn wait(
    rx: &Receiver<Report<usize>>,
    n: usize,
    counts: impl Fn(&Report<usize>) -> bool,
) -> anyhow::Result<()> {
    let mut seen = 0;
    while seen < n {
        let r = rx
            .recv_timeout(Duration::from_secs(120))
            .context("the catalog thread stopped answering")?;
        match &r {
            Report::Decided { result: Err(e), .. } => anyhow::bail!("a decision failed: {e}"),
            Report::Problem(p) | Report::SidecarFailed { error: p, .. } => anyhow::bail!("{p}"),
            _ => {}
        }
        if counts(&r) {
            seen += 1;
        }
    }
    Ok(())
}
