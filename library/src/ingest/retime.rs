//! A copy's capture time corrected in the file itself, as Photo Mechanic's "adjust capture
//! time" does: EXIF's DateTimeOriginal, CreateDate (DateTimeDigitized) and ModifyDate
//! (DateTime) rewritten in place, each the same 19 characters, so nothing else in the file
//! moves. JPEG (its APP1 Exif block) and TIFF-based files (TIFF, DNG, CR2, NEF, ARW, …); other
//! containers (CR3, RAF, CRW) are left as they are and said so. Only ever run on a copy.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use crate::clock;

const DATE_TIME: u16 = 0x0132;
const EXIF_IFD: u16 = 0x8769;
const DATE_TIME_ORIGINAL: u16 = 0x9003;
const DATE_TIME_DIGITIZED: u16 = 0x9004;
/// EXIF's date and time: "YYYY:MM:DD HH:MM:SS".
const DATE_LEN: usize = 19;

#[derive(Debug, thiserror::Error)]
pub enum RetimeError {
    #[error("{what}: {reason}: {}", path.display())]
    Io {
        what: &'static str,
        reason: String,
        path: std::path::PathBuf,
    },
    #[error("its capture time cannot be rewritten in this kind of file (only JPEG and TIFF-based ones): {}", path.display())]
    Unsupported { path: std::path::PathBuf },
    #[error("it has no EXIF capture time to correct: {}", path.display())]
    NoTime { path: std::path::PathBuf },
    #[error("the copy's capture time is neither the card's nor the corrected one (it was changed since): {}", path.display())]
    Changed { path: std::path::PathBuf },
}

/// Add `offset_s` to the file's EXIF times, in place. Returns how many were rewritten.
pub fn shift(path: &Path, offset_s: i64) -> Result<usize, RetimeError> {
    let io = |what: &'static str| {
        move |e: std::io::Error| RetimeError::Io {
            what,
            reason: e.to_string(),
            path: path.to_path_buf(),
        }
    };
    let data = crate::regular::read_photo(path).map_err(io("cannot read the copy"))?;
    let tiff = tiff_start(&data).ok_or_else(|| RetimeError::Unsupported {
        path: path.to_path_buf(),
    })?;
    let places = date_places(&data, tiff);
    let mut patches = Vec::new();
    for at in places {
        let Some(text) = data.get(at..at + DATE_LEN) else {
            continue;
        };
        let Some(seconds) = std::str::from_utf8(text).ok().and_then(clock::seconds_of) else {
            continue;
        };
        patches.push((at, clock::exif_text(seconds + offset_s)));
    }
    if patches.is_empty() {
        return Err(RetimeError::NoTime {
            path: path.to_path_buf(),
        });
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(io("cannot write the corrected time into the copy"))?;
    for (at, text) in &patches {
        file.seek(SeekFrom::Start(*at as u64))
            .and_then(|_| file.write_all(text.as_bytes()))
            .map_err(io("cannot write the corrected time into the copy"))?;
    }
    file.sync_all()
        .map_err(io("cannot flush the corrected copy to disk"))?;
    Ok(patches.len())
}

