//! One file onto every destination, verified: the source is read once, in chunks written to a
//! temporary name beside each destination (each drive by a thread of its own) as they are
//! hashed — SHA-256 on a thread of its own (the photo's identity in the catalog) and CRC-32
//! inline (the read-back check, what DIT offload tools do with xxHash: ten times SHA-256's
//! speed, blind to no accidental change a disk or a cable makes); each copy is flushed, read
//! back and checked through the handle that wrote it, and only a copy that reads back as the
//! source was takes its final name — never over a file already there, by an atomic no-replace
//! rename (a hard link where the file system lacks one). A temporary is created exclusively
//! under a name no other run uses, so two runs never write into one file. A failure anywhere
//! (the card pulled, a disk full, a copy that reads back wrong) leaves no file under a final
//! name and no temporary behind.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};

use super::held::HeldFolder;
use sha2::{Digest, Sha256};

/// Read and write in chunks of this many bytes.
const CHUNK: usize = 1 << 20;
/// A copy in progress is named so beside its final name: `.NAME.PID-N.darkroom-part`.
const PART_SUFFIX: &str = ".darkroom-part";
/// Temporaries this process made so far: with the process id, a name no other copy takes.
static PARTS_MADE: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Clone, thiserror::Error)]
pub enum IngestError {
    #[error("{what}: {reason}: {}", path.display())]
    Io {
        what: &'static str,
        reason: String,
        path: PathBuf,
    },
    #[error("the copy reads back different from the original (crc32 {found}, not {expected}): {}", path.display())]
    Mismatch {
        expected: String,
        found: String,
        path: PathBuf,
    },
    #[error("a file is already there (nothing is overwritten): {}", path.display())]
    Exists { path: PathBuf },
    #[error("cancelled: {}", path.display())]
    Cancelled { path: PathBuf },
    #[error("the photo changed or vanished while it was copied ({read} of {size} bytes read): {}", path.display())]
    Changed { size: u64, read: u64, path: PathBuf },
    #[error("the drive is no longer there (unmounted, unplugged, or another in its place): {}", path.display())]
    DriveGone { path: PathBuf },
    #[error("the card is gone (pulled out or unmounted): {}", path.display())]
    CardGone { path: PathBuf },
}

impl IngestError {
    /// The destination is at fault (full, gone, read-only): every later copy to it fails too.
    pub fn is_destination(&self) -> bool {
        matches!(
            self,
            IngestError::Io { what, .. } if what.starts_with("cannot write")
                || what.starts_with("cannot flush")
                || what.starts_with("cannot make")
                || what.starts_with("cannot name")
        ) || matches!(
            self,
            IngestError::Mismatch { .. } | IngestError::DriveGone { .. }
        )
    }
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> IngestError + 'a {
    move |e| IngestError::Io {
        what,
        reason: e.to_string(),
        path: path.to_path_buf(),
    }
}

/// What one verified copy was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    /// The source's sha256, lower-case hex: what a later ingest recognises it by.
    pub sha256: String,
    pub bytes: u64,
}

/// A name for a new temporary beside `dest`, used by no other copy of any run.
fn part_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = PARTS_MADE.fetch_add(1, Ordering::Relaxed);
    dest.with_file_name(format!(".{name}.{}-{n}{PART_SUFFIX}", std::process::id()))
}

/// Temporaries in `dir` that a run killed mid-copy left. Only a run that holds the
/// destination's lock ([`super::roots::lock`]) removes them: no other run is writing there.
pub fn leftover_parts(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with('.') && n.ends_with(PART_SUFFIX)
        })
        .map(|e| e.path())
        .collect()
}

/// Copy `source` to every path of `dests` (their folders are made), verified; `advanced`
/// hears the bytes read. Err names the file and the cause, and leaves nothing behind.
pub fn copy_verified(
    source: &Path,
    dests: &[PathBuf],
    cancel: &AtomicBool,
    advanced: &mut dyn FnMut(u64),
) -> Result<Copied, IngestError> {
    let file = crate::regular::open_regular(source).map_err(io("cannot open the photo", source))?;
    let size = file
        .metadata()
        .map_err(io("cannot read the photo", source))?
        .len();
    copy_verified_from(file, Some(size), source, dests, cancel, advanced)
}

