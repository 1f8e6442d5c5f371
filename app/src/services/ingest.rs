//! Ingest as the command and the window share it: a [`Plan`] first (the card scanned and only
//! read, the photos in shooting order on the shoot's one clock, each photo's files — a RAW,
//! its JPEG twin, their sidecars — named by the pattern under one stem, what was ingested
//! before left out by content, names already on a drive asked about), then [`run`]: each file
//! read once and written to every drive, verified before it takes its name, recorded as it
//! lands, so a run stopped anywhere (a card pulled, a disk full, cancel, kill) is continued by
//! the next: what landed is recognised, what did not is copied again under the same name.
//! Decisions made on the card travel into the working copy's sidecar; clock corrections are
//! written into the copies only when asked.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use darkroom_catalog::{CardFile, Catalog, FileStamp, IngestedFile};
use darkroom_library::ingest::{self, Fields, IngestError, Pattern};
use darkroom_library::{Item, ScanEvent, clock, facts, scan, sidecars};

/// The naming pattern when none is given: a folder per day, the camera's own name.
pub const DEFAULT_PATTERN: &str = "{date}/{name}";

/// What to do with a photo whose name is already taken on a drive by another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collisions {
    /// Give it the next free name: `-2`, `-3`, … (nothing is ever overwritten).
    #[default]
    Number,
    /// Leave it on the card.
    Skip,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The card (a DCIM root or any folder).
    pub source: PathBuf,
    /// The working drive's folder.
    pub to: PathBuf,
    pub backups: Vec<PathBuf>,
    pub pattern: Pattern,
    pub job: String,
    /// Write each body's clock correction into the copies' EXIF times.
    pub write_times: bool,
}

impl Options {
    /// The working drive, then each backup.
    pub fn roots(&self) -> Vec<&Path> {
        std::iter::once(self.to.as_path())
            .chain(self.backups.iter().map(PathBuf::as_path))
            .collect()
    }
}

/// One file of a photo to bring in.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    pub source: PathBuf,
    pub size: u64,
    /// Which file the source was when planned: a decision held for it is carried only into
    /// the copy of that very file.
    pub stamp: FileStamp,
    /// Its new path under each drive.
    pub rel: PathBuf,
    /// The drives (indices into [`Options::roots`]) still without it: a drive holding the
    /// same bytes under this name already (a run stopped after it landed) is not written to.
    pub missing: Vec<usize>,
}

/// One photo of the card.
#[derive(Debug, Clone)]
pub struct PlannedPhoto {
    /// Its primary file on the card (the RAW of a pair): where decisions made on the card are.
    pub source: PathBuf,
    /// Its place in shooting order, from 1: the `{seq}`, the same in every run.
    pub seq: u64,
    pub body: Option<String>,
    /// The body's clock correction, seconds.
    pub offset_s: f64,
    /// What is still to copy; empty when every file was ingested before.
    pub files: Vec<PlannedFile>,
    /// Its new path under each drive, without extension (the pattern's, or numbered).
    pub stem: PathBuf,
    /// The pattern's name was taken on a drive by another file.
    pub collided: bool,
    /// Left on the card ([`Collisions::Skip`]).
    pub skipped: bool,
}

impl PlannedPhoto {
    pub fn already(&self) -> bool {
        self.files.is_empty()
    }

    /// The primary file's new path, relative to a drive.
    pub fn primary_rel(&self) -> Option<&Path> {
        let name = self.source.file_name()?.to_string_lossy().into_owned();
        self.files
            .iter()
            .find(|f| {
                f.source
                    .file_name()
                    .is_some_and(|n| *n.to_string_lossy() == name)
            })
            .map(|f| f.rel.as_path())
    }
}

#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub photos: Vec<PlannedPhoto>,
    /// Folders or files the scan could not read, each with its cause.
    pub unreadable: Vec<String>,
}

