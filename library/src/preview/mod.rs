//! The JPEG previews cameras embed, and the facts beside them (orientation, capture time): in
//! TIFF-based RAWs (CR2, NEF, ARW, DNG, ORF, RW2) through their IFDs, in CR3 through its boxes,
//! in CRW through its heap, in RAF through its header, and in a JPEG's own EXIF block (its
//! thumbnail). Bounds are checked everywhere: a lying offset yields no preview, never a panic.
//!
//! Checked against real files and exiftool's reading of them (library/tests/exiv2_files.rs):
//! the Canon EOS R6 CR3, the iPhone 12 Pro DNG (previews stripped) and the PowerShot S40 CRW
//! of exiv2's test data, its camera JPEGs, and every crash reproducer filed against exiv2.

mod bmff;
mod ciff;
mod tiff;

use std::io::Cursor;
use std::ops::Range;

use image::ImageReader;
use image::metadata::Orientation;

use crate::budget::MAX_PIXELS;
use tiff::Found;

/// A preview found inside a file.
#[derive(Debug, Clone)]
pub struct Preview {
    pub range: Range<usize>,
    pub width: u32,
    pub height: u32,
    /// The container's orientation tag, which applies to its previews.
    pub orientation: Option<Orientation>,
}

/// A preview's long edge must be at least this: smaller ones are icons, not photos.
pub const MIN_PREVIEW_LONG_EDGE: u32 = 120;

/// Why a file gave no preview; shown per item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoPreview {
    #[error("not a container DarkRoom reads previews from (no TIFF, CR3, CRW or RAF header)")]
    NotAContainer,
    #[error("no embedded preview large enough: the file lists none")]
    NoneListed,
    #[error(
        "no embedded preview large enough: the {listed} it lists are not inside it (stripped or \
         cut off)"
    )]
    OutsideFile { listed: usize },
    #[error("no embedded preview large enough: the largest is {width}x{height}")]
    TooSmall { width: u32, height: u32 },
    #[error(
        "no embedded preview large enough: none of the {listed} it lists is a readable JPEG \
         within the pixel budget"
    )]
    Unreadable { listed: usize },
}

/// The containers told apart here, by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Tiff,
    Jpeg,
    Raf,
    Cr3,
    Crw,
}

fn container(data: &[u8]) -> Option<Container> {
    if tiff::tiff_at(data).is_some() {
        Some(Container::Tiff)
    } else if data.starts_with(&[0xFF, 0xD8]) {
        Some(Container::Jpeg)
    } else if data.starts_with(b"FUJIFILMCCD-RAW") {
        Some(Container::Raf)
    } else if data.get(4..8) == Some(b"ftyp") {
        Some(Container::Cr3)
    } else if ciff::is_ciff(data) {
        Some(Container::Crw)
    } else {
        None
    }
}

/// Everything the container's structure says, JPEG ranges as offsets into `data`.
fn parse(data: &[u8]) -> Option<Found> {
    let mut found = Found::default();
    match container(data)? {
        Container::Tiff => {
            tiff::walk_block(data, 0, &mut found);
        }
        Container::Jpeg => {
            if let Some(base) = tiff::exif_in_jpeg(data) {
                tiff::walk_block(&data[base..], base, &mut found);
            }
        }
        Container::Raf => {
            let be = |at: usize| -> Option<usize> {
                Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize)
            };
            if let (Some(off), Some(len)) = (be(84), be(88)) {
                found.add_jpeg(off..off.saturating_add(len));
                // A RAF's EXIF is its preview's.
                if let Some(jpeg) = data.get(off..off.saturating_add(len))
                    && let Some(base) = tiff::exif_in_jpeg(jpeg)
                {
                    let mut exif = Found::default();
                    tiff::walk_block(&jpeg[base..], 0, &mut exif);
                    found.orientation = exif.orientation;
                    found.taken = exif.taken;
                    found.subsec = exif.subsec;
                }
            }
        }
        Container::Cr3 => {
            if !bmff::walk(data, &mut found) || found.jpegs.is_empty() {
                // ISO media laid out otherwise: the previews are still plain JPEGs inside.
                for r in jpeg_starts(data, 16) {
                    found.add_jpeg(r);
                }
            }
        }
        Container::Crw => ciff::walk(data, &mut found),
    }
    Some(found)
}

fn orientation_of(code: Option<u16>) -> Option<Orientation> {
    code.and_then(|c| u8::try_from(c).ok())
        .and_then(Orientation::from_exif)
}

/// The orientation tag of a TIFF/EXIF block (as `jpeg-decoder` hands EXIF over).
pub fn orientation_in_tiff(block: &[u8]) -> Option<Orientation> {
    let mut found = Found::default();
    tiff::walk_block(block, 0, &mut found);
    orientation_of(found.orientation)
}

/// The orientation tag of a JPEG's EXIF block, if it has one.
pub fn exif_orientation(jpeg: &[u8]) -> Option<Orientation> {
    orientation_in_tiff(jpeg.get(tiff::exif_in_jpeg(jpeg)?..)?)
}

