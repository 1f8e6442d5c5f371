//! One pinned file over HTTP: resumable, size-checked before and while it arrives, hash-checked
//! before it leaves the download dir, quarantined when it fails.
//!
//! The part file (`<name>.part`) and a note of what it is a part of (`<name>.part.json`: URL
//! and pinned hash) live in the download dir. A part that belongs to another pin is discarded;
//! one that belongs to this pin is resumed with a byte range, within a call (a dropped
//! connection) and across calls (a cancel, a crash, a closed laptop).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::FetchError;

/// What a download must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub sha256: String,
    /// Pinned where known; a download without one is held to `Fetcher::size_cap`.
    pub size: Option<u64>,
}

/// One file to fetch.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    pub url: String,
    /// The file's name in the download and quarantine dirs.
    pub name: String,
    pub pin: Pin,
}

/// Bytes on disk so far, and the whole when the server or the pin says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct PartNote {
    url: String,
    sha256: String,
}

/// The HTTP side of the model manager.
#[derive(Debug, Clone)]
pub struct Fetcher {
    agent: ureq::Agent,
    /// Connections that made no headway tried per fetch, in a row; each one after the first
    /// resumes. A connection that left the part longer than it had ever been, at
    /// [`Fetcher::min_rate`], does not count: a slow link finishes a large model, connection
    /// after connection.
    pub attempts: u32,
    /// The most a download without a pinned size may be.
    pub size_cap: u64,
    /// Pause before a retry, times the attempt number.
    pub backoff: Duration,
    /// How long a server may take to answer a request (its status and headers).
    pub answer_within: Duration,
    /// How long a body may go without a byte, and the window [`Fetcher::min_rate`] is
    /// averaged over.
    pub idle: Duration,
    /// Bytes a second a body must average over each window: a server that sends a byte a
    /// second would never end otherwise.
    pub min_rate: u64,
}

impl Default for Fetcher {
    fn default() -> Self {
        Self::new()
    }
}

const CHUNK: usize = 256 * 1024;

/// How often a waiting fetch looks at its cancel flag: Cancel is done within this.
const CANCEL_POLL: Duration = Duration::from_millis(100);