/// As [`copy_verified`], from a reader standing for `source` (a test's failing reader) that
/// should yield `size` bytes, when known: fewer or more is the photo changing under the copy
/// (a file truncated or replaced on the card), never a complete copy.
pub fn copy_verified_from(
    reader: impl Read,
    size: Option<u64>,
    source: &Path,
    dests: &[PathBuf],
    cancel: &AtomicBool,
    advanced: &mut dyn FnMut(u64),
) -> Result<Copied, IngestError> {
    write_parts_from(
        reader,
        size,
        source,
        dests,
        &create_by_path,
        cancel,
        advanced,
    )?
    .finish()
}

/// A copy's first half: every byte written under a temporary name beside each destination,
/// hashed, not yet flushed nor named. [`Written::finish`] makes it a verified copy; dropped
/// unfinished, its temporaries go.
#[derive(Debug)]
pub struct Written {
    source: PathBuf,
    dests: Vec<PathBuf>,
    parts: Vec<PathBuf>,
    /// Each temporary's handle, the one that wrote it: flushed and read back through it, never
    /// reopened by a path another run could have reused.
    files: Vec<File>,
    /// The SHA-256 being finished on its own thread: the next file is read meanwhile.
    sha256: Option<std::thread::JoinHandle<String>>,
    crc: u32,
    bytes: u64,
    finished: bool,
}

