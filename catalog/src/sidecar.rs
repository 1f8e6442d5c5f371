//! Sidecar files: where they live, reading one, and writing one atomically (temp file, fsync,
//! rename, fsync the directory), merging into whatever another tool wrote there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::decision::Decision;
use crate::error::CatalogError;
use crate::xmp;

/// How a new sidecar is named (a photo that has one, under either naming, keeps it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SidecarNaming {
    /// `IMG_0001.CR3.xmp` (darktable, digiKam): a RAW and a JPEG of one frame never collide.
    #[default]
    WithExtension,
    /// `IMG_0001.xmp` (Lightroom, Capture One).
    ReplaceExtension,
}

impl SidecarNaming {
    pub fn path_for(self, photo: &Path) -> PathBuf {
        match self {
            SidecarNaming::WithExtension => {
                let mut name: OsString = photo.file_name().unwrap_or_default().to_owned();
                name.push(".xmp");
                photo.with_file_name(name)
            }
            SidecarNaming::ReplaceExtension => photo.with_extension("xmp"),
        }
    }
}

/// The most a sidecar may hold: XMP packets are kilobytes (one with a preview in it, a few
/// megabytes); anything larger is not a sidecar to merge into.
const SIDECAR_CAP: u64 = 16 << 20;

fn read_text(path: &Path) -> Result<Option<String>, CatalogError> {
    // Only a regular file: a FIFO under a sidecar's name would hang this thread, and with it
    // every later decision (a pending sidecar is written again at every start).
    match darkroom_library::regular::read_capped(path, SIDECAR_CAP, "a sidecar") {
        Ok(Some(bytes)) => {
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| CatalogError::MalformedXmp {
                    reason: "not UTF-8".to_owned(),
                    path: path.to_path_buf(),
                })
        }
        Ok(None) => Ok(None),
        Err(source) => Err(CatalogError::Io {
            what: "cannot read sidecar",
            source,
            path: path.to_path_buf(),
        }),
    }
}

/// The photo's sidecars that exist, under either naming and in either case, each file once,
/// the preferred naming's first.
pub fn existing(photo: &Path, naming: SidecarNaming) -> Vec<PathBuf> {
    let preferred = naming.path_for(photo);
    let mut found = darkroom_library::sidecars::of(photo);
    // Stable: among the others, the order they are looked for in.
    found.sort_by_key(|p| !p.as_os_str().eq_ignore_ascii_case(preferred.as_os_str()));
    found
}

/// The decision in a photo's existing sidecar (the preferred naming's, where both exist).
pub fn read(photo: &Path, naming: SidecarNaming) -> Result<Option<Decision>, CatalogError> {
    Ok(read_stamped(photo, naming)?.decision)
}

/// What a photo's sidecar says, and which bytes said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamped {
    /// None: the photo has no sidecar.
    pub decision: Option<Decision>,
    /// The sidecar's identity ([`stamp_of`]; empty when there is none): a sidecar whose
    /// identity is not the one last read or written was changed by another tool since.
    pub stamp: String,
}

/// A sidecar's identity: the sha256 of its bytes (a sidecar is a few KB; its modification
/// time alone misses an edit within a FAT card's 2 s or a copy that kept the time).
pub fn stamp_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// [`read`], with the identity of the sidecar read.
pub fn read_stamped(photo: &Path, naming: SidecarNaming) -> Result<Stamped, CatalogError> {
    for path in existing(photo, naming) {
        if let Some(text) = read_text(&path)? {
            let fields =
                xmp::read(&text).map_err(|reason| CatalogError::MalformedXmp { reason, path })?;
            return Ok(Stamped {
                decision: Some(fields.decision()),
                stamp: stamp_of(text.as_bytes()),
            });
        }
    }
    Ok(Stamped {
        decision: None,
        stamp: String::new(),
    })
}

/// Folders whose new entries must be flushed before a write counts as durable: one flush per
/// folder for a batch of sidecars, not one per file.
#[derive(Debug, Default)]
pub struct DirSync(Vec<PathBuf>);

impl DirSync {
    fn add(&mut self, dir: &Path) {
        if !self.0.iter().any(|d| d == dir) {
            self.0.push(dir.to_path_buf());
        }
    }

    /// Flush every folder written to; the first that fails is returned (the others are still
    /// flushed).
    pub fn finish(self) -> Result<(), CatalogError> {
        let mut first = None;
        for dir in self.0 {
            if let Err(source) = darkroom_library::durable::sync_dir(&dir) {
                first.get_or_insert(CatalogError::Io {
                    what: "cannot flush the sidecars' folder",
                    source,
                    path: dir,
                });
            }
        }
        first.map_or(Ok(()), Err)
    }
}

/// Write `decision` into the photo's sidecar: into every sidecar it already has, under either
/// naming (merged, so another tool's words stay), or a new one under `naming` when it has none:
/// a second sidecar never appears beside another tool's. A malformed existing sidecar is left
/// untouched and reported (the others are still written). Durable once `dirs` is finished.
pub fn write(
    photo: &Path,
    naming: SidecarNaming,
    words: xmp::SidecarWords,
    decision: &Decision,
    dirs: &mut DirSync,
) -> Result<Vec<PathBuf>, CatalogError> {
    write_stamped(photo, naming, words, decision, dirs).map(|(written, _)| written)
}

