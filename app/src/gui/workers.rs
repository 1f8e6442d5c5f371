//! Background work for the window, each piece named, bounded and cancellable, reporting through
//! a [`Task`] the window polls in `logic`: the folder scan, the thumbnail pool, the catalog
//! thread, the settings writer, the folder dialog, the index job, face close-ups, the folder's
//! analysis, the model manager and the export. Every result carries the id it was asked for.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

use darkroom_catalog::{Catalog, SidecarNaming};
use darkroom_library::ScanEvent;
use darkroom_library::thumbs::ThumbCache;

use super::culling::{DecisionJob, Edit, EntryId};
use super::tasks::{Latest, Reporter, Task, Waker};
use crate::services::LOUPE_SIDE;

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

/// The folder scan: items arrive in batches; the channel closing means the scan is done.
pub fn scan(root: PathBuf, cancel: Cancel, wake: Waker) -> Task<ScanEvent> {
    Task::spawn(
        "the folder scan",
        512,
        wake,
        move |out: Reporter<ScanEvent>| {
            let mut n = 0usize;
            darkroom_library::scan::scan(&root, cancel.flag(), &mut |event| {
                n += 1;
                // Blocks when the window is behind: backpressure instead of an unbounded queue.
                let ok = out.send_quietly(event);
                if n.is_multiple_of(64) {
                    out.wake();
                }
                ok
            });
            out.wake();
        },
    )
}

/// What a picture request asks for: a picture fitting a square of `side` pixels (cached on
/// disk), or the photo at its own resolution (never cached: a JPEG of it would not be its own
/// pixels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Side(u32),
    Full,
    /// The facts beside the photo (EXIF), cheap: the loupe shows them at once.
    Facts,
}

/// A picture request and its answer.
pub struct ThumbJob {
    pub id: EntryId,
    pub path: PathBuf,
    pub want: Want,
}

pub struct ThumbDone {
    pub id: EntryId,
    pub want: Want,
    pub result: Result<Made, String>,
}

pub enum Made {
    Picture {
        side: u32,
        image: image::RgbImage,
    },
    /// Cut into tiles and turned into egui's pixels here, off the UI thread, which only
    /// uploads them.
    Full(Box<FullMade>),
    /// A full-resolution photo no longer wanted by the time its turn came: not made.
    Skipped,
    Facts(darkroom_library::facts::Facts),
}

pub struct FullMade {
    pub size: egui::Vec2,
    pub tiles: Vec<(egui::Rect, egui::ColorImage)>,
    pub histogram: darkroom_library::histogram::Histogram,
    pub clipping: egui::ColorImage,
}

/// Full-resolution tiles are at most this many pixels a side: every GPU wgpu runs on takes a
/// 2,048² texture, while a 45 MP photo's 8,256 px is past many a limit.
pub const FULL_TILE: u32 = 2048;

/// The clipping mask is at most this long: one mask pixel stands for a block of the photo, and
/// marks the block if any pixel in it clips (a blown highlight must not average away).
pub const CLIPPING_SIDE: u32 = 2048;
const BLOWN_MARK: egui::Color32 = egui::Color32::from_rgba_premultiplied(230, 0, 0, 230);
const CRUSHED_MARK: egui::Color32 = egui::Color32::from_rgba_premultiplied(0, 60, 230, 230);

