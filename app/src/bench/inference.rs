//! `darkroom bench`: every installed model's session time on tract, ONNX Runtime with one
//! thread and with all threads, side by side in one run, plus the face pipeline's own
//! pre/post-processing against the detector's time.
//!
//! The runtime is once per process, so each runtime is timed in a child process (this binary's
//! hidden `bench-worker`) and the parent prints the table.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, bail};
use darkroom_engine::face::{FaceDetector, FaceEmbedder};
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
    /// Thread counts to time, comma-separated.
    #[arg(long, value_delimiter = ',')]
    threads: Vec<usize>,
}

pub fn worker_main(a: WorkerArgs) -> anyhow::Result<ExitCode> {
    worker(a.models, a.image, a.runs, a.threads)
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
    ms.sort_by(f64::total_cmp);
    Ok(Timing {
        median_ms: ms[ms.len() / 2],
        min_ms: ms[0],
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
    threads: usize,
    models: Vec<ModelTiming>,
    pipeline: Option<PipelineTiming>,
}

/// Runs in the child: time every installed detector/embedder/eye model at each thread count.
pub fn worker(
    models: PathBuf,
    image: PathBuf,
    runs: usize,
    threads: Vec<usize>,
) -> anyhow::Result<ExitCode> {
    let sessions = crate::services::sessions(Some(models))?;
    let runtime = sessions.runtime();
    let img = image_io::load_rgb(&image)?;
    let threads = if runtime.kind == darkroom_engine::RuntimeKind::Tract {
        vec![1]
    } else {
        threads
    };
    let mut results = Vec::new();
    for &n in &threads {
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
            let session = sessions.open_with_threads(&id, card.role, n)?;
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
                    if pipeline.is_none() {
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
            threads: n,
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
    threads: &[usize],
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
        .arg("--threads")
        .arg(
            threads
                .iter()
                .map(usize::to_string)
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
    let all = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let tract = spawn_worker(&models, &image, runs, &[1], true)?;
    let threads: Vec<usize> = if all > 1 { vec![1, all] } else { vec![1] };
    let ort = spawn_worker(&models, &image, runs, &threads, false)?;
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
    let label = |c: &ConfigResult| {
        if c.runtime.starts_with("tract") {
            "tract".to_owned()
        } else {
            format!("ORT {}t", c.threads)
        }
    };
    let mut header = format!("{:<14}", "model");
    for c in &configs {
        header.push_str(&format!("{:>18}", label(c)));
    }
    for c in configs.iter().skip(1) {
        header.push_str(&format!("{:>16}", format!("tract/{}", label(c))));
    }
    println!("{header}");
    for (i, m) in configs[0].models.iter().enumerate() {
        let mut row = format!("{:<14}", m.model_id);
        for c in &configs {
            let t = &c.models[i].session;
            row.push_str(&format!(
                "{:>18}",
                format!("{:.1} ({:.1})", t.median_ms, t.min_ms)
            ));
        }
        for c in configs.iter().skip(1) {
            row.push_str(&format!(
                "{:>16}",
                format!(
                    "{:.2}x",
                    m.session.median_ms / c.models[i].session.median_ms
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
