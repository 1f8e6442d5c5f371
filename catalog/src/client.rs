//! The one owner of the catalog in a process that decides while it imports (the window): a
//! thread that takes imports, changes, undos, naming and words in one ordered queue and
//! answers each with the id (`tag`) it was asked for.
//!
//! Work is done in batches: whatever is queued (up to [`BATCH`]) is one transaction, so a
//! select-all of 2,000 photos is a handful of synchronous commits, not 2,000. A change is
//! applied to what the photo really has — imported first if it never was — so a decision made
//! before a photo's import landed keeps every rating and label another tool wrote. Each change
//! is answered with the photo's decision before and after, once it is committed; its sidecars
//! are written after the commit (their folders flushed once a batch), and a sidecar that fails
//! is reported on its own, its photo left pending for the next open to write.
//!
//! Closing joins the thread after everything queued is done, sidecars included: a window that
//! closes while decisions are saving loses none of them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use crate::decision::{Change, Decision};
use crate::sidecar::SidecarNaming;
use crate::xmp::SidecarWords;
use crate::{Catalog, CatalogError};

/// At most this many requests are one transaction (a commit every few hundred keeps each
/// answer prompt while the flushes stay few).
pub const BATCH: usize = 256;
/// Requests waiting for the thread: the caller keeps the rest (a window never blocks).
pub const QUEUE: usize = 512;
/// Sidecars left to write after their commits, at most, while requests keep coming.
pub const SIDECARS_DEFERRED: usize = 4096;

/// What the catalog thread is asked to do, in order.
#[derive(Debug)]
pub enum Request<T> {
    /// Bring a photo into the catalog (its sidecar read if it is new).
    Import {
        tag: T,
        photo: PathBuf,
    },
    /// Make `change` on every file of a photo (a RAW and its JPEG twin); `seq` names it for
    /// [`Request::Revert`] and in the answer.
    Change {
        tag: T,
        seq: u64,
        files: Vec<PathBuf>,
        change: Change,
    },
    /// Put back, in each file change `of` changed, the field it changed, as it was before.
    /// `files` are the photo's, for the answer when `of` changed nothing here (it failed).
    Revert {
        tag: T,
        seq: u64,
        of: u64,
        files: Vec<PathBuf>,
    },
    Naming(SidecarNaming),
    Words(SidecarWords),
    /// Whether decisions on a card's photos are written into sidecars on the card.
    WriteToCards(bool),
    /// A camera body's clock correction, seconds (0 removes it); answered `ClockSet`.
    SetClock {
        body: String,
        offset_s: f64,
    },
    /// Name a person (None: forget the name).
    NamePerson(i64, Option<String>),
    /// Make a person a key person, or not; answered `PersonStarred`.
    StarPerson(i64, bool),
}

/// A change's answer: the photo's decision before and after, or why nothing was recorded.
pub type Answer = Result<(Decision, Decision), String>;

/// What the catalog thread answers.
#[derive(Debug)]
pub enum Report<T> {
    /// What the catalog or a sidecar says about an imported photo; None when the import
    /// itself failed (what the photo has is not known: `error` says why).
    Imported {
        tag: T,
        decision: Option<Decision>,
        error: Option<String>,
        /// Another tool changed the photo's sidecar since DarkRoom last read or wrote it:
        /// `decision` is what it wrote.
        outside: bool,
    },
    /// Change or revert `seq` is durable in the catalog: the photo's decision before and after
    /// (its first file's); or it failed, and nothing of it was recorded.
    Decided { tag: T, seq: u64, result: Answer },
    /// A sidecar of the photo could not be read or written; the catalog has the decision, and
    /// the next open writes the sidecar again.
    SidecarFailed { tag: T, error: String },
    /// A body's clock correction is durable: what reads the index rows now sees it.
    ClockSet { body: String, offset_s: f64 },
    /// A person was made a key person (or not), durably: the folder's analysis is read again.
    PersonStarred { id: i64, starred: bool },
    /// Something that belongs to no photo (the catalog did not open).
    Problem(String),
}

