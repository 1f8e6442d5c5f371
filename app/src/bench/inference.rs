//! `darkroom bench`: every installed model's session time on tract and on ONNX Runtime under
//! every setting the session tuning measures (optimisation level × threads), side by side in
//! one run, the setting the tuning's rule picks from these timings, plus the face pipeline's
//! own pre/post-processing against the detector's time.
//!
//! The runtime is once per process, so each runtime is timed in a child process (this binary's
//! hidden `bench-worker`) and the parent prints the table.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, bail};
use darkroom_engine::face::{FaceDetector, FaceEmbedder};
use darkroom_engine::tuning::{self, Measured, OptLevel, SessionSettings};
use darkroom_engine::{Role, image_io};
use serde::{Deserialize, Serialize};

#[derive(Debug, clap::Args)]
pub struct Args {
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
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    run(
        crate::services::models_dir(a.models)?,
        a.image,
        a.runs.max(20),
        a.json,
    )
}

#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    #[arg(long)]
    models: PathBuf,
    #[arg(long)]
    image: PathBuf,
    #[arg(long)]
    runs: usize,
    /// Session settings to time, comma-separated `level:threads` (`basic:1,all:2`).
    #[arg(long, value_delimiter = ',', value_parser = parse_settings)]
    settings: Vec<SessionSettings>,
}

fn parse_settings(text: &str) -> Result<SessionSettings, String> {
    let (level, threads) = text
        .split_once(':')
        .ok_or_else(|| format!("expected level:threads, found {text:?}"))?;
    let level = OptLevel::MEASURED
        .into_iter()
        .find(|l| l.name() == level)
        .ok_or_else(|| format!("unknown level {level:?} (basic, extended or all)"))?;
    let threads = threads
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("threads must be a positive number, found {threads:?}"))?;
    Ok(SessionSettings { level, threads })
}

fn settings_arg(s: &SessionSettings) -> String {
    format!("{}:{}", s.level, s.threads)
}