/// The photo at `path` at its own resolution, cut into tiles, with its histogram and its
/// clipping mask.
fn full_picture(path: &std::path::Path) -> Result<Made, darkroom_library::LibraryError> {
    use darkroom_library::histogram::{Clip, Histogram, clip};
    let img = darkroom_library::working::full(path)?;
    let (w, h) = img.dimensions();
    let mut tiles = Vec::new();
    for top in (0..h).step_by(FULL_TILE as usize) {
        for left in (0..w).step_by(FULL_TILE as usize) {
            let (tw, th) = (FULL_TILE.min(w - left), FULL_TILE.min(h - top));
            let tile = image::imageops::crop_imm(&img, left, top, tw, th).to_image();
            let pixels = egui::ColorImage::from_rgb([tw as usize, th as usize], tile.as_raw());
            let at = egui::Rect::from_min_size(
                egui::pos2(left as f32, top as f32),
                egui::vec2(tw as f32, th as f32),
            );
            tiles.push((at, pixels));
        }
    }
    let block = w.max(h).div_ceil(CLIPPING_SIDE).max(1);
    let (mw, mh) = (w.div_ceil(block), h.div_ceil(block));
    let mut mask = egui::ColorImage::filled([mw as usize, mh as usize], egui::Color32::TRANSPARENT);
    for (x, y, p) in img.enumerate_pixels() {
        let mark = match clip(p.0) {
            Clip::Blown => BLOWN_MARK,
            // Blown wins over crushed within a block: it is what a photographer fixes first.
            Clip::Crushed => CRUSHED_MARK,
            Clip::None => continue,
        };
        let at = (y / block) as usize * mw as usize + (x / block) as usize;
        if mask.pixels[at] != BLOWN_MARK {
            mask.pixels[at] = mark;
        }
    }
    Ok(Made::Full(Box::new(FullMade {
        size: egui::vec2(w as f32, h as f32),
        tiles,
        histogram: Histogram::of(&img),
        clipping: mask,
    })))
}

/// Picture jobs waiting for the pool: what the loupe shows first (its preview and facts, the
/// neighbours it prefetches), then grid and filmstrip thumbnails, each in the order asked. A
/// loupe that waited behind a screenful of thumbnails would be late on the first steps.
pub struct PictureQueue {
    jobs: Mutex<QueueState>,
    ready: Condvar,
}

#[derive(Default)]
struct QueueState {
    loupe: VecDeque<ThumbJob>,
    thumbs: VecDeque<ThumbJob>,
    closed: bool,
}

/// At most this many picture jobs wait: the window asks again next frame for what did not fit.
const PICTURE_QUEUE: usize = 256;

impl PictureQueue {
    fn new() -> Self {
        PictureQueue {
            jobs: Mutex::new(QueueState::default()),
            ready: Condvar::new(),
        }
    }

    /// Queue `job`; false when the queue is full (or the pool is gone).
    pub fn try_send(&self, job: ThumbJob) -> bool {
        let Ok(mut q) = self.jobs.lock() else {
            return false;
        };
        if q.closed || q.loupe.len() + q.thumbs.len() >= PICTURE_QUEUE {
            return false;
        }
        let first = matches!(job.want, Want::Side(LOUPE_SIDE) | Want::Facts);
        if first {
            q.loupe.push_back(job);
        } else {
            q.thumbs.push_back(job);
        }
        drop(q);
        self.ready.notify_one();
        true
    }

    /// The next job, waiting for one; None once closed.
    fn next(&self) -> Option<ThumbJob> {
        let mut q = self.jobs.lock().ok()?;
        loop {
            if let Some(job) = q.loupe.pop_front().or_else(|| q.thumbs.pop_front()) {
                return Some(job);
            }
            if q.closed {
                return None;
            }
            q = self.ready.wait(q).ok()?;
        }
    }

    fn close(&self) {
        if let Ok(mut q) = self.jobs.lock() {
            q.closed = true;
        }
        self.ready.notify_all();
    }
}

/// The thumbnail pool: `threads` workers take picture jobs from a [`PictureQueue`], and one
/// thread of its own makes full-resolution photos, so a preview never waits behind a 24 MP
/// decode. Jobs of a folder no longer open are skipped, not made: `current` is the open
/// folder's generation; a full-resolution job for a photo no longer wanted (the loupe moved
/// on) is answered `Skipped`.
pub struct ThumbPool {
    jobs: Arc<PictureQueue>,
    full_jobs: SyncSender<ThumbJob>,
    pub done: Task<ThumbDone>,
    current: Arc<AtomicU64>,
    wanted_full: Arc<Mutex<Vec<EntryId>>>,
}

