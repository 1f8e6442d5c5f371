//! `darkroom decide`: record culling decisions in the catalog and the photos' XMP sidecars
//! from the command line or a script (`--stdin`, one JSON decision a line, one ack a line once
//! it is durable).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use darkroom_catalog::{Catalog, Change, ColourLabel, Decision, Flag, Label, SidecarNaming};
use serde::{Deserialize, Serialize};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long)]
    catalog: Option<PathBuf>,
    /// Sidecar names: IMG_0001.CR3.xmp (with-extension) or IMG_0001.xmp (replace-extension).
    #[arg(long, value_enum, default_value_t = Naming::WithExtension)]
    sidecar: Naming,
    /// Read one JSON decision per line ({"path", "flag", "stars", "label"}); print one
    /// {"ack": n} per line once it is durable.
    #[arg(long, conflicts_with_all = ["stars", "pick", "reject", "unflag", "label"])]
    stdin: bool,
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=5))]
    stars: Option<u8>,
    #[arg(long, conflicts_with_all = ["reject", "unflag"])]
    pick: bool,
    #[arg(long, conflicts_with = "unflag")]
    reject: bool,
    #[arg(long)]
    unflag: bool,
    /// red, yellow, green, blue, purple or none.
    #[arg(long)]
    label: Option<String>,
    /// Write sidecars on a card too (a photo in a DCIM folder). By default decisions there
    /// are held in the catalog and go into the copies' sidecars at `darkroom ingest`.
    #[arg(long)]
    write_to_card: bool,
    #[arg(required_unless_present = "stdin")]
    photos: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Naming {
    WithExtension,
    ReplaceExtension,
}

impl Args {
    fn naming(&self) -> SidecarNaming {
        match self.sidecar {
            Naming::WithExtension => SidecarNaming::WithExtension,
            Naming::ReplaceExtension => SidecarNaming::ReplaceExtension,
        }
    }

    fn flag(&self) -> Option<Flag> {
        if self.pick {
            Some(Flag::Pick)
        } else if self.reject {
            Some(Flag::Reject)
        } else if self.unflag {
            Some(Flag::Unflagged)
        } else {
            None
        }
    }
}

fn parse_label(text: &str) -> anyhow::Result<Option<Label>> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    ColourLabel::ALL
        .into_iter()
        .find(|c| c.xmp_name().eq_ignore_ascii_case(text))
        .map(|c| Some(Label::Colour(c)))
        .with_context(|| {
            format!("unknown label {text:?}: red, yellow, green, blue, purple or none")
        })
}

#[derive(Deserialize)]
struct Line {
    path: PathBuf,
    #[serde(default)]
    flag: Flag,
    #[serde(default)]
    stars: u8,
    label: Option<String>,
}

#[derive(Serialize)]
struct Report {
    /// Lossy where the name is not UTF-8: JSON cannot carry it (the catalog keeps the bytes).
    path: String,
    decision: Decision,
    #[serde(skip_serializing_if = "Option::is_none")]
    sidecar_error: Option<String>,
    /// On a card: held in the catalog, written into the copy's sidecar at ingest.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    held: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = crate::services::catalog_path(args.catalog.clone())?;
    let mut catalog = Catalog::open(&path, args.naming())?;
    // The words the window's Settings chose for the sidecars, as the window would write them.
    catalog.set_words(crate::services::window_settings().sidecar_words);
    catalog.set_write_to_cards(args.write_to_card);
    for e in catalog.flush_pending()? {
        eprintln!("darkroom: {e}");
    }
    if args.stdin {
        return from_stdin(&mut catalog);
    }
    let label = args.label.as_deref().map(parse_label).transpose()?;
    // Each as pressed in the window: made on what the photo has (its sidecar read first if the
    // catalog never saw it), so what another tool wrote and this command does not name stays.
    let changes: Vec<Change> = [
        args.stars.map(Change::Stars),
        args.flag().map(Change::Flag),
        label.map(Change::Label),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut failed = false;
    for photo in &args.photos {
        let made = catalog.transaction(|c| {
            let mut decision = c.import(photo)?.decision;
            for change in &changes {
                decision = c.change(photo, change)?.after;
            }
            Ok::<_, darkroom_catalog::CatalogError>(decision)
        })??;
        let sidecar_error = catalog
            .write_sidecars(std::slice::from_ref(photo))
            .into_iter()
            .next()
            .map(|(_, e)| e.to_string());
        failed |= sidecar_error.is_some();
        println!(
            "{}",
            serde_json::to_string(&Report {
                path: photo.to_string_lossy().into_owned(),
                decision: made,
                sidecar_error,
                held: catalog.holds(photo),
            })?
        );
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One decision a line in, one `{"ack": n}` a line out, written only after the catalog commit.
fn from_stdin(catalog: &mut Catalog) -> anyhow::Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = line.context("cannot read standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(&line)
            .with_context(|| format!("line {}: not a decision", n + 1))?;
        let decision = Decision {
            flag: parsed.flag,
            stars: parsed.stars,
            label: parsed
                .label
                .as_deref()
                .map(parse_label)
                .transpose()?
                .flatten(),
        };
        let outcome = catalog.decide(&parsed.path, &decision)?;
        let ack = match outcome.sidecar_error {
            None => format!("{{\"ack\":{}}}", n + 1),
            Some(e) => {
                serde_json::json!({"ack": n + 1, "sidecar_error": e.to_string()}).to_string()
            }
        };
        writeln!(out, "{ack}")?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