impl Plan {
    fn to_copy(&self) -> impl Iterator<Item = &PlannedPhoto> {
        self.photos.iter().filter(|p| !p.already() && !p.skipped)
    }

    pub fn files(&self) -> usize {
        self.to_copy().map(|p| p.files.len()).sum()
    }

    pub fn bytes(&self) -> u64 {
        self.to_copy().flat_map(|p| &p.files).map(|f| f.size).sum()
    }

    pub fn new_photos(&self) -> usize {
        self.to_copy().count()
    }

    pub fn already(&self) -> usize {
        self.photos.iter().filter(|p| p.already()).count()
    }

    pub fn collisions(&self) -> usize {
        self.photos.iter().filter(|p| p.collided).count()
    }

    /// The same plan with collisions handled as `collisions` says (the window's answer).
    pub fn with_collisions(mut self, collisions: Collisions) -> Plan {
        for p in &mut self.photos {
            p.skipped = p.collided && collisions == Collisions::Skip;
        }
        self
    }
}

/// A file of a photo: where it is, and what follows the photo's stem in its name (".CR3",
/// ".JPG", ".CR3.xmp").
struct Member {
    path: PathBuf,
    suffix: String,
}

fn members(item: &Item) -> Vec<Member> {
    let stem = item
        .primary
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files: Vec<PathBuf> = item.files().map(Path::to_path_buf).collect();
    for f in item.files() {
        for s in sidecars::of(f) {
            if !files.contains(&s) {
                files.push(s);
            }
        }
    }
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let suffix = name
                .strip_prefix(&stem)
                .map(str::to_owned)
                .unwrap_or_else(|| format!(".{name}"));
            Member { path, suffix }
        })
        .collect()
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether `path` holds exactly the bytes of `source` (sizes first: a hash only when they
/// agree).
fn holds_same_bytes(path: &Path, source: &Path, size: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() == size)
        && matches!(
            (ingest::copy::hash_of(path), ingest::copy::hash_of(source)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Every drive is its own folder, none inside another or on the card.
fn check_roots(options: &Options) -> Result<(), ingest::RootsError> {
    let roots: Vec<PathBuf> = options.roots().iter().map(|r| r.to_path_buf()).collect();
    ingest::roots::check(&options.source, &roots)
}

/// Every drive checked again (a folder may have been linked since the plan) and held for the
/// run; then the temporaries a killed run left in the folders this one writes to go.
fn hold_roots(plan: &Plan, options: &Options) -> Result<Vec<ingest::RootLock>, String> {
    check_roots(options).map_err(|e| e.to_string())?;
    let holder = ingest::roots::holder_words("a DarkRoom ingest");
    let locks = options
        .roots()
        .iter()
        .map(|r| ingest::roots::lock(r, &holder))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let mut dirs: Vec<PathBuf> = Vec::new();
    for root in options.roots() {
        for file in plan.to_copy().flat_map(|p| &p.files) {
            if let Some(dir) = root.join(&file.rel).parent()
                && !dirs.iter().any(|d| d == dir)
            {
                dirs.push(dir.to_path_buf());
            }
        }
    }
    for dir in dirs {
        for part in ingest::copy::leftover_parts(&dir) {
            let _ = std::fs::remove_file(part);
        }
    }
    Ok(locks)
}

/// A photo of the card as the names are made from it, in shooting order.
#[derive(Debug, Clone)]
pub struct Surveyed {
    pub item: Item,
    /// What its name is made from (the job and sequence left to the plan).
    pub fields: Fields,
    pub body: Option<String>,
    pub offset_s: f64,
    /// Capture time on the shoot's clock, seconds since 1970.
    pub taken: Option<i64>,
}

/// The card's photos in shooting order on the shoot's one clock (each body's correction
/// applied), with what their names are made from; and what could not be read. Only reads.
pub fn survey(
    source: &Path,
    catalog: &Catalog,
    cancel: &AtomicBool,
) -> anyhow::Result<(Vec<Surveyed>, Vec<String>)> {
    if !source.is_dir() {
        anyhow::bail!("the card is not a folder: {}", source.display());
    }
    let mut items = Vec::new();
    let mut unreadable = Vec::new();
    scan::scan(source, cancel, &mut |event| {
        match event {
            ScanEvent::Item(item) => items.push(item),
            ScanEvent::Error(e) => unreadable.push(e.cause()),
        }
        true
    });
    let mut photos = Vec::with_capacity(items.len());
    for item in items {
        let f = facts::read(&item.primary).unwrap_or_default();
        let body = f.body();
        let offset_s = match &body {
            Some(b) => catalog.clock_offset(b)?,
            None => 0.0,
        };
        let taken = f
            .taken
            .as_deref()
            .and_then(clock::seconds_of)
            .map(|t| t + offset_s.round() as i64);
        let fields = Fields {
            taken: taken.map(clock::fields_of),
            camera: f.camera.clone(),
            serial: f.serial.clone(),
            original: item
                .primary
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            job: String::new(),
            seq: 0,
        };
        photos.push(Surveyed {
            item,
            fields,
            body,
            offset_s,
            taken,
        });
    }
    photos.sort_by(|a, b| (a.taken, &a.item.primary).cmp(&(b.taken, &b.item.primary)));
    for (k, p) in photos.iter_mut().enumerate() {
        p.fields.seq = k as u64 + 1;
    }
    Ok((photos, unreadable))
}

/// The first `n` names the pattern gives the surveyed photos: the window's live preview.
pub fn preview(photos: &[Surveyed], pattern: &Pattern, job: &str, n: usize) -> Vec<PathBuf> {
    photos
        .iter()
        .take(n)
        .map(|p| {
            pattern.render(&Fields {
                job: job.to_owned(),
                ..p.fields.clone()
            })
        })
        .collect()
}

/// Scan the card and decide every photo's names; nothing is written. Destinations that are
/// not really different from each other and from the card are refused first.
pub fn plan(options: &Options, catalog: &Catalog, cancel: &AtomicBool) -> anyhow::Result<Plan> {
    check_roots(options)?;
    let (photos, unreadable) = survey(&options.source, catalog, cancel)?;
    name_all(photos, unreadable, options, catalog)
}

fn name_all(
    photos: Vec<Surveyed>,
    unreadable: Vec<String>,
    options: &Options,
    catalog: &Catalog,
) -> anyhow::Result<Plan> {
    let roots = options.roots();
    let mut planned_names: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::with_capacity(photos.len());
    for surveyed in photos {
        let Surveyed {
            item,
            fields,
            body,
            offset_s,
            ..
        } = surveyed;
        let seq = fields.seq;
        // What of it was ingested before, by content: a size never seen needs no hash. A
        // sidecar is never judged alone — a template or a rating-only packet is byte for byte
        // another photo's — it goes wherever its photo's files go.
        let mut new = Vec::new();
        let mut sidecars_of = Vec::new();
        for m in members(&item) {
            let stamp = std::fs::metadata(&m.path)
                .map(|meta| FileStamp::of_metadata(&meta))
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", m.path.display()))?;
            if sidecars::is_sidecar(&m.path) {
                sidecars_of.push((m, stamp));
                continue;
            }
            let size = stamp.size;
            let seen = catalog.ingested_size(size)? && {
                let sha = ingest::copy::hash_of(&m.path)?;
                catalog.ingested(&sha, size)?.is_some()
            };
            if !seen {
                new.push((m, stamp));
            }
        }
        if !new.is_empty() {
            new.extend(sidecars_of);
        }
        let fields = Fields {
            job: options.job.clone(),
            ..fields
        };
        let wanted = options.pattern.render(&fields).with_extension("");
        let mut photo = PlannedPhoto {
            source: item.primary.clone(),
            seq,
            body,
            offset_s,
            files: Vec::new(),
            stem: wanted.clone(),
            collided: false,
            skipped: false,
        };
        if new.is_empty() {
            out.push(photo);
            continue;
        }
        // The pattern's name, unless a drive holds another file there (the same bytes there
        // are a copy a stopped run made, and count as landed).
        let mut missing_per_file = Vec::new();
        for (m, stamp) in &new {
            let size = &stamp.size;
            let rel = with_suffix(&wanted, &m.suffix);
            let mut missing = Vec::new();
            for (r, root) in roots.iter().enumerate() {
                let there = root.join(&rel);
                if there.exists() {
                    if !holds_same_bytes(&there, &m.path, *size) {
                        photo.collided = true;
                    }
                } else {
                    missing.push(r);
                }
            }
            if planned_names.contains(&rel) {
                photo.collided = true;
            }
            missing_per_file.push(missing);
        }
        if photo.collided {
            let suffixes: Vec<String> = new
                .iter()
                .map(|(m, _)| m.suffix.trim_start_matches('.').to_owned())
                .collect();
            let taken =
                |p: &Path| planned_names.contains(p) || roots.iter().any(|r| r.join(p).exists());
            photo.stem = ingest::naming::resolve(&[(wanted, suffixes)], &taken)
                .into_iter()
                .next()
                .unwrap_or_default();
            missing_per_file = vec![(0..roots.len()).collect(); new.len()];
        }
        for ((m, stamp), missing) in new.into_iter().zip(missing_per_file) {
            let rel = with_suffix(&photo.stem, &m.suffix);
            planned_names.insert(rel.clone());
            photo.files.push(PlannedFile {
                source: m.path,
                size: stamp.size,
                stamp,
                rel,
                missing,
            });
        }
        out.push(photo);
    }
    Ok(Plan {
        photos: out,
        unreadable,
    })
}

/// Where a run stands.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub photos_done: usize,
    pub photos_total: usize,
    pub elapsed: Duration,
}

impl Progress {
    /// Bytes a second so far (read from the card; each is written to every drive).
    pub fn rate(&self) -> f64 {
        self.bytes_done as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }

    /// Time left at the rate so far; None before anything was read.
    pub fn left(&self) -> Option<Duration> {
        (self.bytes_done > 0).then(|| {
            Duration::from_secs_f64(
                self.bytes_total.saturating_sub(self.bytes_done) as f64 / self.rate(),
            )
        })
    }

    /// "12 of 40 files · 310 of 1,020 MB · 85 MB/s · 9 s left".
    pub fn line(&self) -> String {
        let mb = |b: u64| b as f64 / 1e6;
        let mut s = format!(
            "{} of {} files · {:.0} of {:.0} MB",
            self.files_done,
            self.files_total,
            mb(self.bytes_done),
            mb(self.bytes_total)
        );
        if self.bytes_done > 0 {
            s.push_str(&format!(" · {:.0} MB/s", self.rate() / 1e6));
        }
        if let Some(left) = self.left() {
            s.push_str(&format!(" · {} s left", left.as_secs()));
        }
        s
    }
}

/// What a run tells as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    Progress(&'a Progress),
    /// A photo is on every drive, verified: `files` are its photo files on the working drive,
    /// the primary first (cull it now).
    Landed {
        files: Vec<PathBuf>,
    },
    /// A photo could not be brought in; the run goes on.
    Failed {
        source: &'a Path,
        error: &'a str,
    },
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub copied_photos: usize,
    pub copied_files: usize,
    pub bytes: u64,
    /// (card file, why) for each photo that failed.
    pub failed: Vec<(PathBuf, String)>,
    /// Why the run stopped before the end (the drive full or gone, the card gone, cancel).
    pub stopped: Option<String>,
    /// Working copies that got the decision made on the card.
    pub decisions_carried: usize,
    /// Copies whose EXIF times were corrected, and those whose format is not rewritten.
    pub times_written: usize,
    pub times_not_written: Vec<String>,
    pub elapsed: Duration,
}

/// Where one photo of a run stands.
#[derive(Default)]
struct PhotoState {
    /// Files not yet verified under their final names.
    remaining: usize,
    failed: bool,
}

/// A run in progress: what the producer (reading and writing) and the finisher (flushing,
/// reading back, naming) report lands here, on the calling thread, in one place.
struct Running<'a> {
    photos: Vec<&'a PlannedPhoto>,
    states: Vec<PhotoState>,
    options: &'a Options,
    catalog: &'a mut Catalog,
    on: &'a mut dyn FnMut(Event<'_>),
    progress: Progress,
    outcome: Outcome,
    started: Instant,
}

