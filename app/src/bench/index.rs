//! `darkroom bench-index DIR`: the index job end to end on a folder of JPEGs against its
//! stages alone, per runtime (tract, ONNX Runtime; the runtime is once per process, so each
//! runs in a child: the hidden `bench-index-worker`). Reports photos/s end to end, the decode
//! stage alone (working decode + focus + hash on the job's decode threads), the inference
//! stage alone (detect + embed + eyes + the face mesh on every photo, decoded beforehand and
//! untimed, one thread as in the job, and the segmenter where the job looked for a subject),
//! the ratio of end to end to the slower stage (stages overlap when it is near 1), the time split
//! by stage, and the peak resident memory; beside them, the job without the segmenter, without
//! the face mesh, looking for the subject everywhere, and judging every frame as if its file
//! said nothing of where the camera focused (the AF points' gain: `scripts/bench-index-af`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, bail};
use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_engine::face::{EyeClassifier, FaceEmbedder};
use darkroom_index::subject::SubjectScope;
use darkroom_index::{Control, JobConfig, Models, Thresholds, focus, job, phash};
use serde::{Deserialize, Serialize};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A folder of JPEGs (scripts/make-thumb-corpus makes 6000x4000 ones).
    dir: PathBuf,
    /// Embedders to run the ONNX Runtime pass with, one pass each (default: the job's pick).
    /// A model whose batch is free embeds a photo's faces in one run; compare with one that
    /// is not.
    #[arg(long)]
    embedder: Vec<String>,
    /// Detectors to run the ONNX Runtime passes with, each with every --embedder (default:
    /// the job's pick); e.g. scrfd_2.5g and its int8 form scrfd_2.5g_i8, side by side.
    #[arg(long)]
    detector: Vec<String>,
    /// Skip the tract pass.
    #[arg(long)]
    no_tract: bool,
    /// Skip the ONNX Runtime pass without the segmenter (its cost, side by side).
    #[arg(long)]
    no_segmenter_pass: bool,
    /// Skip the ONNX Runtime pass without the face mesh (its cost, side by side).
    #[arg(long)]
    no_mesh_pass: bool,
    /// Skip the ONNX Runtime pass that judges every photo as if its file said nothing of where
    /// the camera focused (the AF points' gain, side by side).
    #[arg(long)]
    no_af_pass: bool,
    /// Skip the ONNX Runtime pass that looks for the subject in every photo no face judges
    /// (what the job did before it looked only where the subject can decide).
    #[arg(long)]
    no_everywhere_pass: bool,
    /// Also run the Immich-style Python pass (scripts/immich-pass.py) with this Python, on the
    /// same photos, SCRFD file and the last --embedder's file, and print the ratio.
    #[arg(long)]
    peer_python: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    run(a)
}

/// What the Python peer prints.
#[derive(Debug, Serialize, Deserialize)]
struct PeerResult {
    photos: usize,
    faces: usize,
    seconds: f64,
    photos_per_s: f64,
    onnxruntime: String,
}

fn peer(python: &Path, dir: &Path, embedder: &str) -> anyhow::Result<PeerResult> {
    let models = crate::services::models_dir(None)?;
    let cards = darkroom_engine::CardSet::builtin()?;
    let file = |id: &str| -> anyhow::Result<PathBuf> { Ok(models.join(&cards.get(id)?.file)) };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/immich-pass.py");
    let mut cmd = Command::new(python);
    cmd.arg(script)
        .arg("--detector")
        .arg(file(darkroom_index::models::DEFAULT_DETECTOR)?)
        .arg("--embedder")
        .arg(file(embedder)?)
        .arg(dir);
    super::inference::worker_json(&mut cmd, "immich-pass.py")
}

use darkroom_index::job::WORK_SIDE;

