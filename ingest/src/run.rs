//! The run: what the plan says, done. The drives are held, the plan goes into the journal
//! before a byte is copied, two stages overlap (while one batch of files is flushed, read back
//! and named on a thread of its own, the next is read from the card), and each verified file
//! is recorded ingested in the commit that marks its journal entry done.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use darkroom_catalog::{Catalog, IngestedFile};
use darkroom_library::ingest::{self, IngestError};
use darkroom_library::sidecars;

use crate::finish::{self, Finished, InCopy};
use crate::plan::{Options, Plan, PlannedPhoto, check_roots};

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
    /// Photos whose copies got the decisions made on the card.
    pub decisions_carried: usize,
    /// Photos an unfinished run had named, finished under those names.
    pub resumed: usize,
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
    roots_key: Vec<u8>,
    catalog: &'a mut Catalog,
    on: &'a mut dyn FnMut(Event<'_>),
    progress: Progress,
    outcome: Outcome,
    started: Instant,
    /// The card's folder as the run found it: None until the drives are held.
    card: Option<ingest::Anchor>,
    /// Each drive's folder as the run locked it.
    drives: Vec<ingest::Anchor>,
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
        let (photos, to, key) = (&self.photos, &self.options.to, &self.roots_key);
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
                        })?;
                        c.journal_done(key, &file.source, file.stamp)
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
                // A file that cannot be read is that photo's failure, unless the card itself
                // went: then every later one would fail too.
                let e = self.drive_gone().or_else(|| self.card_gone()).unwrap_or(e);
                let stops = matches!(
                    e,
                    IngestError::Cancelled { .. } | IngestError::CardGone { .. }
                ) || e.is_destination();
                if stops {
                    self.stop(p, e.to_string());
                } else {
                    self.fail(p, e.to_string());
                }
            }
        }
    }

    /// A drive that is no longer the folder the run began on: what a failure there says.
    fn drive_gone(&self) -> Option<IngestError> {
        gone_drive(&self.drives)
    }

    /// The card, if it is no longer the folder the run began on (pulled out, or another card
    /// in its reader).
    fn card_gone(&self) -> Option<IngestError> {
        self.card
            .as_ref()
            .filter(|card| !card.in_place())
            .map(|card| IngestError::CardGone {
                path: card.path().to_path_buf(),
            })
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

    /// Every file of photo `p` landed: its card decisions and clock go with it, and it is told.
    fn photo_done(&mut self, p: usize) {
        let photo = self.photos[p];
        let root = self.options.to.as_path();
        let files: Vec<InCopy<'_>> = photo
            .files
            .iter()
            .map(|f| InCopy {
                source: &f.source,
                stamp: f.stamp,
                copy: root.join(&f.rel),
                landed: false,
            })
            .chain(landed(photo))
            .collect();
        finish_photo(self.catalog, self.options, photo, &files, &mut self.outcome);
        self.outcome.copied_photos += 1;
        self.progress.photos_done += 1;
        // The primary first: the card's primary file, wherever it landed, this run or before.
        let is_primary = |f: &&InCopy<'_>| f.source == photo.source;
        let mut shown: Vec<PathBuf> = files
            .iter()
            .filter(is_primary)
            .map(|f| f.copy.clone())
            .collect();
        shown.extend(
            files
                .iter()
                .filter(|f| !is_primary(f) && !sidecars::is_sidecar(f.source))
                .map(|f| f.copy.clone()),
        );
        (self.on)(Event::Landed { files: shown });
    }
}

/// A photo's files that were in before this run, with their working copies.
fn landed(photo: &PlannedPhoto) -> impl Iterator<Item = InCopy<'_>> {
    photo.landed.iter().map(|l| InCopy {
        source: &l.source,
        stamp: l.stamp,
        copy: l.copy.clone(),
        landed: true,
    })
}