/// Set `copy`'s EXIF times to `original`'s plus `offset_s`, in place. The copy is the
/// original's bytes, so each time is read from the original at the same place and the value
/// written is fixed by it: run again after a kill mid-write, the same bytes result, never a
/// correction added twice. A place where the copy holds neither the original's time nor the
/// corrected one (it was edited since) is an error, and nothing is written. Returns how many
/// times the copy now carries corrected.
pub fn shift_from(copy: &Path, original: &Path, offset_s: i64) -> Result<usize, RetimeError> {
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| RetimeError::Io {
            what,
            reason: e.to_string(),
            path: path.clone(),
        }
    };
    let source =
        crate::regular::read_photo(original).map_err(io("cannot read the photo", original))?;
    let data = crate::regular::read_photo(copy).map_err(io("cannot read the copy", copy))?;
    let tiff = tiff_start(&source).ok_or_else(|| RetimeError::Unsupported {
        path: copy.to_path_buf(),
    })?;
    let mut patches = Vec::new();
    let mut carried = 0;
    for at in date_places(&source, tiff) {
        let (Some(was), Some(now)) = (source.get(at..at + DATE_LEN), data.get(at..at + DATE_LEN))
        else {
            continue;
        };
        let Some(seconds) = std::str::from_utf8(was).ok().and_then(clock::seconds_of) else {
            continue;
        };
        let target = clock::exif_text(seconds + offset_s);
        if now == target.as_bytes() {
            carried += 1;
        } else if now == was {
            patches.push((at, target));
        } else {
            return Err(RetimeError::Changed {
                path: copy.to_path_buf(),
            });
        }
    }
    if patches.is_empty() && carried == 0 {
        return Err(RetimeError::NoTime {
            path: copy.to_path_buf(),
        });
    }
    if patches.is_empty() {
        return Ok(carried);
    }
    let write = io("cannot write the corrected time into the copy", copy);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(copy)
        .map_err(&write)?;
    for (at, text) in &patches {
        if let Err(e) = file
            .seek(SeekFrom::Start(*at as u64))
            .and_then(|_| file.write_all(text.as_bytes()))
        {
            return Err(write(e));
        }
    }
    file.sync_all()
        .map_err(io("cannot flush the corrected copy to disk", copy))?;
    Ok(carried + patches.len())
}

/// Where the TIFF structure starts: at 0 in a TIFF-based file, inside APP1 in a JPEG.
fn tiff_start(data: &[u8]) -> Option<usize> {
    if data.starts_with(b"II*\0") || data.starts_with(b"MM\0*") {
        return Some(0);
    }
    if !data.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut at = 2;
    while at + 4 <= data.len() && data[at] == 0xFF {
        let marker = data[at + 1];
        if marker == 0xDA || marker == 0xD9 {
            break;
        }
        let len = usize::from(u16::from_be_bytes([data[at + 2], data[at + 3]]));
        let body = at + 4;
        if marker == 0xE1 && data.get(body..body + 6) == Some(b"Exif\0\0") {
            return Some(body + 6);
        }
        at += 2 + len;
    }
    None
}

