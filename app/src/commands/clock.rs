//! `darkroom clock`: several cameras, one shoot. Each body (make, model and serial) can get a
//! correction of its clock, entered (`set`) or worked out from two frames of the same moment
//! (`match`); bursts, scenes, sets, sorting and ingest's names use the corrected times. The
//! corrections live in the catalog; the photos are not touched (`ingest --write-times`
//! writes them into the copies).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_library::{clock, facts};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Option<ClockCommand>,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long, global = true)]
    catalog: Option<PathBuf>,
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum ClockCommand {
    /// Every body the catalog knows, its photos and its correction (the default).
    List,
    /// Set a body's correction: BODY as `darkroom clock` lists it, or a photo it took;
    /// OFFSET as "+1h3m", "-63m", "-01:03:00" or seconds; 0 removes it.
    Set {
        body: String,
        #[arg(allow_hyphen_values = true)]
        offset: String,
    },
    /// Two frames of the same moment from two bodies: OTHER's body is corrected so its frame
    /// reads REFERENCE's time (REFERENCE's own correction included).
    Match { reference: PathBuf, other: PathBuf },
}

#[derive(Serialize)]
struct BodyOut {
    body: String,
    offset_s: f64,
    photos: usize,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = crate::services::catalog_path(args.catalog.clone())?;
    let mut catalog = Catalog::open(&path, SidecarNaming::default())?;
    match args.command.unwrap_or(ClockCommand::List) {
        ClockCommand::List => {
            let bodies = catalog.bodies()?;
            if args.json {
                let out: Vec<BodyOut> = bodies
                    .into_iter()
                    .map(|b| BodyOut {
                        body: b.body,
                        offset_s: b.offset_s,
                        photos: b.photos,
                    })
                    .collect();
                println!("{}", serde_json::to_string(&out)?);
            } else if bodies.is_empty() {
                println!("no camera bodies yet: index a folder first (darkroom index)");
            } else {
                for b in bodies {
                    println!(
                        "{} · {} photos · correction {}",
                        b.body,
                        b.photos,
                        clock::offset_words(b.offset_s)
                    );
                }
            }
        }
        ClockCommand::Set { body, offset } => {
            let seconds = clock::parse_offset(&offset).with_context(|| {
                format!("not a clock correction (try +1h3m, -63m, -01:03:00 or seconds): {offset}")
            })?;
            let body = if Path::new(&body).is_file() {
                body_of(Path::new(&body))?
            } else {
                body
            };
            catalog.set_clock_offset(&body, seconds)?;
            say(&body, seconds, args.json)?;
        }
        ClockCommand::Match { reference, other } => {
            let (ref_body, ref_time) = body_and_time(&reference)?;
            let (body, time) = body_and_time(&other)?;
            if body == ref_body {
                anyhow::bail!(
                    "both frames are from one body ({body}); pick one from each: {}",
                    other.display()
                );
            }
            let seconds = (ref_time as f64 + catalog.clock_offset(&ref_body)?) - time as f64;
            catalog.set_clock_offset(&body, seconds)?;
            say(&body, seconds, args.json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn say(body: &str, seconds: f64, json: bool) -> anyhow::Result<()> {
    if json {
        println!(
            "{}",
            serde_json::json!({ "body": body, "offset_s": seconds })
        );
    } else {
        println!("{body}: correction {}", clock::offset_words(seconds));
    }
    Ok(())
}

fn body_of(photo: &Path) -> anyhow::Result<String> {
    facts::read(photo)
        .ok()
        .and_then(|f| f.body())
        .with_context(|| format!("its EXIF names no camera: {}", photo.display()))
}

fn body_and_time(photo: &Path) -> anyhow::Result<(String, i64)> {
    let f = facts::read(photo).map_err(|e| anyhow::anyhow!("{e}"))?;
    let body = f
        .body()
        .with_context(|| format!("its EXIF names no camera: {}", photo.display()))?;
    let time = f
        .taken
        .as_deref()
        .and_then(clock::seconds_of)
        .with_context(|| format!("its EXIF has no capture time: {}", photo.display()))?;
    Ok((body, time))
}
