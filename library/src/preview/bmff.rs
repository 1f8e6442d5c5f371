//! Canon's CR3, an ISO base-media file: its previews and its EXIF are boxes. Laid out as the
//! Canon EOS R6 file in exiv2's test data (and as exiftool reads them):
//!
//! - `moov/uuid(85c0b687-…)` holds `CMT1` (IFD0 as a TIFF block: orientation), `CMT2` (the
//!   EXIF IFD: DateTimeOriginal, SubSecTimeOriginal), `CMT3` (Canon's maker notes: the AF
//!   points) and `THMB` (a 160×120 JPEG);
//! - a top-level `uuid(eaf42b5e-…)` holds `PRVW` (a 1620×1080 JPEG, exiftool's PreviewImage);
//! - `moov/trak[0]` points (`co64`, `stsz`) at the full-size JPEG in `mdat` (JpgFromRaw).
//!
//! A THMB or PRVW JPEG is taken from its start to the end of its box, as exiftool does: the
//! box's length field is the bound we trust, not the JPEG's own.

use std::ops::Range;

use super::tiff::{self, Found};

const CANON_UUID: [u8; 16] = [
    0x85, 0xc0, 0xb6, 0x87, 0x82, 0x0f, 0x11, 0xe0, 0x81, 0x11, 0xf4, 0xce, 0x46, 0x2b, 0x6a, 0x48,
];
const PREVIEW_UUID: [u8; 16] = [
    0xea, 0xf4, 0x2b, 0x5e, 0x1c, 0x98, 0x4b, 0x88, 0xb9, 0xfb, 0xb7, 0xdc, 0x40, 0x6e, 0x4d, 0x16,
];
/// Boxes looked at in one file, and how deep: a real CR3 has about fifty, four deep.
const MAX_BOXES: usize = 4096;
const MAX_DEPTH: usize = 8;

struct Box {
    kind: [u8; 4],
    /// The box's body (after its header), and the whole box.
    body: Range<usize>,
}

/// The boxes in `range`, in order; a box whose length runs past its parent ends the list.
fn boxes(data: &[u8], range: Range<usize>, budget: &mut usize) -> Vec<Box> {
    let mut out = Vec::new();
    let mut at = range.start;
    while at.saturating_add(8) <= range.end && *budget > 0 {
        *budget -= 1;
        let Some(head) = data.get(at..at + 8) else {
            break;
        };
        let size32 = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let kind = [head[4], head[5], head[6], head[7]];
        let (size, header) = match size32 {
            0 => (range.end - at, 8),
            1 => match data.get(at + 8..at + 16) {
                Some(b) => (
                    usize::try_from(u64::from_be_bytes(b.try_into().unwrap_or_default()))
                        .unwrap_or(usize::MAX),
                    16,
                ),
                None => break,
            },
            n => (n, 8),
        };
        let Some(end) = at.checked_add(size) else {
            break;
        };
        if size < header || end > range.end {
            break;
        }
        out.push(Box {
            kind,
            body: at + header..end,
        });
        at = end;
    }
    out
}

fn be_u32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        data.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn be_u64(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(
        data.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// A JPEG inside a THMB or PRVW body: it starts at the first SOI in the box's first 32 bytes
/// and runs to the end of the box.
fn jpeg_in(data: &[u8], body: &Range<usize>) -> Option<Range<usize>> {
    let head = data.get(body.start..body.end.min(body.start + 32))?;
    let at = head.windows(2).position(|w| w == [0xFF, 0xD8])?;
    Some(body.start + at..body.end)
}

/// The first chunk of a track, by its `stbl`: where `co64`/`stco` says, as long as `stsz` says.
fn first_sample(data: &[u8], stbl: &[Box]) -> Option<Range<usize>> {
    let mut offset = None;
    let mut size = None;
    for b in stbl {
        match &b.kind {
            b"co64" => offset = be_u64(data, b.body.start + 8),
            b"stco" => offset = be_u32(data, b.body.start + 8).map(u64::from),
            // version/flags, sample_size, count, then per-sample sizes when sample_size is 0.
            b"stsz" => {
                size = match be_u32(data, b.body.start + 4)? {
                    0 => be_u32(data, b.body.start + 12),
                    n => Some(n),
                }
            }
            _ => {}
        }
    }
    let start = usize::try_from(offset?).ok()?;
    Some(start..start.checked_add(size? as usize)?)
}

/// Walk a CR3 into `found`: previews, orientation, capture time. False when no box tree is
/// there at all (then the caller falls back to looking for JPEGs in the bytes).
pub(super) fn walk(data: &[u8], found: &mut Found) -> bool {
    let mut walker = Walker {
        data,
        budget: MAX_BOXES,
        tracks: 0,
        any: false,
    };
    walker.visit(0..data.len(), 0, found);
    walker.any
}

struct Walker<'a> {
    data: &'a [u8],
    budget: usize,
    /// `trak` boxes met so far: the first holds the full-size JPEG.
    tracks: usize,
    any: bool,
}

impl Walker<'_> {
    fn visit(&mut self, range: Range<usize>, depth: usize, found: &mut Found) {
        if depth > MAX_DEPTH {
            return;
        }
        let data = self.data;
        for b in boxes(data, range, &mut self.budget) {
            self.any = true;
            match &b.kind {
                b"moov" | b"mdia" | b"minf" => self.visit(b.body, depth + 1, found),
                b"trak" => {
                    self.tracks += 1;
                    self.visit(b.body, depth + 1, found);
                }
                b"stbl" if self.tracks == 1 => {
                    let stbl = boxes(data, b.body.clone(), &mut self.budget);
                    if let Some(r) = first_sample(data, &stbl) {
                        found.add_jpeg(r);
                    }
                }
                b"uuid" => {
                    let id = data.get(b.body.start..b.body.start.saturating_add(16));
                    if id == Some(&CANON_UUID[..]) {
                        self.visit(b.body.start + 16..b.body.end, depth + 1, found);
                    } else if id == Some(&PREVIEW_UUID[..]) {
                        // 8 bytes of its own before the PRVW box.
                        self.visit(b.body.start + 24..b.body.end, depth + 1, found);
                    }
                }
                b"CMT1" | b"CMT2" => {
                    if let Some(block) = data.get(b.body.clone())
                        && tiff::walk_block(block, b.body.start, found)
                    {
                        found.exif_blocks.push(b.body.clone());
                    }
                }
                b"CMT3" => found.maker_notes.push(b.body.clone()),
                b"THMB" | b"PRVW" => jpeg_in(data, &b.body)
                    .into_iter()
                    .for_each(|r| found.add_jpeg(r)),
                _ => {}
            }
        }
    }
}
