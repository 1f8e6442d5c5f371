//! Background work for the window, each piece named, bounded and cancellable, reporting through
//! bounded channels that the UI drains each frame (workers call `request_repaint` after each
//! report): the folder scan, the thumbnail pool, the decision writer, and the engine start-up.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};

use darkroom_catalog::{Catalog, Decision, SidecarNaming};
use darkroom_library::ScanEvent;
use darkroom_library::thumbs::ThumbCache;

/// Wakes the UI from a worker.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Set on drop: every worker checks it between units of work.
#[derive(Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) {
    if let Err(e) = std::thread::Builder::new().name(name.to_string()).spawn(f) {
        eprintln!("darkroom: cannot start {name}: {e}");
    }
}

/// Drain up to `max` messages without blocking.
pub fn drain<T>(rx: &Receiver<T>, max: usize) -> (Vec<T>, bool) {
    let mut out = Vec::new();
    while out.len() < max {
        match rx.try_recv() {
            Ok(v) => out.push(v),
            Err(TryRecvError::Empty) => return (out, false),
            Err(TryRecvError::Disconnected) => return (out, true),
        }
    }
    (out, false)
}

/// The folder scan: items arrive in batches; the channel closing means the scan is done.
pub fn scan(root: PathBuf, cancel: Cancel, wake: Waker) -> Receiver<ScanEvent> {
    let (tx, rx) = sync_channel(512);
    spawn("darkroom-scan", move || {
        let mut n = 0usize;
        darkroom_library::scan::scan(&root, cancel.flag(), &mut |event| {
            n += 1;
            // Blocks when the UI is behind: backpressure instead of an unbounded queue.
            let ok = tx.send(event).is_ok();
            if n.is_multiple_of(64) {
                wake();
            }
            ok
        });
        wake();
    });
    rx
}

/// A thumbnail request and its answer.
pub struct ThumbJob {
    pub index: usize,
    pub path: PathBuf,
    pub side: u32,
}

pub struct ThumbDone {
    pub index: usize,
    pub side: u32,
    pub result: Result<image::RgbImage, String>,
}

/// The thumbnail pool: `threads` workers pull jobs from one bounded queue.
pub struct ThumbPool {
    pub jobs: SyncSender<ThumbJob>,
    pub done: Receiver<ThumbDone>,
}

pub fn thumb_pool(cache: ThumbCache, threads: usize, cancel: Cancel, wake: Waker) -> ThumbPool {
    let (job_tx, job_rx) = sync_channel::<ThumbJob>(256);
    let (done_tx, done_rx) = sync_channel::<ThumbDone>(256);
    let job_rx = Arc::new(Mutex::new(job_rx));
    for i in 0..threads.max(1) {
        let (jobs, done, cache, cancel, wake) = (
            Arc::clone(&job_rx),
            done_tx.clone(),
            cache.clone(),
            cancel.clone(),
            Arc::clone(&wake),
        );
        spawn(&format!("darkroom-thumbs-{i}"), move || {
            loop {
                let job = {
                    let Ok(rx) = jobs.lock() else { return };
                    rx.recv()
                };
                let Ok(job) = job else { return };
                if cancel.is_set() {
                    return;
                }
                let result = cache
                    .get(&job.path, job.side)
                    .map(|t| t.image)
                    .map_err(|e| e.to_string());
                if done
                    .send(ThumbDone {
                        index: job.index,
                        side: job.side,
                        result,
                    })
                    .is_err()
                {
                    return;
                }
                wake();
            }
        });
    }
    ThumbPool {
        jobs: job_tx,
        done: done_rx,
    }
}

/// A decision for every file of one item.
pub struct DecisionJob {
    pub index: usize,
    pub files: Vec<PathBuf>,
    pub decision: Decision,
}

/// The writer's answer: durable in the catalog (and the sidecar error, if any).
pub struct DecisionAck {
    pub index: usize,
    pub decision: Decision,
    pub error: Option<String>,
}

