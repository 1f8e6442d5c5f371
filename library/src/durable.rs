//! Making a new name durable: a folder's entries flushed to disk after a file was named in it
//! (the export's copies and the ingest's, each flushed itself before its name was taken; the
//! catalog's sidecars), and folders made on the way flushed into their parents.

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

/// Make `dir` and every missing folder above it, each new folder flushed into its parent: a
/// copy named inside survives a power cut with the path that leads to it. Ok when it exists.
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.is_dir())
        .collect();
    missing.reverse();
    for d in missing {
        match std::fs::create_dir(d) {
            Ok(()) => {}
            // Another run made it meanwhile: flushing its parent again is harmless.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
        let parent = d.parent().filter(|p| !p.as_os_str().is_empty());
        sync_dir(parent.unwrap_or(Path::new(".")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_missing_folder_is_made() {
        let t = tempfile::tempdir().expect("tempdir");
        let deep = t.path().join("a/b/c");
        create_dir_all(&deep).expect("made");
        assert!(deep.is_dir());
        create_dir_all(&deep).expect("there already");
        std::fs::write(t.path().join("a/file"), b"x").expect("file");
        assert!(
            create_dir_all(&t.path().join("a/file/d")).is_err(),
            "a file in the way"
        );
    }
}
