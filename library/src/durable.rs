//! Making a new name durable: a folder's entries flushed to disk after a file was named in it
//! (the export's copies and the ingest's, each flushed itself before its name was taken; the
//! catalog's sidecars).

use std::path::Path;

/// Flush the folder's entries. Windows has no folder to flush through std: a name there is as
/// durable as NTFS makes it.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
