//! Making a new name durable and safe: a folder's entries flushed to disk after a file was
//! named in it (the export's copies and the ingest's, each flushed itself before its name was
//! taken; the catalog's sidecars), and folders made on the way flushed into their parents.
//! Temporaries are created exclusively under unpredictable names, so a link planted in a
//! folder another user can write never redirects a write; a new name never replaces a file;
//! a rewrite keeps the file's mode and never writes through a link.

use std::path::{Path, PathBuf};

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

/// Create `path` to write and read back, never an existing file (or a link's target), its
/// missing folders made on the way, each flushed into its parent.
pub fn create_new_with_folders(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent() {
        create_dir_all(dir)?;
    }
    std::fs::File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
}

/// Tries at a fresh name before giving up: each collision is another run's temporary, or a
/// name planted there.
const TEMP_TRIES: usize = 16;

/// A new temporary beside `path`, under a name nobody can predict, created exclusively: a
/// link or file planted at a name it could have taken is never opened (create-new does not
/// follow a link), another name is tried. The temporary and its path.
pub fn create_temp_beside(path: &Path) -> std::io::Result<(std::fs::File, PathBuf)> {
    create_temp_among(path, std::iter::repeat_with(unpredictable), None)
}

/// As [`create_temp_beside`], created with at most `mode`'s permissions (Unix) where given.
fn create_temp_among(
    path: &Path,
    suffixes: impl Iterator<Item = String>,
    mode: Option<u32>,
) -> std::io::Result<(std::fs::File, PathBuf)> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut options = std::fs::File::options();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode & 0o777);
    }
    #[cfg(not(unix))]
    let _ = mode;
    for suffix in suffixes.take(TEMP_TRIES) {
        let temp = dir.join(format!(".{name}.darkroom-{suffix}.tmp"));
        match options.open(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("every temporary name tried beside it was taken ({TEMP_TRIES} tries)"),
    ))
}

/// 64 bits nobody outside this process can guess: std's hasher keys are random per process,
/// and each call hashes a fresh count and the time.
fn unpredictable() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::hash::RandomState::new().build_hasher();
    h.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:016x}", h.finish())
}

/// Give `from` the name `to` only where no file has it, atomically: Linux's
/// `RENAME_NOREPLACE`, macOS's `RENAME_EXCL`, Windows' `MoveFileExW` without replacing; where
/// the file system lacks it, a hard link (which fails where a file is); with no hard links
/// either, the name claimed by creating it exclusively and `from` renamed over that claim.
/// A name taken is an `AlreadyExists` error, and `from` stays.
pub fn rename_without_replacing(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        use rustix::io::Errno;
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            // Not offered by this file system (macOS says ENOTSUP, Linux EINVAL): below.
            Err(e)
                if [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP, Errno::NOTSUP].contains(&e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    #[cfg(windows)]
    {
        renamore::rename_exclusive(from, to)
    }
    #[cfg(not(windows))]
    {
        match std::fs::hard_link(from, to) {
            Ok(()) => drop_first_name(from, to, |p| std::fs::remove_file(p)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
            Err(_) => {
                std::fs::File::options()
                    .write(true)
                    .create_new(true)
                    .open(to)?;
                std::fs::rename(from, to).inspect_err(|_| {
                    // The claim goes with the file that failed to take it.
                    let _ = std::fs::remove_file(to);
                })
            }
        }
    }
}

/// After `to` was made a second name of `from`: `from` goes (`remove`). Gone already (another
/// program moved it, or NFS said so of an unlink it did) is done. A refusal that leaves
/// nothing removed (permission, a read-only or busy file system) takes `to` back — only while
/// `from` is still the very file. Any other failure (EIO, a timeout: the unlink may have been
/// done on a server while a cached lookup still shows `from`) keeps both names: a second name
/// can be tidied later, a file with no name is lost.
#[cfg(not(windows))]
fn drop_first_name(
    from: &Path,
    to: &Path,
    remove: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::ErrorKind;
    match remove(from) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => {
            let nothing_removed = matches!(
                e.kind(),
                ErrorKind::PermissionDenied
                    | ErrorKind::ReadOnlyFilesystem
                    | ErrorKind::ResourceBusy
            );
            if nothing_removed && same_file(from, to) {
                let _ = std::fs::remove_file(to);
            }
            Err(e)
        }
    }
}

/// Whether both paths name one file (device and inode); false when either cannot be read.
#[cfg(not(windows))]
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        false
    }
}

