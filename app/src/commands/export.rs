//! `darkroom export --picks DEST FOLDER`: hand the picks of a folder to the next tool — every
//! file of each picked item (the RAW and its JPEG twin) and their XMP sidecars, copied (or
//! moved) into DEST at their place under FOLDER, with a list of what was copied. A file
//! already in DEST stops the export before anything is written, unless `--skip-existing` or
//! `--overwrite` says what to do with it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use darkroom_catalog::{Catalog, Flag};
use darkroom_library::Item;
use darkroom_library::export::{Existing, Mode, Plan, run as export};
use darkroom_library::scan::{ScanEvent, scan};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Export the picked photos (the only selection so far; required so a script says so).
    #[arg(long, required = true)]
    picks: bool,
    /// Move instead of copy: each original is removed once its copy is on disk.
    #[arg(long = "move")]
    move_files: bool,
    /// Leave files already in DEST alone and export the rest.
    #[arg(long, conflicts_with = "overwrite")]
    skip_existing: bool,
    /// Replace files already in DEST.
    #[arg(long)]
    overwrite: bool,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long)]
    catalog: Option<PathBuf>,
    /// Where the picks go (an existing folder).
    dest: PathBuf,
    /// The folder culled (scanned recursively, as the window does).
    folder: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.folder.is_dir() {
        anyhow::bail!("not a folder: {}", args.folder.display());
    }
    let naming = crate::services::window_settings().naming;
    let mut catalog = Catalog::open(&crate::services::catalog_path(args.catalog)?, naming)?;
    let mut items: Vec<Item> = Vec::new();
    let mut problems = 0usize;
    scan(&args.folder, &AtomicBool::new(false), &mut |event| {
        match event {
            ScanEvent::Item(item) => items.push(item),
            ScanEvent::Error(e) => {
                eprintln!("darkroom: {e}");
                problems += 1;
            }
        }
        true
    });
    // The decision as the window would show it: recorded, else from a sidecar another tool
    // wrote.
    let mut picks = Vec::new();
    for item in items {
        let outcome = catalog.import(&item.primary)?;
        if let Some(e) = outcome.sidecar_error {
            eprintln!("darkroom: {e}");
        }
        if args.picks && outcome.decision.flag == Flag::Pick {
            picks.push(item);
        }
    }
    let plan = Plan::new(&picks, &args.folder, &args.dest)?;
    let existing = if args.overwrite {
        Existing::Overwrite
    } else if args.skip_existing {
        Existing::Skip
    } else {
        Existing::Refuse
    };
    let mode = if args.move_files {
        Mode::Move
    } else {
        Mode::Copy
    };
    let report = export(&plan, mode, existing, &AtomicBool::new(false), &mut |_| {})?;
    let verb = if args.move_files { "moved" } else { "copied" };
    println!(
        "{} picks: {} files {verb}, {} already there left alone, into {}",
        picks.len(),
        report.copied.len(),
        report.skipped.len(),
        plan.dest.display()
    );
    if let Some(list) = &report.list_file {
        println!("list: {}", list.display());
    }
    Ok(if problems > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
