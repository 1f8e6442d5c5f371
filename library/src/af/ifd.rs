//! A maker note's IFD: the TIFF directory each maker writes its own tags in, read from the
//! bytes kamadak-exif hands over. Makers differ in where the directory starts, in the byte
//! order, and in what its offsets count from (the EXIF block's TIFF header, or the maker
//! note's own); `Ifd` is told all three. Every read is bounds-checked: a lying count or offset
//! gives nothing, never a panic.

/// TIFF field types, by their size in bytes (types 1–12); 0 for an unknown type.
fn type_size(kind: u16) -> usize {
    match kind {
        1 | 2 | 6 | 7 => 1,
        3 | 8 => 2,
        4 | 9 | 11 | 13 => 4,
        5 | 10 | 12 => 8,
        _ => 0,
    }
}

/// Entries read from one directory at most: real maker notes hold under 200.
const MAX_ENTRIES: usize = 1024;

#[derive(Clone, Copy)]
pub(super) struct Order {
    pub little: bool,
}

impl Order {
    pub fn u16(self, b: &[u8], at: usize) -> Option<u16> {
        let b: [u8; 2] = b.get(at..at.checked_add(2)?)?.try_into().ok()?;
        Some(if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }

    pub fn u32(self, b: &[u8], at: usize) -> Option<u32> {
        let b: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// The 16-bit words of `b`, as many as it holds.
    pub fn u16s(self, b: &[u8]) -> Vec<u16> {
        (0..b.len() / 2)
            .filter_map(|i| self.u16(b, 2 * i))
            .collect()
    }
}

/// "II" or "MM" at `at`: the byte order a header names.
pub(super) fn order_mark(b: &[u8], at: usize) -> Option<Order> {
    match b.get(at..at.checked_add(2)?)? {
        b"II" => Some(Order { little: true }),
        b"MM" => Some(Order { little: false }),
        _ => None,
    }
}

#[derive(Clone, Copy)]
pub(super) struct Ifd<'a> {
    data: &'a [u8],
    /// Where the directory's entry count is, in `data`.
    at: usize,
    /// What an entry's offset counts from, in `data`.
    base: usize,
    pub order: Order,
}

/// One entry's value: its type, count and bytes.
#[derive(Clone, Copy)]
pub(super) struct Entry<'a> {
    pub kind: u16,
    pub count: usize,
    pub bytes: &'a [u8],
    pub order: Order,
    /// Where the value's bytes are in the data the directory was read from.
    pub at: usize,
}

impl<'a> Ifd<'a> {
    pub fn new(data: &'a [u8], at: usize, base: usize, order: Order) -> Self {
        Ifd {
            data,
            at,
            base,
            order,
        }
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn base(&self) -> usize {
        self.base
    }

    /// The directory's entry with `tag`, if it has one whose value lies within the data.
    pub fn get(&self, tag: u16) -> Option<Entry<'a>> {
        let n = usize::from(self.order.u16(self.data, self.at)?).min(MAX_ENTRIES);
        (0..n).find_map(|i| {
            let e = self.at + 2 + 12 * i;
            (self.order.u16(self.data, e)? == tag).then_some(())?;
            let kind = self.order.u16(self.data, e + 2)?;
            let count = usize::try_from(self.order.u32(self.data, e + 4)?).ok()?;
            let len = type_size(kind).checked_mul(count)?;
            let at = if len <= 4 {
                e + 8
            } else {
                self.base
                    .checked_add(usize::try_from(self.order.u32(self.data, e + 8)?).ok()?)?
            };
            let bytes = self.data.get(at..at.checked_add(len)?)?;
            Some(Entry {
                kind,
                count,
                bytes,
                order: self.order,
                at,
            })
        })
    }
}

impl Entry<'_> {
    /// The value as unsigned integers (BYTE, SHORT or LONG).
    pub fn uints(&self) -> Vec<u32> {
        match self.kind {
            1 | 7 => self.bytes.iter().map(|&b| u32::from(b)).collect(),
            3 => self
                .order
                .u16s(self.bytes)
                .into_iter()
                .map(u32::from)
                .collect(),
            4 | 13 => (0..self.count)
                .filter_map(|i| self.order.u32(self.bytes, 4 * i))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The value as (numerator, denominator) pairs, signed or not.
    pub fn rationals(&self) -> Vec<(i64, i64)> {
        let signed = self.kind == 10;
        if self.kind != 5 && !signed {
            return Vec::new();
        }
        (0..self.count)
            .filter_map(|i| {
                let n = self.order.u32(self.bytes, 8 * i)?;
                let d = self.order.u32(self.bytes, 8 * i + 4)?;
                Some(if signed {
                    (i64::from(n as i32), i64::from(d as i32))
                } else {
                    (i64::from(n), i64::from(d))
                })
            })
            .collect()
    }
}
