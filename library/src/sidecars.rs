//! Where a photo's XMP sidecars are: `IMG_0001.CR3.xmp` (darktable, digiKam, DarkRoom's
//! default) and `IMG_0001.xmp` (Lightroom, Capture One, Photo Mechanic), in either case. On a
//! case-insensitive file system (Windows, macOS) `IMG_0001.xmp` and `IMG_0001.XMP` are one
//! file seen twice, so files are told apart by identity, never by name.

use std::path::{Path, PathBuf};

/// The file is a sidecar (`.xmp`, either case), not a photo.
pub fn is_sidecar(file: &Path) -> bool {
    file.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xmp"))
}

/// The sidecars beside `file` that exist, in the order looked for, each file once.
pub fn of(file: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for ext in ["xmp", "XMP"] {
        let mut with = file.as_os_str().to_owned();
        with.push(".");
        with.push(ext);
        let replaced = file.with_extension(ext);
        for candidate in [PathBuf::from(with), replaced] {
            if candidate != file
                && candidate.is_file()
                && !same_file(&candidate, file)
                && !out.iter().any(|o| same_file(o, &candidate))
            {
                out.push(candidate);
            }
        }
    }
    out
}

/// Whether two paths name one file: the same inode (a hard link, or one name in two cases on
/// a case-insensitive file system); elsewhere the same canonical path, which Windows spells in
/// the case the file system keeps. False when either cannot be read.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}