impl Drop for ThumbPool {
    fn drop(&mut self) {
        // The workers wait on the queue, not on a channel that closes with its sender.
        self.jobs.close();
    }
}

impl ThumbPool {
    /// A new folder is open: what was asked for the last one is no longer worth making.
    pub fn set_generation(&self, generation: u64) {
        self.current.store(generation, Ordering::Relaxed);
    }

    /// Queue `job` where its kind is made; false when that queue is full.
    pub fn send(&self, job: ThumbJob) -> bool {
        match job.want {
            Want::Full => self.full_jobs.try_send(job).is_ok(),
            Want::Side(_) | Want::Facts => self.jobs.try_send(job),
        }
    }

    /// The photos whose full resolution is still worth making.
    pub fn want_full(&self, ids: &[EntryId]) {
        if let Ok(mut w) = self.wanted_full.lock() {
            w.clear();
            w.extend_from_slice(ids);
        }
    }
}

pub fn thumb_pool(cache: ThumbCache, threads: usize, cancel: Cancel, wake: Waker) -> ThumbPool {
    let queue = Arc::new(PictureQueue::new());
    let (full_tx, full_rx) = sync_channel::<ThumbJob>(16);
    let current = Arc::new(AtomicU64::new(0));
    let wanted_full = Arc::new(Mutex::new(Vec::new()));
    let threads = threads.max(1);
    // One task whose reporter every pool thread shares: the channel closes when all have ended.
    let shared = Arc::clone(&current);
    let wanted = Arc::clone(&wanted_full);
    let jobs = Arc::clone(&queue);
    let done = Task::spawn("the thumbnail pool", 256, wake, move |out| {
        let out = Arc::new(out);
        let mut handles = Vec::new();
        for i in 0..threads {
            let (jobs, out, cache, cancel, current) = (
                Arc::clone(&jobs),
                Arc::clone(&out),
                cache.clone(),
                cancel.clone(),
                Arc::clone(&shared),
            );
            let spawned = std::thread::Builder::new()
                .name(format!("darkroom-thumbs-{i}"))
                .spawn(move || thumb_worker(&jobs, &out, &cache, &cancel, &current));
            if let Ok(h) = spawned {
                handles.push(h);
            }
        }
        let (out, cancel, current) = (Arc::clone(&out), cancel.clone(), Arc::clone(&shared));
        let spawned = std::thread::Builder::new()
            .name("darkroom-full".to_owned())
            .spawn(move || full_worker(&full_rx, &out, &cancel, &current, &wanted));
        if let Ok(h) = spawned {
            handles.push(h);
        }
        for h in handles {
            let _ = h.join();
        }
    });
    ThumbPool {
        jobs: queue,
        full_jobs: full_tx,
        done,
        current,
        wanted_full,
    }
}

fn thumb_worker(
    jobs: &PictureQueue,
    out: &Reporter<ThumbDone>,
    cache: &ThumbCache,
    cancel: &Cancel,
    current: &AtomicU64,
) {
    while let Some(job) = jobs.next() {
        if cancel.is_set() {
            return;
        }
        if job.id.generation() != current.load(Ordering::Relaxed) {
            continue;
        }
        let result = match job.want {
            Want::Side(side) => {
                // A picture just made goes to the window before the cache's encode.
                let mut sent = false;
                let made = cache.get_then_store(&job.path, side, |t| {
                    let image = t.image.clone();
                    sent = answer(out, &job, Ok(Made::Picture { side, image }));
                });
                if sent {
                    continue;
                }
                made.map(|t| Made::Picture {
                    side,
                    image: t.image,
                })
            }
            Want::Facts => darkroom_library::facts::read(&job.path).map(Made::Facts),
            // Made by the full-resolution thread; never queued here.
            Want::Full => continue,
        }
        .map_err(|e| e.to_string());
        if !answer(out, &job, result) {
            return;
        }
    }
}

/// Send `job`'s answer; false when the window is gone.
fn answer(out: &Reporter<ThumbDone>, job: &ThumbJob, result: Result<Made, String>) -> bool {
    out.send(ThumbDone {
        id: job.id,
        want: job.want,
        result,
    })
}