#[derive(Debug, Serialize, Deserialize)]
struct RuntimeResult {
    runtime: String,
    photos: usize,
    faces: usize,
    decode_threads: usize,
    /// The segmenter(s) the job ran, if any.
    #[serde(default)]
    segmenter: Option<String>,
    /// The face mesh and iris models the job ran, if any.
    #[serde(default)]
    mesh: Option<String>,
    /// Where the job looked for the subject ("deciding", "everywhere").
    #[serde(default)]
    subjects: String,
    /// Each model's session settings ("scrfd_2.5g: all · 2 threads").
    sessions: Vec<String>,
    decode_alone_photos_per_s: f64,
    inference_alone_photos_per_s: f64,
    end_to_end_photos_per_s: f64,
    /// End to end / the slower stage alone.
    overlap_ratio: f64,
    stages: job::StageTimes,
    peak_rss_mib: Option<f64>,
    #[serde(default)]
    decode_split: Option<DecodeSplit>,
}

/// The decode stage's parts on one thread, ms a photo: what the look (scenes, sets, misfires)
/// adds to the decode workers, side by side with what they did before it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DecodeSplit {
    /// `working::load`, the EXIF facts included.
    decode_ms: f64,
    /// Of which the EXIF facts (`facts::from_bytes` on the bytes already read).
    facts_ms: f64,
    /// Luma, focus and the perceptual hash.
    measures_ms: f64,
    /// `looks::measure`: colour layout, thumbnail, tones.
    look_ms: f64,
}

fn decode_split(files: &[PathBuf]) -> DecodeSplit {
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let mut split = DecodeSplit {
        decode_ms: 0.0,
        facts_ms: 0.0,
        measures_ms: 0.0,
        look_ms: 0.0,
    };
    let mut n = 0.0;
    for f in files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let t = Instant::now();
        std::hint::black_box(darkroom_library::facts::from_bytes(&bytes, false));
        split.facts_ms += ms(t);
        let t = Instant::now();
        let Ok(w) = darkroom_library::working::load(f, WORK_SIDE) else {
            continue;
        };
        split.decode_ms += ms(t);
        let t = Instant::now();
        let luma = darkroom_index::luma::of(&w.image);
        let at_side = focus::at_photo_side(&luma);
        std::hint::black_box((focus::laplacian_variance(&at_side), phash::hash_luma(&luma)));
        split.measures_ms += ms(t);
        let t = Instant::now();
        std::hint::black_box(darkroom_index::looks::measure(&w.image, &at_side));
        split.look_ms += ms(t);
        n += 1.0;
    }
    let n = f64::max(n, 1.0);
    split.decode_ms /= n;
    split.facts_ms /= n;
    split.measures_ms /= n;
    split.look_ms /= n;
    split
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

/// The job's models as `darkroom index` opens them: from a pin taken once the probe and the
/// session tuning have reported; and each model's session settings, for the report.
fn models(
    sessions: &darkroom_engine::Sessions,
    detector: Option<String>,
    embedder: Option<String>,
    segmenter: bool,
    mesh: bool,
) -> anyhow::Result<(Models, Vec<String>)> {
    let (backend, wait) = crate::services::start(sessions.store().clone(), false)?;
    if !backend.wait_tuned(wait) {
        bail!(
            "the probe and tuning did not report: {}",
            backend.status().line
        );
    }
    let pin = backend.pin();
    let mut models = darkroom_index::open_models(sessions, &pin, detector, embedder)?;
    if !segmenter {
        models.segmenters = Default::default();
    }
    if !mesh {
        models.mesh = None;
    }
    let mut ids = vec![models.detector.model_id()];
    ids.extend(models.embedder.as_ref().map(FaceEmbedder::model_id));
    ids.extend(models.eyes.as_ref().map(EyeClassifier::model_id));
    if let Some(m) = &models.mesh {
        ids.extend([m.mesh.model_id(), m.iris.model_id()]);
    }
    ids.extend(
        models
            .segmenters
            .id()
            .into_iter()
            .flat_map(|s| s.split('+').map(str::to_owned).collect::<Vec<_>>()),
    );
    let settings = ids
        .into_iter()
        .map(|id| {
            let how = pin
                .placement(&id)
                .session
                .map_or_else(|| "untuned".to_owned(), |s| s.to_string());
            format!("{id}: {how}")
        })
        .collect();
    Ok((models, settings))
}