pub fn worker_main(a: WorkerArgs) -> anyhow::Result<ExitCode> {
    worker(a.models, a.image, a.runs, a.settings)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timing {
    pub median_ms: f64,
    pub min_ms: f64,
}

fn time_runs(runs: usize, mut f: impl FnMut() -> anyhow::Result<()>) -> anyhow::Result<Timing> {
    for _ in 0..3 {
        f()?;
    }
    let mut ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let q = darkroom_library::measure::Quantiles::or_nan(&ms);
    Ok(Timing {
        median_ms: q.p50_ms,
        min_ms: q.min_ms,
    })
}

#[derive(Debug, Serialize, Deserialize)]
struct ModelTiming {
    model_id: String,
    role: Role,
    session: Timing,
}

#[derive(Debug, Serialize, Deserialize)]
struct PipelineTiming {
    detector: String,
    faces: usize,
    /// Letterbox + normalise.
    prepare: Timing,
    /// Head decode + NMS + mapping back.
    decode: Timing,
    /// 5-point alignment of every face found.
    align: Timing,
}

#[derive(Debug, Serialize, Deserialize)]
struct ConfigResult {
    runtime: String,
    /// None on tract (one thread, its own optimiser).
    settings: Option<SessionSettings>,
    models: Vec<ModelTiming>,
    pipeline: Option<PipelineTiming>,
}

/// Runs in the child: time every installed detector/embedder/eye model under each setting.
pub fn worker(
    models: PathBuf,
    image: PathBuf,
    runs: usize,
    settings: Vec<SessionSettings>,
) -> anyhow::Result<ExitCode> {
    let sessions = crate::services::sessions(Some(models))?;
    let runtime = sessions.runtime();
    let img = image_io::load_rgb(&image)?;
    let settings: Vec<Option<SessionSettings>> =
        if runtime.kind == darkroom_engine::RuntimeKind::Tract {
            vec![None]
        } else {
            settings.into_iter().map(Some).collect()
        };
    let mut results = Vec::new();
    for &setting in &settings {
        let mut models_out = Vec::new();
        let mut pipeline = None;
        // Landmarks from the first detector, to give the embedder a real aligned face.
        let mut landmarks = None;
        for card in sessions.store().cards().iter() {
            if !sessions.store().is_present(card)
                || card.role == Role::Segmenter
                || card.role == Role::Scene
            {
                continue;
            }
            let id = card.model_id();
            let session = match setting {
                Some(s) => sessions.open_with(&id, card.role, s)?,
                None => sessions.open(&id, card.role)?,
            };
            let timing = match card.role {
                Role::Detector => {
                    let mut det = FaceDetector::new(session)?;
                    let prepared = det.prepare(&img);
                    let session_t = time_runs(runs, || {
                        det.infer(&prepared)?;
                        Ok(())
                    })?;
                    let outputs = det.infer(&prepared)?;
                    let faces = det.decode(&outputs, &prepared)?;
                    if landmarks.is_none() {
                        landmarks = faces.first().map(|f| f.landmarks);
                    }
                    // The pipeline's own work does not depend on the session's settings.
                    if pipeline.is_none() && results.is_empty() {
                        let prepare = time_runs(runs, || {
                            std::hint::black_box(det.prepare(&img));
                            Ok(())
                        })?;
                        let decode = time_runs(runs, || {
                            std::hint::black_box(det.decode(&outputs, &prepared)?);
                            Ok(())
                        })?;
                        // Alignment needs an embedder card's crop size; 112 is every ArcFace.
                        let align = time_runs(runs, || {
                            for f in &faces {
                                let to = darkroom_engine::face::Similarity::estimate(
                                    &f.landmarks,
                                    &darkroom_engine::face::ARCFACE_TEMPLATE,
                                );
                                std::hint::black_box(darkroom_engine::face::warp_affine_rgb(
                                    &img,
                                    &to.inverse(),
                                    112,
                                ));
                            }
                            Ok(())
                        })?;
                        pipeline = Some(PipelineTiming {
                            detector: id.clone(),
                            faces: faces.len(),
                            prepare,
                            decode,
                            align,
                        });
                    }
                    session_t
                }
                Role::Embedder => {
                    let mut emb = FaceEmbedder::new(session)?;
                    let lm = landmarks.context("no face found to feed the embedder")?;
                    let crop = emb.align(&img, &lm);
                    time_runs(runs, || {
                        emb.embed_aligned(&crop)?;
                        Ok(())
                    })?
                }
                _ => {
                    let mut s = session;
                    let input = vec![0.5f32; s.input_shape().iter().product()];
                    time_runs(runs, || {
                        s.run(&input)?;
                        Ok(())
                    })?
                }
            };
            models_out.push(ModelTiming {
                model_id: id,
                role: card.role,
                session: timing,
            });
        }
        results.push(ConfigResult {
            runtime: runtime.summary(),
            settings: setting,
            models: models_out,
            pipeline,
        });
    }
    println!("{}", serde_json::to_string(&results)?);
    Ok(ExitCode::SUCCESS)
}

fn default_image(models: &Path) -> Option<PathBuf> {
    let photos = models.parent()?.join("photos");
    ["solvay_conference_1927.jpg", "astronaut.png"]
        .iter()
        .map(|n| photos.join(n))
        .find(|p| p.is_file())
}

fn spawn_worker(
    models: &Path,
    image: &Path,
    runs: usize,
    settings: &[SessionSettings],
    tract: bool,
) -> anyhow::Result<Vec<ConfigResult>> {
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let mut cmd = Command::new(exe);
    cmd.arg("bench-worker")
        .arg("--models")
        .arg(models)
        .arg("--image")
        .arg(image)
        .arg("--runs")
        .arg(runs.to_string())
        .arg("--settings")
        .arg(
            settings
                .iter()
                .map(settings_arg)
                .collect::<Vec<_>>()
                .join(","),
        );
    if tract {
        cmd.env("DARKROOM_RUNTIME", "tract");
    } else {
        cmd.env_remove("DARKROOM_RUNTIME");
    }
    worker_json(&mut cmd, if tract { "tract" } else { "onnxruntime" })
}

/// Run a benchmark worker (this binary, a hidden subcommand) and read its one JSON answer.
pub fn worker_json<T: serde::de::DeserializeOwned>(
    cmd: &mut Command,
    what: &str,
) -> anyhow::Result<T> {
    let out = cmd.output().context("cannot start the benchmark worker")?;
    if !out.status.success() {
        bail!(
            "benchmark worker ({what}) failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

pub fn run(
    models: PathBuf,
    image: Option<PathBuf>,
    runs: usize,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let image = image
        .or_else(|| default_image(&models))
        .context("no photo to benchmark on: pass --image PHOTO")?;
    // Every thread count up to the machine's cores (to see what more threads would give), and
    // the tuning's rule applied within the job's budget, as the tuning applies it.
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let grid = tuning::grid(&tuning::thread_candidates(cores));
    let budget = tuning::thread_budget();
    let tract = spawn_worker(&models, &image, runs, &[SessionSettings::untuned(1)], true)?;
    let ort = spawn_worker(&models, &image, runs, &grid, false)?;
    if ort.iter().any(|c| c.runtime.starts_with("tract")) {
        bail!(
            "ONNX Runtime did not load in the worker ({}); nothing to compare",
            ort[0].runtime
        );
    }
    let configs: Vec<&ConfigResult> = tract.iter().chain(ort.iter()).collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&configs)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "photo: {} · {runs} timed runs after 3 warm-ups · median (min) ms",
        image.display()
    );
    let label = |c: &ConfigResult| match c.settings {
        None => "tract".to_owned(),
        Some(s) => format!("ORT {}×{}", s.level, s.threads),
    };
    let mut header = format!("{:<20}", "model");
    for c in &configs {
        header.push_str(&format!("{:>18}", label(c)));
    }
    header.push_str(&format!(
        "{:>24}{:>14}",
        format!("tuned (≤{budget} threads)"),
        "tract/tuned"
    ));
    println!("{header}");
    for (i, m) in configs[0].models.iter().enumerate() {
        let mut row = format!("{:<20}", m.model_id);
        for c in &configs {
            let t = &c.models[i].session;
            row.push_str(&format!(
                "{:>18}",
                format!("{:.1} ({:.1})", t.median_ms, t.min_ms)
            ));
        }
        // What the tuning's rule picks from this run's medians for this model.
        let measured: Vec<Measured> = ort
            .iter()
            .filter_map(|c| {
                let s = c.settings.filter(|s| s.threads <= budget)?;
                Some(Measured::new(s, 0.0, vec![c.models[i].session.median_ms]))
            })
            .collect();
        if let Some(chosen) = tuning::choose(&measured) {
            let ms = measured
                .iter()
                .find(|x| x.settings == chosen)
                .map_or(f64::NAN, |x| x.median_ms);
            row.push_str(&format!(
                "{:>24}{:>14}",
                format!("{}×{} {:.1}", chosen.level, chosen.threads, ms),
                format!("{:.2}x", m.session.median_ms / ms)
            ));
        }
        println!("{row}");
    }
    // A derived numeric form against its f32 source, setting by setting, from the same run.
    let ids: Vec<&str> = configs[0]
        .models
        .iter()
        .map(|m| m.model_id.as_str())
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let Some(f32_id) = id.strip_suffix("_i8") else {
            continue;
        };
        let Some(j) = ids.iter().position(|x| *x == f32_id) else {
            continue;
        };
        let mut row = format!("{:<20}", format!("{id} / {f32_id}"));
        for c in &configs {
            row.push_str(&format!(
                "{:>18}",
                format!(
                    "{:.2}x",
                    c.models[i].session.median_ms / c.models[j].session.median_ms
                )
            ));
        }
        println!("{row}");
    }
    println!();
    for c in &configs {
        if let Some(p) = &c.pipeline {
            let det = c
                .models
                .iter()
                .find(|m| m.model_id == p.detector)
                .map(|m| m.session.median_ms)
                .unwrap_or(f64::NAN);
            let own = p.prepare.median_ms + p.decode.median_ms + p.align.median_ms;
            println!(
                "{:<10} pipeline ({} faces): prepare {:.2} + decode {:.2} + align {:.2} = {:.2} ms = {:.1}% of {} session {:.1} ms",
                label(c),
                p.faces,
                p.prepare.median_ms,
                p.decode.median_ms,
                p.align.median_ms,
                own,
                100.0 * own / det,
                p.detector,
                det
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