fn full_worker(
    jobs: &Receiver<ThumbJob>,
    out: &Reporter<ThumbDone>,
    cancel: &Cancel,
    current: &AtomicU64,
    wanted: &Mutex<Vec<EntryId>>,
) {
    while let Ok(job) = jobs.recv() {
        if cancel.is_set() {
            return;
        }
        if job.id.generation() != current.load(Ordering::Relaxed) {
            continue;
        }
        let still_wanted = wanted.lock().map(|w| w.contains(&job.id)).unwrap_or(true);
        let result = if still_wanted {
            full_picture(&job.path).map_err(|e| e.to_string())
        } else {
            Ok(Made::Skipped)
        };
        if !answer(out, &job, result) {
            return;
        }
    }
}

/// What the catalog thread answers (each answer carries the photo it was asked for).
pub type CatalogReport = darkroom_catalog::client::Report<EntryId>;
pub use darkroom_catalog::client::Request as CatalogRequest;

/// The window's end of the catalog thread ([`darkroom_catalog::client`]): one ordered queue
/// for imports, decisions, undos, naming and words; its answers polled in `logic`. Dropping
/// it lets the queue run dry and joins the thread.
pub struct CatalogThread {
    pub client: darkroom_catalog::client::CatalogClient<EntryId>,
    pub reports: Task<CatalogReport>,
}

impl CatalogThread {
    /// Queue one decision job; handed back when the queue is full.
    pub fn send_decision(&self, job: DecisionJob) -> Result<(), (DecisionJob, bool)> {
        let request = match &job.edit {
            Edit::Change(change) => CatalogRequest::Change {
                tag: job.id,
                seq: job.seq,
                files: job.files.clone(),
                change: change.clone(),
            },
            Edit::Revert { of } => CatalogRequest::Revert {
                tag: job.id,
                seq: job.seq,
                of: *of,
            },
        };
        match self.client.try_send(request) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => Err((job, false)),
            Err(TrySendError::Disconnected(_)) => Err((job, true)),
        }
    }
}

/// Start the catalog thread. Its answers wake the window; their channel is unbounded so the
/// thread never waits for a window that has stopped looking (it is joined on close).
pub fn catalog_thread(
    catalog_path: PathBuf,
    naming: SidecarNaming,
    words: darkroom_catalog::SidecarWords,
    wake: Waker,
) -> CatalogThread {
    let (tx, rx) = std::sync::mpsc::channel();
    let report = move |r: CatalogReport| {
        let _ = tx.send(r);
        wake();
    };
    match darkroom_catalog::client::CatalogClient::start(catalog_path, naming, words, report) {
        Ok(client) => CatalogThread {
            client,
            reports: Task::from_receiver("the catalog thread", rx, None),
        },
        Err(e) => CatalogThread {
            client: darkroom_catalog::client::CatalogClient::unavailable(),
            reports: Task::from_receiver(
                "the catalog thread",
                rx,
                Some(format!(
                    "decisions cannot be saved: cannot start the catalog thread: {e}"
                )),
            ),
        },
    }
}

/// A settings file to write: the window's own, or the engine's beside the probe cache.
pub enum SaveMsg {
    App(PathBuf, crate::services::AppSettings),
    Backend(PathBuf, darkroom_engine::ladder::BackendSettings),
}

/// The settings writer: one thread, so two quick changes land in the order they were made. It
/// reports each file it could not write.
pub fn settings_saver(wake: Waker) -> (SyncSender<SaveMsg>, Task<String>) {
    let (tx, rx) = sync_channel::<SaveMsg>(16);
    let problems = Task::spawn("the settings writer", 16, wake, move |out| {
        for msg in rx {
            let result = match msg {
                SaveMsg::App(path, settings) => settings
                    .store(&path)
                    .map_err(|e| format!("settings not saved: {e}: {}", path.display())),
                SaveMsg::Backend(dir, settings) => settings
                    .store(&dir)
                    .map_err(|e| format!("engine settings not saved: {e}")),
            };
            if let Err(e) = result {
                out.try_send(e);
            }
        }
    });
    (tx, problems)
}