impl Drop for Written {
    fn drop(&mut self) {
        if !self.finished {
            for p in &self.parts {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

impl Written {
    /// The copy's second half: each temporary flushed to disk, read back and checked against
    /// the source, then given its final name (never over a file) and its folder flushed. A
    /// pipeline runs it on another thread while the next file is read; one that finishes
    /// many at once calls [`Written::flush`], [`Written::check_and_name`] and [`sync_dir`]
    /// itself, each folder flushed once.
    pub fn finish(self) -> Result<Copied, IngestError> {
        self.flush()?;
        let (copied, dirs) = self.check_and_name()?;
        for dir in dirs {
            sync_dir(&dir)?;
        }
        Ok(copied)
    }

    /// Each temporary's bytes to disk.
    pub fn flush(&self) -> Result<(), IngestError> {
        for (f, p) in self.files.iter().zip(&self.parts) {
            f.sync_all()
                .map_err(io("cannot flush the copy to disk", p))?;
        }
        Ok(())
    }

    /// Each flushed temporary read back and checked, then named; the folders that hold the
    /// new names, to flush before the copy counts. Whatever happens, no temporary stays.
    pub fn check_and_name(mut self) -> Result<(Copied, Vec<PathBuf>), IngestError> {
        let result = self.check_and_name_parts().and_then(|dirs| {
            let sha256 = self
                .sha256
                .take()
                .and_then(|h| h.join().ok())
                .ok_or_else(|| IngestError::Io {
                    what: "cannot hash the photo",
                    reason: "the hashing thread stopped".into(),
                    path: self.source.clone(),
                })?;
            Ok((
                Copied {
                    sha256,
                    bytes: self.bytes,
                },
                dirs,
            ))
        });
        // A named copy's temporary is already gone; any other goes now.
        for p in &self.parts {
            let _ = std::fs::remove_file(p);
        }
        self.finished = true;
        result
    }

    fn check_and_name_parts(&mut self) -> Result<Vec<PathBuf>, IngestError> {
        let expected = format!("{:08x}", self.crc);
        for ((f, p), d) in self.files.iter_mut().zip(&self.parts).zip(&self.dests) {
            let found = format!("{:08x}", crc_of(f, p)?);
            if found != expected {
                return Err(IngestError::Mismatch {
                    expected,
                    found,
                    path: d.clone(),
                });
            }
        }
        let mut dirs = Vec::new();
        for (p, d) in self.parts.iter().zip(&self.dests) {
            take_final_name(p, d)?;
            if let Some(dir) = d.parent()
                && !dirs.iter().any(|x: &PathBuf| x == dir)
            {
                dirs.push(dir.to_path_buf());
            }
        }
        Ok(dirs)
    }
}

/// The first half of [`copy_verified`] for a run holding its drives: the source read once,
/// written to a temporary beside every destination, each `(path, folder)` made through the
/// drive's folder held open (never on what the path names once the drive is unmounted).
pub fn write_parts(
    source: &Path,
    dests: &[(PathBuf, &HeldFolder)],
    cancel: &AtomicBool,
    advanced: &mut dyn FnMut(u64),
) -> Result<Written, IngestError> {
    let file = crate::regular::open_regular(source).map_err(io("cannot open the photo", source))?;
    let size = file
        .metadata()
        .map_err(io("cannot read the photo", source))?
        .len();
    let paths: Vec<PathBuf> = dests.iter().map(|(d, _)| d.clone()).collect();
    let make = |i: usize, part: &Path| dests[i].1.create_new(part);
    write_parts_from(file, Some(size), source, &paths, &make, cancel, advanced)
}

/// A temporary made by its path, its folders made on the way.
fn create_by_path(_: usize, part: &Path) -> std::io::Result<File> {
    crate::durable::create_new_with_folders(part)
}

fn write_parts_from(
    mut reader: impl Read,
    size: Option<u64>,
    source: &Path,
    dests: &[PathBuf],
    make: &dyn Fn(usize, &Path) -> std::io::Result<File>,
    cancel: &AtomicBool,
    advanced: &mut dyn FnMut(u64),
) -> Result<Written, IngestError> {
    let parts: Vec<PathBuf> = dests.iter().map(|d| part_path(d)).collect();
    for d in dests {
        if d.exists() {
            return Err(IngestError::Exists { path: d.clone() });
        }
    }
    // From here the temporaries are the Written's: dropped on an error, they go.
    let mut written = Written {
        source: source.to_path_buf(),
        dests: dests.to_vec(),
        parts: Vec::new(),
        files: Vec::new(),
        sha256: None,
        crc: 0,
        bytes: 0,
        finished: false,
    };
    // Each destination is written on a thread of its own: the card is read while the drives
    // write, and two drives write at once rather than in turn.
    let mut writers = Vec::with_capacity(parts.len());
    for (i, p) in parts.iter().enumerate() {
        // Created, never opened: a name another run took is an error, not a shared file.
        let out = make(i, p).map_err(io("cannot write into the destination", p))?;
        written.parts.push(p.clone());
        writers.push(DestWriter::start(out, p)?);
    }
    // SHA-256 runs beside the reads and writes, and finishes while the next file is read:
    // on two cores it costs the copy little.
    let (to_hasher, chunks) = std::sync::mpsc::sync_channel::<Chunk>(QUEUE);
    let hasher = std::thread::Builder::new()
        .name("ingest-sha256".into())
        .spawn(move || {
            let mut hash = Sha256::new();
            for chunk in chunks {
                hash.update(chunk.bytes());
            }
            hex::encode(hash.finalize())
        })
        .map_err(io("cannot start hashing the photo", source))?;
    written.sha256 = Some(hasher);
    let pumped = pump(&mut reader, source, &writers, &to_hasher, cancel, advanced);
    drop(to_hasher);
    // A drive's own error says more than the pump's "it stopped listening": it comes first.
    let mut wrote = Ok(());
    for w in writers {
        match w.finish() {
            Ok(file) => written.files.push(file),
            Err(e) => {
                if wrote.is_ok() {
                    wrote = Err(e);
                }
            }
        }
    }
    wrote?;
    let (bytes, crc) = pumped?;
    if let Some(size) = size.filter(|&s| s != bytes) {
        return Err(IngestError::Changed {
            size,
            read: bytes,
            path: source.to_path_buf(),
        });
    }
    written.crc = crc;
    written.bytes = bytes;
    Ok(written)
}

/// The chunks in flight to one consumer (a drive's writer, the hasher) before the reader waits:
/// enough to ride out a drive's stalls, few enough that the card is never read far ahead.
const QUEUE: usize = 8;

/// Read buffers kept for the next chunk, in every copy of the process: a buffer is allocated
/// (and its pages faulted in) once, not once a file.
static SPARE_BUFFERS: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
/// More than this many spare buffers are freed, not kept.
const SPARE_MAX: usize = 4 * QUEUE;

/// A chunk of the source, shared by the writers and the hasher; its buffer goes back to the
/// spares when the last of them is done with it.
struct Pooled(Vec<u8>);

impl Pooled {
    fn take() -> Self {
        let mut buf = SPARE_BUFFERS
            .lock()
            .ok()
            .and_then(|mut spare| spare.pop())
            .unwrap_or_default();
        buf.resize(CHUNK, 0);
        Pooled(buf)
    }

    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Ok(mut spare) = SPARE_BUFFERS.lock()
            && spare.len() < SPARE_MAX
        {
            spare.push(std::mem::take(&mut self.0));
        }
    }
}

type Chunk = Arc<Pooled>;

/// One destination's writes, on their own thread.
struct DestWriter {
    part: PathBuf,
    chunks: SyncSender<Chunk>,
    thread: std::thread::JoinHandle<Result<File, IngestError>>,
}

impl DestWriter {
    fn start(mut out: File, part: &Path) -> Result<Self, IngestError> {
        let (chunks, incoming) = std::sync::mpsc::sync_channel::<Chunk>(QUEUE);
        let path = part.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("ingest-write".into())
            .spawn(move || {
                // An error ends the thread, and with it the channel: the pump stops reading.
                for chunk in incoming {
                    out.write_all(chunk.bytes())
                        .map_err(io("cannot write into the destination", &path))?;
                }
                Ok(out)
            })
            .map_err(io("cannot start writing the copy", part))?;
        Ok(DestWriter {
            part: part.to_path_buf(),
            chunks,
            thread,
        })
    }

    /// Every chunk sent is written (the handle back, to flush and read through), or the
    /// drive's error.
    fn finish(self) -> Result<File, IngestError> {
        let DestWriter {
            part,
            chunks,
            thread,
        } = self;
        drop(chunks);
        thread.join().unwrap_or_else(|_| {
            Err(IngestError::Io {
                what: "cannot write into the destination",
                reason: "the writing thread stopped".into(),
                path: part,
            })
        })
    }
}

/// The source into every destination's writer, chunk by chunk, each chunk also to the hasher;
/// its length and CRC-32. A writer that stops (its drive failed) stops the pump: its own error
/// is what the caller reports.
fn pump(
    reader: &mut impl Read,
    source: &Path,
    writers: &[DestWriter],
    hasher: &SyncSender<Chunk>,
    cancel: &AtomicBool,
    advanced: &mut dyn FnMut(u64),
) -> Result<(u64, u32), IngestError> {
    let stopped = |what: &'static str| IngestError::Io {
        what,
        reason: "its thread stopped".into(),
        path: source.to_path_buf(),
    };
    let mut crc = crc32fast::Hasher::new();
    let mut bytes = 0u64;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(IngestError::Cancelled {
                path: source.to_path_buf(),
            });
        }
        let mut chunk = Pooled::take();
        // A whole chunk (or the file's end): one read of a file gives it at once.
        let mut n = 0;
        while n < CHUNK {
            match reader.read(&mut chunk.0[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io("cannot read the photo", source)(e)),
            }
        }
        if n == 0 {
            break;
        }
        chunk.0.truncate(n);
        crc.update(chunk.bytes());
        let chunk = Arc::new(chunk);
        hasher
            .send(Arc::clone(&chunk))
            .map_err(|_| stopped("cannot hash the photo"))?;
        for w in writers {
            w.chunks
                .send(Arc::clone(&chunk))
                .map_err(|_| stopped("cannot write into the destination"))?;
        }
        bytes += n as u64;
        advanced(n as u64);
    }
    Ok((bytes, crc.finalize()))
}