/// In the child: the three measurements on this process's runtime.
pub fn worker(
    dir: PathBuf,
    detector: Option<String>,
    embedder: Option<String>,
    (no_segmenter, no_mesh, no_af): (bool, bool, bool),
    subjects: darkroom_index::subject::SubjectScope,
) -> anyhow::Result<ExitCode> {
    let files = jpegs(&dir)?;
    let sessions = crate::services::sessions(None)?;
    let runtime = sessions.runtime().summary();
    let (mut models, session_settings) =
        models(&sessions, detector, embedder, !no_segmenter, !no_mesh)?;
    let segmenter = models.segmenters.id();
    let mesh = models
        .mesh
        .as_ref()
        .map(darkroom_engine::face::ExpressionReader::model_id);
    let decode_threads = darkroom_index::job::decode_threads_max();

    // Every file read once first, so no measurement pays for a cold page cache.
    for f in &files {
        std::hint::black_box(std::fs::read(f)?.len());
    }
    // Decode alone, on as many threads as the job may use.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..decode_threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    if let Ok(w) = darkroom_library::working::load(f, WORK_SIDE) {
                        let luma = darkroom_index::luma::of(&w.image);
                        let at_side = focus::at_photo_side(&luma);
                        std::hint::black_box((
                            focus::laplacian_variance(&at_side),
                            phash::hash_luma(&luma),
                            darkroom_index::looks::measure(&w.image, &at_side),
                        ));
                    }
                }
            });
        }
    });
    let decode_alone = files.len() as f64 / started.elapsed().as_secs_f64();
    let split = decode_split(&files);

    // End to end, as `darkroom index` runs it, into a catalog of its own.
    let tmp = tempfile::tempdir()?;
    let mut catalog = Catalog::open(&tmp.path().join("catalog.sqlite"), SidecarNaming::default())?;
    let config = JobConfig {
        photos: files.clone(),
        backend: runtime.clone(),
        decode_threads,
        work_side: WORK_SIDE,
        thresholds: Thresholds {
            subjects,
            af_points: !no_af,
            ..Thresholds::default()
        },
    };
    let summary = job::run(
        &config,
        &mut models,
        &mut catalog,
        &Control::default(),
        &mut |_| {},
    )?;
    let end_to_end = summary.indexed as f64 / summary.seconds;
    // Inference alone on the same photos: each decoded first, untimed, then only detect +
    // embed + eyes + the mesh (+ the subject where the job looked for one) are timed, one
    // thread as in the job.
    let sought: std::collections::HashSet<PathBuf> = catalog
        .indexed_of(&files)?
        .into_iter()
        .filter(|(_, i)| {
            i.stamp.segmenter.is_some() && !darkroom_index::subject::judged_by_faces(&i.faces)
        })
        .map(|(p, _)| p)
        .collect();
    let mut inference_s = 0.0;
    let mut inferred = 0usize;
    let thresholds = Thresholds::default();
    for f in &files {
        let Ok(w) = darkroom_library::working::load(f, WORK_SIDE) else {
            continue;
        };
        let started = Instant::now();
        let faces = models.detector.detect(&w.image)?;
        if let Some(e) = models.embedder.as_mut() {
            let landmarks: Vec<_> = faces.iter().map(|f| f.landmarks).collect();
            std::hint::black_box(e.embed_all(&w.image, &landmarks)?);
        }
        if let Some(eyes) = models.eyes.as_mut() {
            for face in &faces {
                std::hint::black_box(eyes.classify_face(&w.image, &face.landmarks)?);
            }
        }
        if let Some(reader) = models.mesh.as_mut() {
            for face in faces.iter().filter(|f| {
                darkroom_engine::face::eye_distance(&f.landmarks) >= thresholds.eyes_min_distance_px
            }) {
                std::hint::black_box(reader.read(
                    &w.image,
                    face,
                    &darkroom_engine::face::EXPRESSION_RULES,
                )?);
            }
        }
        let eyes = faces
            .iter()
            .map(|f| job::eye_focus(&w.image, f.bbox, &f.landmarks, &thresholds))
            .collect::<Vec<_>>();
        // Only on a photo the job looked in: no face judges it, and the subject can decide.
        if sought.contains(f) && !darkroom_index::subject::judged_by_eyes(eyes.iter().copied()) {
            // At the analysis's size, as the job asks.
            let small = focus::at_photo_side(&darkroom_index::luma::of(&w.image));
            let (lw, lh) = small.dimensions();
            let found = models
                .segmenters
                .find(&w.image, lw, lh)
                .map_err(anyhow::Error::msg)?;
            std::hint::black_box(found.map(|s| focus::subject(&small, &s.mask)));
        }
        inference_s += started.elapsed().as_secs_f64();
        inferred += 1;
    }
    let inference_alone = inferred as f64 / inference_s.max(1e-9);

    let result = RuntimeResult {
        runtime,
        photos: files.len(),
        faces: summary.faces,
        decode_threads,
        segmenter,
        mesh,
        subjects: subjects.name().to_owned(),
        sessions: session_settings,
        decode_alone_photos_per_s: decode_alone,
        inference_alone_photos_per_s: inference_alone,
        end_to_end_photos_per_s: end_to_end,
        overlap_ratio: end_to_end / decode_alone.min(inference_alone),
        stages: summary.stages,
        peak_rss_mib: darkroom_library::measure::status_mib("VmHWM"),
        decode_split: Some(split),
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(ExitCode::SUCCESS)
}