/// Asks the user for a folder; None when they cancel (or no dialog could be shown).
pub type PickFolder = Arc<dyn Fn(FolderAsk) -> Option<PathBuf> + Send + Sync>;

/// What the folder dialog asks, and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderAsk {
    pub title: &'static str,
    pub start: Option<PathBuf>,
}

pub const OPEN_FOLDER: &str = "Open a folder of photos";
pub const MODELS_FOLDER: &str = "Install models from a folder";
pub const EXPORT_FOLDER: &str = "Copy the picks into a folder";

/// The system's folder dialog (the XDG portal on Linux, so Flatpak works; the shell dialog on
/// Windows). It blocks until the user answers, so it runs on a thread of its own.
pub fn system_folder_dialog() -> PickFolder {
    Arc::new(|ask: FolderAsk| {
        let mut dialog = rfd::FileDialog::new().set_title(ask.title);
        if let Some(dir) = ask.start {
            dialog = dialog.set_directory(dir);
        }
        dialog.pick_folder()
    })
}

/// Show the folder dialog in the background; the answer arrives on the task.
pub fn pick_folder(pick: PickFolder, ask: FolderAsk, wake: Waker) -> Task<Option<PathBuf>> {
    Task::spawn("the folder dialog", 1, wake, move |out| {
        out.send(pick(ask));
    })
}

/// The export's plan (what goes where, what is there already): metadata only, off the UI
/// thread.
pub fn export_plan(
    picks: Vec<darkroom_library::Item>,
    root: PathBuf,
    dest: PathBuf,
    wake: Waker,
) -> Task<Result<darkroom_library::export::Plan, String>> {
    Task::spawn("the export plan", 1, wake, move |out| {
        let plan = darkroom_library::export::Plan::new(&picks, &root, &dest);
        out.send(plan.map_err(|e| e.to_string()));
    })
}

/// The export itself: progress overwritten in `progress`, stopped by `cancel`.
pub fn export(
    plan: darkroom_library::export::Plan,
    mode: darkroom_library::export::Mode,
    existing: darkroom_library::export::Existing,
    cancel: Cancel,
    progress: Latest<darkroom_library::export::Progress>,
    wake: Waker,
) -> Task<Result<darkroom_library::export::Report, String>> {
    Task::spawn("the export", 1, wake.clone(), move |out| {
        let report =
            darkroom_library::export::run(&plan, mode, existing, cancel.flag(), &mut |p| {
                progress.update(|v| *v = p);
                wake();
            });
        out.send(report.map_err(|e| e.to_string()));
    })
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

/// What a running index job has said so far, overwritten as it goes: the job never waits for
/// the window (a minimised window may not look for minutes).
#[derive(Default)]
pub struct IndexLive {
    pub to_index: usize,
    pub progress: Option<darkroom_index::Progress>,
    /// Photos that could not be indexed, for the window to take.
    pub failures: Vec<String>,
}

/// The index job on a thread of its own: sessions from the pin taken when it was asked for,
/// its own catalog connection (SQLite WAL lets the catalog thread go on meanwhile). Progress goes
/// into `live`; only the end travels on the channel.
pub fn index_job(
    request: IndexRequest,
    control: Arc<darkroom_index::Control>,
    live: Latest<IndexLive>,
    wake: Waker,
) -> Task<Result<darkroom_index::Summary, String>> {
    Task::spawn("the index job", 1, wake, move |out| {
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
                crate::services::install_runtime(),
                store,
                inference_threads,
            )?;
            let mut models = darkroom_index::open_models(&sessions, &pin, Some(detector), None)?;
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
                    live.update(|l| match event {
                        darkroom_index::Event::Started { to_index, .. } => l.to_index = to_index,
                        darkroom_index::Event::Progress(p) => l.progress = Some(p),
                        darkroom_index::Event::Failed { path, error } => {
                            l.failures.push(format!("{error}: {}", path.display()));
                        }
                        darkroom_index::Event::Indexed { .. } => {}
                    });
                    out.wake();
                },
            )?;
            Ok(summary)
        })();
        out.send(result.map_err(|e| format!("{e:#}")));
    })
}