impl Fetcher {
    pub fn new() -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            // A status is an answer to act on (206, 416), not an error.
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(20)))
            // Backstops only: a connection's thread ends by itself some time after it was
            // abandoned. The limits that matter are kept by the fetch, which never waits on
            // the connection's thread longer than they allow.
            .timeout_recv_response(Some(Duration::from_secs(120)))
            .timeout_recv_body(Some(Duration::from_secs(600)))
            .user_agent(concat!("DarkRoom/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Fetcher {
            agent,
            attempts: 4,
            size_cap: 2 << 30,
            backoff: Duration::from_millis(500),
            answer_within: Duration::from_secs(30),
            idle: Duration::from_secs(30),
            min_rate: 4 << 10,
        }
    }

    /// Fetch `req` into `download_dir`, verify it, and return the verified file's path
    /// (`download_dir/<name>`). A file that fails its hash is moved to `quarantine_dir`.
    pub fn fetch(
        &self,
        req: &FetchRequest,
        download_dir: &Path,
        quarantine_dir: &Path,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<PathBuf, FetchError> {
        let io = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| FetchError::Io { what, path, source }
        };
        std::fs::create_dir_all(download_dir)
            .map_err(io("cannot create the download dir", download_dir))?;
        let done_path = download_dir.join(&req.name);
        let part_path = download_dir.join(format!("{}.part", req.name));
        let note_path = download_dir.join(format!("{}.part.json", req.name));
        let expected = req.pin.sha256.to_ascii_lowercase();

        // A verified file from an earlier call is used as it is.
        if done_path.is_file() && file_sha256(&done_path)? == expected {
            return Ok(done_path);
        }
        let note = PartNote {
            url: req.url.clone(),
            sha256: expected.clone(),
        };
        let resumable = std::fs::read(&note_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<PartNote>(&b).ok())
            .is_some_and(|n| n.sha256 == note.sha256);
        if !resumable {
            remove_if_present(&part_path)?;
            let text = serde_json::to_vec(&note).unwrap_or_default();
            std::fs::write(&note_path, text)
                .map_err(io("cannot write the part note", &note_path))?;
        }
        let mut part = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&part_path)
            .map_err(io("cannot open the part file", &part_path))?;
        let limit = req.pin.size.unwrap_or(self.size_cap);

        let mut last_cause = String::new();
        let mut complete = false;
        let mut attempt = 0;
        let mut first = true;
        // The longest the part has been: headway is passing it, so a server that ignores the
        // range and drops each connection at another offset never counts as making any.
        let mut longest = 0u64;
        while attempt < self.attempts.max(1) {
            attempt += 1;
            if cancel.load(Ordering::Relaxed) {
                return Err(FetchError::Cancelled);
            }
            if !std::mem::take(&mut first) {
                // Never straight back: a pause after headway too.
                wait_or_cancel(self.backoff * attempt, cancel)?;
            }
            let have = part
                .metadata()
                .map_err(io("cannot read the part file", &part_path))?
                .len();
            longest = longest.max(have);
            if req.pin.size.is_some_and(|s| have >= s) {
                complete = true;
                break;
            }
            let at = Mark { have, longest };
            match self.one_connection(req, &mut part, &part_path, at, limit, progress, cancel)? {
                Connection::Complete => {
                    complete = true;
                    break;
                }
                Connection::Dropped(cause) => last_cause = cause,
                // Headway: the link works, however slowly; the count starts again.
                Connection::Progressed(cause) => {
                    last_cause = cause;
                    attempt = 0;
                }
            }
        }
        if !complete {
            return Err(FetchError::Transport {
                attempts: self.attempts.max(1),
                cause: last_cause,
                url: req.url.clone(),
            });
        }
        part.sync_all()
            .map_err(io("cannot write the part file", &part_path))?;
        drop(part);

        let size = std::fs::metadata(&part_path)
            .map_err(io("cannot read the part file", &part_path))?
            .len();
        if let Some(pinned) = req.pin.size
            && size != pinned
        {
            remove_if_present(&part_path)?;
            return Err(FetchError::SizeRefused {
                offered: size,
                pinned,
                url: req.url.clone(),
            });
        }
        let found = file_sha256(&part_path)?;
        if found != expected {
            let quarantined = quarantine(&part_path, &req.name, &found, quarantine_dir, &{
                format!(
                    "{DOWNLOAD_NOTE}{}\nexpected sha256 {expected}\nfound sha256    {found}\n",
                    req.url
                )
            })?;
            let _ = std::fs::remove_file(&note_path);
            return Err(FetchError::HashMismatch {
                expected,
                found,
                quarantined,
            });
        }
        std::fs::rename(&part_path, &done_path).map_err(io(
            "cannot move the verified download into place",
            &done_path,
        ))?;
        let _ = std::fs::remove_file(&note_path);
        Ok(done_path)
    }

    /// One HTTP request, appending to `part` from `have`. A refusal that another attempt
    /// cannot change is an error; a connection that ends early is `Dropped`, or `Progressed`
    /// when it brought bytes at the least rate first. The request runs on a thread of its
    /// own, so this returns within [`CANCEL_POLL`] of a cancel, and within the fetcher's
    /// limits of a server that stops answering, whatever the socket does.
    #[allow(clippy::too_many_arguments)]
    fn one_connection(
        &self,
        req: &FetchRequest,
        part: &mut File,
        part_path: &Path,
        at: Mark,
        limit: u64,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<Connection, FetchError> {
        let Mark { have, longest } = at;
        let io = |what: &'static str| {
            let path = part_path.to_path_buf();
            move |source| FetchError::Io { what, path, source }
        };
        let incoming = self.request(&req.url, have);
        let head = match self.next(&incoming, self.answer_within, cancel)? {
            Some(Incoming::Head(head)) => head,
            Some(Incoming::Failed(cause)) => return Ok(Connection::Dropped(cause)),
            Some(_) => return Ok(Connection::Dropped("the connection ended".into())),
            None => {
                return Ok(Connection::Dropped(format!(
                    "no answer within {} s",
                    self.answer_within.as_secs()
                )));
            }
        };
        let (start, total) = match head.status {
            200 => (0, head.content_length),
            206 => match head.content_range.as_deref().and_then(parse_content_range) {
                Some((start, total)) if start == have => (start, total),
                // A range we did not ask for: start again from nothing.
                _ => {
                    part.set_len(0).map_err(io("cannot reset the part file"))?;
                    return Ok(Connection::Dropped("the server sent another range".into()));
                }
            },
            // The part is already whole (or longer than the file): let the checks decide.
            416 if have > 0 => return Ok(Connection::Complete),
            s if (500..600).contains(&s) => {
                return Ok(Connection::Dropped(format!("the server answered {s}")));
            }
            s => {
                return Err(FetchError::Status {
                    status: s,
                    url: req.url.clone(),
                });
            }
        };
        if start == 0 && have > 0 {
            // The server ignored the range and sends the whole file.
            part.set_len(0).map_err(io("cannot reset the part file"))?;
        }
        // Refused on the header, before the body is read.
        if let Some(offered) = total {
            let refusal = match req.pin.size {
                Some(pinned) if offered != pinned => Some(FetchError::SizeRefused {
                    offered,
                    pinned,
                    url: req.url.clone(),
                }),
                None if offered > limit => Some(FetchError::TooLarge {
                    limit,
                    url: req.url.clone(),
                }),
                _ => None,
            };
            if let Some(refusal) = refusal {
                part.set_len(0).map_err(io("cannot reset the part file"))?;
                return Err(refusal);
            }
        }
        let whole = total.or(req.pin.size);
        let mut done = start;
        progress(Progress { done, total: whole });
        // Bytes since the current window began.
        let mut window = (std::time::Instant::now(), 0u64);
        // Headway is the part longer than it has ever been.
        let stopped = |done: u64, cause: String| {
            if done > longest {
                Connection::Progressed(cause)
            } else {
                Connection::Dropped(cause)
            }
        };
        loop {
            let chunk = match self.next(&incoming, self.idle, cancel) {
                Err(cancelled) => {
                    part.sync_all().map_err(io("cannot write the part file"))?;
                    return Err(cancelled);
                }
                Ok(Some(Incoming::Chunk(bytes))) => bytes,
                Ok(Some(Incoming::End)) => break,
                Ok(Some(Incoming::Failed(cause))) => {
                    part.sync_all().map_err(io("cannot write the part file"))?;
                    return Ok(stopped(done, cause));
                }
                // The thread sends its head once, first.
                Ok(Some(Incoming::Head(_))) => {
                    return Ok(Connection::Dropped("the server answered twice".into()));
                }
                Ok(None) => {
                    part.sync_all().map_err(io("cannot write the part file"))?;
                    return Ok(stopped(
                        done,
                        format!("no byte came for {} s", self.idle.as_secs()),
                    ));
                }
            };
            let n = chunk.len() as u64;
            if done + n > limit {
                part.set_len(0).map_err(io("cannot reset the part file"))?;
                return Err(FetchError::TooLarge {
                    limit,
                    url: req.url.clone(),
                });
            }
            part.write_all(&chunk)
                .map_err(io("cannot write the part file"))?;
            done += n;
            window.1 += n;
            progress(Progress { done, total: whole });
            if window.0.elapsed() >= self.idle {
                let rate = window.1 as f64 / window.0.elapsed().as_secs_f64();
                if rate < self.min_rate as f64 {
                    part.sync_all().map_err(io("cannot write the part file"))?;
                    // Too slow is no headway: it counts as an attempt.
                    return Ok(Connection::Dropped(format!(
                        "the server sends {rate:.0} bytes a second, under the {} it must",
                        self.min_rate
                    )));
                }
                window = (std::time::Instant::now(), 0);
            }
        }
        if whole.is_some_and(|w| done < w) {
            return Ok(stopped(
                done,
                format!(
                    "the connection closed at {done} of {} bytes",
                    whole.unwrap_or(done)
                ),
            ));
        }
        Ok(Connection::Complete)
    }

    /// Start a GET of `url` from byte `have` on a thread of its own: its status and headers,
    /// then the body's chunks, come through the channel. The thread ends when the body does,
    /// or when the fetch stops listening (its next chunk has nowhere to go), or at the agent's
    /// backstop timeouts.
    fn request(&self, url: &str, have: u64) -> Receiver<Incoming> {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        let mut request = self.agent.get(url);
        if have > 0 {
            request = request.header("Range", format!("bytes={have}-"));
        }
        let spawned = std::thread::Builder::new()
            .name("model-download".into())
            .spawn(move || {
                let response = match request.call() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = tx.send(Incoming::Failed(e.to_string()));
                        return;
                    }
                };
                let header = |name: &str| {
                    response
                        .headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                };
                let head = Head {
                    status: response.status().as_u16(),
                    content_length: header("content-length").and_then(|v| v.parse().ok()),
                    content_range: header("content-range"),
                };
                if tx.send(Incoming::Head(head)).is_err() {
                    return;
                }
                let mut body = response.into_body().into_reader();
                loop {
                    let mut buf = vec![0u8; CHUNK];
                    let sent = match body.read(&mut buf) {
                        Ok(0) => {
                            let _ = tx.send(Incoming::End);
                            return;
                        }
                        Ok(n) => {
                            buf.truncate(n);
                            tx.send(Incoming::Chunk(buf))
                        }
                        Err(e) => {
                            let _ = tx.send(Incoming::Failed(e.to_string()));
                            return;
                        }
                    };
                    if sent.is_err() {
                        return;
                    }
                }
            });
        if let Err(e) = spawned {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let _ = tx.send(Incoming::Failed(format!("cannot start the download: {e}")));
            return rx;
        }
        rx
    }

    /// What the connection's thread says next, within `limit` (None: nothing came); a cancel
    /// is seen within [`CANCEL_POLL`].
    fn next(
        &self,
        incoming: &Receiver<Incoming>,
        limit: Duration,
        cancel: &AtomicBool,
    ) -> Result<Option<Incoming>, FetchError> {
        let until = std::time::Instant::now() + limit;
        loop {
            if cancel.load(Ordering::Relaxed) {
                return Err(FetchError::Cancelled);
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            match incoming.recv_timeout(left.min(CANCEL_POLL)) {
                Ok(said) => return Ok(Some(said)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Ok(Some(Incoming::Failed("the connection ended".into())));
                }
            }
        }
    }
}

