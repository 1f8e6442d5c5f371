//! The corpus each target starts from: real files, in a fixed order (a state names an input
//! only against the same seeds).

use std::path::{Path, PathBuf};

use darkroom_library::preview;

use crate::mutate::MAX_INPUT;
use crate::targets::Target;

/// Every file under `dirs`, sorted by path, each at most [`MAX_INPUT`] bytes.
fn files(dirs: &[PathBuf]) -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut paths = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| anyhow::anyhow!("cannot list seed folder: {e}: {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path)
            .map_err(|e| anyhow::anyhow!("cannot read seed: {e}: {}", path.display()))?;
        if bytes.len() <= MAX_INPUT {
            out.push((path, bytes));
        }
    }
    Ok(out)
}

const XMP_START: &[u8] = b"<x:xmpmeta";
const XMP_END: &[u8] = b"</x:xmpmeta>";

fn is_xmp(path: &Path, bytes: &[u8]) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xmp"))
        || bytes.windows(XMP_START.len()).any(|w| w == XMP_START)
}

/// A TIFF whose one IFD lists 65,535 entries, previews (RW2's JpgFromRaw) and sub-IFD lists
/// of a hundred thousand in turn, each pointing back into the file, its next IFD itself: what
/// a hostile file claims to make a walk's lists grow without bound.
fn huge_counts() -> Vec<u8> {
    let n = u16::MAX;
    let mut data = b"II*\0".to_vec();
    data.extend(8u32.to_le_bytes());
    data.extend(n.to_le_bytes());
    for i in 0..u32::from(n) {
        let (tag, typ, count, value) = if i % 2 == 0 {
            (0x002Eu16, 7u16, 4096u32, (i / 2) % 7 * 4)
        } else {
            (0x014A, 4, 100_000, 8)
        };
        data.extend(tag.to_le_bytes());
        data.extend(typ.to_le_bytes());
        data.extend(count.to_le_bytes());
        data.extend(value.to_le_bytes());
    }
    data.extend(8u32.to_le_bytes());
    data
}

/// The seeds of `target` from `dirs`.
pub fn load(target: Target, dirs: &[PathBuf]) -> anyhow::Result<Vec<Vec<u8>>> {
    let all = files(dirs)?;
    let seeds: Vec<Vec<u8>> = match target {
        Target::Preview | Target::Exif => all
            .into_iter()
            .map(|(_, b)| b)
            .chain(std::iter::once(huge_counts()))
            .collect(),
        // JPEG files, and the JPEGs cut out of every container.
        Target::JpegDc | Target::JpegTurbo => all
            .iter()
            .flat_map(|(_, b)| {
                let mut v = Vec::new();
                if b.starts_with(&[0xFF, 0xD8]) {
                    v.push(b.clone());
                }
                if let Ok(p) = preview::largest(b) {
                    v.push(b[p.range].to_vec());
                }
                v
            })
            .collect(),
        // XMP packets: sidecars, and the packets inside photos.
        Target::Xmp => all
            .iter()
            .filter(|(p, b)| is_xmp(p, b))
            .map(|(p, b)| {
                if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("xmp")) {
                    return b.clone();
                }
                let start = b
                    .windows(XMP_START.len())
                    .position(|w| w == XMP_START)
                    .unwrap_or(0);
                let end = b
                    .windows(XMP_END.len())
                    .position(|w| w == XMP_END)
                    .map_or(b.len(), |e| e + XMP_END.len());
                b[start..end.max(start)].to_vec()
            })
            // And the packets DarkRoom writes itself.
            .chain((0..32u64).map(|state| {
                darkroom_catalog::xmp::new_packet(
                    &crate::targets::decision(state),
                    Default::default(),
                )
                .into_bytes()
            }))
            .collect(),
    };
    anyhow::ensure!(
        !seeds.is_empty(),
        "no seeds for {} in the folders given",
        target.name()
    );
    Ok(seeds)
}