/// The caller's end of the catalog thread.
pub struct CatalogClient<T> {
    requests: Option<SyncSender<Request<T>>>,
    thread: Option<JoinHandle<()>>,
    unfinished: Arc<AtomicUsize>,
    /// Set when the caller lets go: a thread still waiting for another program's lock on
    /// the catalog stops waiting.
    closing: Arc<AtomicBool>,
}

impl<T: Send + Clone + 'static> CatalogClient<T> {
    /// Open the catalog at `path` on a thread of its own (writing the sidecars a crash left
    /// pending first); every answer goes to `report`, which must not block for long.
    pub fn start(
        path: PathBuf,
        naming: SidecarNaming,
        words: SidecarWords,
        report: impl FnMut(Report<T>) + Send + 'static,
    ) -> std::io::Result<Self> {
        Self::start_batched(path, naming, words, BATCH, report)
    }

    /// [`CatalogClient::start`] with at most `batch` requests a transaction (1: each request
    /// committed and its sidecar written and flushed before the next, the way it was done
    /// before; `bench-decisions` compares).
    pub fn start_batched(
        path: PathBuf,
        naming: SidecarNaming,
        words: SidecarWords,
        batch: usize,
        report: impl FnMut(Report<T>) + Send + 'static,
    ) -> std::io::Result<Self> {
        let batch = batch.max(1);
        let (tx, rx) = sync_channel(QUEUE);
        let unfinished = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&unfinished);
        let closing = Arc::new(AtomicBool::new(false));
        let stop_waiting = Arc::clone(&closing);
        let thread = std::thread::Builder::new()
            .name("darkroom-catalog".into())
            .spawn(move || {
                let mut worker = Worker {
                    catalog: None,
                    sidecars: Vec::new(),
                    owed: 0,
                    history: HashMap::new(),
                    report: Box::new(report),
                };
                worker.open(&path, naming, words, &stop_waiting);
                worker.serve(&rx, &counter, batch);
            })?;
        Ok(CatalogClient {
            requests: Some(tx),
            thread: Some(thread),
            unfinished,
            closing,
        })
    }
}

