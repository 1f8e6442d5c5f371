//! Reading a file someone else made (a photo, a sidecar beside it): only a regular file, and
//! never more than a cap for its kind. A FIFO named like a sidecar would block the reader until something
//! writes to it — for ever — and a link to `/dev/zero` would grow it until memory runs out.
//! The file is opened without blocking, then what the open handle is (never what the path was
//! a moment before) decides.

use std::io::Read;
use std::path::Path;

/// What a file that is not a plain file, or too large, reads as.
fn refused(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why)
}

fn not_regular() -> std::io::Error {
    refused("not a regular file (a pipe, a socket or a device)".to_owned())
}

/// The most a photo may be to be read whole: beyond the largest camera files (a 400 MP
/// multi-shot RAW is 2 GiB, a 150 MP one 300 MB), and far from what a sparse or endless file
/// claims.
pub const PHOTO_CAP: u64 = 3 << 30;

/// The whole photo at `path` ([`read_capped`] at [`PHOTO_CAP`]); no file is an error.
pub fn read_photo(path: &Path) -> std::io::Result<Vec<u8>> {
    read_whole(path, PHOTO_CAP, "a photo")
}

/// As [`read_capped`], no file being an error (`NotFound`) like any other.
pub fn read_whole(path: &Path, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    read_capped(path, cap, what)?
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
}

/// The photo at `path` opened to read, when it is a regular file within [`PHOTO_CAP`].
pub fn open_photo(path: &Path) -> std::io::Result<std::fs::File> {
    let file = open_without_blocking(path)?;
    check(&file, PHOTO_CAP, "a photo")?;
    Ok(file)
}

/// The file at `path` opened to read when it is a regular file, whatever its size (a card's
/// video is copied, not decoded): a FIFO swapped in since the scan never blocks the open.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let file = open_without_blocking(path)?;
    check(&file, u64::MAX, "a file")?;
    Ok(file)
}

/// The whole of `path` when it is a regular file of at most `cap` bytes; None when there is
/// no file. A pipe, socket or device, or a larger file, is an error saying so, `what` naming
/// the kind of file ("a sidecar").
pub fn read_capped(path: &Path, cap: u64, what: &str) -> std::io::Result<Option<Vec<u8>>> {
    let file = match open_without_blocking(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let len = check(&file, cap, what)?;
    let mut bytes = Vec::with_capacity(len as usize);
    // A file that grows while it is read stops at the cap too.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(refused(format!(
            "more than the {} {what} may have",
            size_words(cap)
        )));
    }
    Ok(Some(bytes))
}

/// The open file's length, when it is a regular file of at most `cap` bytes.
fn check(file: &std::fs::File, cap: u64, what: &str) -> std::io::Result<u64> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > cap {
        return Err(refused(format!(
            "{}, more than the {} {what} may have",
            size_words(meta.len()),
            size_words(cap)
        )));
    }
    Ok(meta.len())
}

/// A size as people read it: bytes up to a KiB, else KiB, MiB or GiB with one decimal.
fn size_words(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return format!("{:.1} {unit}", bytes as f64 / size as f64);
        }
    }
    format!("{bytes} bytes")
}

/// Opened to read, never waiting: a FIFO's open returns at once instead of waiting for a
/// writer, and a terminal never becomes the process's. What the path names is looked at
/// first, so a device seen there is never opened (some act on an open: a tape rewinds); the
/// open handle is looked at again by the caller. A file another program holds a lease on (Samba's
/// oplocks) refuses a non-blocking open while the kernel asks the holder to let go: it is
/// tried again, never with a blocking open (a FIFO put in its place meanwhile would block
/// that for ever), until the lease is gone, which the kernel enforces within its
/// lease-break-time (45 s by default), or [`LEASE_WAIT`] passes.
#[cfg(unix)]
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let started = std::time::Instant::now();
    loop {
        match rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY,
            Mode::empty(),
        ) {
            Ok(fd) => return Ok(std::fs::File::from(fd)),
            Err(Errno::WOULDBLOCK) if started.elapsed() < LEASE_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(Errno::WOULDBLOCK) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    "another program holds it and does not let go",
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// How long a file another program holds a lease on is waited for: past the kernel's
/// default lease-break-time, after which the kernel takes the lease back itself.
#[cfg(unix)]
const LEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_within_the_cap_is_read() {
        let t = tempfile::tempdir().expect("tempdir");
        let plain = t.path().join("a.jpg.xmp");
        std::fs::write(&plain, b"<x:xmpmeta/>").expect("write");
        assert_eq!(
            read_capped(&plain, 100, "a sidecar").expect("read"),
            Some(b"<x:xmpmeta/>".to_vec())
        );
        assert_eq!(
            read_capped(&t.path().join("none.xmp"), 100, "a sidecar").expect("none"),
            None
        );
        let msg = read_capped(&plain, 5, "a sidecar")
            .expect_err("too large")
            .to_string();
        assert_eq!(msg, "12 bytes, more than the 5 bytes a sidecar may have");
        #[cfg(unix)]
        {
            // A FIFO nobody writes to, and a link to an endless device: refused at once.
            let fifo = t.path().join("b.jpg.xmp");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo runs");
            assert!(made.success());
            let msg = read_capped(&fifo, 100, "a sidecar")
                .expect_err("a pipe")
                .to_string();
            assert!(msg.starts_with("not a regular file"), "{msg}");
            let zero = t.path().join("c.jpg.xmp");
            std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
            let msg = read_capped(&zero, 100, "a sidecar")
                .expect_err("a device")
                .to_string();
            assert!(msg.starts_with("not a regular file"), "{msg}");
        }
    }

    /// A sparse file claiming 12 GiB, named like a photo: refused from its size at once, never
    /// read (before, every reader loaded it whole, once per worker).
    #[test]
    fn a_photo_larger_than_any_camera_makes_is_refused_unread() {
        let t = tempfile::tempdir().expect("tempdir");
        let huge = t.path().join("huge.cr3");
        std::fs::File::create(&huge)
            .and_then(|f| f.set_len(12 << 30))
            .expect("sparse");
        let msg = read_photo(&huge).expect_err("too large").to_string();
        assert_eq!(msg, "12.0 GiB, more than the 3.0 GiB a photo may have");
        assert!(open_photo(&huge).is_err());
        assert_eq!(
            read_photo(&t.path().join("none.jpg"))
                .expect_err("none")
                .kind(),
            std::io::ErrorKind::NotFound
        );
    }
}
