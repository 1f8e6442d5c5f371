//! The JPEG previews cameras embed: in TIFF-based RAWs (CR2, NEF, ARW, DNG, ORF, RW2) through
//! their IFDs, in RAF through its header, in CR3 (ISO media) and anything else by finding the
//! JPEGs inside, and in a JPEG's own EXIF block (its thumbnail). Bounds are checked everywhere:
//! a lying offset yields no preview, never a panic.

use std::io::Cursor;
use std::ops::Range;

use image::ImageReader;
use image::metadata::Orientation;

/// A preview found inside a file.
#[derive(Debug, Clone)]
pub struct Preview {
    pub range: Range<usize>,
    pub width: u32,
    pub height: u32,
    /// The container's orientation tag, which applies to its previews.
    pub orientation: Option<Orientation>,
}

#[derive(Clone, Copy)]
struct Tiff<'a> {
    data: &'a [u8],
    little: bool,
}

impl Tiff<'_> {
    fn u16(&self, at: usize) -> Option<u16> {
        let b: [u8; 2] = self.data.get(at..at + 2)?.try_into().ok()?;
        Some(if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }

    fn u32(&self, at: usize) -> Option<u32> {
        let b: [u8; 4] = self.data.get(at..at + 4)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }
}

/// What the IFD walk collects.
#[derive(Default)]
struct Found {
    jpegs: Vec<Range<usize>>,
    orientation: Option<u16>,
    /// DateTimeOriginal and SubSecTimeOriginal, as ranges of ASCII in the TIFF.
    taken: Option<Range<usize>>,
    subsec: Option<Range<usize>>,
}

const MAX_IFDS: usize = 64;

fn walk(tiff: Tiff<'_>, first: usize, found: &mut Found) {
    let mut queue = vec![first];
    let mut seen = Vec::new();
    while let Some(at) = queue.pop() {
        if at == 0 || seen.contains(&at) || seen.len() >= MAX_IFDS {
            continue;
        }
        seen.push(at);
        let Some(n) = tiff.u16(at) else { continue };
        let (mut jif, mut jif_len, mut strip, mut strip_len) = (None, None, None, None);
        for i in 0..usize::from(n) {
            let e = at + 2 + i * 12;
            let (Some(tag), Some(typ), Some(count)) =
                (tiff.u16(e), tiff.u16(e + 2), tiff.u32(e + 4))
            else {
                break;
            };
            let value = tiff.u32(e + 8).unwrap_or(0) as usize;
            let short = tiff.u16(e + 8).map(u32::from).unwrap_or(0);
            let scalar = if typ == 3 { short } else { value as u32 } as usize;
            match tag {
                0x0112 if found.orientation.is_none() => found.orientation = Some(short as u16),
                0x0201 => jif = Some(scalar),
                0x0202 => jif_len = Some(scalar),
                0x0111 if count == 1 => strip = Some(scalar),
                0x0117 if count == 1 => strip_len = Some(scalar),
                // RW2's JpgFromRaw: the JPEG is the tag's own bytes.
                0x002E if typ == 7 => found.jpegs.push(value..value + count as usize),
                // SubIFDs, the EXIF IFD.
                0x014A => {
                    if count == 1 {
                        queue.push(value);
                    } else {
                        for k in 0..(count as usize).min(16) {
                            if let Some(off) = tiff.u32(value + k * 4) {
                                queue.push(off as usize);
                            }
                        }
                    }
                }
                0x8769 => queue.push(value),
                // ASCII: inline when it fits in 4 bytes, else at the offset.
                0x9003 | 0x9291 if typ == 2 => {
                    let start = if count <= 4 { e + 8 } else { value };
                    let range = start..start + count as usize;
                    if tag == 0x9003 {
                        found.taken.get_or_insert(range);
                    } else {
                        found.subsec.get_or_insert(range);
                    }
                }
                _ => {}
            }
        }
        for (off, len) in [(jif, jif_len), (strip, strip_len)] {
            if let (Some(off), Some(len)) = (off, len) {
                found.jpegs.push(off..off + len);
            }
        }
        if let Some(next) = tiff.u32(at + 2 + usize::from(n) * 12) {
            queue.push(next as usize);
        }
    }
}

fn tiff_at(data: &[u8]) -> Option<(Tiff<'_>, usize)> {
    let little = match data.get(0..4)? {
        b"II*\0" | b"IIRO" | b"IIU\0" => true,
        b"MM\0*" => false,
        _ => return None,
    };
    let tiff = Tiff { data, little };
    Some((tiff, tiff.u32(4)? as usize))
}