/// One face as the loupe's close-up strip shows it: a crop at 100% (the photo's own pixels).
pub struct FaceCrop {
    pub image: image::RgbImage,
    pub sharpness: f32,
    pub eyes_closed: Option<bool>,
    /// The face's middle, as fractions of the photo's size.
    pub center: egui::Pos2,
    /// Who it is, where the index's people clustering said.
    pub person: Option<i64>,
}

/// A photo's close-ups for the photo `.0` names: None when the photo is not indexed.
pub type FaceCrops = (EntryId, Result<Option<Vec<FaceCrop>>, String>);

/// Crops of at most this many pixels a side: a close-up, not the photo again.
pub const FACE_CROP_MAX: u32 = 256;

/// The photo's indexed faces at 100%: read from the catalog (its own connection), the photo
/// decoded whole, each face cut out around its box. None when the photo is not indexed.
pub fn face_crops(id: EntryId, photo: PathBuf, catalog: PathBuf, wake: Waker) -> Task<FaceCrops> {
    Task::spawn("the close-ups", 1, wake, move |out| {
        let result = (|| -> Result<Option<Vec<FaceCrop>>, String> {
            if !catalog.is_file() {
                return Ok(None);
            }
            let catalog = Catalog::open_read_only(&catalog).map_err(|e| e.to_string())?;
            let Some(indexed) = catalog.photo_index(&photo).map_err(|e| e.to_string())? else {
                return Ok(None);
            };
            if indexed.faces.is_empty() {
                return Ok(Some(Vec::new()));
            }
            // A RAW's pixels are its largest embedded preview, as the index saw them.
            let img = darkroom_library::working::full(&photo).map_err(|e| e.cause())?;
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
                        center: egui::pos2(
                            cx / img.width().max(1) as f32,
                            cy / img.height().max(1) as f32,
                        ),
                        person: f.person,
                    }
                })
                .collect();
            Ok(Some(crops))
        })();
        out.send((id, result));
    })
}

/// A folder's analysis and the names people were given.
pub struct FolderAnalysis {
    pub photos: Vec<darkroom_index::PhotoAnalysis>,
    pub names: std::collections::HashMap<i64, String>,
}

/// The analysis of folder `generation`, as it answers.
pub type AnalysisAnswer = (u64, Result<FolderAnalysis, String>);

/// The folder's analysis from the index rows (bursts need every photo's row at once), read on a
/// thread of its own with its own catalog connection.
pub fn load_analysis(
    generation: u64,
    photos: Vec<PathBuf>,
    catalog: PathBuf,
    wake: Waker,
) -> Task<AnalysisAnswer> {
    Task::spawn("the folder's analysis", 1, wake, move |out| {
        let result = (|| -> Result<FolderAnalysis, String> {
            if !catalog.is_file() {
                // Nothing was ever recorded: nothing is indexed.
                return Ok(FolderAnalysis {
                    photos: Vec::new(),
                    names: Default::default(),
                });
            }
            let catalog = Catalog::open_read_only(&catalog).map_err(|e| e.to_string())?;
            let indexed = catalog.indexed_of(&photos).map_err(|e| e.to_string())?;
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
        out.send((generation, result));
    })
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
) -> Task<ModelsMsg> {
    Task::spawn("the model manager", 64, wake, move |out| {
        let cards = match darkroom_engine::CardSet::builtin() {
            Ok(c) => c,
            Err(e) => {
                out.send(ModelsMsg::Outcome(Err(e.to_string())));
                return;
            }
        };
        let manager = darkroom_models::ModelManager::new(
            darkroom_engine::ModelStore::new(models_dir, cards),
            mirror,
        );
        let say = |msg: ModelsMsg| {
            out.send(msg);
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
                            out.try_send(ModelsMsg::Progress(p));
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
    })
}
