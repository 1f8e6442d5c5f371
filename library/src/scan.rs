//! Scanning a folder, recursively, into items. Files of one frame (`IMG_1.CR3` + `IMG_1.JPG`)
//! are one item. Symlinked folders are followed once; a loop, an unreadable folder or a stray
//! file is an event with its cause, and the scan goes on.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::error::LibraryError;
use crate::formats;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Raster,
    Raw,
    /// A RAW with the camera's JPEG of the same frame.
    RawPlusJpeg,
}

/// One frame in the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// The file decisions are recorded against: the RAW if there is one.
    pub primary: PathBuf,
    /// The JPEG twin of a RAW, which is also the quickest full view.
    pub twin: Option<PathBuf>,
    pub kind: ItemKind,
}

impl Item {
    /// Every file of the frame (sidecars are written for each).
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        std::iter::once(self.primary.as_path()).chain(self.twin.as_deref())
    }

    /// The file to show: the JPEG twin when there is one, else the primary.
    pub fn display_file(&self) -> &Path {
        self.twin.as_deref().unwrap_or(&self.primary)
    }
}

#[derive(Debug, Clone)]
pub enum ScanEvent {
    Item(Item),
    Error(LibraryError),
}

/// Scan `root`, sending each item and problem to `emit` as found (a folder at a time, in name
/// order). Stops early when `cancel` is set or `emit` returns false.
pub fn scan(root: &Path, cancel: &AtomicBool, emit: &mut dyn FnMut(ScanEvent) -> bool) {
    let mut visited = HashSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let real = match std::fs::canonicalize(&dir) {
            Ok(r) => r,
            Err(e) => {
                if !problem(emit, "cannot open folder", &dir, &e) {
                    return;
                }
                continue;
            }
        };
        if !visited.insert(real) {
            let e = std::io::Error::other("folder already scanned (symlink loop?)");
            if !problem(emit, "skipped", &dir, &e) {
                return;
            }
            continue;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                if !problem(emit, "cannot list folder", &dir, &e) {
                    return;
                }
                continue;
            }
        };
        let mut subdirs = Vec::new();
        // Frames by (stem, lower-case): the files that make up each.
        let mut frames: BTreeMap<(PathBuf, String), Vec<PathBuf>> = BTreeMap::new();
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    if !problem(emit, "cannot list folder", &dir, &e) {
                        return;
                    }
                    continue;
                }
            };
            let path = entry.path();
            // Follows symlinks: a linked folder is scanned, a dangling link reported.
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => subdirs.push(path),
                // A pipe or a device named like a photo (a FIFO, a link to /dev/zero) would
                // block or never end every reader: it is said, never read.
                Ok(m) if !m.is_file() && (formats::is_raw(&path) || formats::is_raster(&path)) => {
                    let e =
                        std::io::Error::other("not a regular file (a pipe, a socket or a device)");
                    if !problem(emit, "cannot read", &path, &e) {
                        return;
                    }
                }
                Ok(_) if formats::is_raw(&path) || formats::is_raster(&path) => {
                    let stem = path
                        .file_stem()
                        .map(|s| s.to_string_lossy().to_lowercase())
                        .unwrap_or_default();
                    frames.entry((dir.clone(), stem)).or_default().push(path);
                }
                Ok(_) => {}
                Err(e) => {
                    if !problem(emit, "cannot read", &path, &e) {
                        return;
                    }
                }
            }
        }
        for (_, mut files) in frames {
            files.sort();
            for item in pair(files) {
                if !emit(ScanEvent::Item(item)) {
                    return;
                }
            }
        }
        subdirs.sort();
        // Reverse so the stack pops them in name order.
        stack.extend(subdirs.into_iter().rev());
    }
}

/// Report a problem with `path`; false means the receiver wants no more.
fn problem(
    emit: &mut dyn FnMut(ScanEvent) -> bool,
    what: &'static str,
    path: &Path,
    e: &std::io::Error,
) -> bool {
    emit(ScanEvent::Error(LibraryError::io(what, path, e)))
}

/// The items `files` (one stem's, in one folder) make, as the scan would: a photo landed by
/// the ingest shown before any scan reaches it.
pub fn items_of(files: Vec<PathBuf>) -> Vec<Item> {
    pair(files)
}

/// Files sharing a stem: one RAW and one JPEG become a pair; anything else stands alone.
fn pair(files: Vec<PathBuf>) -> Vec<Item> {
    let raws: Vec<&PathBuf> = files.iter().filter(|p| formats::is_raw(p)).collect();
    let jpegs: Vec<&PathBuf> = files.iter().filter(|p| formats::is_jpeg(p)).collect();
    if raws.len() == 1 && jpegs.len() == 1 {
        let mut items = vec![Item {
            primary: raws[0].clone(),
            twin: Some(jpegs[0].clone()),
            kind: ItemKind::RawPlusJpeg,
        }];
        items.extend(
            files
                .iter()
                .filter(|p| *p != raws[0] && *p != jpegs[0])
                .map(|p| single(p.clone())),
        );
        return items;
    }
    files.into_iter().map(single).collect()
}

fn single(path: PathBuf) -> Item {
    let kind = if formats::is_raw(&path) {
        ItemKind::Raw
    } else {
        ItemKind::Raster
    };
    Item {
        primary: path,
        twin: None,
        kind,
    }
}
