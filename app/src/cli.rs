//! Command-line grammar and dispatch.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use darkroom_engine::{
    CardSet, ModelStore, RuntimeOutcome, RuntimeSearch, Sessions, paths, runtime,
};

#[derive(Debug, Parser)]
#[command(
    name = "darkroom",
    version,
    about = "Fast photo culling with on-device face models"
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Open the window on this folder (no subcommand).
    pub folder: Option<PathBuf>,
    /// Print "first-frame" on stdout once the first frame is on screen, then close (for
    /// `bench-first-frame`).
    #[arg(long, hide = true)]
    pub report_first_frame: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Which inference runtime and backend this machine has, and why: every rung of the
    /// ladder tried, its outcome, timings and reason, and whether it came from the cache.
    Probe {
        /// Print the outcome as JSON.
        #[arg(long)]
        json: bool,
        /// Ignore the probe cache and time every rung again.
        #[arg(long)]
        reprobe: bool,
        /// Wait for the selected rung's engines to build (progress on stderr).
        #[arg(long)]
        engines: bool,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Force a lower backend, or go back to automatic (persisted; DARKROOM_BACKEND wins).
    Backend {
        #[command(subcommand)]
        command: BackendCommand,
    },
    /// One probe or engine build in this process (spawned by the backend ladder).
    #[command(hide = true, name = "ladder-worker")]
    LadderWorker { request: String },
    /// Find faces in photos.
    Faces {
        /// Models directory (default: DARKROOM_MODELS, else the app data dir's models/).
        #[arg(long)]
        models: Option<PathBuf>,
        /// Detector model_id (default: scrfd_2.5g if installed, else the first installed).
        #[arg(long)]
        detector: Option<String>,
        /// Embedder model_id (default: the first installed).
        #[arg(long)]
        embedder: Option<String>,
        /// Also compute a 512-d embedding per face.
        #[arg(long)]
        embed: bool,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
        #[arg(required = true)]
        images: Vec<PathBuf>,
    },
    /// Index a folder: faces, eyes, focus, bursts and people, recorded in the catalog.
    Index {
        folder: PathBuf,
        /// Print the summary and every photo's results as JSON.
        #[arg(long)]
        json: bool,
        /// The catalog (default: <data dir>/catalog.sqlite).
        #[arg(long)]
        catalog: Option<PathBuf>,
        #[arg(long)]
        models: Option<PathBuf>,
        /// Detector model_id (default: the window's choice in Settings, else scrfd_2.5g if
        /// installed, else the first installed).
        #[arg(long)]
        detector: Option<String>,
        /// Embedder model_id (default: the first installed; none installed: no people).
        #[arg(long)]
        embedder: Option<String>,
        /// Decoding threads (default: all cores but one).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Record pick/reject, stars and colour labels in the catalog and the photos' XMP sidecars.
    Decide {
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
        #[arg(required_unless_present = "stdin")]
        photos: Vec<PathBuf>,
    },
    /// List or import model files.
    Models {
        #[command(subcommand)]
        command: ModelsCommand,
    },
    /// Time every installed model on tract, ONNX Runtime 1 thread and all threads.
    Bench {
        #[arg(long)]
        models: Option<PathBuf>,
        /// Photo to detect on (default: the first sample photo with faces in the models dir's
        /// parent photos/ folder).
        #[arg(long)]
        image: Option<PathBuf>,
        /// Timed runs per model and configuration (at least 20).
        #[arg(long, default_value_t = 20)]
        runs: usize,
        #[arg(long)]
        json: bool,
    },
    /// Thumbnail throughput against vipsthumbnail on a folder of JPEGs (docs/PERFORMANCE.md).
    BenchThumbs {
        dir: PathBuf,
        #[arg(long, default_value_t = 256)]
        side: u32,
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        #[arg(long)]
        json: bool,
    },
    /// Time to first frame of this binary's window, alone and with a 1,000-photo folder and a
    /// cold probe running (run under Xvfb: scripts/bench-first-frame).
    BenchFirstFrame {
        /// Photos to fill the 1,000-photo folder with (hard links, cycled).
        photos: PathBuf,
        #[arg(long, default_value_t = 1000)]
        count: usize,
        #[arg(long, default_value_t = 10)]
        runs: usize,
        #[arg(long)]
        json: bool,
    },
    /// Frame time of the grid on 10,000 photos against 100, walked by keyboard (headless).
    BenchGrid {
        /// Photos to fill the folders with (hard links, cycled).
        photos: PathBuf,
        #[arg(long, default_value_t = 10_000)]
        count: usize,
        #[arg(long, default_value_t = 400)]
        frames: usize,
        #[arg(long)]
        json: bool,
    },
    /// The index job end to end against its stages alone, on tract and ONNX Runtime.
    BenchIndex {
        /// A folder of JPEGs (scripts/make-thumb-corpus makes 6000x4000 ones).
        dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// One runtime of `bench-index`, in this process.
    #[command(hide = true)]
    BenchIndexWorker { dir: PathBuf },
    /// One configuration of the benchmark, in this process's runtime (spawned by `bench`).
    #[command(hide = true)]
    BenchWorker {
        #[arg(long)]
        models: PathBuf,
        #[arg(long)]
        image: PathBuf,
        #[arg(long)]
        runs: usize,
        /// Thread counts to time, comma-separated.
        #[arg(long, value_delimiter = ',')]
        threads: Vec<usize>,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Naming {
    WithExtension,
    ReplaceExtension,
}

#[derive(Debug, Subcommand)]
pub enum BackendCommand {
    /// Always use RUNG (tensorrt, cuda, cpu or tract) when it is below the chosen one.
    Force { rung: String },
    /// Let the probe choose.
    Auto,
}

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Every model card, and whether its file is installed and verifies.
    List {
        #[arg(long)]
        models: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Check a model file against a card's IO contract and install it under that card.
    Import {
        file: PathBuf,
        /// The card's model_id (e.g. scrfd_10g).
        #[arg(long = "as")]
        as_model: String,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Download models from their upstream (or a mirror), verify size and sha256, install.
    /// Without --accept-licence it prints each licence and fetches nothing.
    Fetch {
        /// model_ids to fetch (default: every card with a download, except test fixtures).
        model_ids: Vec<String>,
        /// I have read the licences printed without this flag, and accept them.
        #[arg(long)]
        accept_licence: bool,
        /// Fetch files by name from this base URL instead (default: DARKROOM_MODEL_MIRROR).
        #[arg(long)]
        mirror: Option<String>,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Install what a folder holds (model files, or an upstream archive), checked against the
    /// pinned hashes. The folder is only read.
    InstallFrom {
        folder: PathBuf,
        #[arg(long)]
        models: Option<PathBuf>,
    },
    /// Move every installed file that fails its hash into the models dir's quarantine/.
    Verify {
        #[arg(long)]
        models: Option<PathBuf>,
    },
}

/// Choose and install this process's runtime (once). A backend override of `tract`
/// (DARKROOM_BACKEND or the persisted setting) starts the process on tract.
pub fn install_runtime() -> &'static RuntimeOutcome {
    let mut search = RuntimeSearch::from_env(paths::data_dir().as_deref());
    let forced_tract = paths::inference_dir()
        .and_then(|dir| {
            darkroom_engine::ladder::backend::override_from(&dir)
                .ok()
                .flatten()
        })
        .is_some_and(|o| o.rung == darkroom_engine::Rung::Tract);
    search.force_tract |= forced_tract;
    runtime::install(&search)
}

/// The models dir from `--models`, else DARKROOM_MODELS, else the data dir.
pub fn models_dir(flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    flag.or_else(paths::models_dir)
        .context("no models directory: pass --models DIR or set DARKROOM_MODELS")
}

pub fn sessions(models: Option<PathBuf>) -> anyhow::Result<Sessions> {
    let runtime = install_runtime();
    let store = ModelStore::new(models_dir(models)?, CardSet::builtin()?);
    Ok(Sessions::new(
        runtime,
        store,
        darkroom_engine::sessions::default_threads(),
    )?)
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Some(command) = cli.command else {
        return crate::gui::run(cli.folder, cli.report_first_frame);
    };
    match command {
        Command::Probe {
            json,
            reprobe,
            engines,
            models,
        } => crate::backend_cmd::probe(models, json, reprobe, engines),
        Command::Backend { command } => crate::backend_cmd::set_override(match &command {
            BackendCommand::Force { rung } => Some(rung.as_str()),
            BackendCommand::Auto => None,
        }),
        Command::LadderWorker { request } => Ok(crate::backend_cmd::worker(&request)),
        Command::Faces {
            models,
            detector,
            embedder,
            embed,
            json,
            images,
        } => crate::faces_cmd::run(crate::faces_cmd::FacesArgs {
            models,
            detector,
            embedder,
            embed,
            json,
            images,
        }),
        Command::Index {
            folder,
            json,
            catalog,
            models,
            detector,
            embedder,
            threads,
        } => crate::index_cmd::run(crate::index_cmd::IndexArgs {
            folder,
            json,
            catalog,
            models,
            detector,
            embedder,
            threads,
        }),
        Command::Decide {
            catalog,
            sidecar,
            stdin,
            stars,
            pick,
            reject,
            unflag,
            label,
            photos,
        } => crate::decide_cmd::run(crate::decide_cmd::DecideArgs {
            catalog,
            naming: match sidecar {
                Naming::WithExtension => darkroom_catalog::SidecarNaming::WithExtension,
                Naming::ReplaceExtension => darkroom_catalog::SidecarNaming::ReplaceExtension,
            },
            stdin,
            stars,
            flag: if pick {
                Some(darkroom_catalog::Flag::Pick)
            } else if reject {
                Some(darkroom_catalog::Flag::Reject)
            } else if unflag {
                Some(darkroom_catalog::Flag::Unflagged)
            } else {
                None
            },
            label,
            photos,
        }),
        Command::Models { command } => crate::models_cmd::run(command),
        Command::Bench {
            models,
            image,
            runs,
            json,
        } => crate::bench::run(models_dir(models)?, image, runs.max(20), json),
        Command::BenchThumbs {
            dir,
            side,
            rounds,
            json,
        } => crate::bench_thumbs::run(dir, side, rounds, json),
        Command::BenchFirstFrame {
            photos,
            count,
            runs,
            json,
        } => crate::bench_first_frame::run(&photos, count, runs, json),
        Command::BenchGrid {
            photos,
            count,
            frames,
            json,
        } => crate::bench_grid::run(&photos, count, frames.max(1), json),
        Command::BenchIndex { dir, json } => crate::bench_index::run(dir, json),
        Command::BenchIndexWorker { dir } => crate::bench_index::worker(dir),
        Command::BenchWorker {
            models,
            image,
            runs,
            threads,
        } => crate::bench::worker(models, image, runs, threads),
    }
}