/// A copy's CRC-32, read back from its start through the handle that wrote it.
fn crc_of(file: &mut File, path: &Path) -> Result<u32, IngestError> {
    const WHAT: &str = "cannot read the copy back";
    file.rewind().map_err(io(WHAT, path))?;
    let mut crc = crc32fast::Hasher::new();
    read_all(file, path, WHAT, &mut |chunk| crc.update(chunk))?;
    Ok(crc.finalize())
}

/// Copies a stopped run named but did not record, confirmed now, under this run's lock:
/// each of `dests` read back whole and equal to `source` (by SHA-256), then flushed with its
/// folder — the stopped run may have been killed before either reached the disk. Err names
/// the copy that is gone or differs; nothing is changed.
pub fn confirm_landed(source: &Path, dests: &[PathBuf]) -> Result<Copied, IngestError> {
    let sha256 = hash_of(source)?;
    let meta = std::fs::metadata(source).map_err(io("cannot read the photo", source))?;
    let bytes = meta.len();
    // A copy is a file of its own on its own drive: not a link (to the card's file, or to the
    // other drive's copy), not the card's file or another drive's copy reached another way.
    let mut seen = vec![file_id(&meta)];
    for d in dests {
        let not_a_copy = |reason: &str| IngestError::Io {
            what: "the file under the copy's name is not a copy of its own (left as it is)",
            reason: reason.to_owned(),
            path: d.clone(),
        };
        let m = std::fs::symlink_metadata(d).map_err(io("cannot read the copy back", d))?;
        if !m.is_file() {
            return Err(not_a_copy("a link or not a file"));
        }
        let id = file_id(&m);
        if id.is_some() && seen.contains(&id) {
            return Err(not_a_copy("the card's file or another drive's copy"));
        }
        seen.push(id);
        let found = hash_of(d)?;
        if found != sha256 {
            return Err(IngestError::Io {
                what: "the file under the copy's name is not the photo (left as it is)",
                reason: format!("sha256 {found}, not {sha256}"),
                path: d.clone(),
            });
        }
        // Windows flushes only through a handle that may write. A file that cannot be opened
        // so (read-only, or held by another program) is this photo's failure, not the drive's.
        File::options()
            .read(true)
            .write(cfg!(windows))
            .open(d)
            .and_then(|f| f.sync_all())
            .map_err(io(
                "the file under the copy's name cannot be flushed to disk",
                d,
            ))?;
        if let Some(dir) = d.parent() {
            sync_dir(dir)?;
        }
    }
    Ok(Copied { sha256, bytes })
}