/// A response's status and the headers a fetch acts on.
struct Head {
    status: u16,
    content_length: Option<u64>,
    content_range: Option<String>,
}

/// What a connection's thread says.
enum Incoming {
    Head(Head),
    Chunk(Vec<u8>),
    End,
    Failed(String),
}

/// Sleep `pause`, unless cancelled meanwhile.
fn wait_or_cancel(pause: Duration, cancel: &AtomicBool) -> Result<(), FetchError> {
    let until = std::time::Instant::now() + pause;
    while std::time::Instant::now() < until {
        if cancel.load(Ordering::Relaxed) {
            return Err(FetchError::Cancelled);
        }
        std::thread::sleep(CANCEL_POLL.min(until - std::time::Instant::now()));
    }
    Ok(())
}

/// Where a connection starts: the part's length now, and the longest it has been.
#[derive(Clone, Copy)]
struct Mark {
    have: u64,
    longest: u64,
}

enum Connection {
    Complete,
    /// Ended before the whole, having brought nothing (or too slowly): an attempt used.
    Dropped(String),
    /// Ended before the whole, having brought bytes: the next connection resumes.
    Progressed(String),
}

/// `bytes START-END/TOTAL` → (START, TOTAL); TOTAL may be `*`.
fn parse_content_range(v: &str) -> Option<(u64, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (start, _) = range.split_once('-')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    Some((start.trim().parse().ok()?, total))
}

