//! Reading a small file someone else made (a sidecar beside a photo): only a regular file, and
//! never more than a cap. A FIFO named like a sidecar would block the reader until something
//! writes to it — for ever — and a link to `/dev/zero` would grow it until memory runs out.
//! The file is opened without blocking, then what the open handle is (never what the path was
//! a moment before) decides.

use std::io::Read;
use std::path::Path;

/// What a file that is not a plain file, or too large, reads as.
fn refused(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why)
}

/// The whole of `path` when it is a regular file of at most `cap` bytes; None when there is
/// no file. A pipe, socket or device, or a larger file, is an error saying so.
pub fn read_capped(path: &Path, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = match open_without_blocking(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused(
            "not a regular file (a pipe, a socket or a device)".to_owned(),
        ));
    }
    if meta.len() > cap {
        return Err(refused(format!(
            "{} bytes, more than the {cap} a sidecar may have",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file that grows while it is read stops at the cap too.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(refused(format!(
            "more than the {cap} bytes a sidecar may have"
        )));
    }
    Ok(Some(bytes))
}

/// Opened to read; a FIFO's open returns at once instead of waiting for a writer.
#[cfg(unix)]
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(std::fs::File::from(fd))
}

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
            read_capped(&plain, 100).expect("read"),
            Some(b"<x:xmpmeta/>".to_vec())
        );
        assert_eq!(
            read_capped(&t.path().join("none.xmp"), 100).expect("none"),
            None
        );
        let msg = read_capped(&plain, 5).expect_err("too large").to_string();
        assert!(msg.contains("more than the 5"), "{msg}");
        #[cfg(unix)]
        {
            // A FIFO nobody writes to, and a link to an endless device: refused at once.
            let fifo = t.path().join("b.jpg.xmp");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo runs");
            assert!(made.success());
            let msg = read_capped(&fifo, 100).expect_err("a pipe").to_string();
            assert!(msg.starts_with("not a regular file"), "{msg}");
            let zero = t.path().join("c.jpg.xmp");
            std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
            let msg = read_capped(&zero, 100).expect_err("a device").to_string();
            assert!(msg.starts_with("not a regular file"), "{msg}");
        }
    }
}