/// A file's device and inode, where the system gives them: one file reached by two paths.
#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_m: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// A file's sha256 (a photo's on the card, or a copy's).
pub fn hash_of(path: &Path) -> Result<String, IngestError> {
    let mut hash = Sha256::new();
    read_through(path, "cannot read the file", &mut |chunk| {
        hash.update(chunk);
    })?;
    Ok(hex::encode(hash.finalize()))
}

/// Every byte of a file, chunk by chunk, to `each`; a failure is `what`.
fn read_through(
    path: &Path,
    what: &'static str,
    each: &mut dyn FnMut(&[u8]),
) -> Result<(), IngestError> {
    let mut f = crate::regular::open_regular(path).map_err(io(what, path))?;
    read_all(&mut f, path, what, each)
}

fn read_all(
    f: &mut impl Read,
    path: &Path,
    what: &'static str,
    each: &mut dyn FnMut(&[u8]),
) -> Result<(), IngestError> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        match f.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => each(&buf[..n]),
            // Interrupted before anything was read: read again.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(what, path)(e)),
        }
    }
}

/// The verified copy takes its final name, never over a file
/// ([`crate::durable::rename_without_replacing`]).
fn take_final_name(part: &Path, dest: &Path) -> Result<(), IngestError> {
    crate::durable::rename_without_replacing(part, dest).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            IngestError::Exists {
                path: dest.to_path_buf(),
            }
        } else {
            io("cannot name the copy", dest)(e)
        }
    })
}

