//! Command-line grammar and dispatch: the subcommands' arguments live in their own modules.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::bench;
use crate::commands::{
    backend, clock, decide, export, faces, facts, index, ingest, ladder_worker, models, parity,
    people, probe, propose, subject, thumbnails,
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
    Probe(probe::Args),
    /// Force a lower backend, or go back to automatic (persisted; DARKROOM_BACKEND wins).
    Backend {
        #[command(subcommand)]
        command: backend::Args,
    },
    /// One probe or engine build in this process (spawned by the backend ladder).
    #[command(hide = true, name = "ladder-worker")]
    LadderWorker { request: String },
    /// Find faces in photos.
    Faces(faces::Args),
    /// Index a folder: faces, eyes, focus, bursts and people, recorded in the catalog.
    Index(index::Args),
    /// The auto-cull proposal for an indexed folder, as the window would make it: each photo's
    /// scene and set, and every proposed decision with its reasons. Writes nothing.
    Propose(propose::Args),
    /// What each photo is of and whether it is in focus: the subject the installed segmenters
    /// find, its sharpness inside and outside.
    Subject(subject::Args),
    /// Record pick/reject, stars and colour labels in the catalog and the photos' XMP sidecars.
    Decide(decide::Args),
    /// Bring a card's photos onto the working drive and backups: renamed by a pattern, each
    /// copy verified, nothing copied twice.
    Ingest(ingest::Args),
    /// What DarkRoom reads from each file: camera, serial, lens, exposure, capture time,
    /// orientation, and where the camera focused (AF mode and points, in pixels) from the
    /// maker notes, to hold against exiftool.
    Facts(facts::Args),
    /// Several cameras, one shoot: each body's clock correction, entered or worked out from
    /// two frames of the same moment; bursts, scenes and sorting use the corrected times.
    Clock(clock::Args),
    /// The people the index found, and key people: `list [FOLDER]`, `star NAME`, `unstar NAME`.
    People(people::Args),
    /// Copy (or move) the picks, with their RAW/JPEG twin and sidecars, into a folder for the
    /// next tool; a list of what was copied goes with them.
    Export(export::Args),
    /// List or import model files.
    Models {
        #[command(subcommand)]
        command: models::Args,
    },
    /// The release gate: a derived model form against its reference on real photographs
    /// (same detections per size band, or embeddings by cosine); fails closed.
    Parity(parity::Args),
    /// Make every photo's grid thumbnail and loupe preview in a folder into the window's cache;
    /// one line per item (its capture time too), exit status 1 when any failed.
    Thumbnails(thumbnails::Args),
    /// Time every installed model on tract, ONNX Runtime 1 thread and all threads.
    Bench(bench::inference::Args),
    /// Thumbnail throughput against vipsthumbnail on a folder of JPEGs (docs/PERFORMANCE.md).
    BenchThumbs(bench::thumbs::Args),
    /// Time to first frame of this binary's window, alone and with a 1,000-photo folder and a
    /// cold probe running (run under Xvfb: scripts/bench-first-frame).
    BenchFirstFrame(bench::first_frame::Args),
    /// Every JPEG decoder at 1/8, 1/4, 1/2 and full scale on the same files (docs/PERFORMANCE.md).
    BenchDecoders(bench::decoders::Args),
    /// Frame time of the grid on 10,000 photos against 100, walked by keyboard (headless).
    BenchGrid(bench::grid::Args),
    /// Stepping through the loupe at a steady pace: key to screen and to full resolution.
    BenchLoupe(bench::loupe::Args),
    /// The index job end to end against its stages alone, on tract and ONNX Runtime.
    BenchIndex(bench::index::Args),
    /// The ingest (copy, hash, verify) against `cp` and `cp` + `sha256sum` on the same files
    /// and disk (docs/PERFORMANCE.md).
    BenchIngest(bench::ingest::Args),
    /// Decisions made durable and sidecars read, batched against one at a time.
    BenchDecisions(bench::decisions::Args),
    /// The focus measures against blur whose truth is known: the whole frame, the subject, the
    /// background and the eyes blurred in series (docs/SUBJECT-FOCUS.md).
    BenchFocus(bench::focus::Args),
    /// The face mesh (and the eye-state model) against faces a person labelled: precision and
    /// recall for closed eyes, smiles and gaze (docs/EXPRESSIONS.md).
    BenchExpressions(bench::expressions::Args),
    /// Scenes, brackets, pans and misfires on a synthetic shoot of known truth: the adjusted
    /// Rand index of scenes, set frames proposed for rejection, misfires found, across each
    /// control (docs/SCENES.md).
    BenchShoot(bench::shoot::Args),
    /// One runtime of `bench-index`, in this process.
    #[command(hide = true)]
    BenchIndexWorker {
        dir: PathBuf,
        #[arg(long)]
        detector: Option<String>,
        #[arg(long)]
        embedder: Option<String>,
        /// Without the segmenter (its cost, side by side).
        #[arg(long)]
        no_segmenter: bool,
        /// Without the face mesh (its cost, side by side).
        #[arg(long)]
        no_mesh: bool,
        /// Where the job looks for the subject (the deferral's gain, side by side).
        #[arg(long, default_value = "deciding")]
        subjects: darkroom_index::subject::SubjectScope,
        /// As if no file said where its camera focused (the AF points' gain, side by side).
        #[arg(long)]
        no_af: bool,
    },
    /// One configuration of the benchmark, in this process's runtime (spawned by `bench`).
    #[command(hide = true)]
    BenchWorker(bench::inference::WorkerArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    for problem in darkroom_engine::paths::make_private() {
        eprintln!("darkroom: {problem}");
    }
    let Some(command) = cli.command else {
        return crate::gui::run(cli.folder, cli.report_first_frame);
    };
    darkroom_engine::end_on_closed_pipe();
    match command {
        Command::Probe(args) => probe::run(args),
        Command::Backend { command } => backend::run(command),
        Command::LadderWorker { request } => Ok(ladder_worker::worker(&request)),
        Command::Faces(args) => faces::run(args),
        Command::Index(args) => index::run(args),
        Command::Propose(args) => propose::run(args),
        Command::Subject(args) => subject::run(args),
        Command::Decide(args) => decide::run(args),
        Command::Ingest(args) => ingest::run(args),
        Command::Clock(args) => clock::run(args),
        Command::Facts(args) => facts::run(args),
        Command::People(args) => people::run(args),
        Command::Export(args) => export::run(args),
        Command::Models { command } => models::run(command),
        Command::Parity(args) => parity::run(args),
        Command::Thumbnails(args) => thumbnails::run(args),
        Command::Bench(args) => bench::inference::main(args),
        Command::BenchThumbs(args) => bench::thumbs::main(args),
        Command::BenchFirstFrame(args) => bench::first_frame::main(args),
        Command::BenchDecoders(args) => bench::decoders::main(args),
        Command::BenchGrid(args) => bench::grid::main(args),
        Command::BenchLoupe(args) => bench::loupe::main(args),
        Command::BenchIndex(args) => bench::index::main(args),
        Command::BenchDecisions(args) => bench::decisions::main(args),
        Command::BenchIngest(args) => bench::ingest::main(args),
        Command::BenchFocus(args) => bench::focus::main(args),
        Command::BenchExpressions(args) => bench::expressions::main(args),
        Command::BenchShoot(args) => bench::shoot::run(args),
        Command::BenchIndexWorker {
            dir,
            detector,
            embedder,
            no_segmenter,
            no_mesh,
            subjects,
            no_af,
        } => bench::index::worker(
            dir,
            detector,
            embedder,
            (no_segmenter, no_mesh, no_af),
            subjects,
        ),
        Command::BenchWorker(args) => bench::inference::worker_main(args),
    }
}
