//! Sidecar files: where they live, reading one, and writing one atomically (temp file, fsync,
//! rename, fsync the directory), merging into whatever another tool wrote there.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::decision::Decision;
use crate::error::CatalogError;
use crate::xmp;

/// How a photo's sidecar is named.
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

    pub fn other(self) -> Self {
        match self {
            SidecarNaming::WithExtension => SidecarNaming::ReplaceExtension,
            SidecarNaming::ReplaceExtension => SidecarNaming::WithExtension,
        }
    }
}

fn read_text(path: &Path) -> Result<Option<String>, CatalogError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| CatalogError::MalformedXmp {
                reason: "not UTF-8".to_owned(),
                path: path.to_path_buf(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(CatalogError::Io {
            what: "cannot read sidecar",
            source,
            path: path.to_path_buf(),
        }),
    }
}

/// The decision in a photo's existing sidecar, looking under the preferred name first.
pub fn read(photo: &Path, naming: SidecarNaming) -> Result<Option<Decision>, CatalogError> {
    for n in [naming, naming.other()] {
        let path = n.path_for(photo);
        if let Some(text) = read_text(&path)? {
            let fields =
                xmp::read(&text).map_err(|reason| CatalogError::MalformedXmp { reason, path })?;
            return Ok(Some(fields.decision()));
        }
    }
    Ok(None)
}

/// Write `decision` into the photo's sidecar, merging into an existing one. A malformed
/// existing sidecar is left untouched and reported.
pub fn write(
    photo: &Path,
    naming: SidecarNaming,
    words: xmp::SidecarWords,
    decision: &Decision,
) -> Result<PathBuf, CatalogError> {
    let path = naming.path_for(photo);
    let text = match read_text(&path)? {
        Some(existing) => {
            xmp::merge(&existing, decision, words).map_err(|reason| CatalogError::MalformedXmp {
                reason,
                path: path.clone(),
            })?
        }
        None => xmp::new_packet(decision, words),
    };
    write_atomically(&path, text.as_bytes()).map_err(|source| CatalogError::Io {
        what: "cannot write sidecar",
        source,
        path: path.clone(),
    })?;
    Ok(path)
}

/// Readers see the old file or the new one, never a mixture, and the new one survives a power
/// cut once this returns.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp_name = OsString::from(".");
    tmp_name.push(path.file_name().unwrap_or_default());
    tmp_name.push(format!(".darkroom-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        #[cfg(unix)]
        std::fs::File::open(dir)?.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
}