/// What the UI asks of the catalog thread, in order.
pub enum WriterMsg {
    Decide(DecisionJob),
    Naming(SidecarNaming),
    /// Name a person (None: forget the name).
    NamePerson(i64, Option<String>),
}

pub struct DecisionWriter {
    pub jobs: SyncSender<WriterMsg>,
    pub acks: Receiver<DecisionAck>,
    /// Decisions found in the catalog or sidecars when items were imported.
    pub imported: Receiver<(usize, Decision, Option<String>)>,
    pub import: SyncSender<(usize, PathBuf)>,
}

fn apply(catalog: Option<&mut Catalog>, job: DecisionJob) -> DecisionAck {
    let mut error = None;
    match catalog {
        Some(c) => {
            for f in &job.files {
                match c.decide(f, &job.decision) {
                    Ok(o) => error = error.or(o.sidecar_error.map(|e| e.to_string())),
                    Err(e) => error = Some(e.to_string()),
                }
            }
        }
        None => error = Some("the catalog could not be opened".to_string()),
    }
    DecisionAck {
        index: job.index,
        decision: job.decision,
        error,
    }
}

/// The one thread that owns the catalog: imports items and records decisions, decisions first
/// (they are what the user waits on), each acknowledged only once durable.
pub fn decision_writer(
    catalog_path: PathBuf,
    naming: SidecarNaming,
    wake: Waker,
) -> DecisionWriter {
    let (job_tx, job_rx) = sync_channel::<WriterMsg>(64);
    let (ack_tx, ack_rx) = sync_channel::<DecisionAck>(64);
    let (import_tx, import_rx) = sync_channel::<(usize, PathBuf)>(512);
    let (imported_tx, imported_rx) = sync_channel(512);
    spawn("darkroom-catalog", move || {
        let mut catalog = match Catalog::open(&catalog_path, naming) {
            Ok(mut c) => {
                for e in c.flush_pending().unwrap_or_default() {
                    eprintln!("darkroom: {e}");
                }
                Some(c)
            }
            Err(e) => {
                eprintln!("darkroom: {e}");
                None
            }
        };
        let mut imports_done = false;
        loop {
            let next = if imports_done {
                job_rx.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                job_rx.try_recv()
            };
            match next {
                Ok(WriterMsg::Naming(n)) => {
                    if let Some(c) = catalog.as_mut() {
                        c.set_naming(n);
                    }
                    continue;
                }
                Ok(WriterMsg::NamePerson(id, name)) => {
                    if let Some(c) = catalog.as_mut()
                        && let Err(e) = c.name_person(id, name.as_deref())
                    {
                        eprintln!("darkroom: {e}");
                    }
                    continue;
                }
                Ok(WriterMsg::Decide(job)) => {
                    if ack_tx.send(apply(catalog.as_mut(), job)).is_err() {
                        return;
                    }
                    wake();
                    continue;
                }
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => {}
            }
            match import_rx.recv_timeout(std::time::Duration::from_millis(20)) {
                Ok((index, path)) => {
                    let (d, err) = match catalog.as_mut().map(|c| c.import(&path)) {
                        Some(Ok(o)) => (o.decision, o.sidecar_error.map(|e| e.to_string())),
                        Some(Err(e)) => (Decision::default(), Some(e.to_string())),
                        None => (Decision::default(), None),
                    };
                    if imported_tx.send((index, d, err)).is_err() {
                        return;
                    }
                    wake();
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => imports_done = true,
            }
        }
    });
    DecisionWriter {
        jobs: job_tx,
        acks: ack_rx,
        imported: imported_rx,
        import: import_tx,
    }
}

/// A settings file to write: the window's own, or the engine's beside the probe cache.
pub enum SaveMsg {
    App(PathBuf, super::AppSettings),
    Backend(PathBuf, darkroom_engine::ladder::BackendSettings),
}

/// The settings writer: one thread, so two quick changes land in the order they were made.
pub fn settings_saver() -> SyncSender<SaveMsg> {
    let (tx, rx) = sync_channel::<SaveMsg>(16);
    spawn("darkroom-settings", move || {
        for msg in rx {
            let result = match msg {
                SaveMsg::App(path, settings) => super::AppSettings::store(&settings, &path)
                    .map_err(|e| format!("cannot save settings: {e}: {}", path.display())),
                SaveMsg::Backend(dir, settings) => settings.store(&dir).map_err(|e| e.to_string()),
            };
            if let Err(e) = result {
                eprintln!("darkroom: {e}");
            }
        }
    });
    tx
}

/// Asks the user for a folder; None when they cancel (or no dialog could be shown).
pub type PickFolder = Arc<dyn Fn(Option<PathBuf>) -> Option<PathBuf> + Send + Sync>;

/// The system's folder dialog (the XDG portal on Linux, so Flatpak works; the shell dialog on
/// Windows). It blocks until the user answers, so it runs on a thread of its own.
pub fn system_folder_dialog() -> PickFolder {
    Arc::new(|start: Option<PathBuf>| {
        let mut dialog = rfd::FileDialog::new().set_title("Open a folder of photos");
        if let Some(dir) = start {
            dialog = dialog.set_directory(dir);
        }
        dialog.pick_folder()
    })
}

/// Show the folder dialog in the background; the answer arrives on the receiver.
pub fn pick_folder(
    pick: PickFolder,
    start: Option<PathBuf>,
    wake: Waker,
) -> Receiver<Option<PathBuf>> {
    let (tx, rx) = sync_channel(1);
    spawn("darkroom-folder-dialog", move || {
        let _ = tx.send(pick(start));
        wake();
    });
    rx
}

/// What the index job tells the window.
pub enum IndexMsg {
    Event(darkroom_index::Event),
    Done(Result<darkroom_index::Summary, String>),
}

/// Everything an index job from the window needs, gathered on the UI thread (no I/O there).
pub struct IndexRequest {
    pub pin: darkroom_engine::JobPin,
    pub models_dir: PathBuf,
    pub catalog: PathBuf,
    pub photos: Vec<PathBuf>,
    pub decode_threads: usize,
    pub inference_threads: usize,
    /// The detector's model_id (Settings' choice).
    pub detector: String,
}

/// The index job on a thread of its own: sessions from the pin taken when it was asked for,
/// its own catalog connection (SQLite WAL lets the decision writer go on meanwhile), events
/// through a bounded channel (the job waits when the window is behind).
pub fn index_job(
    request: IndexRequest,
    control: Arc<darkroom_index::Control>,
    wake: Waker,
) -> Receiver<IndexMsg> {
    let (tx, rx) = sync_channel(64);
    spawn("darkroom-index", move || {
        let IndexRequest {
            pin,
            models_dir,
            catalog,
            photos,
            decode_threads,
            inference_threads,
            detector,
        } = request;
        let result = (|| -> anyhow::Result<darkroom_index::Summary> {
            let store =
                darkroom_engine::ModelStore::new(models_dir, darkroom_engine::CardSet::builtin()?);
            let sessions = darkroom_engine::Sessions::new(
                crate::cli::install_runtime(),
                store,
                inference_threads,
            )?;
            let mut models = crate::index_cmd::open_models(&sessions, &pin, Some(detector), None)?;
            let mut catalog = Catalog::open(&catalog, SidecarNaming::default())?;
            let config = darkroom_index::JobConfig {
                photos,
                backend: pin.line.clone(),
                decode_threads,
                work_side: 1440,
                thresholds: darkroom_index::Thresholds::default(),
            };
            let summary = darkroom_index::job::run(
                &config,
                &mut models,
                &mut catalog,
                &control,
                &mut |event| {
                    let _ = tx.send(IndexMsg::Event(event));
                    wake();
                },
            )?;
            Ok(summary)
        })();
        let _ = tx.send(IndexMsg::Done(result.map_err(|e| format!("{e:#}"))));
        wake();
    });
    rx
}

/// One face as the loupe's close-up strip shows it: a crop at 100% (the photo's own pixels).
pub struct FaceCrop {
    pub image: image::RgbImage,
    pub sharpness: f32,
    pub eyes_closed: Option<bool>,
}

/// A photo's close-ups for entry `.0`: None when the photo is not indexed.
pub type FaceCrops = (usize, Result<Option<Vec<FaceCrop>>, String>);

/// Crops of at most this many pixels a side: a close-up, not the photo again.
pub const FACE_CROP_MAX: u32 = 256;

/// The photo's indexed faces at 100%: read from the catalog (its own connection), the photo
/// decoded whole, each face cut out around its box. None when the photo is not indexed.
pub fn face_crops(
    index: usize,
    photo: PathBuf,
    catalog: PathBuf,
    wake: Waker,
) -> Receiver<FaceCrops> {
    let (tx, rx) = sync_channel(1);
    spawn("darkroom-face-crops", move || {
        let result = (|| -> Result<Option<Vec<FaceCrop>>, String> {
            let catalog =
                Catalog::open(&catalog, SidecarNaming::default()).map_err(|e| e.to_string())?;
            let Some(indexed) = catalog.photo_index(&photo).map_err(|e| e.to_string())? else {
                return Ok(None);
            };
            if indexed.faces.is_empty() {
                return Ok(Some(Vec::new()));
            }
            let img = darkroom_library::decode::load_oriented(&photo)
                .map_err(|e| e.cause())?
                .into_rgb8();
            // Boxes are in the indexed full size; a RAW's preview may differ: scale to it.
            let k = img.width() as f32 / indexed.width.max(1) as f32;
            let crops = indexed
                .faces
                .iter()
                .map(|f| {
                    let [x0, y0, x1, y1] = f.bbox.map(|v| v * k);
                    let side = ((x1 - x0).max(y1 - y0) * 1.3)
                        .clamp(32.0, FACE_CROP_MAX as f32)
                        .min(img.width().min(img.height()) as f32);
                    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
                    let left = (cx - side / 2.0).clamp(0.0, img.width() as f32 - side) as u32;
                    let top = (cy - side / 2.0).clamp(0.0, img.height() as f32 - side) as u32;
                    FaceCrop {
                        image: image::imageops::crop_imm(&img, left, top, side as u32, side as u32)
                            .to_image(),
                        sharpness: f.sharpness,
                        eyes_closed: f.eyes_closed,
                    }
                })
                .collect();
            Ok(Some(crops))
        })();
        let _ = tx.send((index, result));
        wake();
    });
    rx
}

/// The folder's analysis from the index rows (bursts need every photo's row at once), read on a
/// thread of its own with its own catalog connection.
/// A folder's analysis and the names people were given.
pub struct FolderAnalysis {
    pub photos: Vec<darkroom_index::PhotoAnalysis>,
    pub names: std::collections::HashMap<i64, String>,
}

pub fn load_analysis(
    photos: Vec<PathBuf>,
    catalog: PathBuf,
    wake: Waker,
) -> Receiver<Result<FolderAnalysis, String>> {
    let (tx, rx) = sync_channel(1);
    spawn("darkroom-analysis", move || {
        let result = (|| -> Result<FolderAnalysis, String> {
            let catalog =
                Catalog::open(&catalog, SidecarNaming::default()).map_err(|e| e.to_string())?;
            let wanted: std::collections::HashSet<&PathBuf> = photos.iter().collect();
            let indexed: Vec<_> = catalog
                .all_indexed()
                .map_err(|e| e.to_string())?
                .into_iter()
                .filter(|(p, _)| wanted.contains(p))
                .collect();
            let mut names = std::collections::HashMap::new();
            let embedders: std::collections::BTreeSet<&String> = indexed
                .iter()
                .filter_map(|(_, i)| i.stamp.embedder.as_ref())
                .collect();
            for embedder in embedders {
                for p in catalog.people(embedder).map_err(|e| e.to_string())? {
                    if let Some(name) = p.name {
                        names.insert(p.id, name);
                    }
                }
            }
            Ok(FolderAnalysis {
                photos: darkroom_index::analyse(&indexed, &darkroom_index::Thresholds::default()),
                names,
            })
        })();
        let _ = tx.send(result);
        wake();
    });
    rx
}

/// What the model manager's worker is asked to do.
pub enum ModelsRequest {
    /// Read every card's state; quarantine installed files that fail their hash.
    Refresh,
    /// Download and install a model (its licence was accepted in the window).
    Install(String),
    /// Install what a folder holds.
    FromFolder(PathBuf),
}

/// What the model manager's worker reports. Every job ends with `States`.
pub enum ModelsMsg {
    Progress(darkroom_models::Progress),
    /// One line for the window: Ok for what went right, Err for what did not.
    Outcome(Result<String, String>),
    States(Vec<darkroom_models::CardStatus>),
}

/// The model manager, on a thread: hashing, downloading and copying are all I/O.
pub fn models_job(
    models_dir: PathBuf,
    mirror: Option<String>,
    request: ModelsRequest,
    cancel: Cancel,
    wake: Waker,
) -> Receiver<ModelsMsg> {
    let (tx, rx) = sync_channel(64);
    spawn("darkroom-models", move || {
        let cards = match darkroom_engine::CardSet::builtin() {
            Ok(c) => c,
            Err(e) => {
                let _ = tx.send(ModelsMsg::Outcome(Err(e.to_string())));
                wake();
                return;
            }
        };
        let manager = darkroom_models::ModelManager::new(
            darkroom_engine::ModelStore::new(models_dir, cards),
            mirror,
        );
        let say = |msg: ModelsMsg| {
            let _ = tx.send(msg);
            wake();
        };
        match request {
            ModelsRequest::Refresh => match manager.quarantine_invalid() {
                Ok(moved) => {
                    for q in moved {
                        say(ModelsMsg::Outcome(Err(format!(
                            "quarantined {}: {}",
                            q.reason,
                            q.path.display()
                        ))));
                    }
                }
                Err(e) => say(ModelsMsg::Outcome(Err(e.to_string()))),
            },
            ModelsRequest::Install(model_id) => {
                let mut last = std::time::Instant::now();
                let result = manager.install(
                    &model_id,
                    true,
                    &mut |p| {
                        // Progress is for eyes: a few updates a second, never blocking the fetch.
                        if last.elapsed() > std::time::Duration::from_millis(100)
                            || p.total == Some(p.done)
                        {
                            last = std::time::Instant::now();
                            if tx.try_send(ModelsMsg::Progress(p)).is_ok() {
                                wake();
                            }
                        }
                    },
                    cancel.flag(),
                );
                say(ModelsMsg::Outcome(match result {
                    Ok(installed) => Ok(installed
                        .iter()
                        .map(|i| format!("{} installed and verified", i.model_id))
                        .collect::<Vec<_>>()
                        .join("; ")),
                    Err(e) => Err(format!("{model_id}: {e}")),
                }));
            }
            ModelsRequest::FromFolder(folder) => {
                let report = manager.install_from_folder(&folder);
                if report.is_empty() {
                    say(ModelsMsg::Outcome(Err(format!(
                        "no model file a card names: {}",
                        folder.display()
                    ))));
                }
                for (id, r) in report {
                    say(ModelsMsg::Outcome(match r {
                        Ok(_) => Ok(format!("{id} installed and verified")),
                        Err(e) => Err(format!("{id}: {e}")),
                    }));
                }
            }
        }
        say(ModelsMsg::States(manager.statuses()));
    });
    rx
}
