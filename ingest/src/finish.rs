//! What follows a photo onto the working drive once its files are in: the decisions held for
//! its card files, each carried into the copy of that very file exactly once (the carry and
//! the retirement of what was held are one commit), and, when asked, its body's clock
//! correction written into the working copy's EXIF times. Both also run for the files of a
//! photo a stopped run brought in without finishing it.

use std::path::{Path, PathBuf};

use darkroom_catalog::{CardFile, Catalog, FileStamp};
use darkroom_library::ingest;
use darkroom_library::sidecars;

/// A photo file and where its working copy is.
pub(crate) struct InCopy<'a> {
    pub source: &'a Path,
    pub stamp: FileStamp,
    pub copy: PathBuf,
    /// Brought in by an earlier run, not this one.
    pub landed: bool,
}

/// What finishing photos did, for the run's outcome.
#[derive(Debug, Default)]
pub(crate) struct Finished {
    pub carried: bool,
    pub failed: Vec<(PathBuf, String)>,
    pub times_written: usize,
    pub times_not_written: Vec<String>,
}

/// Each file's held decision into its own copy.
pub(crate) fn carry(catalog: &mut Catalog, files: &[InCopy<'_>], out: &mut Finished) {
    for f in files.iter().filter(|f| !sidecars::is_sidecar(f.source)) {
        let card = CardFile {
            source: f.source,
            stamp: f.stamp,
        };
        match catalog.carry_held(&card, &f.copy) {
            Ok(Some(carried)) => {
                out.carried = true;
                if let Some(e) = carried.sidecar_error {
                    out.failed.push((f.source.to_path_buf(), e.to_string()));
                }
            }
            Ok(None) => {}
            Err(e) => out.failed.push((f.source.to_path_buf(), e.to_string())),
        }
    }
}

/// The body's correction into the working copies' EXIF times. The intent is recorded first
/// (so the index never adds the correction to a copy that carries it), then the times are set
/// from the card's own (so a run killed mid-write and run again never adds it twice); the
/// backups keep the card's bytes.
pub(crate) fn write_times(
    catalog: &mut Catalog,
    files: &[InCopy<'_>],
    offset_s: f64,
    out: &mut Finished,
) {
    let offset = offset_s.round() as i64;
    for f in files.iter().filter(|f| !sidecars::is_sidecar(f.source)) {
        if f.landed {
            // A copy an earlier run brought in is finished only where that run recorded the
            // intent to write this very correction: never a copy ingested without
            // `--write-times`, never one corrected by another offset since.
            match catalog.shifted_offset(&f.copy) {
                Ok(Some(recorded)) if recorded == offset_s => {}
                Ok(_) => continue,
                Err(e) => {
                    out.times_not_written.push(e.to_string());
                    continue;
                }
            }
            match ingest::retime::shift_from(&f.copy, f.source, offset) {
                Ok(_) => record_copy(catalog, f, out),
                Err(e) => out.times_not_written.push(e.to_string()),
            }
            continue;
        }
        if let Err(e) = catalog.record_shifted(&f.copy, offset_s) {
            out.times_not_written.push(e.to_string());
            continue;
        }
        match ingest::retime::shift_from(&f.copy, f.source, offset) {
            Ok(_) => record_copy(catalog, f, out),
            Err(e) => {
                // Not written: the copy carries no correction, and the index adds it.
                let _ = catalog.forget_shifted(&f.copy);
                out.times_not_written.push(e.to_string());
            }
        }
    }
}

/// A corrected copy counted, and its new bytes recorded by their hash (a failure to record
/// them is the copy's, not the correction's: its times are written).
fn record_copy(catalog: &mut Catalog, file: &InCopy<'_>, out: &mut Finished) {
    out.times_written += 1;
    let copy = &file.copy;
    let recorded = ingest::copy::hash_of(copy)
        .map_err(|e| e.to_string())
        .and_then(|sha| {
            catalog
                .record_shifted_copy(copy, &sha)
                .map_err(|e| e.to_string())
        });
    if let Err(e) = recorded {
        out.failed.push((
            file.source.to_path_buf(),
            format!("the corrected copy's hash is not recorded: {e}"),
        ));
    }
}
