//! Hand-off: copy (or move) photos to another folder for the editor that comes next — every
//! file of each item (a RAW and its JPEG twin) and the XMP sidecars beside them, kept at their
//! place under the folder they were found in, so two `IMG_0001.CR3` from two cards never meet.
//!
//! Nothing is lost on the way: each file is written to a temporary name in its destination
//! folder, flushed and renamed, so a cancel, a full disk or an unplugged drive leaves either
//! the whole file or none; an existing file is never replaced unless the caller says so; a file
//! is never copied onto itself; a move removes a source only once its copy is durable. A list
//! of what was copied is written into the destination.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::Item;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("the destination folder does not exist: {}", .0.display())]
    NoDestination(PathBuf),
    #[error("the destination is not a folder: {}", .0.display())]
    NotAFolder(PathBuf),
    #[error(
        "{} already exist in the destination (choose to overwrite or skip them), the first: {}",
        files_word(*count),
        first.display()
    )]
    Exists { count: usize, first: PathBuf },
    #[error("the destination is where the photo already is: {}", .0.display())]
    SameFile(PathBuf),
    #[error("{what}: {source}: {}", path.display())]
    Io {
        what: &'static str,
        #[source]
        source: std::io::Error,
        path: PathBuf,
    },
}

fn files_word(n: usize) -> String {
    if n == 1 {
        "1 file".to_owned()
    } else {
        format!("{n} files")
    }
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> ExportError + 'a {
    move |source| ExportError::Io {
        what,
        source,
        path: path.to_path_buf(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Copy,
    Move,
}

/// What to do with a file that is already in the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Stop before anything is written (the default: ask the person).
    Refuse,
    Skip,
    Overwrite,
}

/// One file to hand off.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub source: PathBuf,
    pub target: PathBuf,
    pub bytes: u64,
    /// The target is already there.
    pub exists: bool,
}

/// Every file of the items and their sidecars, where each goes, and what is there already.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub dest: PathBuf,
    pub files: Vec<Planned>,
}

impl Plan {
    /// The items' files under `root` (where they were found) into `dest`. Checks the
    /// destination exists and that no file would land on itself; reads nothing but metadata.
    pub fn new(items: &[Item], root: &Path, dest: &Path) -> Result<Plan, ExportError> {
        match std::fs::metadata(dest) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(ExportError::NotAFolder(dest.to_path_buf())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ExportError::NoDestination(dest.to_path_buf()));
            }
            Err(e) => return Err(io("cannot read the destination", dest)(e)),
        }
        let dest_real = dest
            .canonicalize()
            .map_err(io("cannot resolve the destination", dest))?;
        let mut files: Vec<Planned> = Vec::new();
        for item in items {
            for file in item.files() {
                for source in std::iter::once(file.to_path_buf()).chain(crate::sidecars::of(file)) {
                    // A RAW and its JPEG twin share `IMG.xmp`; a case-insensitive file system
                    // shows one file under two spellings.
                    if files.iter().any(|f| {
                        f.source == source || crate::sidecars::same_file(&f.source, &source)
                    }) {
                        continue;
                    }
                    let meta = std::fs::metadata(&source)
                        .map_err(io("cannot read the photo to export", &source))?;
                    // Kept at its place under the scanned folder; a file given from outside it
                    // goes to the top.
                    let relative = source
                        .strip_prefix(root)
                        .ok()
                        .map(Path::to_path_buf)
                        .or_else(|| source.file_name().map(PathBuf::from))
                        .unwrap_or_default();
                    let target = dest_real.join(relative);
                    if let (Ok(a), Ok(b)) = (source.canonicalize(), target.canonicalize())
                        && a == b
                    {
                        return Err(ExportError::SameFile(source));
                    }
                    files.push(Planned {
                        exists: target.symlink_metadata().is_ok(),
                        source,
                        target,
                        bytes: meta.len(),
                    });
                }
            }
        }
        Ok(Plan {
            dest: dest_real,
            files,
        })
    }

    pub fn conflicts(&self) -> impl Iterator<Item = &Planned> {
        self.files.iter().filter(|f| f.exists)
    }

    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

/// How far an export is.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    pub files_done: usize,
    pub files: usize,
    pub bytes_done: u64,
    pub bytes: u64,
}

/// What an export did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// (source, target) of every file written, in order.
    pub copied: Vec<(PathBuf, PathBuf)>,
    /// Targets that were there already and were left alone.
    pub skipped: Vec<PathBuf>,
    /// The list of what was copied, in the destination (None: nothing was copied).
    pub list_file: Option<PathBuf>,
    pub cancelled: bool,
}

const CHUNK: usize = 1 << 20;