/// Make `bytes` the content of `path`, whole or not at all: written into an exclusive
/// temporary beside it, flushed, given the mode of the file it replaces, then renamed over it
/// (readers see the old file or the new; the folder is the caller's to flush). A `path` that
/// is a link is refused: writing through it would write wherever it points, and replacing it
/// would lose another's link.
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let old = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it is a link: not written through it, nor replaced",
            ));
        }
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    // Never more open than the file it replaces, even for the moment before its mode is set.
    #[cfg(unix)]
    let mode = old
        .as_ref()
        .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()));
    #[cfg(not(unix))]
    let mode = None;
    let (mut file, temp) = create_temp_among(path, std::iter::repeat_with(unpredictable), mode)?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(old) = &old {
            file.set_permissions(old.permissions())?;
        }
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Make `dir` and every missing folder above it readable by this user only (0700 on Unix:
/// a catalog holds people's names and faces); Ok when it exists, whatever its mode.
pub fn create_private_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Make an existing folder of ours readable by this user only, where others could read it
/// (one an older DarkRoom made 0755). A folder of another user's is left as it is.
pub fn make_private(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // Through a link too (a data folder moved to another disk): only ever one of ours.
        let meta = std::fs::metadata(dir)?;
        if meta.is_dir()
            && meta.uid() == rustix::process::geteuid().as_raw()
            && meta.mode() & 0o077 != 0
        {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(meta.mode() & 0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Create `path` empty, readable and writable by this user only (0600 on Unix), unless it
/// exists: what a database then opens keeps that mode (SQLite gives its journal and WAL the
/// database's).
pub fn create_private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::File::options();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
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

    #[cfg(unix)]
    #[test]
    fn a_temporary_skips_names_planted_with_links_and_leaves_their_targets() {
        let t = tempfile::tempdir().expect("tempdir");
        let target = t.path().join("precious.txt");
        std::fs::write(&target, b"mine").expect("write");
        let sidecar = t.path().join("a.jpg.xmp");
        for s in ["1", "2"] {
            std::os::unix::fs::symlink(
                &target,
                t.path().join(format!(".a.jpg.xmp.darkroom-{s}.tmp")),
            )
            .expect("planted");
        }
        let names = ["1", "2", "3"].into_iter().map(String::from);
        let (_, temp) = create_temp_among(&sidecar, names, None).expect("a fresh name");
        assert_eq!(temp, t.path().join(".a.jpg.xmp.darkroom-3.tmp"));
        let names = ["1", "2"].into_iter().map(String::from);
        let e = create_temp_among(&sidecar, names, None).expect_err("every name taken");
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&target).expect("read"), b"mine");
        assert_ne!(unpredictable(), unpredictable());
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().expect("tempdir");
        let p = t.path().join("a.xmp");
        replace_file(&p, b"one").expect("made");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        replace_file(&p, b"two").expect("replaced");
        assert_eq!(std::fs::read(&p).expect("read"), b"two");
        let mode = std::fs::metadata(&p).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        let target = t.path().join("precious.txt");
        std::fs::write(&target, b"mine").expect("write");
        let link = t.path().join("b.xmp");
        std::os::unix::fs::symlink(&target, &link).expect("link");
        let e = replace_file(&link, b"theirs").expect_err("a link");
        assert!(e.to_string().contains("it is a link"), "{e}");
        assert_eq!(std::fs::read(&target).expect("read"), b"mine");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("still")
                .is_symlink()
        );
        let leftovers: Vec<_> = std::fs::read_dir(t.path())
            .expect("list")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_name_taken_is_never_renamed_over() {
        let t = tempfile::tempdir().expect("tempdir");
        let (from, to) = (t.path().join("from"), t.path().join("to"));
        std::fs::write(&from, b"new").expect("write");
        std::fs::write(&to, b"old").expect("write");
        let e = rename_without_replacing(&from, &to).expect_err("taken");
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&to).expect("read"), b"old");
        std::fs::remove_file(&to).expect("rm");
        rename_without_replacing(&from, &to).expect("free");
        assert_eq!(std::fs::read(&to).expect("read"), b"new");
        assert!(!from.exists());
    }

    /// The hard-link fallback's second step, each way it can end.
    #[cfg(unix)]
    #[test]
    fn a_hard_link_fallback_never_removes_the_last_name_of_a_file() {
        let t = tempfile::tempdir().expect("tempdir");
        let (from, to) = (t.path().join("from"), t.path().join("to"));
        let fresh = || {
            let _ = std::fs::remove_file(&from);
            let _ = std::fs::remove_file(&to);
            std::fs::write(&from, b"photo").expect("write");
            std::fs::hard_link(&from, &to).expect("link");
        };
        // Removed: one name left, the new one.
        fresh();
        drop_first_name(&from, &to, |p| std::fs::remove_file(p)).expect("moved");
        assert!(!from.exists());
        assert_eq!(std::fs::read(&to).expect("read"), b"photo");
        // Gone already (NFS answering a retried unlink): done, the new name kept.
        fresh();
        drop_first_name(&from, &to, |p| {
            std::fs::remove_file(p)?;
            Err(std::io::ErrorKind::NotFound.into())
        })
        .expect("gone is done");
        assert_eq!(std::fs::read(&to).expect("read"), b"photo");
        // Refused while `from` is still the file: `to` taken back, `from` as it was.
        fresh();
        let e = drop_first_name(&from, &to, |_| {
            Err(std::io::ErrorKind::PermissionDenied.into())
        })
        .expect_err("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(!to.exists(), "no second name left");
        assert_eq!(std::fs::read(&from).expect("read"), b"photo");
        // Refused after another program put another file at `from` (the original's only
        // name is now `to`): `to` is kept.
        fresh();
        let e = drop_first_name(&from, &to, |p| {
            std::fs::remove_file(p)?;
            std::fs::write(p, b"another")?;
            Err(std::io::ErrorKind::PermissionDenied.into())
        })
        .expect_err("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert_eq!(std::fs::read(&to).expect("the only copy"), b"photo");
        assert_eq!(std::fs::read(&from).expect("read"), b"another");
        // A failure that may have removed it after all (EIO from an NFS server that did the
        // unlink): both names kept, though `from` still reads as the same file here.
        fresh();
        let e = drop_first_name(&from, &to, |_| {
            Err(std::io::Error::other("input/output error"))
        })
        .expect_err("failed");
        assert_eq!(e.kind(), std::io::ErrorKind::Other);
        assert_eq!(std::fs::read(&to).expect("kept"), b"photo");
        assert_eq!(std::fs::read(&from).expect("kept"), b"photo");
    }
}