/// Where a file keeps EXIF that a general EXIF reader does not look for: a CR3's CMT1 (IFD0:
/// camera) and CMT2 (the EXIF IFD: exposure, lens) TIFF blocks; a RAF's preview, whose EXIF
/// is the file's. Offsets into `data`; each range starts a TIFF block, or a JPEG for a RAF.
pub fn exif_blocks(data: &[u8]) -> Vec<Range<usize>> {
    match container(data) {
        Some(Container::Cr3) => parse(data).map(|f| f.exif_blocks).unwrap_or_default(),
        Some(Container::Raf) => parse(data).map(|f| f.jpegs).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A CR3's CMT3 box: a TIFF block whose IFD0 is Canon's maker notes, which no EXIF reader
/// finds on its own. Offsets into `data`.
pub fn maker_note_blocks(data: &[u8]) -> Vec<Range<usize>> {
    match container(data) {
        Some(Container::Cr3) => parse(data).map(|f| f.maker_notes).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The file's orientation tag (a RAW's applies to its previews), whatever the container.
pub fn orientation(data: &[u8]) -> Option<Orientation> {
    orientation_of(parse(data)?.orientation)
}

/// When the photo was taken, from EXIF DateTimeOriginal (+ SubSecTimeOriginal), or CRW's
/// time stamp, in seconds since 1970 on the camera's clock (no time zone: good for gaps
/// between frames, not for comparing cameras). None when absent or malformed.
pub fn capture_time(data: &[u8]) -> Option<f64> {
    let found = parse(data)?;
    if let Some(unix) = found.taken_unix {
        return Some(f64::from(unix));
    }
    let mut seconds = parse_exif_datetime(found.taken.as_deref()?)?;
    if let Some(sub) = found.subsec.as_deref()
        && !sub.is_empty()
        && sub.len() <= 9
        && sub.bytes().all(|b| b.is_ascii_digit())
        && let Ok(v) = format!("0.{sub}").parse::<f64>()
    {
        seconds += v;
    }
    Some(seconds)
}

/// "YYYY:MM:DD HH:MM:SS" → seconds since 1970-01-01 (proleptic Gregorian, no zone).
pub(crate) fn parse_exif_datetime(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b':' || b[7] != b':' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: Range<usize>| {
        let s = text.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse::<i64>().ok())?
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + hh * 3_600 + mm * 60 + ss) as f64)
}

/// Every JPEG start in `data` (for containers we do not parse), at most `limit`.
fn jpeg_starts(data: &[u8], limit: usize) -> Vec<Range<usize>> {
    data.windows(3)
        .enumerate()
        .filter(|(_, w)| *w == [0xFF, 0xD8, 0xFF])
        .map(|(i, _)| i..data.len())
        .take(limit)
        .collect()
}

/// The largest embedded JPEG whose header reads, within the pixel budget and at least
/// [`MIN_PREVIEW_LONG_EDGE`] long, or why there is none.
pub fn largest(data: &[u8]) -> Result<Preview, NoPreview> {
    choose(data, u32::MAX)
}

/// The smallest embedded JPEG at least `side` long (a CR3's 1620 px PRVW for a grid cell, not
/// its 24 MP JpgFromRaw), else the largest, on the terms of [`largest`].
pub fn for_side(data: &[u8], side: u32) -> Result<Preview, NoPreview> {
    choose(data, side)
}

fn choose(data: &[u8], side: u32) -> Result<Preview, NoPreview> {
    let found = parse(data).ok_or(NoPreview::NotAContainer)?;
    let orientation = orientation_of(found.orientation);
    let listed = found.jpegs.len();
    if listed == 0 {
        return Err(NoPreview::NoneListed);
    }
    let inside: Vec<Range<usize>> = found
        .jpegs
        .into_iter()
        .filter(|r| r.start < r.end && r.end <= data.len())
        .collect();
    if inside.is_empty() {
        return Err(NoPreview::OutsideFile { listed });
    }
    let mut readable: Vec<Preview> = inside
        .into_iter()
        .filter_map(|r| {
            let bytes = data.get(r.clone())?;
            if !bytes.starts_with(&[0xFF, 0xD8]) {
                return None;
            }
            let (width, height) = ImageReader::new(Cursor::new(bytes))
                .with_guessed_format()
                .ok()?
                .into_dimensions()
                .ok()?;
            let fits =
                width > 0 && height > 0 && u64::from(width) * u64::from(height) <= MAX_PIXELS;
            fits.then_some(Preview {
                range: r,
                width,
                height,
                orientation,
            })
        })
        .collect();
    readable.sort_by_key(|p| u64::from(p.width) * u64::from(p.height));
    let best = readable
        .iter()
        .find(|p| p.width.max(p.height) >= side)
        .or(readable.last())
        .cloned()
        .ok_or(NoPreview::Unreadable { listed })?;
    if best.width.max(best.height) < MIN_PREVIEW_LONG_EDGE {
        return Err(NoPreview::TooSmall {
            width: best.width,
            height: best.height,
        });
    }
    Ok(best)
}

/// The largest decodable embedded JPEG, or None ([`largest`] says why).
pub fn embedded(data: &[u8]) -> Option<Preview> {
    largest(data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TIFF whose one IFD lists 65,535 entries, half of them previews (RW2's JpgFromRaw)
    /// and half sub-IFD lists of thousands, every one pointing back into the file: the walk
    /// keeps at most a few dozen candidates, each once, and a bounded queue.
    #[test]
    fn a_preview_list_of_huge_counts_is_capped_and_deduplicated() {
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
        let found = parse(&data).expect("a TIFF");
        assert!(!found.jpegs.is_empty());
        assert!(
            found.jpegs.len() <= tiff::MAX_JPEGS,
            "{}",
            found.jpegs.len()
        );
        let mut unique = found.jpegs.clone();
        unique.sort_by_key(|r| (r.start, r.end));
        unique.dedup();
        assert_eq!(unique.len(), found.jpegs.len(), "each candidate once");
        // Seven distinct previews are listed, each thousands of times.
        assert_eq!(found.jpegs.len(), 7);
        assert!(largest(&data).is_err(), "none of them is a JPEG");
    }
}