fn spawn(
    dir: &Path,
    tract: bool,
    detector: Option<&str>,
    embedder: Option<&str>,
    segmenter: bool,
    mesh: bool,
    (subjects, af): (darkroom_index::subject::SubjectScope, bool),
) -> anyhow::Result<RuntimeResult> {
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let mut cmd = Command::new(exe);
    cmd.arg("bench-index-worker")
        .arg(dir)
        .arg("--subjects")
        .arg(subjects.name());
    if !af {
        cmd.arg("--no-af");
    }
    if !segmenter {
        cmd.arg("--no-segmenter");
    }
    if !mesh {
        cmd.arg("--no-mesh");
    }
    if let Some(id) = detector {
        cmd.arg("--detector").arg(id);
    }
    if let Some(id) = embedder {
        cmd.arg("--embedder").arg(id);
    }
    if tract {
        cmd.env("DARKROOM_RUNTIME", "tract");
    } else {
        cmd.env_remove("DARKROOM_RUNTIME");
    }
    super::inference::worker_json(&mut cmd, if tract { "tract" } else { "onnxruntime" })
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let dir = a.dir;
    let mut results = Vec::new();
    fn first(v: &[String]) -> Option<&str> {
        v.first().map(String::as_str)
    }
    if !a.no_tract {
        results.push(spawn(
            &dir,
            true,
            first(&a.detector),
            first(&a.embedder),
            true,
            true,
            (SubjectScope::Deciding, true),
        )?);
    }
    let or_default = |v: &[String]| -> Vec<Option<String>> {
        if v.is_empty() {
            vec![None]
        } else {
            v.iter().cloned().map(Some).collect()
        }
    };
    for detector in or_default(&a.detector) {
        for embedder in or_default(&a.embedder) {
            results.push(spawn(
                &dir,
                false,
                detector.as_deref(),
                embedder.as_deref(),
                true,
                true,
                (SubjectScope::Deciding, true),
            )?);
        }
    }
    // The first ONNX Runtime configuration again with one thing changed, where it ran at all
    // and the pass is not skipped: what that thing costs or saves, side by side.
    let first_ort = results.iter().find(|r| !r.runtime.contains("tract"));
    let again = |skip: bool,
                 ran: fn(&RuntimeResult) -> bool,
                 segmenter: bool,
                 mesh: bool,
                 (subjects, af): (SubjectScope, bool)|
     -> anyhow::Result<Option<RuntimeResult>> {
        match first_ort {
            Some(with) if !skip && ran(with) => Ok(Some(spawn(
                &dir,
                false,
                first(&a.detector),
                first(&a.embedder),
                segmenter,
                mesh,
                (subjects, af),
            )?)),
            _ => Ok(None),
        }
    };
    let has_segmenter = |r: &RuntimeResult| r.segmenter.is_some();
    // The segmenter's cost.
    let without = again(
        a.no_segmenter_pass,
        has_segmenter,
        false,
        true,
        (SubjectScope::Deciding, true),
    )?;
    // The face mesh's cost.
    let without_mesh = again(
        a.no_mesh_pass,
        |r| r.mesh.is_some(),
        true,
        false,
        (SubjectScope::Deciding, true),
    )?;
    // The deferral's gain: looking for the subject in every photo no face judges.
    let everywhere = again(
        a.no_everywhere_pass,
        has_segmenter,
        true,
        true,
        (SubjectScope::Everywhere, true),
    )?;
    // The AF points' gain: the same photos judged as if no file said where it focused.
    let without_af = again(
        a.no_af_pass,
        |r| r.stages.judged_at_af > 0,
        true,
        true,
        (SubjectScope::Deciding, false),
    )?;
    let peer = match &a.peer_python {
        Some(py) => {
            let embedder = a
                .embedder
                .last()
                .map_or(darkroom_index::models::DEFAULT_EMBEDDER, String::as_str);
            Some(peer(py, &dir, embedder)?)
        }
        None => None,
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"darkroom": results, "without_segmenter": without, "without_mesh": without_mesh, "subjects_everywhere": everywhere, "without_af": without_af, "peer": peer})
            )?
        );
        return Ok(ExitCode::SUCCESS);
    }
    for r in &results {
        let n = r.photos as f64;
        println!(
            "{}: {} photos, {} faces · end to end {:.2} photos/s · decode alone {:.2} ({} threads) · inference alone {:.2} ({}) · overlap {:.2} · per photo: decode {:.0} ms, detect {:.0} ms, embed {:.0} ms, eyes {:.0} ms, segment {:.0} ms ({}), store {:.0} ms · peak RSS {}",
            r.runtime,
            r.photos,
            r.faces,
            r.end_to_end_photos_per_s,
            r.decode_alone_photos_per_s,
            r.decode_threads,
            r.inference_alone_photos_per_s,
            r.sessions.join("; "),
            r.overlap_ratio,
            r.stages.decode_ms / n,
            r.stages.detect_ms / n,
            r.stages.embed_ms / n,
            r.stages.eyes_ms / n,
            r.stages.segment_ms / n,
            r.segmenter.as_deref().unwrap_or("none"),
            r.stages.store_ms / n,
            r.peak_rss_mib
                .map(|m| format!("{m:.0} MiB"))
                .unwrap_or_else(|| "unknown".into())
        );
        println!(
            "  end to end / decode alone: {:.2} · the job ended with {} decode thread(s); inference waited {:.0} ms a photo for decodes",
            r.end_to_end_photos_per_s / r.decode_alone_photos_per_s,
            r.stages.decode_threads,
            r.stages.waited_ms / n
        );
        if let Some(s) = &r.decode_split {
            let all = s.decode_ms + s.measures_ms + s.look_ms;
            println!(
                "  the decode stage on one thread, per photo: decode {:.1} ms (EXIF facts {:.2} ms) · focus and hash {:.1} ms · look {:.1} ms · the look and the facts: {:.1} % of the stage",
                s.decode_ms,
                s.facts_ms,
                s.measures_ms,
                s.look_ms,
                100.0 * (s.look_ms + s.facts_ms) / all.max(1e-9)
            );
        }
        if let Some(p) = &peer {
            println!(
                "  end to end / Immich-style pass: {:.2}x",
                r.end_to_end_photos_per_s / p.photos_per_s
            );
        }
    }
    if let (Some(off), Some(with)) = (
        &without,
        results.iter().find(|r| !r.runtime.contains("tract")),
    ) {
        let n = with.photos as f64;
        let job_ms = n / with.end_to_end_photos_per_s * 1e3;
        println!(
            "segmenter {}: end to end with it / without: {:.2} ({:.2} vs {:.2} photos/s) · with it / decode alone: {:.2} · its share of the job's time: {:.0} % ({:.0} ms a photo) · it ran on {} of {} photos (no face judges them, and the subject can decide)",
            with.segmenter.as_deref().unwrap_or("none"),
            with.end_to_end_photos_per_s / off.end_to_end_photos_per_s,
            with.end_to_end_photos_per_s,
            off.end_to_end_photos_per_s,
            with.end_to_end_photos_per_s / with.decode_alone_photos_per_s,
            100.0 * with.stages.segment_ms / job_ms.max(1e-9),
            with.stages.segment_ms / n,
            with.stages.segmented,
            with.photos
        );
    }
    if let (Some(all), Some(with)) = (
        &everywhere,
        results.iter().find(|r| !r.runtime.contains("tract")),
    ) {
        let against_peer = |r: &RuntimeResult| {
            peer.as_ref()
                .map(|p| {
                    format!(
                        " ({:.2}x the Immich-style pass)",
                        r.end_to_end_photos_per_s / p.photos_per_s
                    )
                })
                .unwrap_or_default()
        };
        println!(
            "the subject where it can decide / in every photo no face judges: {:.2} ({:.2} photos/s{}, the segmenter on {} of {} photos, vs {:.2}{}, on {})",
            with.end_to_end_photos_per_s / all.end_to_end_photos_per_s,
            with.end_to_end_photos_per_s,
            against_peer(with),
            with.stages.segmented,
            with.photos,
            all.end_to_end_photos_per_s,
            against_peer(all),
            all.stages.segmented
        );
    }
    if let (Some(off), Some(with)) = (
        &without_af,
        results.iter().find(|r| !r.runtime.contains("tract")),
    ) {
        println!(
            "AF points: end to end with them / without: {:.2} ({:.2} vs {:.2} photos/s) · judged at the AF point instead of by the segmenter: {} of {} photos · the segmenter ran on {} with them, {} without ({:.0} vs {:.0} ms of segmenting)",
            with.end_to_end_photos_per_s / off.end_to_end_photos_per_s,
            with.end_to_end_photos_per_s,
            off.end_to_end_photos_per_s,
            with.stages.judged_at_af,
            with.photos,
            with.stages.segmented,
            off.stages.segmented,
            with.stages.segment_ms,
            off.stages.segment_ms
        );
    }
    if let (Some(off), Some(with)) = (
        &without_mesh,
        results.iter().find(|r| !r.runtime.contains("tract")),
    ) {
        println!(
            "face mesh {}: end to end with it / without: {:.2} ({:.2} vs {:.2} photos/s) · {:.1} ms a face (the mesh and both irises) on {} faces",
            with.mesh.as_deref().unwrap_or("none"),
            with.end_to_end_photos_per_s / off.end_to_end_photos_per_s,
            with.end_to_end_photos_per_s,
            off.end_to_end_photos_per_s,
            with.stages.mesh_ms / with.stages.meshed.max(1) as f64,
            with.stages.meshed
        );
    }
    if let Some(p) = &peer {
        println!(
            "Immich-style pass (Python, insightface, ONNX Runtime {}): {} photos, {} faces, {:.2} photos/s",
            p.onnxruntime, p.photos, p.faces, p.photos_per_s
        );
    }
    Ok(ExitCode::SUCCESS)
}