/// The file offsets of the date strings in IFD0 and the EXIF IFD.
fn date_places(data: &[u8], tiff: usize) -> Vec<usize> {
    let little = data.get(tiff..tiff + 2) == Some(b"II");
    let u16_at = |at: usize| -> Option<u16> {
        let b = data.get(at..at + 2)?;
        Some(if little {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        })
    };
    let u32_at = |at: usize| -> Option<u32> {
        let b = data.get(at..at + 4)?;
        let b = [b[0], b[1], b[2], b[3]];
        Some(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let mut places = Vec::new();
    let mut ifds = vec![(u32_at(tiff + 4), true)];
    let mut walked = 0;
    while let Some((Some(offset), is_ifd0)) = ifds.pop() {
        walked += 1;
        if walked > 4 {
            break;
        }
        let ifd = tiff + offset as usize;
        let Some(count) = u16_at(ifd) else { continue };
        for k in 0..usize::from(count.min(512)) {
            let entry = ifd + 2 + 12 * k;
            let (Some(tag), Some(kind), Some(n)) =
                (u16_at(entry), u16_at(entry + 2), u32_at(entry + 4))
            else {
                break;
            };
            match tag {
                EXIF_IFD if is_ifd0 => ifds.push((u32_at(entry + 8), false)),
                DATE_TIME | DATE_TIME_ORIGINAL | DATE_TIME_DIGITIZED
                    if kind == 2 && n as usize >= DATE_LEN && (tag == DATE_TIME) == is_ifd0 =>
                {
                    if let Some(value) = u32_at(entry + 8) {
                        places.push(tiff + value as usize);
                    }
                }
                _ => {}
            }
        }
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little-endian TIFF block: IFD0 with DateTime and the EXIF pointer, the EXIF IFD with
    /// DateTimeOriginal and DateTimeDigitized.
    fn tiff(time: &str) -> Vec<u8> {
        let mut t = b"II*\0".to_vec();
        t.extend(8u32.to_le_bytes());
        let entry = |t: &mut Vec<u8>, tag: u16, kind: u16, n: u32, value: u32| {
            t.extend(tag.to_le_bytes());
            t.extend(kind.to_le_bytes());
            t.extend(n.to_le_bytes());
            t.extend(value.to_le_bytes());
        };
        // IFD0 at 8: 2 entries (2 + 24 + 4 bytes) → EXIF IFD at 38: 2 entries → strings at 68.
        t.extend(2u16.to_le_bytes());
        entry(&mut t, DATE_TIME, 2, 20, 68);
        entry(&mut t, EXIF_IFD, 4, 1, 38);
        t.extend(0u32.to_le_bytes());
        t.extend(2u16.to_le_bytes());
        entry(&mut t, DATE_TIME_ORIGINAL, 2, 20, 88);
        entry(&mut t, DATE_TIME_DIGITIZED, 2, 20, 108);
        t.extend(0u32.to_le_bytes());
        for _ in 0..3 {
            t.extend(time.as_bytes());
            t.push(0);
        }
        t
    }

    #[test]
    fn a_jpeg_and_a_tiff_get_every_time_moved_and_nothing_else() {
        let t = tempfile::tempdir().expect("tempdir");
        let block = tiff("2020:12:31 23:30:00");
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE1];
        jpeg.extend(((block.len() + 8) as u16).to_be_bytes());
        jpeg.extend(b"Exif\0\0");
        jpeg.extend(&block);
        jpeg.extend([0xFF, 0xD9]);
        for (name, bytes) in [("a.jpg", jpeg), ("b.tif", block.clone())] {
            let p = t.path().join(name);
            std::fs::write(&p, &bytes).expect("write");
            assert_eq!(shift(&p, 3_780).expect("shifted"), 3, "{name}");
            let after = std::fs::read(&p).expect("read");
            assert_eq!(after.len(), bytes.len());
            let text = String::from_utf8_lossy(&after);
            assert_eq!(text.matches("2021:01:01 00:33:00").count(), 3, "{name}");
            let changed = bytes.iter().zip(&after).filter(|(a, b)| a != b).count();
            assert!(changed <= 3 * DATE_LEN, "{name}: only the times move");
        }
        let other = t.path().join("c.CR3");
        std::fs::write(&other, b"\0\0\0\x18ftypcrx ").expect("write");
        assert!(matches!(
            shift(&other, 60),
            Err(RetimeError::Unsupported { .. })
        ));
    }

    #[test]
    fn a_correction_set_from_the_original_is_never_added_twice() {
        let t = tempfile::tempdir().expect("tempdir");
        let card = t.path().join("card.tif");
        let block = tiff("2020:12:31 23:30:00");
        std::fs::write(&card, &block).expect("write");
        let copy = t.path().join("copy.tif");
        std::fs::write(&copy, &block).expect("write");
        assert_eq!(shift_from(&copy, &card, 3_780).expect("shifted"), 3);
        let once = std::fs::read(&copy).expect("read");
        // A run killed after the write, run again: the same bytes.
        assert_eq!(shift_from(&copy, &card, 3_780).expect("again"), 3);
        assert_eq!(std::fs::read(&copy).expect("read"), once);
        assert_eq!(
            String::from_utf8_lossy(&once)
                .matches("2021:01:01 00:33:00")
                .count(),
            3
        );
        assert_eq!(
            std::fs::read(&card).expect("read"),
            block,
            "the card untouched"
        );
        // Edited since by another tool: refused, nothing written.
        let edited =
            String::from_utf8_lossy(&once).replace("2021:01:01 00:33:00", "1999:01:01 00:00:00");
        std::fs::write(&copy, edited.as_bytes()).expect("write");
        assert!(matches!(
            shift_from(&copy, &card, 3_780),
            Err(RetimeError::Changed { .. })
        ));
        assert_eq!(std::fs::read(&copy).expect("read"), edited.as_bytes());
    }
}
