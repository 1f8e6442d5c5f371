//! Canon's CRW (CIFF, the PowerShot and early EOS RAW): a heap of records whose table sits at
//! the heap's end. The JPEGs are records 0x2007 (JpgFromRaw) and 0x2008 (ThumbnailImage); the
//! capture time is record 0x180E (seconds since 1970 on the camera's clock). Checked against
//! the PowerShot S40 file in exiv2's test data and exiftool's reading of it.

use super::tiff::{Found, Tiff};

const MAX_RECORDS: usize = 4096;
const MAX_DEPTH: usize = 8;

/// Is this a CIFF file: byte order, header length, "HEAPCCDR".
pub(super) fn is_ciff(data: &[u8]) -> bool {
    matches!(data.get(0..2), Some(b"II" | b"MM")) && data.get(6..14) == Some(b"HEAPCCDR")
}

struct Reader<'a> {
    order: Tiff<'a>,
    budget: usize,
}

impl Reader<'_> {
    fn u16(&self, at: usize) -> Option<u16> {
        self.order.u16(at)
    }

    fn u32(&self, at: usize) -> Option<u32> {
        self.order.u32(at)
    }

    /// The heap at `start..end`: its table's offset is the heap's last four bytes.
    fn heap(&mut self, start: usize, end: usize, depth: usize, found: &mut Found) {
        if depth > MAX_DEPTH || end < start.saturating_add(4) {
            return;
        }
        let Some(table) = self.u32(end - 4).map(|t| start.saturating_add(t as usize)) else {
            return;
        };
        let Some(count) = self.u16(table) else { return };
        for i in 0..usize::from(count) {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            let e = table + 2 + i * 10;
            let (Some(tag), Some(size), Some(offset)) =
                (self.u16(e), self.u32(e + 2), self.u32(e + 6))
            else {
                return;
            };
            // Records stored in the table entry itself carry no heap data.
            if tag & 0xC000 == 0x4000 {
                continue;
            }
            let Some(at) = start.checked_add(offset as usize) else {
                continue;
            };
            let Some(to) = at.checked_add(size as usize) else {
                continue;
            };
            if to > end {
                continue;
            }
            match tag & 0x3FFF {
                0x2007 | 0x2008 => found.add_jpeg(at..to),
                0x180E if found.taken_unix.is_none() => found.taken_unix = self.u32(at),
                // Sub-heaps: the record types 0x2800 and 0x3000.
                _ if matches!(tag & 0x3800, 0x2800 | 0x3000) => {
                    self.heap(at, to, depth + 1, found);
                }
                _ => {}
            }
        }
    }
}

/// Walk a CRW into `found`.
pub(super) fn walk(data: &[u8], found: &mut Found) {
    let little = data.get(0..2) == Some(b"II");
    let mut r = Reader {
        order: Tiff::with_order(data, little),
        budget: MAX_RECORDS,
    };
    let Some(header) = r.u32(2) else { return };
    r.heap(header as usize, data.len(), 0, found);
}