/// The TIFF block inside a JPEG's APP1 Exif segment, as an offset into `data`.
fn exif_in_jpeg(data: &[u8]) -> Option<usize> {
    let mut at = 2;
    while at + 4 <= data.len() && data[at] == 0xFF {
        let marker = data[at + 1];
        let len = usize::from(u16::from_be_bytes([data[at + 2], data[at + 3]]));
        if marker == 0xE1 && data.get(at + 4..at + 10) == Some(b"Exif\0\0") {
            return Some(at + 10);
        }
        if marker == 0xDA || len < 2 {
            return None;
        }
        at += 2 + len;
    }
    None
}

fn orientation_of(code: Option<u16>) -> Option<Orientation> {
    code.and_then(|c| u8::try_from(c).ok())
        .and_then(Orientation::from_exif)
}

/// The orientation tag of a TIFF/EXIF block (as `jpeg-decoder` hands EXIF over).
pub fn orientation_in_tiff(tiff: &[u8]) -> Option<Orientation> {
    let (t, first) = tiff_at(tiff)?;
    let mut found = Found::default();
    walk(t, first, &mut found);
    orientation_of(found.orientation)
}

/// The orientation tag of a JPEG's EXIF block, if it has one.
pub fn exif_orientation(jpeg: &[u8]) -> Option<Orientation> {
    orientation_in_tiff(jpeg.get(exif_in_jpeg(jpeg)?..)?)
}

/// When the photo was taken, from EXIF DateTimeOriginal (+ SubSecTimeOriginal), in seconds
/// since 1970 on the camera's clock (no time zone: good for gaps between frames, not for
/// comparing cameras). JPEGs and TIFF-based RAWs; None when absent or malformed.
pub fn capture_time(data: &[u8]) -> Option<f64> {
    let (tiff, first) = if data.starts_with(&[0xFF, 0xD8]) {
        tiff_at(data.get(exif_in_jpeg(data)?..)?)?
    } else {
        tiff_at(data)?
    };
    let mut found = Found::default();
    walk(tiff, first, &mut found);
    let ascii = |r: Range<usize>| {
        let bytes = tiff.data.get(r)?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        std::str::from_utf8(&bytes[..end]).ok().map(str::trim)
    };
    let text = ascii(found.taken?)?;
    let mut seconds = parse_exif_datetime(text)?;
    if let Some(sub) = found.subsec.and_then(ascii)
        && !sub.is_empty()
        && sub.bytes().all(|b| b.is_ascii_digit())
        && let Ok(v) = format!("0.{sub}").parse::<f64>()
    {
        seconds += v;
    }
    Some(seconds)
}

/// "YYYY:MM:DD HH:MM:SS" → seconds since 1970-01-01 (proleptic Gregorian, no zone).
fn parse_exif_datetime(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b':' || b[7] != b':' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: Range<usize>| text.get(r)?.parse::<i64>().ok();
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

/// The largest decodable embedded JPEG, or None.
pub fn embedded(data: &[u8]) -> Option<Preview> {
    let mut found = Found::default();
    if let Some((tiff, first)) = tiff_at(data) {
        walk(tiff, first, &mut found);
    } else if data.starts_with(b"FUJIFILMCCD-RAW") {
        let be = |at: usize| -> Option<usize> {
            Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize)
        };
        if let (Some(off), Some(len)) = (be(84), be(88)) {
            found.jpegs.push(off..off + len);
        }
    } else if data.starts_with(&[0xFF, 0xD8]) {
        let base = exif_in_jpeg(data)?;
        let exif = &data[base..];
        let (tiff, first) = tiff_at(exif)?;
        walk(tiff, first, &mut found);
        found.jpegs = found
            .jpegs
            .iter()
            .map(|r| r.start + base..r.end + base)
            .collect();
    } else if data.get(4..8) == Some(b"ftyp") {
        // ISO media (CR3): the previews are plain JPEGs inside boxes.
        found.jpegs = jpeg_starts(data, 16);
    } else {
        return None;
    }
    let orientation = orientation_of(found.orientation);
    found
        .jpegs
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
            Some(Preview {
                range: r,
                width,
                height,
                orientation,
            })
        })
        .max_by_key(|p| u64::from(p.width) * u64::from(p.height))
}