impl<T> CatalogClient<T> {
    /// A client with no thread behind it (the thread could not start): every request is
    /// handed back.
    pub fn unavailable() -> Self {
        CatalogClient {
            requests: None,
            thread: None,
            unfinished: Arc::new(AtomicUsize::new(0)),
            closing: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Queue `request`; handed back when the queue is full or the thread is gone.
    pub fn try_send(&self, request: Request<T>) -> Result<(), TrySendError<Request<T>>> {
        let Some(tx) = &self.requests else {
            return Err(TrySendError::Disconnected(request));
        };
        self.unfinished.fetch_add(1, Ordering::SeqCst);
        tx.try_send(request).inspect_err(|_| {
            self.unfinished.fetch_sub(1, Ordering::SeqCst);
        })
    }

    /// Queue `request`, waiting while the queue is full (a command or a benchmark, which have
    /// nothing else to do; a window uses [`CatalogClient::try_send`]). Handed back when the
    /// thread is gone.
    pub fn send(&self, request: Request<T>) -> Result<(), Request<T>> {
        let mut request = request;
        loop {
            match self.try_send(request) {
                Ok(()) => return Ok(()),
                Err(TrySendError::Full(back)) => {
                    request = back;
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                Err(TrySendError::Disconnected(back)) => return Err(back),
            }
        }
    }

    /// Requests queued or in progress, sidecars included: zero when everything asked is done.
    pub fn unfinished(&self) -> usize {
        self.unfinished.load(Ordering::SeqCst)
    }

    /// Whether the thread is still there to take requests.
    pub fn alive(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Let the queue run dry and wait for the thread: everything sent before is done (in the
    /// catalog and its sidecars) when this returns.
    pub fn close(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        self.requests = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl<T> Drop for CatalogClient<T> {
    fn drop(&mut self) {
        self.close();
    }
}

type Inverse = Vec<(PathBuf, Change)>;

struct Worker<T> {
    catalog: Option<Catalog>,
    /// Files whose decision changed and whose sidecars are still to write, with their photo.
    sidecars: Vec<(PathBuf, T)>,
    /// Requests taken whose work (their sidecars included) is not all done yet.
    owed: usize,
    /// For each change made here, what puts each of its files back (undo).
    history: HashMap<u64, Inverse>,
    report: Box<dyn FnMut(Report<T>) + Send>,
}

/// One request's outcome inside a batch, reported once the batch is committed.
enum Done<T> {
    Imported(T, Option<Decision>, Option<String>, bool),
    Decided {
        tag: T,
        seq: u64,
        result: Answer,
        /// The files whose decision changed (their sidecars are written after the commit).
        changed: Vec<PathBuf>,
        inverse: Option<Inverse>,
        import_errors: Vec<String>,
    },
}

impl<T: Clone> Worker<T> {
    /// Open the catalog; while another program holds its lock (another DarkRoom, a backup
    /// tool, a first run's upgrade elsewhere) wait for it, saying so once, until the caller
    /// lets go: requests queue meanwhile and nothing is lost.
    fn open(
        &mut self,
        path: &std::path::Path,
        naming: SidecarNaming,
        words: SidecarWords,
        closing: &AtomicBool,
    ) {
        let mut opened = Catalog::open(path, naming);
        let mut said = false;
        while let Err(e) = &opened
            && e.is_busy()
            && !closing.load(Ordering::SeqCst)
        {
            if !std::mem::replace(&mut said, true) {
                (self.report)(Report::Problem(format!(
                    "another program holds the catalog; decisions wait for it: {}",
                    path.display()
                )));
            }
            opened = Catalog::open(path, naming);
        }
        match opened {
            Ok(mut c) => {
                c.set_words(words);
                // Sidecars a crash left unwritten are written now; what still fails is said.
                match c.flush_pending() {
                    Ok(failed) => {
                        for e in failed {
                            (self.report)(Report::Problem(e.to_string()));
                        }
                    }
                    Err(e) => (self.report)(Report::Problem(format!(
                        "sidecars left from the last run were not checked: {e}"
                    ))),
                }
                self.catalog = Some(c);
            }
            Err(e) => (self.report)(Report::Problem(format!("decisions cannot be saved: {e}"))),
        }
    }

    /// Decisions before sidecars: while requests keep coming, batch after batch is committed
    /// and answered, and the sidecars of what changed wait (up to [`SIDECARS_DEFERRED`]) until
    /// the queue runs dry, so a select-all is durable as fast as the catalog can commit it.
    fn serve(&mut self, rx: &Receiver<Request<T>>, unfinished: &AtomicUsize, most: usize) {
        let mut next: Option<Request<T>> = None;
        loop {
            let first = match next.take() {
                Some(r) => r,
                None => {
                    self.write_sidecars(unfinished);
                    // Blocks while there is nothing to do; ends when the caller lets go.
                    match rx.recv() {
                        Ok(r) => r,
                        Err(_) => break,
                    }
                }
            };
            let mut batch = vec![first];
            while batch.len() < most {
                match rx.try_recv() {
                    Ok(r) => batch.push(r),
                    Err(_) => break,
                }
            }
            let mut work = Vec::new();
            for request in batch {
                // Counted as it is taken, so a flush of sidecars in the middle of a batch
                // counts as done only what was done.
                self.owed += 1;
                match request {
                    Request::Naming(n) => {
                        self.run(std::mem::take(&mut work));
                        // Sidecars of what came before go where they were to go.
                        self.write_sidecars(unfinished);
                        if let Some(c) = self.catalog.as_mut() {
                            c.set_naming(n);
                        }
                    }
                    Request::Words(w) => {
                        self.run(std::mem::take(&mut work));
                        self.write_sidecars(unfinished);
                        if let Some(c) = self.catalog.as_mut() {
                            c.set_words(w);
                        }
                    }
                    Request::WriteToCards(write) => {
                        self.run(std::mem::take(&mut work));
                        self.write_sidecars(unfinished);
                        if let Some(c) = self.catalog.as_mut() {
                            c.set_write_to_cards(write);
                        }
                    }
                    Request::SetClock { body, offset_s } => {
                        self.run(std::mem::take(&mut work));
                        if let Some(c) = self.catalog.as_mut() {
                            match c.set_clock_offset(&body, offset_s) {
                                Ok(()) => (self.report)(Report::ClockSet { body, offset_s }),
                                Err(e) => (self.report)(Report::Problem(format!(
                                    "the clock correction was not saved: {e}"
                                ))),
                            }
                        }
                    }
                    Request::StarPerson(id, starred) => {
                        self.run(std::mem::take(&mut work));
                        if let Some(c) = self.catalog.as_mut() {
                            match c.star_person(id, starred) {
                                Ok(true) => (self.report)(Report::PersonStarred { id, starred }),
                                Ok(false) => (self.report)(Report::Problem(format!(
                                    "Person {id} is not in the catalog: nobody was starred"
                                ))),
                                Err(e) => (self.report)(Report::Problem(format!(
                                    "the key person was not saved: {e}"
                                ))),
                            }
                        }
                    }
                    Request::NamePerson(id, name) => {
                        self.run(std::mem::take(&mut work));
                        if let Some(c) = self.catalog.as_mut()
                            && let Err(e) = c.name_person(id, name.as_deref())
                        {
                            (self.report)(Report::Problem(format!("the name was not saved: {e}")));
                        }
                    }
                    other => work.push(other),
                }
            }
            self.run(work);
            next = rx.try_recv().ok();
            // One at a time (`bench-decisions`' "before"): each request wholly done first.
            if most == 1 || self.sidecars.len() >= SIDECARS_DEFERRED {
                self.write_sidecars(unfinished);
            }
        }
        self.write_sidecars(unfinished);
    }

    /// Write the sidecars of everything committed so far (their folders flushed once), report
    /// those that failed, and count the requests behind them as done.
    fn write_sidecars(&mut self, unfinished: &AtomicUsize) {
        let sidecars = std::mem::take(&mut self.sidecars);
        if let Some(catalog) = self.catalog.as_mut()
            && !sidecars.is_empty()
        {
            let files: Vec<PathBuf> = sidecars.iter().map(|(f, _)| f.clone()).collect();
            for (file, error) in catalog.write_sidecars(&files) {
                if let Some((_, tag)) = sidecars.iter().find(|(f, _)| *f == file) {
                    (self.report)(Report::SidecarFailed {
                        tag: tag.clone(),
                        error: error.to_string(),
                    });
                }
            }
        }
        unfinished.fetch_sub(std::mem::take(&mut self.owed), Ordering::SeqCst);
    }

    /// Imports, changes and reverts in one transaction; if the commit fails, each again on
    /// its own, so a failure is the failing photo's alone.
    fn run(&mut self, work: Vec<Request<T>>) {
        if work.is_empty() {
            return;
        }
        let Some(catalog) = self.catalog.as_mut() else {
            for r in work {
                self.fail(r, "the catalog could not be opened".into());
            }
            return;
        };
        let history = &self.history;
        let committed =
            catalog.transaction(|c| work.iter().map(|r| one(c, history, r)).collect::<Vec<_>>());
        match committed {
            Ok(done) => self.finish(done),
            Err(e) if work.len() == 1 => {
                for r in work {
                    self.fail(r, e.to_string());
                }
            }
            Err(_) => {
                for r in work {
                    self.run(vec![r]);
                }
            }
        }
    }

    fn fail(&mut self, request: Request<T>, why: String) {
        let report = match request {
            Request::Import { tag, .. } => Report::Imported {
                tag,
                decision: None,
                error: Some(why),
                outside: false,
            },
            Request::Change { tag, seq, .. } | Request::Revert { tag, seq, .. } => {
                Report::Decided {
                    tag,
                    seq,
                    result: Err(why),
                }
            }
            _ => return,
        };
        (self.report)(report);
    }

    /// Committed: answer each request; the sidecars of what changed are written once the
    /// queue runs dry.
    fn finish(&mut self, done: Vec<Done<T>>) {
        let mut sidecars: Vec<(PathBuf, T)> = Vec::new();
        for d in done {
            match d {
                Done::Imported(tag, decision, error, outside) => {
                    (self.report)(Report::Imported {
                        tag,
                        decision,
                        error,
                        outside,
                    });
                }
                Done::Decided {
                    tag,
                    seq,
                    result,
                    changed,
                    inverse,
                    import_errors,
                } => {
                    if let Some(inverse) = inverse {
                        self.history.insert(seq, inverse);
                    }
                    for error in import_errors {
                        (self.report)(Report::SidecarFailed {
                            tag: tag.clone(),
                            error,
                        });
                    }
                    sidecars.extend(changed.into_iter().map(|f| (f, tag.clone())));
                    (self.report)(Report::Decided { tag, seq, result });
                }
            }
        }
        self.sidecars.extend(sidecars);
    }
}

/// One request inside the batch's transaction, in a savepoint of its own: a change to a RAW
/// and its twin is recorded for both or for neither.
fn one<T: Clone>(
    c: &mut Catalog,
    history: &HashMap<u64, Inverse>,
    request: &Request<T>,
) -> Done<T> {
    match request {
        Request::Import { tag, photo } => match c.import(photo) {
            Ok(o) => Done::Imported(
                tag.clone(),
                Some(o.decision),
                o.sidecar_error.map(|e| e.to_string()),
                o.outside,
            ),
            Err(e) => Done::Imported(tag.clone(), None, Some(e.to_string()), false),
        },
        Request::Change {
            tag,
            seq,
            files,
            change,
        } => {
            let edits: Vec<(PathBuf, Change)> =
                files.iter().map(|f| (f.clone(), change.clone())).collect();
            decided(c, tag, *seq, &edits, true)
        }
        Request::Revert {
            tag,
            seq,
            of,
            files,
        } => match history.get(of) {
            Some(edits) => decided(c, tag, *seq, edits, false),
            // A change that failed, or one from before this thread, has nothing to put back:
            // answered with what the photo has.
            None => {
                let result = match files.first().map(|f| c.import(f)) {
                    Some(Ok(o)) => Ok((o.decision.clone(), o.decision)),
                    Some(Err(e)) => Err(e.to_string()),
                    None => Err("a photo with no file".to_owned()),
                };
                Done::Decided {
                    tag: tag.clone(),
                    seq: *seq,
                    result,
                    changed: Vec::new(),
                    inverse: None,
                    import_errors: Vec::new(),
                }
            }
        },
        Request::Naming(_)
        | Request::Words(_)
        | Request::WriteToCards(_)
        | Request::SetClock { .. }
        | Request::NamePerson(..)
        | Request::StarPerson(..) => {
            unreachable!("settings are applied between batches")
        }
    }
}

fn decided<T: Clone>(
    c: &mut Catalog,
    tag: &T,
    seq: u64,
    edits: &[(PathBuf, Change)],
    keep_inverse: bool,
) -> Done<T> {
    let result = in_savepoint(c, |c| {
        let mut first = None;
        let mut changed = Vec::new();
        let mut inverse = Vec::new();
        let mut import_errors = Vec::new();
        for (file, change) in edits {
            let out = c.change(file, change)?;
            if out.after != out.before {
                changed.push(file.clone());
            }
            inverse.push((file.clone(), change.undone_to(&out.before)));
            import_errors.extend(out.import_error.map(|e| e.to_string()));
            first.get_or_insert((out.before, out.after));
        }
        Ok((first, changed, inverse, import_errors))
    });
    match result {
        Ok((first, changed, inverse, import_errors)) => Done::Decided {
            tag: tag.clone(),
            seq,
            result: Ok(first.unwrap_or_default()),
            changed,
            inverse: keep_inverse.then_some(inverse),
            import_errors,
        },
        Err(e) => Done::Decided {
            tag: tag.clone(),
            seq,
            result: Err(e.to_string()),
            changed: Vec::new(),
            inverse: None,
            import_errors: Vec::new(),
        },
    }
}

fn in_savepoint<R>(
    c: &mut Catalog,
    work: impl FnOnce(&mut Catalog) -> Result<R, CatalogError>,
) -> Result<R, CatalogError> {
    c.execute("SAVEPOINT one")?;
    match work(c) {
        Ok(r) => {
            c.execute("RELEASE one")?;
            Ok(r)
        }
        Err(e) => {
            let _ = c.execute("ROLLBACK TO one");
            let _ = c.execute("RELEASE one");
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{ColourLabel, Flag, Label};
    use std::sync::mpsc::channel;

    fn theirs() -> Decision {
        Decision {
            flag: Flag::Unflagged,
            stars: 5,
            label: Some(Label::Colour(ColourLabel::Blue)),
        }
    }

    /// `n` photos whose sidecars another tool wrote (5 stars, blue).
    fn shoot(dir: &std::path::Path, n: usize) -> Vec<PathBuf> {
        (0..n)
            .map(|i| {
                let p = dir.join(format!("IMG_{i:04}.jpg"));
                std::fs::write(&p, b"jpeg").expect("photo");
                let packet = crate::xmp::new_packet(
                    &theirs(),
                    SidecarWords {
                        digikam: false,
                        photo_mechanic: false,
                    },
                );
                std::fs::write(dir.join(format!("IMG_{i:04}.jpg.xmp")), packet).expect("xmp");
                p
            })
            .collect()
    }

    fn start(dir: &std::path::Path) -> (CatalogClient<usize>, Receiver<Report<usize>>) {
        let (tx, rx) = channel();
        let client = CatalogClient::start(
            dir.join("catalog.sqlite"),
            SidecarNaming::WithExtension,
            SidecarWords::default(),
            move |r| {
                let _ = tx.send(r);
            },
        )
        .expect("thread");
        (client, rx)
    }

    fn send(client: &CatalogClient<usize>, r: Request<usize>) {
        assert!(client.send(r).is_ok(), "the thread is gone");
    }

    /// `change` on each photo, photo `i` tagged `i` with sequence number `i + 1`.
    fn change_each(client: &CatalogClient<usize>, photos: &[PathBuf], change: &Change) {
        for (i, p) in photos.iter().enumerate() {
            send(
                client,
                Request::Change {
                    tag: i,
                    seq: i as u64 + 1,
                    files: vec![p.clone()],
                    change: change.clone(),
                },
            );
        }
    }

    fn catalog(dir: &std::path::Path) -> Catalog {
        Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension).expect("catalog")
    }

    fn sidecar_decision(photo: &std::path::Path) -> Decision {
        crate::sidecar::read(photo, SidecarNaming::WithExtension)
            .expect("reads")
            .expect("a sidecar")
    }

    /// A select-all pick sent before any import: every photo keeps the other tool's stars and
    /// label, gains the pick, and each answer says so; undo puts back what was there.
    #[test]
    fn changes_before_imports_keep_what_another_tool_wrote() {
        let dir = tempfile::tempdir().expect("tempdir");
        let photos = shoot(dir.path(), 300);
        let (mut client, rx) = start(dir.path());
        change_each(&client, &photos, &Change::Flag(Flag::Pick));
        // The imports come after the changes, as a window that was slow to queue them.
        for (i, p) in photos.iter().enumerate() {
            send(
                &client,
                Request::Import {
                    tag: i,
                    photo: p.clone(),
                },
            );
        }
        send(
            &client,
            Request::Revert {
                tag: 0,
                seq: 1000,
                of: 1,
                files: vec![photos[0].clone()],
            },
        );
        client.close();
        let mut decided = 0;
        let mut order = Vec::new();
        for r in rx.try_iter() {
            match r {
                Report::Decided { tag, seq, result } => {
                    let (before, after) = result.expect("durable");
                    if seq == 1000 {
                        assert_eq!(after, theirs(), "undo puts back the tool's decision");
                        continue;
                    }
                    assert_eq!(before, theirs(), "photo {tag}");
                    assert_eq!(after.stars, 5);
                    assert_eq!(after.flag, Flag::Pick);
                    order.push(seq);
                    decided += 1;
                }
                Report::Imported { decision, tag, .. } => {
                    let decision = decision.expect("imported");
                    assert_eq!(
                        decision.flag,
                        Flag::Pick,
                        "{tag}: the import sees the change"
                    );
                    assert_eq!(decision.stars, 5);
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(decided, 300);
        assert!(order.windows(2).all(|w| w[0] < w[1]), "answered in order");
        assert_eq!(sidecar_decision(&photos[0]), theirs());
        for p in &photos[1..] {
            let d = sidecar_decision(p);
            assert_eq!((d.flag, d.stars), (Flag::Pick, 5), "{}", p.display());
            assert_eq!(d.label, theirs().label);
        }
        let c = catalog(dir.path());
        assert_eq!(c.decision(&photos[7]).expect("row").expect("row").stars, 5);
        assert!(
            c.rows("SELECT path, flag, stars, label FROM photos WHERE sidecar_pending = 1")
                .expect("query")
                .is_empty()
        );
    }

    /// A write the catalog refuses fails that photo's decision alone, with the reason; the
    /// others of its batch are durable.
    #[test]
    fn a_refused_write_fails_its_own_photo_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let photos = shoot(dir.path(), 3);
        {
            let mut c = catalog(dir.path());
            c.import(&photos[1]).expect("import");
            c.execute(
                "CREATE TRIGGER refuse BEFORE UPDATE ON photos WHEN OLD.id = 1
                 BEGIN SELECT RAISE(ABORT, 'the disk said no'); END",
            )
            .expect("trigger");
        }
        let (mut client, rx) = start(dir.path());
        change_each(&client, &photos, &Change::Stars(1));
        client.close();
        let results: Vec<(usize, Answer)> = rx
            .try_iter()
            .filter_map(|r| match r {
                Report::Decided { tag, result, .. } => Some((tag, result)),
                _ => None,
            })
            .collect();
        assert_eq!(results.len(), 3);
        for (tag, result) in results {
            match (tag, result) {
                (1, Err(why)) => assert!(why.contains("the disk said no"), "{why}"),
                (1, Ok(_)) => panic!("refused"),
                (_, r) => assert_eq!(r.expect("durable").1.stars, 1),
            }
        }
        assert_eq!(sidecar_decision(&photos[1]), theirs(), "untouched");
        assert_eq!(sidecar_decision(&photos[2]).stars, 1);
    }

    /// A row the index made (no decision read) does not hide the sidecar from the import.
    #[test]
    fn an_index_row_never_hides_the_sidecar() {
        let dir = tempfile::tempdir().expect("tempdir");
        let photos = shoot(dir.path(), 1);
        let mut c = catalog(dir.path());
        let index = crate::faces::test_row(4, 0);
        c.store_index(&photos[0], &index, &[]).expect("index");
        assert_eq!(c.import(&photos[0]).expect("import").decision, theirs());
        assert_eq!(c.decision(&photos[0]).expect("row"), Some(theirs()));
    }
}
