//! `darkroom index FOLDER`: the face index job headless. Scans the folder, pins the backend,
//! opens the detector, the embedder and an eye-state model where installed, indexes every photo
//! not already indexed with the same file and models, then looks for the subject where it can
//! change a decision (`--subjects everywhere`: every photo no face judges; a progress bar on
//! stderr), then prints a
//! summary: photos, faces, people, bursts, blurry, eyes closed, backend and model_ids. `--json`
//! prints the same with every photo's results.

use std::path::PathBuf;
use std::process::ExitCode;

use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_index::analysis::{ScenePlace, SetPlace, Tones};
use darkroom_index::{Control, Event, JobConfig, job};
use serde::Serialize;

use crate::services::cull_settings;
use darkroom_index::cull::{self, ProposedOut};

#[derive(Debug, clap::Args)]
pub struct Args {
    pub folder: PathBuf,
    /// Print the summary and every photo's results as JSON.
    #[arg(long)]
    pub json: bool,
    /// The catalog (default: <data dir>/catalog.sqlite).
    #[arg(long)]
    pub catalog: Option<PathBuf>,
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Detector model_id (default: the window's choice in Settings, else scrfd_2.5g if
    /// installed, else the first installed).
    #[arg(long)]
    pub detector: Option<String>,
    /// Embedder model_id (default: the first installed; none installed: no people).
    #[arg(long)]
    pub embedder: Option<String>,
    /// Decoding threads at most (default: every core); the job starts with one and adds
    /// them while inference waits for decodes.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Whose verdict a face's eyes get: `mesh` (the face mesh's lids, the default where it is
    /// installed) or `classifier` (the eye-state model). Each stands in where the other
    /// cannot judge.
    #[arg(long)]
    pub eye_judge: Option<darkroom_index::eyes::EyeJudge>,
    /// Which photos the segmenter looks for a subject in, after every photo's faces:
    /// `deciding` (the default: a photo no face judges that competes with others of its burst
    /// or scene) or `everywhere` (every photo no face judges; the segmenter costs about half a
    /// second a photo on two cores).
    #[arg(long)]
    pub subjects: Option<darkroom_index::subject::SubjectScope>,
}

/// A face's expression as the mesh measured it, with what the rules make of it.
#[derive(Serialize)]
struct ExpressionOut {
    /// Each eye's lid gap over its width, the photo's left-hand eye first.
    eye_open: [f32; 2],
    /// Each eye's state: "open", "half" or "closed".
    eyes: [darkroom_engine::face::Openness; 2],
    smile: f32,
    smiling: bool,
    /// Degrees from the camera: yaw (+ to the photo's right), pitch (+ down).
    gaze: [f32; 2],
    looking_away: bool,
    /// The head's turn in degrees, the same way.
    head: [f32; 2],
}

impl ExpressionOut {
    fn of(row: &darkroom_catalog::ExpressionRow) -> ExpressionOut {
        let rules = &darkroom_engine::face::EXPRESSION_RULES;
        let e = darkroom_index::eyes::expression_of(row);
        ExpressionOut {
            eye_open: e.eye_open,
            eyes: rules.eyes(&e),
            smile: e.smile,
            smiling: rules.smiling(&e),
            gaze: e.gaze,
            looking_away: rules.looking_away(&e),
            head: e.head,
        }
    }
}

#[derive(Serialize)]
struct FaceOut {
    #[serde(rename = "box")]
    bbox: [f32; 4],
    score: f32,
    person: Option<i64>,
    sharpness: f32,
    /// "open", "closed" (the eyes' judge's verdict: a blink), or absent where nothing could
    /// judge them.
    #[serde(skip_serializing_if = "Option::is_none")]
    eyes: Option<&'static str>,
    /// The face mesh's measures, where it ran and saw a face.
    #[serde(skip_serializing_if = "Option::is_none")]
    expression: Option<ExpressionOut>,
    /// The sharper eye's sharpness, where the eyes could be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    eyes_sharpness: Option<f32>,
    eyes_soft: bool,
}

#[derive(Serialize)]
struct AfOut {
    #[serde(flatten)]
    focus: darkroom_index::analysis::AfFocus,
    /// The area in the photo's pixels (as shown): left, top, right, bottom.
    area_pixels: [u32; 4],
}

impl AfOut {
    fn of(focus: darkroom_index::analysis::AfFocus, i: &darkroom_catalog::PhotoIndex) -> Self {
        let px = |f: f32, side: u32| (f * side as f32).round().clamp(0.0, side as f32) as u32;
        let a = focus.area;
        AfOut {
            area_pixels: [
                px(a[0], i.width),
                px(a[1], i.height),
                px(a[2], i.width),
                px(a[3], i.height),
            ],
            focus,
        }
    }
}

#[derive(Serialize)]
struct PhotoOut {
    path: PathBuf,
    burst: Option<usize>,
    /// The frame suggested to keep from its burst.
    suggested: bool,
    sharpness: f32,
    blurry: bool,
    eyes_closed: bool,
    /// A face of it had its eyes judged: its faces judge it, and it has no subject.
    judged_by_faces: bool,
    /// The subject's focus, where a segmenter found one in a photo its faces do not judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<darkroom_index::analysis::SubjectFocus>,
    /// A segmenter looked for its subject (`subject` is what it found): the index looks where
    /// the subject can change a decision (`--subjects`).
    subject_sought: bool,
    /// Where the camera focused (its maker notes' AF area, as fractions of the photo as shown
    /// and in its pixels), the sharpness there and against the best of its burst or scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    af: Option<AfOut>,
    eyes_soft: bool,
    faces: Vec<FaceOut>,
    scene: Option<ScenePlace>,
    /// The bracket or pan it belongs to.
    set: Option<SetPlace>,
    /// Shares of the frame black, white and clipped, and its contrast.
    tones: Option<Tones>,
    /// What the auto-cull proposal (the window's rules) says of it, and why.
    proposed: Option<ProposedOut>,
    /// The scene model's tags (sky, water, person…) with the share of the frame each covers.
    tags: Vec<(darkroom_index::tags::SceneTag, f32)>,
    /// Every class the scene model saw and its share, largest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    scene_classes: Vec<(String, f32)>,
}

#[derive(Serialize)]
struct ModelIds {
    detector: String,
    embedder: Option<String>,
    eyes: Option<String>,
    mesh: Option<String>,
    segmenter: Option<String>,
    scene: Option<String>,
}

#[derive(Serialize)]
struct Report {
    backend: String,
    model_ids: ModelIds,
    photos: usize,
    indexed: usize,
    skipped: usize,
    /// Indexed before with the same face models: only the newer measures were taken.
    remeasured: usize,
    /// Photos whose subject the segmenter looked for, after every photo's faces.
    sought: usize,
    failed: Vec<Failure>,
    faces: usize,
    people: usize,
    bursts: usize,
    scenes: usize,
    /// Brackets and pans.
    sets: usize,
    blurry: usize,
    eyes_closed: usize,
    cancelled: bool,
    seconds: f64,
    stages: job::StageTimes,
    results: Vec<PhotoOut>,
}

#[derive(Serialize)]
struct Failure {
    path: PathBuf,
    error: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let folder = &args.folder;
    if !folder.is_dir() {
        anyhow::bail!("not a folder: {}", folder.display());
    }
    let (photos, problems) = cull::photos_in(folder);
    let mut failed: Vec<Failure> = problems
        .into_iter()
        .map(|(path, error)| Failure { path, error })
        .collect();
    let sessions = crate::services::sessions(args.models.clone())?;
    // A batch job waits for the probe and the session tuning (both cached after the first
    // run), then pins what they found for its whole length.
    let (backend, wait) = crate::services::start(sessions.store().clone(), false)?;
    backend.wait_tuned(wait);
    let pin = backend.pin();
    // The window's choices (detector, blurry threshold) hold here too, unless a flag says.
    let window = crate::services::window_settings();
    let mut models = darkroom_index::open_models(
        &sessions,
        &pin,
        args.detector.clone().or(window.detector.clone()),
        args.embedder.clone(),
    )?;
    let catalog_path = crate::services::catalog_path(args.catalog.clone())?;
    let mut catalog = Catalog::open(&catalog_path, SidecarNaming::default())?;
    let (mut thresholds, rules) = cull_settings::rules_of(&window);
    if let Some(judge) = args.eye_judge {
        thresholds.eye_judge = judge;
    }
    if let Some(scope) = args.subjects {
        thresholds.subjects = scope;
    }
    let config = JobConfig {
        photos: photos.clone(),
        backend: pin.line.clone(),
        decode_threads: args
            .threads
            .unwrap_or_else(darkroom_index::job::decode_threads_max),
        work_side: darkroom_index::job::WORK_SIDE,
        thresholds: thresholds.clone(),
    };
    let bar = indicatif::ProgressBar::new(photos.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} photos · {msg} · ETA {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let control = Control::default();
    let summary = job::run(
        &config,
        &mut models,
        &mut catalog,
        &control,
        &mut |event| match event {
            Event::Started { photos, to_index } => {
                bar.set_length(to_index as u64);
                bar.set_message(format!("{} already indexed", photos - to_index));
            }
            Event::Progress(p) => {
                bar.set_position(p.done as u64);
                bar.set_message(format!("{:.1} photos/s", p.photos_per_s));
            }
            Event::Failed { path, error } => {
                bar.suspend(|| eprintln!("darkroom: {error}: {}", path.display()));
            }
            Event::FirstPass { to_look } => {
                bar.inc_length(to_look as u64);
                bar.set_message(format!("the subject of {to_look} photos"));
            }
            Event::Indexed { .. } | Event::SubjectSought { .. } => {}
        },
    )?;
    bar.finish_and_clear();
    failed.extend(summary.failed.iter().map(|(path, error)| Failure {
        path: path.clone(),
        error: error.clone(),
    }));

    // What the rows say about the whole folder, new and already indexed alike (the folder's
    // rows only, not the catalog's), in path order.
    let indexed = cull::indexed_rows(&catalog, &photos)?;
    let analysed = darkroom_index::analyse(&indexed, &thresholds);
    // The proposal the window would make now, with its reasons.
    let indexed_paths: Vec<PathBuf> = indexed.iter().map(|(p, _)| p.clone()).collect();
    let proposed = cull::propose(
        &analysed,
        &cull::decisions(&catalog, &indexed_paths),
        &rules,
    );
    let names = cull::person_names(&catalog, &indexed)?;
    let person = |id: i64| cull::person_label(&names, id);
    let scenes = analysed
        .iter()
        .filter_map(|a| a.scene.as_ref().map(|s| s.id))
        .collect::<std::collections::HashSet<_>>()
        .len();
    let sets = analysed
        .iter()
        .filter_map(|a| a.set.as_ref().map(|s| s.id))
        .collect::<std::collections::HashSet<_>>()
        .len();
    let bursts = analysed
        .iter()
        .filter_map(|a| a.burst.as_ref().map(|b| b.id))
        .collect::<std::collections::HashSet<_>>()
        .len();
    let results: Vec<PhotoOut> = indexed
        .iter()
        .zip(analysed)
        .zip(&proposed)
        .map(|(((_, i), a), p)| PhotoOut {
            scene: a.scene,
            set: a.set,
            tones: a.tones,
            proposed: p.as_ref().map(|p| cull::proposed_out(p, &person)),
            tags: a.tags,
            scene_classes: i.scene_classes.clone(),
            path: a.path,
            burst: a.burst.as_ref().map(|b| b.id),
            suggested: a.burst.as_ref().is_some_and(|b| b.suggested),
            sharpness: a.sharpness,
            blurry: a.blurry,
            eyes_closed: a.eyes_closed,
            judged_by_faces: a.judged_by_faces,
            subject: a.subject,
            subject_sought: a.subject_sought,
            af: a.af.map(|f| AfOut::of(f, i)),
            eyes_soft: a.eyes_soft,
            faces: i
                .faces
                .iter()
                .map(|f| FaceOut {
                    bbox: f.bbox,
                    score: f.score,
                    person: f.person,
                    sharpness: f.sharpness,
                    eyes: f.eyes_closed.map(|c| if c { "closed" } else { "open" }),
                    expression: f.expression.as_ref().map(ExpressionOut::of),
                    eyes_sharpness: f.eyes_sharpness,
                    eyes_soft: darkroom_index::analysis::eyes_soft(
                        f.eyes_sharpness,
                        f.sharpness,
                        &thresholds,
                    ),
                })
                .collect(),
        })
        .collect();
    let people: std::collections::HashSet<i64> = results
        .iter()
        .flat_map(|r| r.faces.iter().filter_map(|f| f.person))
        .collect();
    let report = Report {
        backend: summary.backend.clone(),
        model_ids: ModelIds {
            detector: summary.detector.clone(),
            embedder: summary.embedder.clone(),
            eyes: summary.eyes.clone(),
            mesh: summary.mesh.clone(),
            segmenter: summary.segmenter.clone(),
            scene: summary.scene.clone(),
        },
        photos: photos.len(),
        indexed: summary.indexed,
        skipped: summary.skipped,
        remeasured: summary.remeasured,
        sought: summary.sought,
        faces: results.iter().map(|r| r.faces.len()).sum(),
        people: people.len(),
        bursts,
        scenes,
        sets,
        blurry: results.iter().filter(|r| r.blurry).count(),
        eyes_closed: results.iter().filter(|r| r.eyes_closed).count(),
        cancelled: summary.cancelled,
        seconds: summary.seconds,
        stages: summary.stages.clone(),
        failed,
        results,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} photos ({} indexed now, {} measured again, {} already, {} failed) · {} faces · {} people · {} bursts · {} scenes · {} sets · {} blurry · {} with eyes closed · subject looked for in {} · judged at the AF point instead in {}",
            report.photos,
            report.indexed,
            report.remeasured,
            report.skipped,
            report.failed.len(),
            report.faces,
            report.people,
            report.bursts,
            report.scenes,
            report.sets,
            report.blurry,
            report.eyes_closed,
            report.sought,
            report.stages.judged_at_af
        );
        println!(
            "{} · detector {}{}{} · {:.1} s",
            report.backend,
            report.model_ids.detector,
            report
                .model_ids
                .embedder
                .as_ref()
                .map(|e| format!(" · embedder {e}"))
                .unwrap_or_default(),
            report
                .model_ids
                .eyes
                .as_ref()
                .map(|e| format!(" · eyes {e}"))
                .unwrap_or_default(),
            report.seconds
        );
    }
    Ok(ExitCode::SUCCESS)
}
