//! The picture pool: thumbnails, loupe pictures and facts on `threads` workers (what the loupe
//! shows first), full-resolution photos on a thread of their own; every picture turned into
//! egui's pixels here, so the window only uploads.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

use darkroom_library::thumbs::{Source, ThumbCache};

use super::Cancel;
use crate::gui::tasks::{Reporter, Task, Waker};
use crate::services::{LOUPE_SIDE, THUMB_SIDE};
use darkroom_index::culling::EntryId;

/// What a picture request asks for: a picture fitting a square of `side` pixels (cached on
/// disk), or the photo at its own resolution (never cached: a JPEG of it would not be its own
/// pixels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Side(u32),
    Full,
    /// The facts beside the photo (EXIF), cheap: the loupe shows them at once.
    Facts,
    /// The indexed faces' close-ups alone (people across a burst), from a full decode.
    Faces,
}

/// A picture request and its answer.
pub struct ThumbJob {
    pub id: EntryId,
    /// The file whose pixels are made (a RAW's JPEG twin, where it has one).
    pub path: PathBuf,
    /// The photo the index rows are kept under (its primary file): its faces' close-ups.
    pub photo: PathBuf,
    pub want: Want,
}

pub struct ThumbDone {
    pub id: EntryId,
    pub want: Want,
    pub result: Result<Made, String>,
}

pub enum Made {
    /// In egui's pixels already (made on the worker).
    Picture {
        side: u32,
        image: egui::ColorImage,
    },
    /// Cut into tiles and turned into egui's pixels here, off the UI thread, which only
    /// uploads them.
    Full(Box<FullMade>),
    /// The rows of a photo's own pixels that a zoomed loupe shows, before the rest ([`ZoomedView`]):
    /// its `Full` follows.
    FullPart(Box<FullPart>),
    /// A loupe picture or full-resolution photo no longer wanted by the time its turn came
    /// (the loupe moved on): not made.
    Skipped,
    Facts(Box<darkroom_library::facts::Facts>),
    Faces(super::FaceCrops),
}

pub struct FullMade {
    /// Its faces' close-ups, cut from the same decode.
    pub faces: super::FaceCrops,
    pub size: egui::Vec2,
    pub tiles: Vec<(egui::Rect, egui::ColorImage)>,
    pub histogram: darkroom_library::histogram::Histogram,
    pub clipping: egui::ColorImage,
    /// Focus peaking's mask (Shift+F), as long as the clipping mask.
    pub peaking: egui::ColorImage,
}

pub struct FullPart {
    /// The photo's size in its own pixels.
    pub size: egui::Vec2,
    pub tiles: Vec<(egui::Rect, egui::ColorImage)>,
}

/// Where a zoomed loupe looks: its photo, the photo's point in the middle of the pane
/// (fractions of its size, as [`crate::gui::zoom::Zoom`] holds it) and how many of the
/// photo's own pixels the pane shows across and down.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoomedView {
    pub id: EntryId,
    pub center: egui::Pos2,
    pub extent: egui::Vec2,
}

/// Rows decoded around what a zoomed loupe shows, above and below it: a pan of a few steps
/// stays on pixels of their own.
const VIEW_MARGIN: f32 = 128.0;

/// The rows of a photo `height` px high that `view` shows, with [`VIEW_MARGIN`] around them,
/// its middle held as the loupe holds it (a view near an edge shows that edge).
pub fn visible_rows(view: &ZoomedView, height: u32) -> std::ops::Range<u32> {
    let h = height as f32;
    let half = view.extent.y.max(1.0) / 2.0;
    if half * 2.0 >= h {
        return 0..height;
    }
    let middle = (view.center.y * h).clamp(half, h - half);
    let top = (middle - half - VIEW_MARGIN).floor().max(0.0) as u32;
    let end = ((middle + half + VIEW_MARGIN).ceil() as u32).min(height);
    top..end.max(top + 1).min(height)
}

