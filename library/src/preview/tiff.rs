//! TIFF IFDs, as TIFF-based RAWs (CR2, NEF, ARW, DNG, ORF, RW2), a JPEG's EXIF block and CR3's
//! CMT boxes hold them: the JPEG previews they point at, the orientation and the capture time.
//! Every read is bounds-checked and the walk is bounded: a lying offset or a loop of IFDs
//! yields nothing more, never a panic.

use std::ops::Range;

#[derive(Clone, Copy)]
pub(super) struct Tiff<'a> {
    pub data: &'a [u8],
    little: bool,
}

impl<'a> Tiff<'a> {
    /// `data` read in the given byte order (CRW's heap shares TIFF's "II"/"MM" convention).
    pub fn with_order(data: &'a [u8], little: bool) -> Self {
        Tiff { data, little }
    }

    pub fn u16(&self, at: usize) -> Option<u16> {
        let b: [u8; 2] = self.data.get(at..at.checked_add(2)?)?.try_into().ok()?;
        Some(if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }

    pub fn u32(&self, at: usize) -> Option<u32> {
        let b: [u8; 4] = self.data.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// NUL-terminated ASCII at `range`, trimmed; None when out of bounds or not text.
    fn ascii(&self, range: Range<usize>) -> Option<String> {
        let bytes = self.data.get(range)?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        std::str::from_utf8(&bytes[..end])
            .ok()
            .map(|s| s.trim().to_owned())
    }
}

/// What the IFD walk collects. JPEG ranges are relative to the TIFF block walked.
#[derive(Default)]
pub(super) struct Found {
    pub jpegs: Vec<Range<usize>>,
    pub orientation: Option<u16>,
    /// DateTimeOriginal and SubSecTimeOriginal.
    pub taken: Option<String>,
    pub subsec: Option<String>,
    /// A capture time stored as seconds since 1970 on the camera's clock (CRW).
    pub taken_unix: Option<u32>,
    /// TIFF blocks that hold the file's EXIF and that no EXIF reader finds on its own (a
    /// CR3's CMT1 and CMT2 boxes), as offsets into the file.
    pub exif_blocks: Vec<Range<usize>>,
    /// A TIFF block whose IFD0 is the maker's notes (a CR3's CMT3 box), as offsets into the
    /// file.
    pub maker_notes: Vec<Range<usize>>,
}

/// IFDs visited at most, and sub-IFD pointers followed per entry: real files have a handful.
const MAX_IFDS: usize = 64;
const MAX_SUBIFDS: usize = 16;
/// IFDs waiting to be visited at most: a file listing thousands of sub-IFDs in each of its
/// entries is walked in bounded memory.
const MAX_QUEUED: usize = 4 * MAX_IFDS;
/// Preview candidates kept at most, each once: real files list two to five, and each kept is
/// a JPEG header to read.
pub(super) const MAX_JPEGS: usize = 32;

impl Found {
    /// A preview candidate, unless it is listed already or enough are.
    pub(super) fn add_jpeg(&mut self, range: Range<usize>) {
        if self.jpegs.len() < MAX_JPEGS && !self.jpegs.contains(&range) {
            self.jpegs.push(range);
        }
    }
}

/// An IFD to visit, unless enough wait.
fn enqueue(queue: &mut Vec<usize>, at: usize) {
    if queue.len() < MAX_QUEUED {
        queue.push(at);
    }
}

pub(super) fn walk(tiff: Tiff<'_>, first: usize, found: &mut Found) {
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
            let count = count as usize;
            match tag {
                0x0112 if found.orientation.is_none() => found.orientation = Some(short as u16),
                0x0201 => jif = Some(scalar),
                0x0202 => jif_len = Some(scalar),
                0x0111 if count == 1 => strip = Some(scalar),
                0x0117 if count == 1 => strip_len = Some(scalar),
                // RW2's JpgFromRaw: the JPEG is the tag's own bytes.
                0x002E if typ == 7 => found.add_jpeg(value..value.saturating_add(count)),
                // SubIFDs, the EXIF IFD.
                0x014A => {
                    if count == 1 {
                        enqueue(&mut queue, value);
                    } else {
                        for k in 0..count.min(MAX_SUBIFDS) {
                            if let Some(off) = tiff.u32(value.saturating_add(k * 4)) {
                                enqueue(&mut queue, off as usize);
                            }
                        }
                    }
                }
                0x8769 => enqueue(&mut queue, value),
                // ASCII: inline when it fits in 4 bytes, else at the offset.
                0x9003 | 0x9291 if typ == 2 => {
                    let start = if count <= 4 { e + 8 } else { value };
                    let text = tiff.ascii(start..start.saturating_add(count));
                    let slot = if tag == 0x9003 {
                        &mut found.taken
                    } else {
                        &mut found.subsec
                    };
                    if slot.is_none() {
                        *slot = text;
                    }
                }
                _ => {}
            }
        }
        for (off, len) in [(jif, jif_len), (strip, strip_len)] {
            if let (Some(off), Some(len)) = (off, len) {
                found.add_jpeg(off..off.saturating_add(len));
            }
        }
        if let Some(next) = tiff.u32(at + 2 + usize::from(n) * 12) {
            enqueue(&mut queue, next as usize);
        }
    }
}

/// A TIFF header at the start of `data`: the reader and its first IFD's offset.
pub(super) fn tiff_at(data: &[u8]) -> Option<(Tiff<'_>, usize)> {
    let little = match data.get(0..4)? {
        b"II*\0" | b"IIRO" | b"IIU\0" => true,
        b"MM\0*" => false,
        _ => return None,
    };
    let tiff = Tiff { data, little };
    Some((tiff, tiff.u32(4)? as usize))
}

/// Walk the TIFF block at the start of `data` into `found`, shifting its JPEG ranges by `base`
/// (where the block starts in the file). False when `data` is not a TIFF block.
pub(super) fn walk_block(data: &[u8], base: usize, found: &mut Found) -> bool {
    let Some((tiff, first)) = tiff_at(data) else {
        return false;
    };
    let before = found.jpegs.len();
    walk(tiff, first, found);
    for r in &mut found.jpegs[before..] {
        *r = r.start.saturating_add(base)..r.end.saturating_add(base);
    }
    true
}

/// The TIFF block inside a JPEG's APP1 Exif segment, as an offset into `data`.
pub(super) fn exif_in_jpeg(data: &[u8]) -> Option<usize> {
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
