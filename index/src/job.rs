//! The index job. Decoding (at the size analysis needs), focus and the perceptual hash run on
//! up to `decode_threads` workers that feed a bounded queue: one at first, another each time
//! inference has been waiting for decodes ([`DecodeGate`]), so the split between decoding and
//! inference follows what this photo set on this machine measures; the calling thread, which owns the
//! sessions (opened by the caller from its `JobPin`, so the backend is fixed for the whole job)
//! and the catalog, detects, aligns, embeds, reads eye state, assigns people and commits one
//! photo at a time. The queue's bound is the backpressure: decoding runs at most a few photos
//! ahead of inference. Photos indexed before with the same file and the same model_ids are
//! skipped, so a job is resumable by running it again. The subject, the costliest model's
//! verdict, is a second pass through the same pipeline once every photo's faces are in, only
//! where it can change a decision ([`subjects_wanted`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant, UNIX_EPOCH};

use darkroom_catalog::{
    AfRow, Catalog, CatalogError, ExposureRow, FaceRow, IndexStamp, JudgedFace, LookRow, MEASURES,
    PersonRow, PhotoIndex, Remeasured,
};
use darkroom_engine::face::{
    ExpressionReader, EyeClassifier, Face, FaceDetector, FaceEmbedder, eye_distance,
};
use darkroom_engine::scene::SceneParser;
use darkroom_library::working::{self, Working};
use serde::{Deserialize, Serialize};

use crate::analysis;
use crate::eyes::{EyeModels, Judged};
use crate::people::{People, Person};
use crate::subject::{self, Segmenters};
pub use crate::thresholds::Thresholds;
use crate::{focus, looks, luma, phash};

/// Analysis decodes a photo with at least this long an edge (where it has it): the size the
/// faces' models and the subject's focus are measured at.
pub const WORK_SIDE: u32 = 1440;

/// The sessions one job runs on, all opened from the same pin.
pub struct Models {
    pub detector: FaceDetector,
    pub embedder: Option<FaceEmbedder>,
    pub eyes: Option<EyeClassifier>,
    /// The face mesh and iris models, where installed: each face's expression.
    pub mesh: Option<ExpressionReader>,
    /// What finds the subject; with neither, a photo is judged on the whole frame alone.
    pub segmenters: Segmenters,
    /// The scene model (the user's ADE20K weights), where installed: the photo's classes.
    pub scene: Option<SceneParser>,
}

#[derive(Debug, Clone)]
pub struct JobConfig {
    pub photos: Vec<PathBuf>,
    /// The pinned backend's line, recorded with every photo.
    pub backend: String,
    /// At most this many decode threads ([`decode_threads_max`] by default); the job starts
    /// with one and adds one whenever inference has been waiting for decodes.
    pub decode_threads: usize,
    /// Analysis decodes a photo with at least this long an edge (where it has it).
    pub work_side: u32,
    pub thresholds: Thresholds,
}

/// Pause, resume and cancel a running job from another thread.
#[derive(Default)]
pub struct Control {
    cancelled: AtomicBool,
    paused: Mutex<bool>,
    wake: Condvar,
    /// How many times the job was paused: a wait that spans a pause is not a measurement.
    pauses: AtomicUsize,
}

impl Control {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        self.wake.notify_all();
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    pub fn set_paused(&self, paused: bool) {
        if paused {
            self.pauses.fetch_add(1, Ordering::Relaxed);
        }
        *self.paused.lock().unwrap_or_else(PoisonError::into_inner) = paused;
        self.wake.notify_all();
    }

    fn pauses(&self) -> usize {
        self.pauses.load(Ordering::Relaxed)
    }