/// The rows `view` shows of the photo at `path`, cut into tiles, before its whole decode; None
/// where the file does not allow it ([`darkroom_library::working::full_rows`]).
fn visible_part(path: &std::path::Path, view: &ZoomedView) -> Option<FullPart> {
    let rows = darkroom_library::working::full_rows(path, |_, h| visible_rows(view, h))?;
    let (w, h) = rows.full_size;
    let top = rows.top as f32;
    let tiles = darkroom_library::geometry::tiles(w, rows.image.height(), FULL_TILE)
        .into_iter()
        .map(|r| {
            let (at, pixels) = tile_of(&rows.image, r);
            (at.translate(egui::vec2(0.0, top)), pixels)
        })
        .collect();
    Some(FullPart {
        size: egui::vec2(w as f32, h as f32),
        tiles,
    })
}

/// Full-resolution tiles are at most this many pixels a side: every GPU wgpu runs on takes a
/// 2,048² texture, while a 45 MP photo's 8,256 px is past many a limit.
pub const FULL_TILE: u32 = 2048;

/// The clipping mask is at most this long: one mask pixel stands for a block of the photo, and
/// marks the block if any pixel in it clips (a blown highlight must not average away).
pub const CLIPPING_SIDE: u32 = 2048;
const BLOWN_MARK: egui::Color32 = egui::Color32::from_rgba_premultiplied(230, 0, 0, 230);
const CRUSHED_MARK: egui::Color32 = egui::Color32::from_rgba_premultiplied(0, 60, 230, 230);
/// Focus peaking's colour: a green no photo's edges are likely to be.
const PEAK_MARK: egui::Color32 = egui::Color32::from_rgba_premultiplied(40, 255, 40, 255);

/// The photo at its own resolution, cut into tiles, with its histogram, its clipping and focus
/// peaking masks and its faces' close-ups, the masks and histogram on threads of their own:
/// the person waits for it after a stop (one after the other they took ~120 ms after the
/// decode's 135 on two cores).
fn full_picture(img: &image::RgbImage, faces: super::FaceCrops) -> Result<Made, String> {
    use darkroom_library::histogram::{Clip, ClipMask, Histogram};
    use darkroom_library::peaking::PeakMask;
    let (w, h) = img.dimensions();
    let rects = darkroom_library::geometry::tiles(w, h, FULL_TILE);
    let (histogram, mask, peaks, tiles) = std::thread::scope(|s| {
        // A thread that cannot be started leaves its part to this one.
        let histogram = std::thread::Builder::new().spawn_scoped(s, || Histogram::of(img));
        let mask = std::thread::Builder::new().spawn_scoped(s, || ClipMask::of(img, CLIPPING_SIDE));
        let peaks =
            std::thread::Builder::new().spawn_scoped(s, || PeakMask::of(img, CLIPPING_SIDE));
        let tiles: Vec<_> = rects.iter().map(|&r| tile_of(img, r)).collect();
        let histogram = match histogram {
            Ok(h) => h
                .join()
                .map_err(|_| "the photo's histogram could not be made")?,
            Err(_) => Histogram::of(img),
        };
        let mask = match mask {
            Ok(m) => m
                .join()
                .map_err(|_| "the photo's clipping could not be read")?,
            Err(_) => ClipMask::of(img, CLIPPING_SIDE),
        };
        let peaks = match peaks {
            Ok(p) => p
                .join()
                .map_err(|_| "the photo's sharp edges could not be found")?,
            Err(_) => PeakMask::of(img, CLIPPING_SIDE),
        };
        Ok::<_, String>((histogram, mask, peaks, tiles))
    })?;
    let peaking = egui::ColorImage::new(
        [peaks.width as usize, peaks.height as usize],
        peaks
            .marks
            .iter()
            .map(|&m| {
                if m {
                    PEAK_MARK
                } else {
                    egui::Color32::TRANSPARENT
                }
            })
            .collect(),
    );
    let clipping = egui::ColorImage::new(
        [mask.width as usize, mask.height as usize],
        mask.marks
            .iter()
            .map(|c| match c {
                Clip::Blown => BLOWN_MARK,
                Clip::Crushed => CRUSHED_MARK,
                Clip::None => egui::Color32::TRANSPARENT,
            })
            .collect(),
    );
    Ok(Made::Full(Box::new(FullMade {
        faces,
        size: egui::vec2(w as f32, h as f32),
        tiles,
        histogram,
        clipping,
        peaking,
    })))
}