/// Carry out `plan`. Stops between chunks when `cancel` is set (what was copied stays, and is
/// listed). `progress` is called after every chunk.
pub fn run(
    plan: &Plan,
    mode: Mode,
    existing: Existing,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, ExportError> {
    if existing == Existing::Refuse
        && let Some(first) = plan.conflicts().next()
    {
        return Err(ExportError::Exists {
            count: plan.conflicts().count(),
            first: first.target.clone(),
        });
    }
    let mut report = Report::default();
    let mut at = Progress {
        files: plan.files.len(),
        bytes: plan.total_bytes(),
        ..Progress::default()
    };
    let mut buf = vec![0u8; CHUNK];
    let outcome = (|| {
        for file in &plan.files {
            if cancel.load(Ordering::Relaxed) {
                report.cancelled = true;
                return Ok(());
            }
            // Looked at again: the plan may be minutes old.
            if existing != Existing::Overwrite && file.target.symlink_metadata().is_ok() {
                if existing == Existing::Refuse {
                    return Err(ExportError::Exists {
                        count: 1,
                        first: file.target.clone(),
                    });
                }
                report.skipped.push(file.target.clone());
            } else {
                let replace = existing == Existing::Overwrite;
                let done = transfer(file, mode, replace, cancel, &mut buf, &mut |n| {
                    at.bytes_done += n;
                    progress(at);
                })?;
                if !done {
                    report.cancelled = true;
                    return Ok(());
                }
                report
                    .copied
                    .push((file.source.clone(), file.target.clone()));
            }
            at.files_done += 1;
            progress(at);
        }
        Ok(())
    })();
    // The list is written whatever stopped the run: it is the record of what is there now.
    if !report.copied.is_empty() {
        report.list_file = Some(write_list(&plan.dest, &report.copied, mode)?);
    }
    outcome.map(|()| report)
}

/// One file: a rename where a move can, else copy to a temporary name, flush, rename, flush
/// the folder, and (moving) remove the source; a file at the target is replaced only when
/// `replace` (asked to overwrite). False: cancelled, nothing left behind.
fn transfer(
    file: &Planned,
    mode: Mode,
    replace: bool,
    cancel: &AtomicBool,
    buf: &mut [u8],
    advanced: &mut dyn FnMut(u64),
) -> Result<bool, ExportError> {
    let dir = file.target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io("cannot create the destination folder", dir))?;
    let rename = |from: &Path, to: &Path| {
        if replace {
            std::fs::rename(from, to)
        } else {
            crate::durable::rename_without_replacing(from, to)
        }
    };
    if mode == Mode::Move && rename(&file.source, &file.target).is_ok() {
        sync_dir(dir)?;
        advanced(file.bytes);
        return Ok(true);
    }
    let (to, temp) = crate::durable::create_temp_beside(&file.target)
        .map_err(io("cannot write into the destination", dir))?;
    let temp = temp.as_path();
    let copied = copy_into(&file.source, to, temp, cancel, buf, advanced);
    match copied {
        Ok(true) => {}
        Ok(false) => {
            let _ = std::fs::remove_file(temp);
            return Ok(false);
        }
        Err(e) => {
            let _ = std::fs::remove_file(temp);
            return Err(e);
        }
    }
    // Unless asked, never over a file that took the name since the plan: the export stops
    // and says so.
    rename(temp, &file.target).map_err(|e| {
        let _ = std::fs::remove_file(temp);
        io("cannot put the copy in place", &file.target)(e)
    })?;
    sync_dir(dir)?;
    if mode == Mode::Move {
        std::fs::remove_file(&file.source)
            .map_err(io("copied, but cannot remove the original", &file.source))?;
    }
    Ok(true)
}

fn copy_into(
    source: &Path,
    mut to: File,
    temp: &Path,
    cancel: &AtomicBool,
    buf: &mut [u8],
    advanced: &mut dyn FnMut(u64),
) -> Result<bool, ExportError> {
    let mut from =
        crate::regular::open_regular(source).map_err(io("cannot open the photo", source))?;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let n = match from.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io("cannot read the photo", source)(e)),
        };
        to.write_all(&buf[..n])
            .map_err(io("cannot write into the destination", temp))?;
        advanced(n as u64);
    }
    to.sync_all()
        .map_err(io("cannot flush the copy to disk", temp))?;
    // The copy keeps the photo's modification time: editors and backups sort by it.
    if let Ok(modified) = std::fs::metadata(source).and_then(|m| m.modified()) {
        let _ = to.set_modified(modified);
    }
    Ok(true)
}

fn sync_dir(dir: &Path) -> Result<(), ExportError> {
    crate::durable::sync_dir(dir).map_err(io("cannot flush the destination folder", dir))
}

/// `darkroom-export.txt` (or `-2`, `-3`, … when an earlier export left one): a line per file,
/// its original path, a tab, and where it is now relative to the destination.
fn write_list(
    dest: &Path,
    copied: &[(PathBuf, PathBuf)],
    mode: Mode,
) -> Result<PathBuf, ExportError> {
    let verb = match mode {
        Mode::Copy => "copied",
        Mode::Move => "moved",
    };
    let mut text = format!(
        "# DarkRoom export: {} files {verb}; original path, tab, path here\n",
        copied.len()
    );
    for (source, target) in copied {
        let here = target.strip_prefix(dest).unwrap_or(target);
        text.push_str(&format!("{}\t{}\n", source.display(), here.display()));
    }
    let first = dest.join("darkroom-export.txt");
    let (mut file, temp) = crate::durable::create_temp_beside(&first)
        .map_err(io("cannot write the export list", dest))?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io("cannot write the export list", &temp)(e));
    }
    // The first free name, taken without replacing: a list an earlier export (or anyone)
    // left is never overwritten, even one made a moment ago.
    for n in 1..=LISTS_MAX {
        let path = if n == 1 {
            first.clone()
        } else {
            dest.join(format!("darkroom-export-{n}.txt"))
        };
        match crate::durable::rename_without_replacing(&temp, &path) {
            Ok(()) => {
                sync_dir(dest)?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                let _ = std::fs::remove_file(temp);
                return Err(io("cannot write the export list", &path)(e));
            }
        }
    }
    let _ = std::fs::remove_file(temp);
    Err(io("cannot write the export list", dest)(
        std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{LISTS_MAX} export lists are there already"),
        ),
    ))
}

/// Lists one destination may hold before the next export's is refused.
const LISTS_MAX: u32 = 10_000;