impl Running<'_> {
    fn tell_progress(&mut self) {
        self.progress.elapsed = self.started.elapsed();
        (self.on)(Event::Progress(&self.progress));
    }

    /// Files finished together (a batch flushed, read back and named at once): the verified
    /// ones recorded in one commit, then each told. The commit is made on the thread that
    /// reads the card, so it is one flush of the catalog a batch there, not one a file.
    fn batch_done(&mut self, results: Vec<FileResult>) {
        let (photos, to) = (&self.photos, &self.options.to);
        let recorded = self
            .catalog
            .transaction(|c| {
                results.iter().try_for_each(|(p, f, result)| match result {
                    Ok(copied) => {
                        let file = &photos[*p].files[*f];
                        c.record_ingested(&IngestedFile {
                            sha256: copied.sha256.clone(),
                            size: copied.bytes,
                            source: file.source.clone(),
                            dest: to.join(&file.rel),
                        })
                    }
                    Err(_) => Ok(()),
                })
            })
            .and_then(|r| r);
        for (p, _, result) in results {
            match (&recorded, result) {
                (Err(e), Ok(_)) => self.stop(p, e.to_string()),
                (_, result) => self.file_done(p, result),
            }
        }
    }

    /// A file of photo `p` is on every drive, verified and recorded (or failed to be).
    fn file_done(&mut self, p: usize, result: Result<ingest::Copied, IngestError>) {
        match result {
            Ok(copied) => {
                self.outcome.copied_files += 1;
                self.outcome.bytes += copied.bytes;
                self.progress.files_done += 1;
                self.states[p].remaining -= 1;
                if self.states[p].remaining == 0 && !self.states[p].failed {
                    self.photo_done(p);
                }
                self.tell_progress();
            }
            Err(e) => {
                let stops = matches!(e, IngestError::Cancelled { .. })
                    || e.is_destination()
                    || !self.options.source.is_dir();
                if stops {
                    let why = if self.options.source.is_dir() {
                        e.to_string()
                    } else {
                        format!("the card is gone: {}", self.options.source.display())
                    };
                    self.stop(p, why);
                } else {
                    self.fail(p, e.to_string());
                }
            }
        }
    }

    fn fail(&mut self, p: usize, error: String) {
        if std::mem::replace(&mut self.states[p].failed, true) {
            return;
        }
        let source = &self.photos[p].source;
        (self.on)(Event::Failed {
            source,
            error: &error,
        });
        self.outcome.failed.push((source.clone(), error));
    }

    fn stop(&mut self, p: usize, why: String) {
        self.fail(p, why.clone());
        self.outcome.stopped.get_or_insert(why);
    }

    /// Every file of photo `p` landed: its card decision and clock go with it, and it is told.
    fn photo_done(&mut self, p: usize) {
        let photo = self.photos[p];
        let roots = self.options.roots();
        let primary = photo
            .primary_rel()
            .map(|rel| roots[0].join(rel))
            .unwrap_or_else(|| roots[0].join(&photo.stem));
        if self.options.write_times && photo.offset_s != 0.0 {
            write_times(photo, &roots, self.catalog, &mut self.outcome);
        }
        // Each file's held decision into its own copy, where it was made on that very file.
        let mut carried_any = false;
        for file in photo
            .files
            .iter()
            .filter(|f| !sidecars::is_sidecar(&f.source))
        {
            let card = CardFile {
                source: &file.source,
                stamp: file.stamp,
            };
            match self.catalog.carry_held(&card, &roots[0].join(&file.rel)) {
                Ok(Some(carried)) => {
                    carried_any = true;
                    if let Some(e) = carried.sidecar_error {
                        self.outcome
                            .failed
                            .push((file.source.clone(), e.to_string()));
                    }
                }
                Ok(None) => {}
                Err(e) => self
                    .outcome
                    .failed
                    .push((file.source.clone(), e.to_string())),
            }
        }
        if carried_any {
            self.outcome.decisions_carried += 1;
        }
        self.outcome.copied_photos += 1;
        self.progress.photos_done += 1;
        let mut files = vec![primary.clone()];
        files.extend(
            photo
                .files
                .iter()
                .map(|f| roots[0].join(&f.rel))
                .filter(|f| *f != primary && !sidecars::is_sidecar(f)),
        );
        (self.on)(Event::Landed { files });
    }
}