/// One tile of `img` (`[left, top, width, height]`) in egui's pixels, read straight from its
/// rows (no intermediate copy).
fn tile_of(img: &image::RgbImage, [left, top, tw, th]: [u32; 4]) -> (egui::Rect, egui::ColorImage) {
    let (width, raw) = (img.width() as usize, img.as_raw());
    let (left, top, tw, th) = (left as usize, top as usize, tw as usize, th as usize);
    let mut pixels = Vec::with_capacity(tw * th);
    for y in top..top + th {
        let start = (y * width + left) * 3;
        let row = raw.get(start..start + tw * 3).unwrap_or_default();
        pixels.extend(
            row.chunks_exact(3)
                .map(|p| egui::Color32::from_rgb(p[0], p[1], p[2])),
        );
    }
    // A short read (it cannot happen for a tile inside the photo) is padded, never a panic.
    pixels.resize(tw * th, egui::Color32::BLACK);
    let at = egui::Rect::from_min_size(
        egui::pos2(left as f32, top as f32),
        egui::vec2(tw as f32, th as f32),
    );
    (at, egui::ColorImage::new([tw, th], pixels))
}

/// Picture jobs waiting for the pool, taken in the order of the window's plan (the photo the
/// loupe shows, then those coming in the direction of travel), then the rest (grid and
/// filmstrip thumbnails, facts) in the order asked. A loupe picture the plan no longer names
/// is answered `Skipped` at once: stepped past before its turn, its decode goes to the photo
/// shown instead.
pub struct PictureQueue {
    jobs: Mutex<QueueState>,
    ready: Condvar,
}

#[derive(Default)]
struct QueueState {
    jobs: VecDeque<ThumbJob>,
    plan: Vec<(EntryId, Want)>,
    /// Jobs ranked here or later (and those the plan does not name) wait.
    hold_from: Option<usize>,
    closed: bool,
}

/// What a worker does with the job it took.
enum Turn {
    Make(ThumbJob),
    Skip(ThumbJob),
}

/// At most this many picture jobs the plan does not name wait: the window asks again next
/// frame for what did not fit. Jobs it names always get in (each photo asks once for each of
/// its pictures, so the folder bounds them).
const PICTURE_QUEUE: usize = 256;

impl PictureQueue {
    fn new() -> Self {
        PictureQueue {
            jobs: Mutex::new(QueueState::default()),
            ready: Condvar::new(),
        }
    }

    /// Queue `job`; false when the queue is full (or the pool is gone). A job the plan names
    /// is queued past the limit: grid thumbnails waiting from before must not keep out the
    /// loupe's photo (each photo asks once for each picture, so the folder bounds it).
    pub fn try_send(&self, job: ThumbJob) -> bool {
        let Ok(mut q) = self.jobs.lock() else {
            return false;
        };
        let planned = q
            .plan
            .iter()
            .any(|&(id, want)| id == job.id && want == job.want);
        if q.closed || (q.jobs.len() >= PICTURE_QUEUE && !planned) {
            return false;
        }
        q.jobs.push_back(job);
        drop(q);
        self.ready.notify_one();
        true
    }

    /// The order the window wants its pictures in now, most wanted first; with `hold_from`,
    /// only the jobs ranked before it are taken (a photo's own pixels are being made, and the
    /// rest would take the cores from them).
    pub fn set_plan(&self, plan: &[(EntryId, Want)], hold_from: Option<usize>) {
        let Ok(mut q) = self.jobs.lock() else {
            return;
        };
        if q.plan == plan && q.hold_from == hold_from {
            return;
        }
        q.plan.clear();
        q.plan.extend_from_slice(plan);
        // Without a hold a worker waits only on an empty queue; with one (before or now), a
        // job held may have become one to take.
        let held = q.hold_from.is_some() || hold_from.is_some();
        q.hold_from = hold_from;
        drop(q);
        if held {
            self.ready.notify_all();
        }
    }