    pub fn is_paused(&self) -> bool {
        *self.paused.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Block while paused; false once cancelled.
    fn proceed(&self) -> bool {
        let mut paused = self.paused.lock().unwrap_or_else(PoisonError::into_inner);
        while *paused && !self.is_cancelled() {
            paused = self
                .wake
                .wait_timeout(paused, Duration::from_millis(200))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        !self.is_cancelled()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub done: usize,
    pub to_index: usize,
    pub photos_per_s: f64,
    pub eta_s: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Started {
        photos: usize,
        to_index: usize,
    },
    Indexed {
        path: PathBuf,
        faces: usize,
    },
    Failed {
        path: PathBuf,
        error: String,
    },
    Progress(Progress),
    /// Every photo's faces are in: the proposal's first pass can be made. `to_look` photos
    /// follow, their subject looked for.
    FirstPass {
        to_look: usize,
    },
    /// The second pass looked for a photo's subject.
    SubjectSought {
        path: PathBuf,
        found: bool,
    },
}

/// Milliseconds spent per stage, summed over photos (decode runs on several threads at once).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTimes {
    pub decode_ms: f64,
    /// Time inference spent waiting for a decode.
    #[serde(default)]
    pub waited_ms: f64,
    /// Decode threads working at the end (the job adds them while inference waits).
    #[serde(default)]
    pub decode_threads: usize,
    pub detect_ms: f64,
    pub embed_ms: f64,
    pub eyes_ms: f64,
    /// The face mesh and the iris model on each face.
    #[serde(default)]
    pub mesh_ms: f64,
    /// Faces the mesh ran on.
    #[serde(default)]
    pub meshed: usize,
    /// Finding the subject and measuring it.
    #[serde(default)]
    pub segment_ms: f64,
    /// Photos the segmenter ran on: those no face judges where its verdict can decide.
    #[serde(default)]
    pub segmented: usize,
    /// Photos it did not run on because the camera recorded where it focused: a frame no face
    /// judges is judged at its AF area instead ([`subjects_wanted`]).
    #[serde(default)]
    pub judged_at_af: usize,
    /// The scene model's time.
    #[serde(default)]
    pub scene_ms: f64,
    pub store_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub photos: usize,
    pub indexed: usize,
    pub skipped: usize,
    /// Photos indexed before with the same faces' models whose newer measures (subject,
    /// eye-level focus) were taken without detecting again.
    pub remeasured: usize,
    /// Photos whose subject the second pass looked for.
    pub sought: usize,
    pub failed: Vec<(PathBuf, String)>,
    pub faces: usize,
    pub cancelled: bool,
    pub backend: String,
    pub detector: String,
    pub embedder: Option<String>,
    /// The eyes' judge's model_id.
    pub eyes: Option<String>,
    /// The face mesh's (and iris model's), where they ran.
    pub mesh: Option<String>,
    pub segmenter: Option<String>,
    /// The scene model's model_id, where one ran.
    pub scene: Option<String>,
    pub seconds: f64,
    pub stages: StageTimes,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

/// What a photo needs: everything, or only the measures added since it was indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    Index,
    Measure,
    /// The subject, looked for after every photo's faces (the second pass).
    Subject,
}

/// A photo ready for inference.
struct Decoded {
    path: PathBuf,
    pass: Pass,
    stamp: (u64, i64),
    work: Working,
    /// Its luma at [`focus::PHOTO_SIDE`]: the scale of the photo's measures.
    luma: image::GrayImage,
    sharpness: f32,
    phash: u64,
    look: LookRow,
    exposure: ExposureRow,
    /// Where the camera focused, and the sharpness there.
    af: Option<AfRow>,
    decode_ms: f64,
}

fn file_stamp(path: &Path) -> Result<(u64, i64), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    Ok((meta.len(), mtime))
}

fn decode(path: &Path, pass: Pass, work_side: u32) -> Result<Decoded, String> {
    let started = Instant::now();
    let stamp = file_stamp(path)?;
    let work = working::load(path, work_side).map_err(|e| e.cause())?;
    let full_luma = luma::of(&work.image);
    let phash = phash::hash_luma(&full_luma);
    let luma = focus::at_photo_side(&full_luma);
    let sharpness = focus::laplacian_variance(&luma);
    let look = looks::measure(&work.image, &luma);
    let exposure = ExposureRow {
        bias: work.facts.exposure_bias,
        ev: work.facts.exposure_value(),
        auto_bracket: work.facts.auto_bracket,
    };
    // Where the camera focused, as its maker notes say, on the photo as decoded (upright).
    let af = work.facts.af.as_ref().and_then(|af| {
        let area = af.focus_area()?;
        Some(AfRow {
            area,
            mode: af.mode.clone(),
            sharpness: focus::af_area(&luma, area),
        })
    });
    Ok(Decoded {
        path: path.to_path_buf(),
        pass,
        stamp,
        work,
        luma,
        sharpness,
        phash,
        look,
        exposure,
        af,
        decode_ms: started.elapsed().as_secs_f64() * 1e3,
    })
}

/// The most decode threads a job may use: every core. Inference's own threads are the
/// sessions' (fixed when they open); a decoder that waits on the full queue costs nothing.
pub fn decode_threads_max() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// How many decode threads may work: the rest wait here until inference, having waited for
/// decodes, lets one more in, or until there is nothing left to decode.
struct DecodeGate {
    active: Mutex<usize>,
    changed: Condvar,
    max: usize,
}

/// Inference waiting this share of its time or more for decodes adds a decoder.
const WAITING_SHARE_FOR_ANOTHER_DECODER: f64 = 0.15;
/// Photos between two decisions about the decoders: enough for the queue to settle.
const PHOTOS_PER_DECISION: usize = 3;

impl DecodeGate {
    fn new(max: usize) -> Self {
        DecodeGate {
            active: Mutex::new(1.min(max)),
            changed: Condvar::new(),
            max,
        }
    }