/// Files written before their batch goes to be flushed: enough that the drive flushes in long
/// runs, as `cp` + `sync` lets it, not one journal commit per file (ext4 commits every file's
/// data with each one).
const BATCH_BYTES: u64 = 256 << 20;
const BATCH_FILES: usize = 64;

/// Flush, check and name a batch of written files, each folder flushed once; each file's
/// result, in order.
fn finish_batch(batch: Vec<(usize, usize, ingest::Written)>) -> Vec<FileResult> {
    let mut results = Vec::with_capacity(batch.len());
    let mut report = |p, f, result| results.push((p, f, result));
    let mut flushed = Vec::with_capacity(batch.len());
    for (p, f, w) in batch {
        match w.flush() {
            Ok(()) => flushed.push((p, f, w)),
            Err(e) => report(p, f, Err(e)),
        }
    }
    let mut named = Vec::with_capacity(flushed.len());
    let mut dirs: Vec<PathBuf> = Vec::new();
    for (p, f, w) in flushed {
        match w.check_and_name() {
            Ok((copied, ds)) => {
                for d in ds {
                    if !dirs.contains(&d) {
                        dirs.push(d);
                    }
                }
                named.push((p, f, copied));
            }
            Err(e) => report(p, f, Err(e)),
        }
    }
    let synced = dirs.iter().try_for_each(|d| ingest::copy::sync_dir(d));
    for (p, f, copied) in named {
        report(p, f, synced.clone().map(|()| copied));
    }
    results.sort_by_key(|&(p, f, _)| (p, f));
    results
}

