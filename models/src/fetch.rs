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
    /// Connections tried per fetch; each one after the first resumes.
    pub attempts: u32,
    /// The most a download without a pinned size may be.
    pub size_cap: u64,
    /// Pause before a retry, times the attempt number.
    pub backoff: Duration,
}

impl Default for Fetcher {
    fn default() -> Self {
        Self::new()
    }
}

const CHUNK: usize = 256 * 1024;

impl Fetcher {
    pub fn new() -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            // A status is an answer to act on (206, 416), not an error.
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(20)))
            // A stalled connection is dropped and resumed rather than waited on forever.
            .timeout_recv_body(Some(Duration::from_secs(60)))
            .user_agent(concat!("DarkRoom/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Fetcher {
            agent,
            attempts: 4,
            size_cap: 2 << 30,
            backoff: Duration::from_millis(500),
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
        for attempt in 1..=self.attempts.max(1) {
            if cancel.load(Ordering::Relaxed) {
                return Err(FetchError::Cancelled);
            }
            if attempt > 1 {
                std::thread::sleep(self.backoff * (attempt - 1));
            }
            let have = part
                .metadata()
                .map_err(io("cannot read the part file", &part_path))?
                .len();
            if req.pin.size.is_some_and(|s| have >= s) {
                complete = true;
                break;
            }
            match self.one_connection(req, &mut part, &part_path, have, limit, progress, cancel)? {
                Connection::Complete => {
                    complete = true;
                    break;
                }
                Connection::Dropped(cause) => last_cause = cause,
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
                    "downloaded from {}\nexpected sha256 {expected}\nfound sha256    {found}\n",
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
    /// cannot change is an error; a connection that ends early is `Dropped`.
    #[allow(clippy::too_many_arguments)]
    fn one_connection(
        &self,
        req: &FetchRequest,
        part: &mut File,
        part_path: &Path,
        have: u64,
        limit: u64,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<Connection, FetchError> {
        let io = |what: &'static str| {
            let path = part_path.to_path_buf();
            move |source| FetchError::Io { what, path, source }
        };
        let mut request = self.agent.get(&req.url);
        if have > 0 {
            request = request.header("Range", format!("bytes={have}-"));
        }
        let response = match request.call() {
            Ok(r) => r,
            Err(e) => return Ok(Connection::Dropped(e.to_string())),
        };
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let (start, total) = match status {
            200 => (
                0,
                header("content-length").and_then(|v| v.parse::<u64>().ok()),
            ),
            206 => match header("content-range")
                .as_deref()
                .and_then(parse_content_range)
            {
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
                drop(response);
                part.set_len(0).map_err(io("cannot reset the part file"))?;
                return Err(refusal);
            }
        }
        let whole = total.or(req.pin.size);
        let mut done = start;
        progress(Progress { done, total: whole });
        let mut body = response.into_body().into_reader();
        let mut buf = vec![0u8; CHUNK];
        loop {
            if cancel.load(Ordering::Relaxed) {
                part.sync_all().map_err(io("cannot write the part file"))?;
                return Err(FetchError::Cancelled);
            }
            let n = match body.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) => {
                    part.sync_all().map_err(io("cannot write the part file"))?;
                    return Ok(Connection::Dropped(e.to_string()));
                }
            };
            if done + n as u64 > limit {
                part.set_len(0).map_err(io("cannot reset the part file"))?;
                return Err(FetchError::TooLarge {
                    limit,
                    url: req.url.clone(),
                });
            }
            part.write_all(&buf[..n])
                .map_err(io("cannot write the part file"))?;
            done += n as u64;
            progress(Progress { done, total: whole });
        }
        if whole.is_some_and(|w| done < w) {
            return Ok(Connection::Dropped(format!(
                "the connection closed at {done} of {} bytes",
                whole.unwrap_or(done)
            )));
        }
        Ok(Connection::Complete)
    }
}

enum Connection {
    Complete,
    Dropped(String),
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
/// It is never deleted: a person may want to see what arrived.
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
    Ok(target)
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