/// The sha256 of a file, read in chunks.
pub fn file_sha256(path: &Path) -> Result<String, FetchError> {
    let io = |what: &'static str| {
        let path = path.to_path_buf();
        move |source| FetchError::Io { what, path, source }
    };
    let mut f = File::open(path).map_err(io("cannot open the download"))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = f.read(&mut buf).map_err(io("cannot read the download"))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Move a file that failed verification to `dir/<name>.<sha12>`, with a `.txt` that says why.
/// A person may want to see what arrived: downloads are kept, the newest
/// [`QUARANTINE_KEPT`]; a file moved out of the models folder is never deleted.
pub fn quarantine(
    path: &Path,
    name: &str,
    found: &str,
    dir: &Path,
    why: &str,
) -> Result<PathBuf, FetchError> {
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| FetchError::Io { what, path, source }
    };
    std::fs::create_dir_all(dir).map_err(io("cannot create the quarantine dir", dir))?;
    let target = dir.join(format!("{name}.{}", &found[..12.min(found.len())]));
    std::fs::rename(path, &target).map_err(io("cannot quarantine the file", path))?;
    let note = target.with_file_name(format!(
        "{}.txt",
        target
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    std::fs::write(&note, why).map_err(io("cannot write the quarantine note", &note))?;
    prune_quarantine(dir);
    Ok(target)
}

/// Files kept in quarantine, newest first: enough to look at what went wrong, never a disk
/// filled by a server that keeps sending the wrong bytes.
pub const QUARANTINE_KEPT: usize = 8;

/// What a quarantined download's note begins with: only downloads are ever pruned.
const DOWNLOAD_NOTE: &str = "downloaded from ";

/// The oldest quarantined downloads past [`QUARANTINE_KEPT`] go, each with its note; any
/// other quarantined file (one moved out of the models folder) stays.
fn prune_quarantine(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let mut note = e.path().into_os_string();
            note.push(".txt");
            !name.starts_with('.')
                && !name.ends_with(".txt")
                && std::fs::read_to_string(PathBuf::from(note))
                    .is_ok_and(|n| n.starts_with(DOWNLOAD_NOTE))
        })
        .filter_map(|e| {
            let meta = e.metadata().ok().filter(|m| m.is_file())?;
            Some((meta.modified().ok()?, e.path()))
        })
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, old) in files.into_iter().skip(QUARANTINE_KEPT) {
        let mut note = old.clone().into_os_string();
        note.push(".txt");
        let _ = std::fs::remove_file(&old);
        let _ = std::fs::remove_file(PathBuf::from(note));
    }
}