    /// The next job, waiting for one; None once closed.
    fn next(&self) -> Option<Turn> {
        let mut q = self.jobs.lock().ok()?;
        loop {
            if let Some(turn) = q.take_best() {
                return Some(turn);
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

impl QueueState {
    /// The planned job ranked first, else the oldest unplanned one; a loupe picture the plan
    /// dropped before anything else, to be answered at once.
    fn take_best(&mut self) -> Option<Turn> {
        let mut best: Option<(usize, usize)> = None;
        for (i, job) in self.jobs.iter().enumerate() {
            let rank = self
                .plan
                .iter()
                .position(|&(id, want)| id == job.id && want == job.want);
            let rank = match rank {
                Some(r) => r,
                None if job.want == Want::Side(LOUPE_SIDE) => {
                    return self.jobs.remove(i).map(Turn::Skip);
                }
                None => usize::MAX,
            };
            if self.hold_from.is_some_and(|h| rank >= h) {
                continue;
            }
            if best.is_none_or(|(r, _)| rank < r) {
                best = Some((rank, i));
            }
        }
        best.and_then(|(_, i)| self.jobs.remove(i)).map(Turn::Make)
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
    done: Task<ThumbDone>,
    /// The full-resolution thread took no more jobs (it ended).
    full_gone: AtomicBool,
    /// An answer taken but not uploaded: the frame that answers a step keeps its uploads
    /// small, so the next frame takes it first.
    held: Option<ThumbDone>,
    current: Arc<AtomicU64>,
    /// How long a grid thumbnail takes now, in µs: a running mean of the last few.
    thumb_cost: Arc<AtomicU64>,
    full: Arc<FullShared>,
}

/// What the window and the full-resolution thread share.
struct FullShared {
    /// The photos whose own pixels are still worth making.
    wanted: Mutex<Vec<EntryId>>,
    /// Where a zoomed loupe looks, if it does.
    view: Mutex<Option<ZoomedView>>,
    /// How long a photo's own pixels take now, decode to tiles, in µs (a running mean).
    cost: AtomicU64,
    /// The photo whose own pixels were decoded last (their tiles may still be being cut).
    decoded: Mutex<Option<EntryId>>,
}

impl FullShared {
    /// Where the loupe looks, if it is zoomed on `id`.
    fn view_of(&self, id: EntryId) -> Option<ZoomedView> {
        let view = *self.view.lock().ok()?;
        view.filter(|v| v.id == id)
    }
}

/// A thumbnail's cost before any is measured: a 24 MP JPEG's ⅛ decode on one core …
const THUMB_COST_GUESS: std::time::Duration = std::time::Duration::from_millis(80);
/// … and its own pixels' (a full decode, its tiles, histogram and clipping mask).
const FULL_COST_GUESS: std::time::Duration = std::time::Duration::from_millis(250);

impl Drop for ThumbPool {
    fn drop(&mut self) {
        // The workers wait on the queue, not on a channel that closes with its sender.
        self.jobs.close();
    }
}

impl ThumbPool {
    /// The next answer: one held back first, then what the workers sent; None while they work.
    pub fn next_done(&mut self) -> Option<Result<ThumbDone, String>> {
        match self.held.take() {
            Some(done) => Some(Ok(done)),
            None => self.done.answer(),
        }
    }

    /// Whether an answer is held for the next frame.
    pub fn holding(&self) -> bool {
        self.held.is_some()
    }

    /// Keep `done` for the next call of [`ThumbPool::next_done`].
    pub fn hold(&mut self, done: ThumbDone) {
        debug_assert!(self.held.is_none(), "one answer held at a time");
        self.held = Some(done);
    }

    /// A new folder is open: what was asked for the last one is no longer worth making.
    pub fn set_generation(&self, generation: u64) {
        self.current.store(generation, Ordering::Relaxed);
    }

    /// Queue `job` where its kind is made; false when that queue is full.
    pub fn send(&self, job: ThumbJob) -> bool {
        match job.want {
            Want::Full | Want::Faces => match self.full_jobs.try_send(job) {
                Ok(()) => true,
                Err(TrySendError::Full(_)) => false,
                Err(TrySendError::Disconnected(_)) => {
                    self.full_gone.store(true, Ordering::Relaxed);
                    false
                }
            },
            Want::Side(_) | Want::Facts => self.jobs.try_send(job),
        }
    }

    /// The photos whose full resolution is still worth making.
    pub fn want_full(&self, ids: &[EntryId]) {
        set_wanted(&self.full.wanted, ids);
    }

    /// Where a zoomed loupe looks (None: it is not zoomed): that photo's rows on screen are
    /// decoded and sent before the rest.
    pub fn look_at(&self, view: Option<ZoomedView>) {
        if let Ok(mut v) = self.full.view.lock() {
            *v = view;
        }
    }

    /// How long a grid thumbnail takes to make now (from the disk cache, an embedded preview
    /// or a decode, whichever the last few were).
    pub fn thumb_cost(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.thumb_cost.load(Ordering::Relaxed))
    }

    /// How long a photo's own pixels take to make now.
    pub fn full_cost(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.full.cost.load(Ordering::Relaxed))
    }

    /// Whether the full-resolution thread has ended (nothing asked of it will come).
    pub fn full_gone(&self) -> bool {
        self.full_gone.load(Ordering::Relaxed)
    }

    /// Whether photo `id`'s own pixels were the last decoded (their tiles may still be being
    /// cut).
    pub fn decoded(&self, id: EntryId) -> bool {
        self.full.decoded.lock().is_ok_and(|d| *d == Some(id))
    }

    /// The order the window wants its pictures in (see [`PictureQueue::set_plan`]).
    pub fn plan(&self, plan: &[(EntryId, Want)], hold_from: Option<usize>) {
        self.jobs.set_plan(plan, hold_from);
    }
}

fn set_wanted(slot: &Mutex<Vec<EntryId>>, ids: &[EntryId]) {
    if let Ok(mut w) = slot.lock() {
        w.clear();
        w.extend_from_slice(ids);
    }
}

/// Whether `id` is in a wanted list (a poisoned lock wants everything).
fn wanted(slot: &Mutex<Vec<EntryId>>, id: EntryId) -> bool {
    slot.lock().map(|w| w.contains(&id)).unwrap_or(true)
}

/// `catalog`: where the faces' close-ups find the index rows.
pub fn thumb_pool(
    cache: ThumbCache,
    catalog: PathBuf,
    threads: usize,
    cancel: Cancel,
    wake: Waker,
) -> ThumbPool {
    let queue = Arc::new(PictureQueue::new());
    let (full_tx, full_rx) = sync_channel::<ThumbJob>(16);
    let current = Arc::new(AtomicU64::new(0));
    let thumb_cost = Arc::new(AtomicU64::new(THUMB_COST_GUESS.as_micros() as u64));
    let cost = Arc::clone(&thumb_cost);
    let full = Arc::new(FullShared {
        wanted: Mutex::new(Vec::new()),
        view: Mutex::new(None),
        cost: AtomicU64::new(FULL_COST_GUESS.as_micros() as u64),
        decoded: Mutex::new(None),
    });
    let threads = threads.max(1);
    // One task whose reporter every pool thread shares: the channel closes when all have ended.
    let shared = Arc::clone(&current);
    let full_shared = Arc::clone(&full);
    let jobs = Arc::clone(&queue);
    let done = Task::spawn("the thumbnail pool", 256, wake, move |out| {
        let out = Arc::new(out);
        let mut handles = Vec::new();
        for i in 0..threads {
            let (jobs, out, cache, cancel, current, cost) = (
                Arc::clone(&jobs),
                Arc::clone(&out),
                cache.clone(),
                cancel.clone(),
                Arc::clone(&shared),
                Arc::clone(&cost),
            );
            let spawned = std::thread::Builder::new()
                .name(format!("darkroom-thumbs-{i}"))
                .spawn(move || {
                    darkroom_engine::lower_this_thread();
                    thumb_worker(&jobs, &out, &cache, &cancel, &current, &cost);
                });
            if let Ok(h) = spawned {
                handles.push(h);
            }
        }
        let (out, cancel, current) = (Arc::clone(&out), cancel.clone(), Arc::clone(&shared));
        let spawned = std::thread::Builder::new()
            .name("darkroom-full".to_owned())
            .spawn(move || {
                // Below the window's thread, as the picture workers (at the window's own
                // priority it took the cores from the next photos' pictures: measured).
                darkroom_engine::lower_this_thread();
                full_worker(&full_rx, &out, &catalog, &cancel, &current, &full_shared);
            });
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
        full_gone: AtomicBool::new(false),
        held: None,
        current,
        thumb_cost,
        full,
    }
}

fn thumb_worker(
    jobs: &PictureQueue,
    out: &Reporter<ThumbDone>,
    cache: &ThumbCache,
    cancel: &Cancel,
    current: &AtomicU64,
    cost: &AtomicU64,
) {
    while let Some(turn) = jobs.next() {
        if cancel.is_set() {
            return;
        }
        let job = match turn {
            Turn::Make(job) => job,
            Turn::Skip(job) => {
                if !answer(out, &job, Ok(Made::Skipped)) {
                    return;
                }
                continue;
            }
        };
        if job.id.generation() != current.load(Ordering::Relaxed) {
            continue;
        }
        let result = match job.want {
            Want::Side(side) => {
                // A picture just made goes to the window before the cache's encode.
                let mut sent = false;
                let started = std::time::Instant::now();
                let made = cache.get_then_store(&job.path, side, |t| {
                    let image = super::pixels_of(&t.image);
                    sent = answer(out, &job, Ok(Made::Picture { side, image }));
                    if side == THUMB_SIDE {
                        note_cost(cost, started.elapsed());
                    }
                });
                if side == THUMB_SIDE && made.as_ref().is_ok_and(|t| t.source == Source::Cache) {
                    note_cost(cost, started.elapsed());
                }
                if sent {
                    continue;
                }
                made.map(|t| Made::Picture {
                    side,
                    image: super::pixels_of(&t.image),
                })
                .map_err(|e| e.to_string())
            }
            Want::Facts => darkroom_library::facts::read(&job.path)
                .map(|facts| Made::Facts(Box::new(facts)))
                .map_err(|e| e.to_string()),
            // Made by the full-resolution thread; never queued here.
            Want::Full | Want::Faces => continue,
        };
        if !answer(out, &job, result) {
            return;
        }
    }
}

/// A thumbnail took `took`: into the running mean (the last four or so weigh most).
fn note_cost(cost: &AtomicU64, took: std::time::Duration) {
    let took = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
    let _ = cost.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |was| {
        Some((was.saturating_mul(3).saturating_add(took)) / 4)
    });
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
    catalog: &std::path::Path,
    cancel: &Cancel,
    current: &AtomicU64,
    shared: &FullShared,
) {
    let full = &shared.wanted;
    while let Ok(job) = jobs.recv() {
        if cancel.is_set() {
            return;
        }
        if job.id.generation() != current.load(Ordering::Relaxed) {
            continue;
        }
        let still_wanted = || job.want == Want::Faces || wanted(full, job.id);
        // Zoomed on it: the rows on screen first, then the whole (if still wanted after them).
        let view = shared.view_of(job.id).filter(|_| job.want == Want::Full);
        if still_wanted()
            && let Some(part) = view.and_then(|v| visible_part(&job.path, &v))
            && !answer(out, &job, Ok(Made::FullPart(Box::new(part))))
        {
            return;
        }
        let result = if still_wanted() {
            // One decode for the view and the faces' close-ups.
            let started = std::time::Instant::now();
            let decoded = darkroom_library::working::full(&job.path);
            if let Ok(mut d) = shared.decoded.lock() {
                *d = Some(job.id);
            }
            // The window's next plan lets the next photo's screen picture begin.
            out.wake();
            match decoded {
                Err(e) => Err(e.to_string()),
                Ok(img) => {
                    let faces = super::faces::crops_of(&img, &job.photo, catalog);
                    match job.want {
                        Want::Faces => Ok(Made::Faces(faces)),
                        // Moved on during the decode: the rest is not made.
                        _ if !wanted(full, job.id) => Ok(Made::Skipped),
                        _ => {
                            let made = full_picture(&img, faces);
                            note_cost(&shared.cost, started.elapsed());
                            made
                        }
                    }
                }
            }
        } else {
            Ok(Made::Skipped)
        };
        if !answer(out, &job, result) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<EntryId> {
        let cull = darkroom_index::culling::fixtures::folder(n);
        (0..n).map(|i| cull.id(i)).collect()
    }

    fn job(id: EntryId, want: Want) -> ThumbJob {
        ThumbJob {
            id,
            path: PathBuf::new(),
            photo: PathBuf::new(),
            want,
        }
    }

    fn taken(q: &mut QueueState) -> Vec<(bool, EntryId, Want)> {
        std::iter::from_fn(|| q.take_best())
            .map(|t| match t {
                Turn::Make(j) => (true, j.id, j.want),
                Turn::Skip(j) => (false, j.id, j.want),
            })
            .collect()
    }

    #[test]
    fn the_rows_on_screen_are_held_as_the_loupe_holds_them_with_a_margin() {
        let id = ids(1)[0];
        let view = |y: f32, rows: f32| ZoomedView {
            id,
            center: egui::pos2(0.5, y),
            extent: egui::vec2(1000.0, rows),
        };
        let m = VIEW_MARGIN as u32;
        assert_eq!(visible_rows(&view(0.5, 800.0), 4000), 1600 - m..2400 + m);
        // Near an edge the loupe shows that edge, and so do the rows.
        assert_eq!(visible_rows(&view(0.0, 800.0), 4000), 0..800 + m);
        assert_eq!(visible_rows(&view(1.0, 800.0), 4000), 3200 - m..4000);
        // A pane taller than the photo: all of it.
        assert_eq!(visible_rows(&view(0.3, 5000.0), 4000), 0..4000);
    }

    #[test]
    fn jobs_go_in_the_plans_order_the_rest_as_asked_and_dropped_loupe_pictures_at_once() {
        let p = ids(5);
        let (thumb, loupe) = (Want::Side(THUMB_SIDE), Want::Side(LOUPE_SIDE));
        let mut q = QueueState::default();
        for j in [
            job(p[0], thumb),
            job(p[1], loupe),
            job(p[2], thumb),
            job(p[3], loupe),
            job(p[4], thumb),
        ] {
            q.jobs.push_back(j);
        }
        q.plan = vec![(p[2], thumb), (p[1], loupe)];
        assert_eq!(
            taken(&mut q),
            [
                (false, p[3], loupe),
                (true, p[2], thumb),
                (true, p[1], loupe),
                (true, p[0], thumb),
                (true, p[4], thumb),
            ]
        );
    }

    #[test]
    fn while_a_photos_own_pixels_are_made_only_what_comes_before_them_is_taken() {
        let p = ids(3);
        let thumb = Want::Side(THUMB_SIDE);
        let mut q = QueueState::default();
        for id in &p {
            q.jobs.push_back(job(*id, thumb));
        }
        q.plan = vec![(p[1], Want::Facts), (p[2], thumb), (p[1], thumb)];
        q.hold_from = Some(2);
        assert_eq!(taken(&mut q), [(true, p[2], thumb)]);
        q.hold_from = None;
        assert_eq!(taken(&mut q), [(true, p[1], thumb), (true, p[0], thumb)]);
    }
}
