//! `darkroom bench-ingest`: the ingest against `cp` over the same files on the same disk, side
//! by side in one run, each contender in turn every round (the page cache dropped before each
//! where the process may, `--drop-caches`). Contenders: `cp -r` alone (its copies may still be
//! in memory when it returns), `cp -r` then `sync` (the copy made durable, as the ingest's
//! copies are before they count), `cp -r` + `sha256sum` of the originals and the copies (what
//! a careful photographer does by hand), two `cp -r` at once to two drives, and the ingest with
//! verification to one drive and to two. Ratios are speed relative to `cp` alone and to `cp` +
//! `sync`; the bar (issue 27) is the verified ingest at ≥ 0.9× `cp`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_library::ingest::Pattern;

use darkroom_ingest::{self as ingest, Options};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A scratch folder on the disk to measure (the card and every copy go here).
    #[arg(long)]
    pub scratch: PathBuf,
    /// Files on the card.
    #[arg(long, default_value_t = 40)]
    pub files: usize,
    /// Each file's size, MB (a 24 MP RAW is about 25).
    #[arg(long, default_value_t = 25)]
    pub mb: usize,
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Drop the page cache before each contender (root only): the card read from disk.
    #[arg(long)]
    pub drop_caches: bool,
    /// A real camera file each generated one starts with (its EXIF read as a RAW's is, the
    /// rest incompressible bytes), e.g. exiv2's Canon-R6-pruned.CR3; without, bytes alone.
    #[arg(long)]
    pub template: Option<PathBuf>,
    /// Read this card (only read) instead of making one: a real card in its reader, or one made
    /// long enough ago that no cache holds it. A card made now is still in the memory of
    /// whatever is under the disk (a virtual machine's host), which `--drop-caches` cannot
    /// reach: every contender then reads it at memory speed, and the one that does the most
    /// work in memory loses more than it would to a card.
    #[arg(long, conflicts_with_all = ["files", "mb", "template"])]
    pub card: Option<PathBuf>,
}

/// The files under `dir` and their bytes.
fn card_size(dir: &Path) -> anyhow::Result<(usize, u64)> {
    let (mut files, mut bytes) = (0, 0);
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry?;
        let meta = entry.metadata()?;
        if meta.is_dir() {
            let (f, b) = card_size(&entry.path())?;
            files += f;
            bytes += b;
        } else if meta.is_file() {
            files += 1;
            bytes += meta.len();
        }
    }
    Ok((files, bytes))
}

/// A card of `n` RAW-sized files of incompressible bytes (a fixed generator: the same card
/// every run), made once.
fn make_card(dir: &Path, n: usize, mb: usize, template: &[u8]) -> anyhow::Result<PathBuf> {
    let folder = dir.join("card/DCIM/100BENCH");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder)?;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for k in 0..n {
        let path = folder.join(format!("IMG_{:04}.CR3", k + 1));
        let mut bytes = vec![0u8; (mb << 20).max(template.len())];
        bytes[..template.len()].copy_from_slice(template);
        for chunk in bytes[template.len()..].chunks_mut(8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
        }
        std::fs::write(&path, bytes)?;
    }
    Ok(dir.join("card"))
}

fn drop_caches() -> anyhow::Result<()> {
    let status = Command::new("sync").status()?;
    anyhow::ensure!(status.success(), "sync failed");
    std::fs::write("/proc/sys/vm/drop_caches", "3\n")
        .context("cannot drop the page cache (root only): /proc/sys/vm/drop_caches")
}

/// `script` run by sh with the card as `$1` and the output folder as `$2`: paths go in as
/// arguments, never into the script's text.
fn sh(script: &str, card: &Path, out: &Path) -> anyhow::Result<()> {
    let status = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(card)
        .arg(out)
        .status()?;
    anyhow::ensure!(status.success(), "failed: {script}");
    Ok(())
}