/// File `.1` of photo `.0`: verified on every drive, or why not.
type FileResult = (usize, usize, Result<ingest::Copied, IngestError>);

/// Bring in what the plan says, telling `on` as it goes. Two stages overlap: while one batch
/// of files is flushed, read back and named on a thread of its own, the next is read from the
/// card — so the card and the drive are busy at once, as `cp` keeps them.
pub fn run(
    plan: &Plan,
    options: &Options,
    catalog: &mut Catalog,
    cancel: &AtomicBool,
    on: &mut dyn FnMut(Event<'_>),
) -> Outcome {
    let photos: Vec<&PlannedPhoto> = plan.to_copy().collect();
    let mut run = Running {
        states: photos
            .iter()
            .map(|p| PhotoState {
                remaining: p.files.len(),
                failed: false,
            })
            .collect(),
        photos,
        options,
        catalog,
        on,
        progress: Progress {
            files_total: plan.files(),
            bytes_total: plan.bytes(),
            photos_total: plan.new_photos(),
            ..Progress::default()
        },
        outcome: Outcome::default(),
        started: Instant::now(),
    };
    let roots = options.roots();
    let _held = match hold_roots(plan, options) {
        Ok(locks) => locks,
        Err(why) => {
            run.outcome.stopped = Some(why);
            run.outcome.elapsed = run.started.elapsed();
            return run.outcome;
        }
    };
    std::thread::scope(|s| {
        // One batch at a time waits to be finished: the card is never read far ahead.
        type Batch = Vec<(usize, usize, ingest::Written)>;
        let (to_finish, jobs) = std::sync::mpsc::sync_channel::<Batch>(1);
        let (finished_tx, finished) = std::sync::mpsc::channel();
        s.spawn(move || {
            for batch in jobs {
                let _ = finished_tx.send(finish_batch(batch));
            }
        });
        let mut batch: Batch = Vec::new();
        let mut batch_bytes = 0u64;
        // The first batch is one file: the first photo lands (and can be culled) at once.
        let mut first_batch = true;
        let mut last_told = Instant::now();
        'photos: for p in 0..run.photos.len() {
            let photo = run.photos[p];
            for (f, file) in photo.files.iter().enumerate() {
                while let Ok(results) = finished.try_recv() {
                    run.batch_done(results);
                }
                if run.outcome.stopped.is_some() {
                    break 'photos;
                }
                if run.states[p].failed {
                    break;
                }
                run.tell_progress();
                let dests: Vec<PathBuf> = file
                    .missing
                    .iter()
                    .map(|&r| roots[r].join(&file.rel))
                    .collect();
                if dests.is_empty() {
                    // Landed in a run that stopped before recording it.
                    let copied = ingest::copy::hash_of(&file.source).map(|sha256| ingest::Copied {
                        sha256,
                        bytes: file.size,
                    });
                    run.progress.bytes_done += file.size;
                    run.batch_done(vec![(p, f, copied)]);
                    continue;
                }
                let before = run.progress.bytes_done;
                let written = {
                    let run = &mut run;
                    ingest::write_parts(&file.source, &dests, cancel, &mut |n| {
                        run.progress.bytes_done += n;
                        if last_told.elapsed() >= Duration::from_millis(100) {
                            last_told = Instant::now();
                            run.tell_progress();
                        }
                    })
                };
                match written {
                    Ok(w) => {
                        batch_bytes += file.size * dests.len() as u64;
                        batch.push((p, f, w));
                        if first_batch || batch_bytes >= BATCH_BYTES || batch.len() >= BATCH_FILES {
                            first_batch = false;
                            batch_bytes = 0;
                            if let Err(back) = to_finish.send(std::mem::take(&mut batch)) {
                                // The finisher is gone (it panicked): finish here.
                                run.batch_done(finish_batch(back.0));
                            }
                        }
                    }
                    Err(e) => {
                        run.progress.bytes_done = before;
                        run.file_done(p, Err(e));
                    }
                }
            }
        }
        if !batch.is_empty()
            && let Err(back) = to_finish.send(std::mem::take(&mut batch))
        {
            run.batch_done(finish_batch(back.0));
        }
        drop(to_finish);
        for results in finished {
            run.batch_done(results);
        }
    });
    run.tell_progress();
    run.outcome.elapsed = run.started.elapsed();
    run.outcome
}

/// The body's correction into each copy's EXIF times (every drive), recorded so it is not
/// added again when the copies are indexed.
fn write_times(photo: &PlannedPhoto, roots: &[&Path], catalog: &mut Catalog, out: &mut Outcome) {
    let offset = photo.offset_s.round() as i64;
    for file in &photo.files {
        if sidecars::is_sidecar(&file.source) {
            continue;
        }
        for root in roots {
            let copy = root.join(&file.rel);
            match ingest::retime::shift(&copy, offset) {
                Ok(_) => {
                    out.times_written += 1;
                    if let Err(e) = catalog.record_shifted(&copy, photo.offset_s) {
                        out.times_not_written.push(e.to_string());
                    }
                }
                Err(e) => out.times_not_written.push(e.to_string()),
            }
        }
    }
}
