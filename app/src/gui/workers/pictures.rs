//! The picture pool: thumbnails, loupe pictures and facts on `threads` workers (what the loupe
//! shows first), full-resolution photos on a thread of their own; every picture turned into
//! egui's pixels here, so the window only uploads.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

use darkroom_library::thumbs::ThumbCache;

use super::Cancel;
use crate::gui::tasks::{Reporter, Task, Waker};
use crate::services::LOUPE_SIDE;
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
    /// A loupe picture or full-resolution photo no longer wanted by the time its turn came
    /// (the loupe moved on): not made.
    Skipped,
    Facts(darkroom_library::facts::Facts),
    Faces(super::FaceCrops),
}

pub struct FullMade {
    /// Its faces' close-ups, cut from the same decode.
    pub faces: super::FaceCrops,
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

/// The photo at its own resolution, cut into tiles, with its histogram, its clipping mask and
/// its faces' close-ups.
fn full_picture(img: &image::RgbImage, faces: super::FaceCrops) -> Made {
    use darkroom_library::histogram::{Clip, ClipMask, Histogram};
    let (w, h) = img.dimensions();
    let tiles = darkroom_library::geometry::tiles(w, h, FULL_TILE)
        .into_iter()
        .map(|[left, top, tw, th]| {
            let tile = image::imageops::crop_imm(img, left, top, tw, th).to_image();
            let at = egui::Rect::from_min_size(
                egui::pos2(left as f32, top as f32),
                egui::vec2(tw as f32, th as f32),
            );
            (at, super::pixels_of(&tile))
        })
        .collect();
    let mask = ClipMask::of(img, CLIPPING_SIDE);
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
    Made::Full(Box::new(FullMade {
        faces,
        size: egui::vec2(w as f32, h as f32),
        tiles,
        histogram: Histogram::of(img),
        clipping,
    }))
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
    /// The photos whose loupe pictures are still worth making (the one shown and its
    /// neighbours): stepping faster than decoding drops the photos left behind.
    wanted_loupe: Arc<Mutex<Vec<EntryId>>>,
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
            Want::Full | Want::Faces => self.full_jobs.try_send(job).is_ok(),
            Want::Side(_) | Want::Facts => self.jobs.try_send(job),
        }
    }

    /// The photos whose full resolution is still worth making.
    pub fn want_full(&self, ids: &[EntryId]) {
        set_wanted(&self.wanted_full, ids);
    }

    /// The photos whose loupe pictures are still worth making.
    pub fn want_loupe(&self, ids: &[EntryId]) {
        set_wanted(&self.wanted_loupe, ids);
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
    let wanted_full = Arc::new(Mutex::new(Vec::new()));
    let wanted_loupe = Arc::new(Mutex::new(Vec::new()));
    let loupe_wanted = Arc::clone(&wanted_loupe);
    let threads = threads.max(1);
    // One task whose reporter every pool thread shares: the channel closes when all have ended.
    let shared = Arc::clone(&current);
    let wanted = Arc::clone(&wanted_full);
    let jobs = Arc::clone(&queue);
    let done = Task::spawn("the thumbnail pool", 256, wake, move |out| {
        let out = Arc::new(out);
        let mut handles = Vec::new();
        for i in 0..threads {
            let (jobs, out, cache, cancel, current, loupe) = (
                Arc::clone(&jobs),
                Arc::clone(&out),
                cache.clone(),
                cancel.clone(),
                Arc::clone(&shared),
                Arc::clone(&loupe_wanted),
            );
            let spawned = std::thread::Builder::new()
                .name(format!("darkroom-thumbs-{i}"))
                .spawn(move || thumb_worker(&jobs, &out, &cache, &cancel, &current, &loupe));
            if let Ok(h) = spawned {
                handles.push(h);
            }
        }
        let (out, cancel, current) = (Arc::clone(&out), cancel.clone(), Arc::clone(&shared));
        let spawned = std::thread::Builder::new()
            .name("darkroom-full".to_owned())
            .spawn(move || full_worker(&full_rx, &out, &catalog, &cancel, &current, &wanted));
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
        wanted_loupe,
    }
}

fn thumb_worker(
    jobs: &PictureQueue,
    out: &Reporter<ThumbDone>,
    cache: &ThumbCache,
    cancel: &Cancel,
    current: &AtomicU64,
    loupe: &Mutex<Vec<EntryId>>,
) {
    while let Some(job) = jobs.next() {
        if cancel.is_set() {
            return;
        }
        if job.id.generation() != current.load(Ordering::Relaxed) {
            continue;
        }
        if job.want == Want::Side(LOUPE_SIDE) && !wanted(loupe, job.id) {
            // Stepped past before its turn: the decode goes to the photo shown instead.
            if !answer(out, &job, Ok(Made::Skipped)) {
                return;
            }
            continue;
        }
        let result = match job.want {
            Want::Side(side) => {
                // A picture just made goes to the window before the cache's encode.
                let mut sent = false;
                let made = cache.get_then_store(&job.path, side, |t| {
                    let image = super::pixels_of(&t.image);
                    sent = answer(out, &job, Ok(Made::Picture { side, image }));
                });
                if sent {
                    continue;
                }
                made.map(|t| Made::Picture {
                    side,
                    image: super::pixels_of(&t.image),
                })
            }
            Want::Facts => darkroom_library::facts::read(&job.path).map(Made::Facts),
            // Made by the full-resolution thread; never queued here.
            Want::Full | Want::Faces => continue,
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
    catalog: &std::path::Path,
    cancel: &Cancel,
    current: &AtomicU64,
    full: &Mutex<Vec<EntryId>>,
) {
    while let Ok(job) = jobs.recv() {
        if cancel.is_set() {
            return;
        }
        if job.id.generation() != current.load(Ordering::Relaxed) {
            continue;
        }
        let still_wanted = job.want == Want::Faces || wanted(full, job.id);
        let result = if still_wanted {
            // One decode for the view and the faces' close-ups.
            darkroom_library::working::full(&job.path)
                .map(|img| {
                    let faces = super::faces::crops_of(&img, &job.photo, catalog);
                    match job.want {
                        Want::Faces => Made::Faces(faces),
                        _ => full_picture(&img, faces),
                    }
                })
                .map_err(|e| e.to_string())
        } else {
            Ok(Made::Skipped)
        };
        if !answer(out, &job, result) {
            return;
        }
    }
}