fn median(v: Vec<Duration>) -> Duration {
    darkroom_library::measure::median(&v).unwrap_or_default()
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    let scratch = &a.scratch;
    std::fs::create_dir_all(scratch)?;
    let card = match &a.card {
        Some(card) => card.clone(),
        None => {
            let template = match &a.template {
                Some(t) => {
                    std::fs::read(t).with_context(|| format!("cannot read {}", t.display()))?
                }
                None => Vec::new(),
            };
            make_card(scratch, a.files, a.mb, &template)?
        }
    };
    let (files, bytes) = card_size(&card)?;
    let bytes = bytes as f64;
    let names = [
        "cp",
        "cp + sync",
        "cp + sha256sum",
        "cp, 2 drives",
        "ingest, 1 drive",
        "ingest, 2 drives",
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    for round in 0..a.rounds {
        for k in 0..names.len() {
            // Each round starts with another contender, so none always follows the same one.
            let c = (k + round) % names.len();
            let out = scratch.join("out");
            let _ = std::fs::remove_dir_all(&out);
            std::fs::create_dir_all(&out)?;
            sh("sync", &card, &out)?;
            if a.drop_caches {
                drop_caches()?;
            }
            let started = Instant::now();
            match c {
                0 => sh(r#"cp -r "$1"/. "$2"/card"#, &card, &out)?,
                1 => sh(r#"cp -r "$1"/. "$2"/card && sync"#, &card, &out)?,
                2 => sh(
                    r#"cp -r "$1"/. "$2"/card \
                       && (cd "$1" && find . -type f -exec sha256sum {} + > "$2"/sums) \
                       && (cd "$2"/card && sha256sum -c --quiet "$2"/sums) && sync"#,
                    &card,
                    &out,
                )?,
                3 => sh(
                    r#"cp -r "$1"/. "$2"/card & first=$!; cp -r "$1"/. "$2"/backup && wait $first"#,
                    &card,
                    &out,
                )?,
                _ => {
                    let catalog = out.join("catalog.sqlite");
                    let mut c2 = Catalog::open(&catalog, SidecarNaming::default())?;
                    let options = Options {
                        source: card.clone(),
                        to: out.join("work"),
                        backups: if c == 5 {
                            vec![out.join("backup")]
                        } else {
                            Vec::new()
                        },
                        pattern: Pattern::parse(ingest::DEFAULT_PATTERN)?,
                        job: String::new(),
                        write_times: false,
                        naming: SidecarNaming::default(),
                        words: Default::default(),
                    };
                    let cancel = AtomicBool::new(false);
                    let plan = ingest::plan(&options, &c2, &cancel)?;
                    let outcome = ingest::run(&plan, &options, &mut c2, &cancel, &mut |_| {});
                    anyhow::ensure!(
                        outcome.failed.is_empty() && outcome.copied_files == files,
                        "the ingest did not copy every file: {:?}",
                        outcome.failed
                    );
                }
            }
            times[c].push(started.elapsed());
        }
    }
    let _ = std::fs::remove_dir_all(scratch.join("out"));
    let cp = median(times[0].clone()).as_secs_f64();
    let cp_sync = median(times[1].clone()).as_secs_f64();
    println!(
        "{files} files ({:.2} GB) from {} to {}, median of {} rounds{}",
        bytes / 1e9,
        card.display(),
        scratch.display(),
        a.rounds,
        if a.drop_caches {
            ", page cache dropped before each"
        } else {
            ""
        }
    );
    println!(
        "{:<18} {:>8} {:>8} {:>8} {:>12}",
        "contender", "seconds", "MB/s", "vs cp", "vs cp+sync"
    );
    for (name, t) in names.iter().zip(&times) {
        let s = median(t.clone()).as_secs_f64();
        println!(
            "{name:<18} {s:>8.2} {:>8.0} {:>7.2}× {:>11.2}×",
            bytes / 1e6 / s,
            cp / s,
            cp_sync / s
        );
    }
    Ok(ExitCode::SUCCESS)
}