    fn active(&self) -> usize {
        *self.active.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Let one more decoder work, up to the most; false when all already do.
    fn add(&self) -> bool {
        let mut active = self.active.lock().unwrap_or_else(PoisonError::into_inner);
        if *active >= self.max {
            return false;
        }
        *active += 1;
        self.changed.notify_all();
        true
    }

    /// Block decoder `n` until it may work; false when it should stop instead (cancelled, or
    /// `nothing_left`).
    fn admit(&self, n: usize, control: &Control, nothing_left: &dyn Fn() -> bool) -> bool {
        let mut active = self.active.lock().unwrap_or_else(PoisonError::into_inner);
        while n >= *active {
            if control.is_cancelled() || nothing_left() {
                return false;
            }
            active = self
                .changed
                .wait_timeout(active, Duration::from_millis(50))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

/// Inference's time waiting for decodes and working, photo by photo, and when it calls for
/// another decoder: every [`PHOTOS_PER_DECISION`] photos measured, if it waited
/// [`WAITING_SHARE_FOR_ANOTHER_DECODER`] of that time or more. The first photo is waited for
/// whatever the split, and a wait that spanned a pause is the person's, not the decoders':
/// neither is a measurement.
#[derive(Default)]
struct WaitMeter {
    waited_ms: f64,
    worked_ms: f64,
    photos: usize,
    first_seen: bool,
}

impl WaitMeter {
    /// One photo: waited `waited_ms` for its decode, then worked `worked_ms` on it. True when
    /// another decoder should be let in.
    fn photo(&mut self, waited_ms: f64, worked_ms: f64, paused_meanwhile: bool) -> bool {
        if !std::mem::replace(&mut self.first_seen, true) || paused_meanwhile {
            return false;
        }
        self.waited_ms += waited_ms;
        self.worked_ms += worked_ms;
        self.photos += 1;
        if self.photos < PHOTOS_PER_DECISION {
            return false;
        }
        let more =
            self.waited_ms >= WAITING_SHARE_FOR_ANOTHER_DECODER * (self.waited_ms + self.worked_ms);
        *self = WaitMeter {
            first_seen: true,
            ..WaitMeter::default()
        };
        more
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Index `config.photos` with `models`, recording into `catalog`; `on_event` hears about every
/// photo and the progress. A photo that cannot be read is reported and skipped.
///
/// Two passes: every photo's faces, expressions, focus and looks first, so the proposal can be
/// made from them ([`Event::FirstPass`]); then the subject, the costliest model's verdict, only
/// in the photos where [`Thresholds::subjects`] says it can change a decision.
pub fn run(
    config: &JobConfig,
    models: &mut Models,
    catalog: &mut Catalog,
    control: &Control,
    on_event: &mut dyn FnMut(Event),
) -> Result<Summary, IndexError> {
    let started = Instant::now();
    let detector_id = models.detector.model_id();
    let embedder_id = models.embedder.as_ref().map(FaceEmbedder::model_id);
    // An embedder's card may state its own threshold (its cosines are its own scale).
    let same_person = models
        .embedder
        .as_ref()
        .and_then(FaceEmbedder::same_person)
        .unwrap_or(config.thresholds.person_similarity);
    let eyes_id = eye_models(models, &config.thresholds).judge_id();
    let mesh_id = models.mesh.as_ref().map(ExpressionReader::model_id);
    let segmenter_id = models.segmenters.id();
    let scene_id = models.scene.as_ref().map(SceneParser::model_id);
    let mut summary = Summary {
        photos: config.photos.len(),
        indexed: 0,
        skipped: 0,
        remeasured: 0,
        sought: 0,
        failed: Vec::new(),
        faces: 0,
        cancelled: false,
        backend: config.backend.clone(),
        detector: detector_id.clone(),
        embedder: embedder_id.clone(),
        eyes: eyes_id.clone(),
        mesh: mesh_id.clone(),
        segmenter: segmenter_id.clone(),
        scene: scene_id.clone(),
        seconds: 0.0,
        stages: StageTimes::default(),
    };
    // The first pass writes no segmenter: the second records the one that looked.
    let stamp_for = |size: u64, mtime_ns: i64| IndexStamp {
        size,
        mtime_ns,
        detector: detector_id.clone(),
        embedder: embedder_id.clone(),
        eyes: eyes_id.clone(),
        segmenter: None,
        measures: MEASURES,
        scene: scene_id.clone(),
        mesh: mesh_id.clone(),
    };

    // Resume: what is indexed with this file and these models already is done; what has the
    // same faces but older measures (or another segmenter's subject) is only measured again.
    let mut todo: Vec<(PathBuf, Pass)> = Vec::new();
    for path in &config.photos {
        match file_stamp(path) {
            Ok((size, mtime)) => {
                let want = stamp_for(size, mtime);
                match catalog.index_stamp(path)? {
                    Some(had)
                        if subject_stands(&had, segmenter_id.as_deref())
                            && IndexStamp {
                                segmenter: None,
                                ..had.clone()
                            } == want =>
                    {
                        summary.skipped += 1;
                    }
                    Some(had) if had.same_faces(&want) => todo.push((path.clone(), Pass::Measure)),
                    _ => todo.push((path.clone(), Pass::Index)),
                }
            }
            Err(error) => {
                on_event(Event::Failed {
                    path: path.clone(),
                    error: error.clone(),
                });
                summary.failed.push((path.clone(), error));
            }
        }
    }
    on_event(Event::Started {
        photos: config.photos.len(),
        to_index: todo.len(),
    });

    // Held to the end of the job, where it will find people: another job's at once would
    // clash with these (the same new ids, each other's centres overwritten).
    let finds_people = embedder_id.is_some() && todo.iter().any(|(_, pass)| *pass == Pass::Index);
    let _people_lock = finds_people.then(|| catalog.lock_people()).transpose()?;
    let people = embedder_id
        .as_ref()
        .map(|id| -> Result<People, IndexError> {
            let rows = catalog.people(id)?;
            let known = rows
                .into_iter()
                .map(|p| Person {
                    id: p.id,
                    sum: p.sum,
                    faces: p.faces,
                })
                .collect();
            Ok(People::new(
                id.clone(),
                same_person,
                known,
                catalog.next_person_id()?,
            ))
        });
    let mut people = people.transpose()?;

    let inference_started = Instant::now();
    let mut done = 0usize;
    let mut to_do = todo.len();
    let progress = |done: usize, to_do: usize, on_event: &mut dyn FnMut(Event)| {
        let elapsed = inference_started.elapsed().as_secs_f64();
        let rate = done as f64 / elapsed.max(1e-6);
        on_event(Event::Progress(Progress {
            done,
            to_index: to_do,
            photos_per_s: rate,
            eta_s: (rate > 0.0).then(|| to_do.saturating_sub(done) as f64 / rate),
        }));
    };
    let first = pipeline(&todo, config, control, &mut |item| {
        match item {
            Err((path, error)) => summary.fail(path, error, on_event),
            Ok(d) if d.pass == Pass::Measure => {
                summary.stages.decode_ms += d.decode_ms;
                let stamp = stamp_for(d.stamp.0, d.stamp.1);
                match remeasure(
                    &d,
                    stamp,
                    segmenter_id.as_deref(),
                    models,
                    catalog,
                    &config.thresholds,
                    &mut summary.stages,
                ) {
                    Ok(faces) => {
                        summary.remeasured += 1;
                        on_event(Event::Indexed {
                            path: d.path.clone(),
                            faces,
                        });
                    }
                    Err(error) => summary.fail(d.path.clone(), error, on_event),
                }
            }
            Ok(d) => {
                summary.stages.decode_ms += d.decode_ms;
                match infer(
                    &d,
                    models,
                    people.as_mut(),
                    &config.thresholds,
                    &mut summary.stages,
                ) {
                    Ok((faces, changed, scene_classes)) => {
                        let index = PhotoIndex {
                            stamp: stamp_for(d.stamp.0, d.stamp.1),
                            backend: config.backend.clone(),
                            width: d.work.full_size.0,
                            height: d.work.full_size.1,
                            sharpness: d.sharpness,
                            phash: d.phash,
                            captured_at: d.work.captured_at,
                            body: d.work.facts.body(),
                            clock_offset_s: 0.0,
                            faces,
                            subject: None,
                            look: Some(d.look.clone()),
                            exposure: d.exposure,
                            af: d.af.clone(),
                            scene_classes,
                        };
                        let t = Instant::now();
                        catalog.store_index(&d.path, &index, &changed)?;
                        summary.stages.store_ms += ms(t);
                        summary.indexed += 1;
                        summary.faces += index.faces.len();
                        on_event(Event::Indexed {
                            path: d.path.clone(),
                            faces: index.faces.len(),
                        });
                    }
                    Err(error) => summary.fail(d.path.clone(), error, on_event),
                }
            }
        }
        done += 1;
        progress(done, to_do, on_event);
        Ok(())
    })?;
    summary.stages.waited_ms += first.waited_ms;
    summary.stages.decode_threads = first.decode_threads;
    summary.cancelled = first.cancelled;

    // The second pass: the subject where its verdict can change a decision, judged on the
    // rows the first pass wrote (the proposal's first pass is made from them meanwhile).
    if let (false, Some(segmenter)) = (summary.cancelled, segmenter_id.as_deref()) {
        let indexed = catalog.indexed_of(&config.photos)?;
        // A photo the first pass could not index keeps an old row, if any: not looked in.
        let failed: std::collections::HashSet<&Path> =
            summary.failed.iter().map(|(p, _)| p.as_path()).collect();
        let (wanted, judged_at_af) = subjects_to_seek(&indexed, &config.thresholds, segmenter);
        summary.stages.judged_at_af = judged_at_af;
        let wanted: Vec<(PathBuf, Pass)> = wanted
            .into_iter()
            .filter(|p| !failed.contains(p.as_path()))
            .map(|p| (p, Pass::Subject))
            .collect();
        if !wanted.is_empty() && control.is_cancelled() {
            // Cancelled between the passes: the subjects wait for the next job.
            summary.cancelled = true;
        } else if !wanted.is_empty() {
            on_event(Event::FirstPass {
                to_look: wanted.len(),
            });
            to_do += wanted.len();
            let second = pipeline(&wanted, config, control, &mut |item| {
                match item {
                    Err((path, error)) => summary.fail(path, error, on_event),
                    Ok(d) => {
                        summary.stages.decode_ms += d.decode_ms;
                        match seek_subject(
                            &d,
                            &mut models.segmenters,
                            catalog,
                            &mut summary.stages,
                        )? {
                            Ok(found) => {
                                summary.sought += 1;
                                on_event(Event::SubjectSought {
                                    path: d.path.clone(),
                                    found,
                                });
                            }
                            Err(error) => summary.fail(d.path.clone(), error, on_event),
                        }
                    }
                }
                done += 1;
                progress(done, to_do, on_event);
                Ok(())
            })?;
            summary.stages.waited_ms += second.waited_ms;
            summary.cancelled = second.cancelled;
        }
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

impl Summary {
    /// Report a photo that could not be indexed, and keep it.
    fn fail(&mut self, path: PathBuf, error: String, on_event: &mut dyn FnMut(Event)) {
        on_event(Event::Failed {
            path: path.clone(),
            error: error.clone(),
        });
        self.failed.push((path, error));
    }
}

/// Whether a row's subject stands for a job whose segmenter is `segmenter`: none was looked for
/// yet (the second pass decides), this segmenter looked, or the job has none to look again
/// with (what one found, the loupe's looks among them, is kept rather than lost). Another
/// segmenter's is measured again.
fn subject_stands(had: &IndexStamp, segmenter: Option<&str>) -> bool {
    had.segmenter.is_none() || segmenter.is_none() || had.segmenter.as_deref() == segmenter
}

/// The photos of `indexed` whose subject the second pass looks for: no face judges them, the
/// camera recorded no AF area measured in them (that judges them, at a fraction of the
/// segmenter's cost), `segmenter` has not looked in them yet, and [`Thresholds::subjects`] says
/// its verdict can change a decision there.
pub fn subjects_wanted(
    indexed: &[(PathBuf, PhotoIndex)],
    thresholds: &Thresholds,
    segmenter: &str,
) -> Vec<PathBuf> {
    subjects_to_seek(indexed, thresholds, segmenter).0
}

/// How many photos [`subjects_wanted`] leaves out because their AF area judges them.
pub fn judged_at_af(
    indexed: &[(PathBuf, PhotoIndex)],
    thresholds: &Thresholds,
    segmenter: &str,
) -> usize {
    subjects_to_seek(indexed, thresholds, segmenter).1
}

/// [`subjects_wanted`] and [`judged_at_af`] from one analysis of the rows. A frame is judged
/// at its AF area where that was measured and held against another frame measured there (of
/// its burst, or of its scene focused at the same place: [`analysis::AfFocus::best`]); one
/// alone, or whose area could not be measured, is still given to the segmenter.
fn subjects_to_seek(
    indexed: &[(PathBuf, PhotoIndex)],
    thresholds: &Thresholds,
    segmenter: &str,
) -> (Vec<PathBuf>, usize) {
    let analysed = analysis::analyse(indexed, thresholds);
    let mut wanted = Vec::new();
    let mut at_af = 0;
    for ((path, i), a) in indexed.iter().zip(&analysed) {
        if i.stamp.segmenter.as_deref() == Some(segmenter)
            || a.judged_by_faces
            || !a.subject_can_decide(thresholds.subjects)
        {
            continue;
        }
        if a.af
            .as_ref()
            .is_some_and(|f| f.sharpness.is_some() && f.best.is_some())
        {
            at_af += 1;
        } else {
            wanted.push(path.clone());
        }
    }
    (wanted, at_af)
}

/// What one run of the decode pipeline leaves.
struct Pipelined {
    cancelled: bool,
    /// Inference's time waiting for decodes, a pause's excepted.
    waited_ms: f64,
    /// Decoders working at the end.
    decode_threads: usize,
}

/// Decode `todo` on up to `config.decode_threads` workers (one at first, another whenever
/// `on_photo` has been waiting for them: [`DecodeGate`]) and hand each photo, decoded or not,
/// to `on_photo` on this thread in the order it is ready.
fn pipeline(
    todo: &[(PathBuf, Pass)],
    config: &JobConfig,
    control: &Control,
    on_photo: &mut dyn FnMut(Result<Decoded, (PathBuf, String)>) -> Result<(), IndexError>,
) -> Result<Pipelined, IndexError> {
    let threads = config.decode_threads.max(1);
    let gate = DecodeGate::new(threads);
    let next = AtomicUsize::new(0);
    let (tx, rx) = sync_channel::<Result<Decoded, (PathBuf, String)>>(threads + 1);
    let mut ran = Pipelined {
        cancelled: false,
        waited_ms: 0.0,
        decode_threads: 0,
    };
    let mut workers = 0;
    let mut spawn_error = None;
    std::thread::scope(|scope| -> Result<(), IndexError> {
        for n in 0..threads {
            let tx = tx.clone();
            let (next, gate) = (&next, &gate);
            let spawned = std::thread::Builder::new()
                .name(format!("darkroom-index-decode-{n}"))
                .spawn_scoped(scope, move || {
                    let nothing_left = || next.load(Ordering::Relaxed) >= todo.len();
                    while control.proceed() && gate.admit(n, control, &nothing_left) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((path, pass)) = todo.get(i) else {
                            break;
                        };
                        let item =
                            decode(path, *pass, config.work_side).map_err(|e| (path.clone(), e));
                        if tx.send(item).is_err() {
                            break;
                        }
                    }
                });
            if let Err(e) = spawned {
                spawn_error = Some(e.to_string());
            } else {
                workers += 1;
            }
        }
        drop(tx);
        let mut handled = 0usize;
        if workers == 0 {
            // No decoder could start: say so for every photo rather than index nothing quietly.
            let error = format!(
                "cannot start a decode thread: {}",
                spawn_error.take().unwrap_or_default()
            );
            for (path, _) in todo {
                on_photo(Err((path.clone(), error.clone())))?;
                handled += 1;
            }
        }
        let mut meter = WaitMeter::default();
        let mut first = true;
        loop {
            let (asked, pauses) = (Instant::now(), control.pauses());
            let Ok(item) = rx.recv() else { break };
            let wait = ms(asked);
            if !control.proceed() {
                ran.cancelled = true;
                break;
            }
            let working = Instant::now();
            let paused_meanwhile = control.pauses() != pauses;
            if !std::mem::replace(&mut first, false) && !paused_meanwhile {
                ran.waited_ms += wait;
            }
            let worked = on_photo(item);
            if worked.is_err() {
                // Nothing more is taken: decoders still waiting to be let in must see that,
                // or the scope would wait for them for ever.
                next.store(todo.len(), Ordering::Relaxed);
            }
            worked?;
            handled += 1;
            // A pause while this photo was worked on makes its times the person's too.
            let paused_meanwhile = paused_meanwhile || control.pauses() != pauses;
            if meter.photo(wait, ms(working), paused_meanwhile) {
                gate.add();
            }
        }
        // A cancel the decoders saw first ends the queue early: photos were left undone.
        ran.cancelled |= control.is_cancelled() && handled < todo.len();
        // Decoders blocked on a full queue must see it gone before the scope can end.
        drop(rx);
        if ran.cancelled {
            control.cancel();
        }
        ran.decode_threads = gate.active();
        Ok(())
    })?;
    Ok(ran)
}

/// Look for the subject of a photo the first pass indexed and record it with the segmenter
/// that looked, if the file is still the one indexed: whether a subject was found, or why this
/// photo has none (the catalog's own failure is the job's).
fn seek_subject(
    d: &Decoded,
    segmenters: &mut Segmenters,
    catalog: &mut Catalog,
    stages: &mut StageTimes,
) -> Result<Result<bool, String>, IndexError> {
    let Some(segmenter) = segmenters.id() else {
        return Ok(Err("no segmenter is installed".into()));
    };
    let subject = match find_subject(d, segmenters, stages) {
        Ok(subject) => subject,
        Err(e) => return Ok(Err(e)),
    };
    let t = Instant::now();
    let recorded = catalog.store_subject(&d.path, d.stamp, subject.as_ref(), &segmenter)?;
    stages.store_ms += ms(t);
    Ok(if recorded {
        Ok(subject.is_some())
    } else {
        Err("it changed since it was indexed (or is not indexed): index it again".into())
    })
}

/// Look for one indexed photo's subject now, as the loupe asks for it: decoded at
/// `work_side`, found by `segmenters`, recorded with the segmenter that looked if the file is
/// still the one indexed. Whether a subject was found.
pub fn seek_subject_of(
    path: &Path,
    work_side: u32,
    segmenters: &mut Segmenters,
    catalog: &mut Catalog,
) -> Result<bool, String> {
    let d = decode(path, Pass::Subject, work_side)?;
    seek_subject(&d, segmenters, catalog, &mut StageTimes::default()).map_err(|e| e.to_string())?
}

/// The subject of one decoded photo and its focus, if a segmenter runs and finds one.
fn find_subject(
    d: &Decoded,
    segmenters: &mut Segmenters,
    stages: &mut StageTimes,
) -> Result<Option<darkroom_catalog::SubjectRow>, String> {
    if segmenters.id().is_none() {
        return Ok(None);
    }
    let t = Instant::now();
    let (w, h) = d.luma.dimensions();
    let found = segmenters.find(&d.work.image, w, h)?;
    let row = found.and_then(|s| subject::row(&s, &d.luma));
    stages.segment_ms += ms(t);
    stages.segmented += 1;
    Ok(row)
}

/// The models that look at eyes, borrowed from the job's.
fn eye_models<'a>(models: &'a mut Models, thresholds: &Thresholds) -> EyeModels<'a> {
    EyeModels {
        classifier: models.eyes.as_mut(),
        mesh: models.mesh.as_mut(),
        judge: thresholds.eye_judge,
    }
}

/// One face's eyes and expression (its box and landmarks in `img`'s pixels).
fn judge_face(
    img: &image::RgbImage,
    face: &Face,
    models: &mut Models,
    thresholds: &Thresholds,
    stages: &mut StageTimes,
) -> Result<Judged, String> {
    let judged = eye_models(models, thresholds).judge(
        img,
        face,
        thresholds.eyes_min_distance_px,
        thresholds.eyes_open_at_least,
    )?;
    stages.eyes_ms += judged.classifier_ms;
    stages.mesh_ms += judged.mesh_ms;
    if judged.mesh_ms > 0.0 {
        stages.meshed += 1;
    }
    Ok(judged)
}

/// The sharper eye's sharpness of a face at `bbox` with `landmarks` (in `img`'s pixels), where
/// its eyes are far enough apart to judge.
pub fn eye_focus(
    img: &image::RgbImage,
    bbox: [f32; 4],
    landmarks: &[[f32; 2]; 5],
    thresholds: &Thresholds,
) -> Option<f32> {
    (eye_distance(landmarks) >= thresholds.eyes_min_distance_px)
        .then(|| focus::eyes(img, bbox, landmarks))
        .flatten()
}

/// A photo indexed before with the same faces' models: its subject and its faces' eye-level
/// focus from the stored landmarks, recorded without touching faces or people. Returns how
/// many faces it has.
fn remeasure(
    d: &Decoded,
    stamp: IndexStamp,
    segmenter: Option<&str>,
    models: &mut Models,
    catalog: &mut Catalog,
    thresholds: &Thresholds,
    stages: &mut StageTimes,
) -> Result<usize, String> {
    let stored = catalog
        .photo_index(&d.path)
        .map_err(|e| e.to_string())?
        .ok_or("its index row is gone")?;
    let scene_classes = scene_of(d, models.scene.as_mut(), stages)?;
    // Measures from version 3 on hold the eye-level focus this build takes.
    let eyes: Vec<(i64, Option<f32>)> = if stored.stamp.measures >= 3 {
        stored
            .faces
            .iter()
            .map(|f| (f.id, f.eyes_sharpness))
            .collect()
    } else {
        // Stored boxes are in full-size pixels; the decode is smaller.
        let k = d.work.scale_to_full();
        stored
            .faces
            .iter()
            .map(|f| {
                let bbox = f.bbox.map(|v| v / k);
                let landmarks = f.landmarks.map(|[x, y]| [x / k, y / k]);
                (f.id, eye_focus(&d.work.image, bbox, &landmarks, thresholds))
            })
            .collect()
    };
    // The subject stands where this segmenter found it on a photo no face judges (from 3 on);
    // else it is dropped, and the second pass looks again where it can decide. Measuring
    // again never runs the costliest model.
    let judged_now = subject::judged_by_eyes(eyes.iter().map(|&(_, e)| e));
    let (subject, stamp) = if stored.stamp.measures >= 3
        && stored.stamp.segmenter.is_some()
        && subject_stands(&stored.stamp, segmenter)
        && !judged_now
    {
        (
            stored.subject.clone(),
            IndexStamp {
                segmenter: stored.stamp.segmenter.clone(),
                ..stamp
            },
        )
    } else {
        (None, stamp)
    };
    // The eyes and expressions: judged again on the stored faces where the judge, the mesh or
    // the measures' version (6 added the mesh) changed.
    let judged = if stored.stamp.measures < 6
        || stored.stamp.eyes != stamp.eyes
        || stored.stamp.mesh != stamp.mesh
    {
        let k = d.work.scale_to_full();
        let mut judged = Vec::with_capacity(stored.faces.len());
        for f in &stored.faces {
            let face = Face {
                bbox: f.bbox.map(|v| v / k),
                score: f.score,
                landmarks: f.landmarks.map(|[x, y]| [x / k, y / k]),
                embedding: None,
            };
            let j = judge_face(&d.work.image, &face, models, thresholds, stages)?;
            judged.push(JudgedFace {
                id: f.id,
                eyes_closed: j.eyes_closed,
                expression: j.expression,
            });
        }
        Some(judged)
    } else {
        None
    };
    let t = Instant::now();
    catalog
        .store_measures(
            &d.path,
            &Remeasured {
                stamp,
                body: d.work.facts.body(),
                subject,
                eyes,
                judged,
                look: d.look.clone(),
                exposure: d.exposure,
                scene_classes,
                af: d.af.clone(),
            },
        )
        .map_err(|e| e.to_string())?;
    stages.store_ms += ms(t);
    Ok(stored.faces.len())
}

/// What the scene model sees in the photo (class, share), where one runs.
fn scene_of(
    d: &Decoded,
    scene: Option<&mut SceneParser>,
    stages: &mut StageTimes,
) -> Result<Vec<(String, f32)>, String> {
    let Some(parser) = scene else {
        return Ok(Vec::new());
    };
    let t = Instant::now();
    let coverage = parser.coverage(&d.work.image).map_err(|e| e.to_string())?;
    stages.scene_ms += ms(t);
    Ok(coverage.into_iter().map(|c| (c.class, c.share)).collect())
}

/// A photo's row parts from inference: its faces, the people who moved, and its scene classes.
type Inferred = (Vec<FaceRow>, Vec<PersonRow>, Vec<(String, f32)>);

/// Faces of one decoded photo, in full-size pixels, the people whose centre moved, and its
/// scene classes.
fn infer(
    d: &Decoded,
    models: &mut Models,
    mut people: Option<&mut People>,
    thresholds: &Thresholds,
    stages: &mut StageTimes,
) -> Result<Inferred, String> {
    let img = &d.work.image;
    let k = d.work.scale_to_full();
    let t = Instant::now();
    let found = models.detector.detect(img).map_err(|e| e.to_string())?;
    stages.detect_ms += ms(t);
    let mut rows = Vec::with_capacity(found.len());
    let mut changed: Vec<i64> = Vec::new();
    // All of a photo's faces in one embedder run where the model takes a batch.
    let embeddings: Vec<Option<Vec<f32>>> = match models.embedder.as_mut() {
        Some(embedder) => {
            let t = Instant::now();
            let landmarks: Vec<[[f32; 2]; 5]> = found.iter().map(|f| f.landmarks).collect();
            let all = embedder
                .embed_all(img, &landmarks)
                .map_err(|e| e.to_string())?;
            stages.embed_ms += ms(t);
            all.into_iter().map(Some).collect()
        }
        None => vec![None; found.len()],
    };
    for (face, embedded) in found.into_iter().zip(embeddings) {
        let mut embedding = None;
        let mut person = None;
        if let Some(e) = embedded {
            if let Some(p) = people.as_deref_mut() {
                let id = p.assign(&e);
                person = Some(id);
                if !changed.contains(&id) {
                    changed.push(id);
                }
            }
            embedding = Some(e);
        }
        let judged = judge_face(img, &face, models, thresholds, stages)?;
        rows.push(FaceRow {
            id: 0,
            bbox: face.bbox.map(|v| v * k),
            score: face.score,
            landmarks: face.landmarks.map(|[x, y]| [x * k, y * k]),
            embedding,
            sharpness: focus::face(img, face.bbox),
            eyes_closed: judged.eyes_closed,
            person,
            eyes_sharpness: eye_focus(img, face.bbox, &face.landmarks, thresholds),
            expression: judged.expression,
            key: false,
        });
    }
    let scene_classes = scene_of(d, models.scene.as_mut(), stages)?;
    let changed = match people {
        Some(p) => p
            .people
            .iter()
            .filter(|person| changed.contains(&person.id))
            .map(|person| PersonRow {
                id: person.id,
                embedder: p.embedder.clone(),
                name: None,
                sum: person.sum.clone(),
                faces: person.faces,
            })
            .collect(),
        None => Vec::new(),
    };
    Ok((rows, changed, scene_classes))
}

#[cfg(test)]
mod gate_tests {
    use super::*;

    /// The work on a photo failing (the catalog refused it) ends the pipeline, and with it the
    /// decoders still waiting to be let in: the job returns rather than waits for ever.
    #[test]
    fn a_failure_on_a_photo_ends_the_pipeline_and_every_decoder() {
        let todo: Vec<(PathBuf, Pass)> = (0..24)
            .map(|i| (PathBuf::from(format!("/nonexistent/{i}.jpg")), Pass::Index))
            .collect();
        let config = JobConfig {
            photos: Vec::new(),
            backend: String::new(),
            decode_threads: 4,
            work_side: WORK_SIDE,
            thresholds: Thresholds::default(),
        };
        let (done, returned) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut calls = 0;
            let result = pipeline(&todo, &config, &Control::default(), &mut |_| {
                calls += 1;
                Err(IndexError::Catalog(CatalogError::InvalidDecision {
                    reason: "refused".into(),
                }))
            });
            let _ = done.send((result.is_err(), calls));
        });
        // A hang is what this catches: a minute is far past 24 missing files' decodes.
        assert_eq!(
            returned
                .recv_timeout(Duration::from_secs(60))
                .expect("the pipeline never returned"),
            (true, 1)
        );
    }

    /// `photos` photos, each waited for `wait` ms and worked on `work` ms: how many times the
    /// meter let another decoder in.
    fn decoders_added(meter: &mut WaitMeter, photos: usize, wait: f64, work: f64) -> usize {
        (0..photos)
            .filter(|_| meter.photo(wait, work, false))
            .count()
    }

    #[test]
    fn decoders_far_ahead_of_inference_get_no_company() {
        // The bench corpus through libjpeg-turbo: decode ~40 ms, inference ~150 ms, so after
        // the first photo inference hardly waits.
        let mut meter = WaitMeter::default();
        assert!(
            !meter.photo(40.0, 150.0, false),
            "the first photo is no measurement"
        );
        assert_eq!(decoders_added(&mut meter, 30, 2.0, 150.0), 0);
    }

    #[test]
    fn inference_waiting_a_share_of_its_time_lets_one_more_in_per_decision() {
        let mut meter = WaitMeter::default();
        meter.photo(300.0, 100.0, false);
        // Waiting 30 ms of every 130 (23 %): one more decoder every three photos.
        assert_eq!(decoders_added(&mut meter, 9, 30.0, 100.0), 3);
        // Just under the share: none.
        let mut meter = WaitMeter::default();
        meter.photo(0.0, 0.0, false);
        assert_eq!(decoders_added(&mut meter, 9, 17.0, 100.0), 0);
    }

    #[test]
    fn a_pause_is_the_persons_wait_not_the_decoders() {
        let mut meter = WaitMeter::default();
        meter.photo(10.0, 100.0, false);
        assert!(!meter.photo(1.0, 100.0, false));
        // Paused for a minute while this photo's decode was waited for.
        assert!(!meter.photo(60_000.0, 100.0, true));
        assert!(!meter.photo(1.0, 100.0, false));
        assert!(
            !meter.photo(1.0, 100.0, false),
            "three photos measured, none waited"
        );
    }

    #[test]
    fn a_paused_job_counts_its_pauses() {
        let control = Control::default();
        assert_eq!(control.pauses(), 0);
        control.set_paused(true);
        control.set_paused(false);
        control.set_paused(false);
        assert_eq!(control.pauses(), 1);
    }

    #[test]
    fn one_decoder_works_at_first_and_another_only_when_let_in() {
        let gate = DecodeGate::new(2);
        let control = Control::default();
        let never_done = || false;
        assert!(
            gate.admit(0, &control, &never_done),
            "the first works at once"
        );
        let second_in = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(gate.admit(1, &control, &never_done));
                second_in.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(Duration::from_millis(150));
            assert!(!second_in.load(Ordering::SeqCst), "the second waits");
            assert!(gate.add());
        });
        assert!(second_in.load(Ordering::SeqCst), "let in by add");
        assert!(!gate.add(), "no more than the most");
        assert_eq!(gate.active(), 2);
    }

    #[test]
    fn a_waiting_decoder_stops_when_nothing_is_left_or_the_job_is_cancelled() {
        let gate = DecodeGate::new(3);
        let control = Control::default();
        assert!(!gate.admit(1, &control, &|| true), "nothing left");
        let stopped = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(!gate.admit(2, &control, &|| false));
                stopped.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(Duration::from_millis(100));
            control.cancel();
        });
        assert!(stopped.load(Ordering::SeqCst));
        assert_eq!(gate.active(), 1, "nobody was let in");
    }
}
