//! `darkroom bench-index DIR`: the index job end to end on a folder of JPEGs against its
//! stages alone, per runtime (tract, ONNX Runtime; the runtime is once per process, so each
//! runs in a child: the hidden `bench-index-worker`). Reports photos/s end to end, the decode
//! stage alone (working decode + focus + hash on the job's decode threads), the inference
//! stage alone (detect + embed + eyes on every photo, decoded beforehand and untimed, one
//! thread as in the job), the
//! ratio of end to end to the slower stage (stages overlap when it is near 1), the time split
//! by stage, and the peak resident memory.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, bail};
use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_engine::Role;
use darkroom_engine::face::{EyeClassifier, FaceDetector, FaceEmbedder};
use darkroom_index::{Control, JobConfig, Models, Thresholds, focus, job, phash};
use serde::{Deserialize, Serialize};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A folder of JPEGs (scripts/make-thumb-corpus makes 6000x4000 ones).
    dir: PathBuf,
    #[arg(long)]
    json: bool,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    run(a.dir, a.json)
}

const WORK_SIDE: u32 = 1440;

#[derive(Debug, Serialize, Deserialize)]
struct RuntimeResult {
    runtime: String,
    photos: usize,
    faces: usize,
    decode_threads: usize,
    inference_threads: usize,
    decode_alone_photos_per_s: f64,
    inference_alone_photos_per_s: f64,
    end_to_end_photos_per_s: f64,
    /// End to end / the slower stage alone.
    overlap_ratio: f64,
    stages: job::StageTimes,
    peak_rss_mib: Option<f64>,
}

fn jpegs(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| darkroom_library::formats::is_jpeg(p))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("no JPEGs in {}", dir.display());
    }
    Ok(files)
}

/// VmHWM: the most this process has had resident.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn models(sessions: &darkroom_engine::Sessions) -> anyhow::Result<Models> {
    let store = sessions.store();
    let detector_id = darkroom_index::pick_model(
        store,
        Role::Detector,
        None,
        darkroom_index::models::DEFAULT_DETECTOR,
    )?;
    let embedder_id = darkroom_index::pick_model(
        store,
        Role::Embedder,
        None,
        darkroom_index::models::DEFAULT_EMBEDDER,
    )?;
    let eye = store
        .cards()
        .by_role(Role::EyeState)
        .find(|c| store.is_present(c))
        .cloned();
    Ok(Models {
        detector: FaceDetector::new(sessions.open(&detector_id, Role::Detector)?)?,
        embedder: Some(FaceEmbedder::new(
            sessions.open(&embedder_id, Role::Embedder)?,
        )?),
        eyes: match eye {
            Some(card) => Some(EyeClassifier::new(
                sessions.open(&card.model_id(), Role::EyeState)?,
                &store.cards().classes(&card).unwrap_or_default(),
            )?),
            None => None,
        },
    })
}

/// In the child: the three measurements on this process's runtime.
pub fn worker(dir: PathBuf) -> anyhow::Result<ExitCode> {
    let files = jpegs(&dir)?;
    let sessions = crate::services::sessions(None)?;
    let runtime = sessions.runtime().summary();
    let mut models = models(&sessions)?;
    let decode_threads = crate::gui::num_threads();

    // Every file read once first, so no measurement pays for a cold page cache.
    for f in &files {
        std::hint::black_box(std::fs::read(f)?.len());
    }
    // Decode alone, on the job's decode threads.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..decode_threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    if let Ok(w) = darkroom_library::working::load(f, WORK_SIDE) {
                        std::hint::black_box((focus::photo(&w.image), phash::hash(&w.image)));
                    }
                }
            });
        }
    });
    let decode_alone = files.len() as f64 / started.elapsed().as_secs_f64();

    // Inference alone on the same photos: each decoded first, untimed, then only detect +
    // embed + eyes are timed, one thread as in the job.
    let mut inference_s = 0.0;
    let mut inferred = 0usize;
    for f in &files {
        let Ok(w) = darkroom_library::working::load(f, WORK_SIDE) else {
            continue;
        };
        let started = Instant::now();
        for face in models.detector.detect(&w.image)? {
            if let Some(e) = models.embedder.as_mut() {
                std::hint::black_box(e.embed(&w.image, &face.landmarks)?);
            }
            if let Some(eyes) = models.eyes.as_mut() {
                std::hint::black_box(eyes.classify_face(&w.image, &face.landmarks)?);
            }
        }
        inference_s += started.elapsed().as_secs_f64();
        inferred += 1;
    }
    let inference_alone = inferred as f64 / inference_s.max(1e-9);

    // End to end, as `darkroom index` runs it, into a catalog of its own.
    let tmp = tempfile::tempdir()?;
    let mut catalog = Catalog::open(&tmp.path().join("catalog.sqlite"), SidecarNaming::default())?;
    let config = JobConfig {
        photos: files.clone(),
        backend: runtime.clone(),
        decode_threads,
        work_side: WORK_SIDE,
        thresholds: Thresholds::default(),
    };
    let summary = job::run(
        &config,
        &mut models,
        &mut catalog,
        &Control::default(),
        &mut |_| {},
    )?;
    let end_to_end = summary.indexed as f64 / summary.seconds;
    let result = RuntimeResult {
        runtime,
        photos: files.len(),
        faces: summary.faces,
        decode_threads,
        inference_threads: sessions.threads(),
        decode_alone_photos_per_s: decode_alone,
        inference_alone_photos_per_s: inference_alone,
        end_to_end_photos_per_s: end_to_end,
        overlap_ratio: end_to_end / decode_alone.min(inference_alone),
        stages: summary.stages,
        peak_rss_mib: peak_rss_mib(),
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(ExitCode::SUCCESS)
}

fn spawn(dir: &Path, tract: bool) -> anyhow::Result<RuntimeResult> {
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let mut cmd = Command::new(exe);
    cmd.arg("bench-index-worker").arg(dir);
    if tract {
        cmd.env("DARKROOM_RUNTIME", "tract");
    } else {
        cmd.env_remove("DARKROOM_RUNTIME");
    }
    super::inference::worker_json(&mut cmd, if tract { "tract" } else { "onnxruntime" })
}

pub fn run(dir: PathBuf, json: bool) -> anyhow::Result<ExitCode> {
    let results = [spawn(&dir, true)?, spawn(&dir, false)?];
    if json {
        println!("{}", serde_json::to_string_pretty(&results)?);
        return Ok(ExitCode::SUCCESS);
    }
    for r in &results {
        let n = r.photos as f64;
        println!(
            "{}: {} photos, {} faces · end to end {:.2} photos/s · decode alone {:.2} ({} threads) · inference alone {:.2} ({} threads) · overlap {:.2} · per photo: decode {:.0} ms, detect {:.0} ms, embed {:.0} ms, eyes {:.0} ms, store {:.0} ms · peak RSS {}",
            r.runtime,
            r.photos,
            r.faces,
            r.end_to_end_photos_per_s,
            r.decode_alone_photos_per_s,
            r.decode_threads,
            r.inference_alone_photos_per_s,
            r.inference_threads,
            r.overlap_ratio,
            r.stages.decode_ms / n,
            r.stages.detect_ms / n,
            r.stages.embed_ms / n,
            r.stages.eyes_ms / n,
            r.stages.store_ms / n,
            r.peak_rss_mib
                .map(|m| format!("{m:.0} MiB"))
                .unwrap_or_else(|| "unknown".into())
        );
    }
    Ok(ExitCode::SUCCESS)
}