/// [`write`], with the identity of the sidecar [`read_stamped`] reads next (the first
/// written), as written.
pub fn write_stamped(
    photo: &Path,
    naming: SidecarNaming,
    words: xmp::SidecarWords,
    decision: &Decision,
    dirs: &mut DirSync,
) -> Result<(Vec<PathBuf>, String), CatalogError> {
    let mut targets = existing(photo, naming);
    if targets.is_empty() {
        targets.push(naming.path_for(photo));
    }
    let mut written = Vec::new();
    let mut stamp = None;
    let mut first_error = None;
    for path in targets {
        match write_one(&path, words, decision, dirs) {
            Ok(s) => {
                stamp.get_or_insert(s);
                written.push(path);
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok((written, stamp.unwrap_or_default())),
    }
}

/// Merge `decision` into the sidecar at `path` (or make it); the identity of what was written.
fn write_one(
    path: &Path,
    words: xmp::SidecarWords,
    decision: &Decision,
    dirs: &mut DirSync,
) -> Result<String, CatalogError> {
    let text = match read_text(path)? {
        Some(existing) => {
            xmp::merge(&existing, decision, words).map_err(|reason| CatalogError::MalformedXmp {
                reason,
                path: path.to_path_buf(),
            })?
        }
        None => xmp::new_packet(decision, words),
    };
    write_atomically(path, text.as_bytes()).map_err(|source| CatalogError::Io {
        what: "cannot write sidecar",
        source,
        path: path.to_path_buf(),
    })?;
    dirs.add(path.parent().unwrap_or_else(|| Path::new(".")));
    Ok(stamp_of(text.as_bytes()))
}

/// Readers see the old file or the new one, never a mixture, and the new one survives a power
/// cut once its folder is flushed ([`DirSync::finish`]); the sidecar keeps its mode, and one
/// that is a link is refused ([`darkroom_library::durable::replace_file`]).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    darkroom_library::durable::replace_file(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_namings() {
        let p = Path::new("/photos/IMG_0001.CR3");
        assert_eq!(
            SidecarNaming::WithExtension.path_for(p),
            Path::new("/photos/IMG_0001.CR3.xmp")
        );
        assert_eq!(
            SidecarNaming::ReplaceExtension.path_for(p),
            Path::new("/photos/IMG_0001.xmp")
        );
    }

    fn pick() -> Decision {
        Decision {
            flag: crate::Flag::Pick,
            ..Decision::default()
        }
    }

    /// A Lightroom-style `b.xmp` gets the decision; no `b.jpg.xmp` appears beside it. With both
    /// namings present, both are updated; one file under two spellings is written once.
    #[test]
    fn a_decision_goes_into_the_sidecars_that_exist() {
        let dir = tempfile::tempdir().expect("tempdir");
        let photo = dir.path().join("b.jpg");
        std::fs::write(&photo, b"jpeg").expect("photo");
        let theirs = Decision {
            stars: 4,
            label: Some(crate::Label::Colour(crate::ColourLabel::Green)),
            ..Decision::default()
        };
        let lightroom = dir.path().join("b.xmp");
        std::fs::write(&lightroom, xmp::new_packet(&theirs, Default::default())).expect("xmp");
        let naming = SidecarNaming::WithExtension;
        assert_eq!(read(&photo, naming).expect("reads"), Some(theirs.clone()));
        let mut dirs = DirSync::default();
        let d = Decision {
            flag: crate::Flag::Pick,
            ..theirs
        };
        let written = write(&photo, naming, Default::default(), &d, &mut dirs).expect("writes");
        dirs.finish().expect("flushed");
        assert_eq!(written, vec![lightroom.clone()]);
        assert!(!dir.path().join("b.jpg.xmp").exists(), "no second sidecar");
        assert_eq!(read(&photo, naming).expect("reads"), Some(d.clone()));

        // Both namings: both updated, ours read first.
        std::fs::write(
            dir.path().join("b.jpg.xmp"),
            xmp::new_packet(&d, Default::default()),
        )
        .expect("xmp");
        let mut dirs = DirSync::default();
        let written =
            write(&photo, naming, Default::default(), &pick(), &mut dirs).expect("writes");
        assert_eq!(written.len(), 2, "{written:?}");
        for p in &written {
            let text = std::fs::read_to_string(p).expect("read");
            assert_eq!(
                xmp::read(&text).expect("reads").decision(),
                pick(),
                "{}",
                p.display()
            );
        }

        // One file under two names (as a case-insensitive file system shows `b.XMP`).
        std::fs::remove_file(dir.path().join("b.jpg.xmp")).expect("rm");
        std::fs::hard_link(&lightroom, dir.path().join("b.XMP")).expect("link");
        assert_eq!(existing(&photo, naming), vec![lightroom.clone()]);
        let mut dirs = DirSync::default();
        let written = write(&photo, naming, Default::default(), &d, &mut dirs).expect("writes");
        assert_eq!(written, vec![lightroom]);
    }
}