/// A folder's entries to disk: a new name in it is durable.
pub fn sync_dir(dir: &Path) -> Result<(), IngestError> {
    crate::durable::sync_dir(dir).map_err(io("cannot flush the destination folder", dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn photo(dir: &Path, len: usize) -> (PathBuf, Vec<u8>) {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        let p = dir.join("DCIM/100CANON/IMG_0001.CR3");
        std::fs::create_dir_all(p.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&p, &bytes).expect("write");
        (p, bytes)
    }

    /// Every file under `dir`, relative.
    fn files(dir: &Path) -> Vec<String> {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(root, &p, out);
                } else {
                    out.push(p.strip_prefix(root).expect("under").display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        if dir.exists() {
            walk(dir, dir, &mut out);
        }
        out.sort();
        out
    }

    #[test]
    fn a_file_reaches_two_drives_byte_for_byte_read_once() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, bytes) = photo(t.path(), 3 * CHUNK + 17);
        let dests = [
            t.path().join("work/2026/a.CR3"),
            t.path().join("backup/2026/a.CR3"),
        ];
        let mut read = 0;
        let copied = copy_verified(&src, &dests, &AtomicBool::new(false), &mut |n| read += n)
            .expect("copied");
        assert_eq!(read, bytes.len() as u64, "the source read once");
        assert_eq!(copied.bytes, bytes.len() as u64);
        assert_eq!(copied.sha256, hex::encode(Sha256::digest(&bytes)));
        for d in &dests {
            assert_eq!(std::fs::read(d).expect("copy"), bytes);
        }
        assert_eq!(
            files(&t.path().join("work")),
            vec!["2026/a.CR3"],
            "no temporary left"
        );
    }

    #[test]
    fn files_written_back_to_back_are_finished_later_each_whole() {
        let t = tempfile::tempdir().expect("tempdir");
        let card = t.path().join("card");
        std::fs::create_dir_all(&card).expect("mkdir");
        let sources: Vec<(PathBuf, Vec<u8>)> = (0..3)
            .map(|k| {
                let bytes: Vec<u8> = (0..2 * CHUNK + 100 * k)
                    .map(|i| (i * 7 + k) as u8)
                    .collect();
                let p = card.join(format!("IMG_{k}.CR3"));
                std::fs::write(&p, &bytes).expect("write");
                (p, bytes)
            })
            .collect();
        let held = held_drives(t.path());
        let dests = |k: usize| {
            [
                t.path().join(format!("work/{k}.CR3")),
                t.path().join(format!("backup/{k}.CR3")),
            ]
        };
        // Every file written before the first is flushed, as the ingest's batches are.
        let written: Vec<Written> = sources
            .iter()
            .enumerate()
            .map(|(k, (src, _))| {
                let to: Vec<_> = dests(k).into_iter().zip(&held).collect();
                write_parts(src, &to, &AtomicBool::new(false), &mut |_| {}).expect("written")
            })
            .collect();
        for (k, (w, (_, bytes))) in written.into_iter().zip(&sources).enumerate() {
            let copied = w.finish().expect("verified");
            assert_eq!(copied.sha256, hex::encode(Sha256::digest(bytes)));
            for d in dests(k) {
                assert_eq!(&std::fs::read(&d).expect("copy"), bytes, "{}", d.display());
            }
        }
        assert_eq!(
            files(&t.path().join("backup")),
            vec!["0.CR3", "1.CR3", "2.CR3"],
            "no temporary left"
        );
    }

    /// `work` and `backup` in `dir`, made and held as a run holds its drives.
    fn held_drives(dir: &Path) -> [HeldFolder; 2] {
        ["work", "backup"].map(|d| {
            std::fs::create_dir_all(dir.join(d)).expect("mkdir");
            HeldFolder::open(&dir.join(d)).expect("held")
        })
    }

    #[test]
    fn a_written_copy_dropped_unfinished_leaves_nothing() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, _) = photo(t.path(), 3 * CHUNK);
        let held = held_drives(t.path());
        let dests = [t.path().join("work/e.CR3"), t.path().join("backup/e.CR3")];
        let to: Vec<_> = dests.into_iter().zip(&held).collect();
        let w = write_parts(&src, &to, &AtomicBool::new(false), &mut |_| {}).expect("written");
        drop(w);
        assert_eq!(files(&t.path().join("work")), Vec::<String>::new());
        assert_eq!(files(&t.path().join("backup")), Vec::<String>::new());
    }

    #[test]
    fn a_file_already_there_is_never_overwritten() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, _) = photo(t.path(), 100);
        let there = t.path().join("backup/a.CR3");
        std::fs::create_dir_all(there.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&there, b"someone else's").expect("write");
        let dests = [t.path().join("work/a.CR3"), there.clone()];
        match copy_verified(&src, &dests, &AtomicBool::new(false), &mut |_| {}) {
            Err(IngestError::Exists { path }) => assert_eq!(path, there),
            other => panic!("expected Exists, got {other:?}"),
        }
        assert_eq!(std::fs::read(&there).expect("read"), b"someone else's");
        assert_eq!(files(&t.path().join("work")), Vec::<String>::new());
    }

    /// A card pulled mid-copy: the reader fails after two chunks.
    struct Pulled(usize);

    impl Read for Pulled {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::other("the card is gone"));
            }
            self.0 -= 1;
            buf.fill(7);
            Ok(buf.len())
        }
    }

    #[test]
    fn a_card_pulled_mid_copy_names_the_file_and_leaves_nothing() {
        let t = tempfile::tempdir().expect("tempdir");
        let src = t.path().join("DCIM/100CANON/IMG_0002.CR3");
        let dests = [t.path().join("work/b.CR3"), t.path().join("backup/b.CR3")];
        let err = copy_verified_from(
            Pulled(2),
            None,
            &src,
            &dests,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .expect_err("the read fails");
        let msg = err.to_string();
        assert!(
            msg.starts_with("cannot read the photo: the card is gone: ")
                && msg.ends_with("IMG_0002.CR3"),
            "{msg}"
        );
        assert_eq!(files(&t.path().join("work")), Vec::<String>::new());
        assert_eq!(files(&t.path().join("backup")), Vec::<String>::new());
        // The same file again, whole this time, completes.
        let (src, bytes) = photo(t.path(), 1000);
        copy_verified(&src, &dests, &AtomicBool::new(false), &mut |_| {}).expect("copied");
        assert_eq!(std::fs::read(&dests[1]).expect("copy"), bytes);
    }

    /// The photo itself, on disk, cut short after the first chunk was read: what a file
    /// rewritten or removed from a card by the camera or another program looks like to a
    /// reader that already has it open.
    struct Vanishing {
        file: File,
        path: PathBuf,
        reads: usize,
    }

    impl Read for Vanishing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.reads == 1 {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&self.path)?
                    .set_len(0)?;
                std::fs::remove_file(&self.path)?;
            }
            self.reads += 1;
            self.file.read(buf)
        }
    }

    #[test]
    fn a_photo_that_vanishes_mid_copy_is_an_error_never_a_short_copy() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, bytes) = photo(t.path(), 3 * CHUNK);
        let file = File::open(&src).expect("open");
        let dests = [t.path().join("work/d.CR3"), t.path().join("backup/d.CR3")];
        let err = copy_verified_from(
            Vanishing {
                file,
                path: src.clone(),
                reads: 0,
            },
            Some(bytes.len() as u64),
            &src,
            &dests,
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .expect_err("a short read is no copy");
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "the photo changed or vanished while it was copied ({CHUNK} of {} bytes read): ",
                bytes.len()
            )) && msg.ends_with("IMG_0001.CR3"),
            "{msg}"
        );
        assert!(!err.is_destination(), "the card's fault, not the drive's");
        assert_eq!(files(&t.path().join("work")), Vec::<String>::new());
        assert_eq!(files(&t.path().join("backup")), Vec::<String>::new());
        // The card back in, the photo whole: the next copy completes.
        let (src, bytes) = photo(t.path(), 3 * CHUNK);
        copy_verified(&src, &dests, &AtomicBool::new(false), &mut |_| {}).expect("copied");
        assert_eq!(std::fs::read(&dests[0]).expect("copy"), bytes);
    }

    #[test]
    fn a_cancelled_copy_leaves_nothing() {
        let t = tempfile::tempdir().expect("tempdir");
        let (src, _) = photo(t.path(), 2 * CHUNK);
        let dests = [t.path().join("work/c.CR3")];
        match copy_verified(&src, &dests, &AtomicBool::new(true), &mut |_| {}) {
            Err(IngestError::Cancelled { path }) => assert_eq!(path, src),
            other => panic!("expected Cancelled, got {other:?}"),
        }
        assert_eq!(files(&t.path().join("work")), Vec::<String>::new());
    }
}