/// Carries and clock for a photo whose files are all on the working drive.
fn finish_photo(
    catalog: &mut Catalog,
    options: &Options,
    photo: &PlannedPhoto,
    files: &[InCopy<'_>],
    outcome: &mut Outcome,
) {
    let mut done = Finished::default();
    if options.write_times && photo.offset_s != 0.0 {
        finish::write_times(catalog, files, photo.offset_s, &mut done);
    }
    finish::carry(catalog, files, &mut done);
    if done.carried {
        outcome.decisions_carried += 1;
    }
    outcome.failed.extend(done.failed);
    outcome.times_written += done.times_written;
    outcome.times_not_written.extend(done.times_not_written);
}

/// Files written before their batch goes to be flushed: enough that the drive flushes in long
/// runs, as `cp` + `sync` lets it, not one journal commit per file (ext4 commits every file's
/// data with each one).
const BATCH_BYTES: u64 = 256 << 20;
const BATCH_FILES: usize = 64;

/// The first drive that is no longer the folder it was when the run locked it.
fn gone_drive(drives: &[ingest::Anchor]) -> Option<IngestError> {
    drives
        .iter()
        .find(|d| !d.in_place())
        .map(|d| IngestError::DriveGone {
            path: d.path().to_path_buf(),
        })
}

/// Flush, check and name a batch of written files, each folder flushed once; each file's
/// result, in order. A drive that left meanwhile fails the batch: a copy is named and counted
/// only while every drive is the one the run began on (unmounted, its path would name the
/// bare mount point on another disk).
fn finish_batch(
    batch: Vec<(usize, usize, ingest::Written)>,
    drives: &[ingest::Anchor],
) -> Vec<FileResult> {
    let mut results = Vec::with_capacity(batch.len());
    if let Some(gone) = gone_drive(drives) {
        // Dropped, each Written removes its temporaries where the path still reaches them;
        // the next run, holding the drive again, sweeps the rest.
        for (p, f, _) in batch {
            results.push((p, f, Err(gone.clone())));
        }
        return results;
    }
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
    let synced = dirs
        .iter()
        .try_for_each(|d| ingest::copy::sync_dir(d))
        .and_then(|()| gone_drive(drives).map_or(Ok(()), Err));
    for (p, f, copied) in named {
        report(p, f, synced.clone().map(|()| copied));
    }
    results.sort_by_key(|&(p, f, _)| (p, f));
    results
}

/// The card or a drive, if it is no longer the folder the plan saw (or, for a drive's folder
/// still to be made, the folder it goes in).
fn seen_gone(plan: &Plan, options: &Options) -> Option<IngestError> {
    plan.seen.iter().find_map(|(path, anchor)| {
        (!anchor.in_place()).then(|| {
            if *path == options.source {
                IngestError::CardGone { path: path.clone() }
            } else {
                IngestError::DriveGone { path: path.clone() }
            }
        })
    })
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
    catalog.set_naming(options.naming);
    catalog.set_words(options.words);
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
        roots_key: options.roots_key(),
        catalog,
        on,
        progress: Progress {
            files_total: plan.files(),
            bytes_total: plan.bytes(),
            photos_total: plan.new_photos(),
            ..Progress::default()
        },
        outcome: Outcome {
            resumed: plan.resumed(),
            ..Outcome::default()
        },
        started: Instant::now(),
        card: None,
        drives: Vec::new(),
    };
    // The card and the drives are still what the plan saw: none unmounted, none another in
    // its place (a lock must not make a drive's folder on a bare mount point)...
    if let Some(gone) = seen_gone(plan, options) {
        run.outcome.stopped = Some(gone.to_string());
        run.outcome.elapsed = run.started.elapsed();
        return run.outcome;
    }
    let held = match hold_roots(plan, options) {
        Ok(locks) => locks,
        Err(why) => {
            run.outcome.stopped = Some(why);
            run.outcome.elapsed = run.started.elapsed();
            return run.outcome;
        }
    };
    // ...and still are now the drives are held: one unmounted while it was locked has its
    // lock, and the folders the run writes through, on the bare mount point, which from here
    // on would look in place.
    if let Some(gone) = seen_gone(plan, options) {
        run.outcome.stopped = Some(gone.to_string());
        run.outcome.elapsed = run.started.elapsed();
        return run.outcome;
    }
    let card_seen = plan.seen.first().map(|(_, anchor)| Ok(anchor.clone()));
    match card_seen.unwrap_or_else(|| ingest::Anchor::of(&options.source)) {
        Ok(card) => run.card = Some(card),
        Err(_) => {
            let gone = IngestError::CardGone {
                path: options.source.clone(),
            };
            run.outcome.stopped = Some(gone.to_string());
            run.outcome.elapsed = run.started.elapsed();
            return run.outcome;
        }
    }
    run.drives = held.iter().map(|lock| lock.anchor().clone()).collect();
    // The finisher's own copy: `run` is the producer's.
    let drives = &run.drives.clone();
    // Decisions a DarkRoom from before the held table kept on these card files are held
    // against them now, so an upgrade carries them as it would have.
    for photo in &plan.photos {
        let sources = photo
            .files
            .iter()
            .map(|f| &f.source)
            .chain(photo.landed.iter().map(|l| &l.source));
        for source in sources.filter(|s| !sidecars::is_sidecar(s)) {
            if let Err(e) = run.catalog.adopt_held(source) {
                run.outcome.failed.push((source.clone(), e.to_string()));
            }
        }
    }
    // The names go into the journal before a byte is copied: whatever stops this run, the
    // next finishes under them.
    let journalled: Vec<(&Path, darkroom_catalog::FileStamp, &Path)> = plan
        .to_copy()
        .flat_map(|p| &p.files)
        .map(|f| (f.source.as_path(), f.stamp, f.rel.as_path()))
        .collect();
    if let Err(e) = run.catalog.journal_plan(&run.roots_key, &journalled) {
        run.outcome.stopped = Some(format!("the plan could not be recorded: {e}"));
        run.outcome.elapsed = run.started.elapsed();
        return run.outcome;
    }
    // Photos a stopped run brought in without finishing: what they still owe.
    for photo in plan
        .photos
        .iter()
        .filter(|p| p.already() && !p.landed.is_empty())
    {
        let files: Vec<InCopy<'_>> = landed(photo).collect();
        finish_photo(run.catalog, options, photo, &files, &mut run.outcome);
    }
    std::thread::scope(|s| {
        // One batch at a time waits to be finished: the card is never read far ahead.
        type Batch = Vec<(usize, usize, ingest::Written)>;
        let (to_finish, jobs) = std::sync::mpsc::sync_channel::<Batch>(1);
        let (finished_tx, finished) = std::sync::mpsc::channel();
        s.spawn(move || {
            for batch in jobs {
                let _ = finished_tx.send(finish_batch(batch, drives));
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
                // Nothing is written past a drive that left or a card that was pulled: the
                // next run, with both back, finishes from the journal.
                if let Some(gone) = run.drive_gone().or_else(|| run.card_gone()) {
                    run.stop(p, gone.to_string());
                    break 'photos;
                }
                run.tell_progress();
                // What each drive has under the name now, under the lock, not what the plan
                // saw: a file there is this one's copy — landed by a run that stopped before
                // recording it, or by one that held the drives between this plan and this run
                // — when it reads back as the card's file, and is left alone when not.
                let (there, dests): (Vec<_>, Vec<_>) = held
                    .iter()
                    .map(|lock| (lock.root().join(&file.rel), lock.folder()))
                    .partition(|(d, _)| d.symlink_metadata().is_ok());
                let there: Vec<PathBuf> = there.into_iter().map(|(d, _)| d).collect();
                if !there.is_empty() {
                    let confirmed = ingest::copy::confirm_landed(&file.source, &there);
                    if dests.is_empty() || confirmed.is_err() {
                        run.progress.bytes_done += file.size;
                        run.batch_done(vec![(p, f, confirmed)]);
                        continue;
                    }
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
                                run.batch_done(finish_batch(back.0, drives));
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
            run.batch_done(finish_batch(back.0, drives));
        }
        drop(to_finish);
        for results in finished {
            run.batch_done(results);
        }
    });
    run.tell_progress();
    if run.outcome.stopped.is_none() && run.outcome.failed.is_empty() {
        // Everything planned is in: the journal has nothing left to say.
        if let Err(e) = run.catalog.journal_close(&run.roots_key) {
            run.outcome
                .failed
                .push((options.source.clone(), e.to_string()));
        }
    }
    run.outcome.elapsed = run.started.elapsed();
    run.outcome
}