fn remove_if_present(path: &Path) -> Result<(), FetchError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(FetchError::Io {
            what: "cannot remove a stale part file",
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarantine_keeps_the_newest_few_each_with_its_note() {
        let t = tempfile::tempdir().expect("tempdir");
        let q = t.path().join("quarantine");
        // A model moved out of the models folder first, the oldest of all: never pruned.
        let installed = t.path().join("installed.onnx");
        std::fs::write(&installed, b"tampered").expect("write");
        let moved = quarantine(
            &installed,
            "installed.onnx",
            &"b".repeat(64),
            &q,
            "m: found\n",
        )
        .expect("moved");
        File::options()
            .write(true)
            .open(&moved)
            .and_then(|f| f.set_modified(std::time::SystemTime::UNIX_EPOCH))
            .expect("dated");
        for n in 0..QUARANTINE_KEPT + 3 {
            let bad = t.path().join("bad.onnx");
            std::fs::write(&bad, format!("bad {n}")).expect("write");
            let found = format!("{:012x}{}", n + 1, "a".repeat(52));
            let kept = quarantine(&bad, "bad.onnx", &found, &q, &format!("{DOWNLOAD_NOTE}x\n"))
                .expect("moved");
            // Told apart by time: the oldest go first.
            let when =
                std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + n as u64);
            File::options()
                .write(true)
                .open(&kept)
                .and_then(|f| f.set_modified(when))
                .expect("dated");
        }
        let mut left: Vec<String> = std::fs::read_dir(&q)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left.len(), 2 * QUARANTINE_KEPT + 2, "{left:?}");
        assert!(moved.is_file(), "{left:?}");
        for gone in 1..=3 {
            assert!(
                !left.iter().any(|n| n.contains(&format!("{gone:012x}"))),
                "{left:?}"
            );
        }
    }

    #[test]
    fn content_range_is_parsed() {
        assert_eq!(
            parse_content_range("bytes 100-199/200"),
            Some((100, Some(200)))
        );
        assert_eq!(parse_content_range("bytes 5-9/*"), Some((5, None)));
        assert_eq!(parse_content_range("items 1-2/3"), None);
        assert_eq!(parse_content_range("bytes x-9/10"), None);
    }
}
