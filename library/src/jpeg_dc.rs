//! A JPEG at one eighth of its size, from the DC coefficients alone: each 8×8 block's average
//! is its DC coefficient, so a thumbnail needs no inverse DCT at all, only the entropy decoding
//! that finds where each block's coefficients end. This is libjpeg's 1/8 "shrink-on-load",
//! with a Huffman decoder that skips AC coefficients in one table lookup where it can.
//!
//! Baseline and extended sequential Huffman JPEGs with 1 (grey) or 3 (YCbCr) components, any
//! sampling factors, restart markers. Anything else (progressive, arithmetic, CMYK, 12-bit,
//! several scans) is `Ok(None)`: the caller uses a general decoder. Broken data is an error.
//! Every read is bounds-checked; nothing here panics on a file's contents.

use image::RgbImage;

use crate::budget::Budget;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DcError {
    #[error("not a JPEG")]
    NotJpeg,
    #[error("the file ends early (truncated JPEG)")]
    Truncated,
    #[error("corrupt JPEG: {0}")]
    Corrupt(&'static str),
    #[error("decoding was cut off after {0:?} (the limit for one file)")]
    TimedOut(std::time::Duration),
}

/// Bits looked up at once. Codes (or a code plus its extra bits) up to this long resolve in
/// one step; longer ones walk the canonical code.
const LOOKUP: u32 = 9;

#[derive(Clone)]
struct Huffman {
    /// Per LOOKUP-bit prefix: (code length, symbol); length 0 = longer code.
    fast: Vec<(u8, u8)>,
    /// For AC tables: per prefix, the bits of code plus extra bits and how far `k` moves, when
    /// both fit; 0 bits = take the slow path. A move of 64 ends the block (EOB).
    skip: Vec<(u8, u8)>,
    /// Canonical decoding: per length 1..=16, the largest code + 1 (shifted) and the offset.
    maxcode: [i32; 18],
    valptr: [i32; 17],
    mincode: [i32; 17],
    values: Vec<u8>,
}

impl Huffman {
    fn new(counts: &[u8; 16], values: &[u8]) -> Result<Self, DcError> {
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        if total > 256 || total != values.len() {
            return Err(DcError::Corrupt("bad Huffman table"));
        }
        let mut fast = vec![(0u8, 0u8); 1 << LOOKUP];
        let mut maxcode = [-1i32; 18];
        let mut valptr = [0i32; 17];
        let mut mincode = [0i32; 17];
        let mut code: u32 = 0;
        let mut k = 0usize;
        for len in 1..=16u32 {
            let n = counts[len as usize - 1] as usize;
            valptr[len as usize] = k as i32;
            mincode[len as usize] = code as i32;
            for _ in 0..n {
                if code >= (1 << len) {
                    return Err(DcError::Corrupt("bad Huffman table"));
                }
                if len <= LOOKUP {
                    let shift = LOOKUP - len;
                    let base = (code << shift) as usize;
                    for e in fast.iter_mut().skip(base).take(1 << shift) {
                        *e = (len as u8, values[k]);
                    }
                }
                code += 1;
                k += 1;
            }
            maxcode[len as usize] = if n > 0 { code as i32 } else { -1 };
            code <<= 1;
        }
        maxcode[17] = i32::MAX;
        let skip = fast
            .iter()
            .map(|&(len, sym)| {
                if len == 0 {
                    return (0, 0);
                }
                let (run, size) = (sym >> 4, sym & 15);
                match (run, size) {
                    (0, 0) => (len, 64),
                    (15, 0) => (len, 16),
                    (_, 0) => (0, 0),
                    _ if u32::from(len + size) <= LOOKUP => (len + size, run + 1),
                    _ => (0, 0),
                }
            })
            .collect();
        Ok(Huffman {
            fast,
            skip,
            maxcode,
            valptr,
            mincode,
            values: values.to_vec(),
        })
    }
}

/// The entropy-coded segment's bits, with byte stuffing undone; stops at a marker.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    acc: u64,
    count: u32,
    /// Zero bits fed past a marker or the end: a few are normal padding, many mean the data
    /// ran out.
    padding: u32,
    at_marker: bool,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bits {
            data,
            pos: 0,
            acc: 0,
            count: 0,
            padding: 0,
            at_marker: false,
        }
    }

    #[inline]
    fn refill(&mut self) {
        while self.count <= 56 {
            let mut byte = 0u8;
            if !self.at_marker && self.pos < self.data.len() {
                byte = self.data[self.pos];
                if byte == 0xFF {
                    match self.data.get(self.pos + 1) {
                        Some(0x00) => self.pos += 2,
                        _ => {
                            self.at_marker = true;
                            byte = 0;
                        }
                    }
                } else {
                    self.pos += 1;
                }
            } else {
                self.at_marker = true;
            }
            if self.at_marker {
                self.padding += 8;
            }
            self.acc |= u64::from(byte) << (56 - self.count);
            self.count += 8;
        }
    }

    #[inline]
    fn peek(&mut self, n: u32) -> u32 {
        if self.count < n {
            self.refill();
        }
        (self.acc >> (64 - n)) as u32
    }

    #[inline]
    fn consume(&mut self, n: u32) -> Result<(), DcError> {
        if self.count < n {
            self.refill();
        }
        self.acc <<= n;
        self.count -= n;
        // Past the data by more than the buffer holds: we are reading padding, not a file.
        if self.padding > 64 + self.count {
            return Err(DcError::Truncated);
        }
        Ok(())
    }

    fn receive(&mut self, n: u32) -> Result<i32, DcError> {
        if n == 0 {
            return Ok(0);
        }
        let v = self.peek(n) as i32;
        self.consume(n)?;
        // JPEG's sign extension: a leading 0 bit means negative.
        Ok(if v < (1 << (n - 1)) {
            v - (1 << n) + 1
        } else {
            v
        })
    }

    fn symbol(&mut self, h: &Huffman) -> Result<u8, DcError> {
        let (len, sym) = h.fast[self.peek(LOOKUP) as usize];
        if len > 0 {
            self.consume(u32::from(len))?;
            return Ok(sym);
        }
        let bits = self.peek(16) as i32;
        for len in LOOKUP + 1..=16 {
            let code = bits >> (16 - len);
            if code < h.maxcode[len as usize] {
                let i = h.valptr[len as usize] + code - h.mincode[len as usize];
                self.consume(len)?;
                return h
                    .values
                    .get(i as usize)
                    .copied()
                    .ok_or(DcError::Corrupt("bad Huffman code"));
            }
        }
        Err(DcError::Corrupt("bad Huffman code"))
    }

    /// Past a restart marker: drop the partial byte, step over RSTn.
    fn restart(&mut self) -> Result<(), DcError> {
        self.acc = 0;
        self.count = 0;
        self.padding = 0;
        self.at_marker = false;
        match self.data.get(self.pos..self.pos + 2) {
            Some([0xFF, m]) if (0xD0..=0xD7).contains(m) => {
                self.pos += 2;
                Ok(())
            }
            None => Err(DcError::Truncated),
            _ => Err(DcError::Corrupt("missing restart marker")),
        }
    }
}

struct Component {
    id: u8,
    h: usize,
    v: usize,
    quant: usize,
    dc_table: usize,
    ac_table: usize,
}

fn be16(d: &[u8], at: usize) -> Result<usize, DcError> {
    d.get(at..at + 2)
        .map(|b| usize::from(b[0]) << 8 | usize::from(b[1]))
        .ok_or(DcError::Truncated)
}

/// The photo at 1/8 of its size (rounded up), or None when it is a kind this decoder leaves to
/// a general one, when that size's long edge would be under `min_long_edge`, or when it has
/// more than the budget's pixels. EXIF orientation is not applied. Past the budget's time it
/// stops with [`DcError::TimedOut`].
pub fn decode(
    data: &[u8],
    min_long_edge: usize,
    budget: &Budget,
) -> Result<Option<RgbImage>, DcError> {
    if data.get(..2) != Some(&[0xFF, 0xD8]) {
        return Err(DcError::NotJpeg);
    }
    let mut quant = [[0u16; 64]; 4];
    let mut dc: [Option<Huffman>; 4] = [None, None, None, None];
    let mut ac: [Option<Huffman>; 4] = [None, None, None, None];
    let mut comps: Vec<Component> = Vec::new();
    let (mut width, mut height) = (0usize, 0usize);
    let mut restart_interval = 0usize;
    let mut adobe_transform: Option<u8> = None;
    let mut pos = 2;
    loop {
        // Markers may be padded with any number of 0xFF.
        while data.get(pos) == Some(&0xFF) && data.get(pos + 1) == Some(&0xFF) {
            pos += 1;
        }
        let marker = match data.get(pos..pos + 2) {
            Some([0xFF, m]) => *m,
            Some(_) => return Err(DcError::Corrupt("expected a marker")),
            None => return Err(DcError::Truncated),
        };
        pos += 2;
        if marker == 0xD8 || (0xD0..=0xD7).contains(&marker) || marker == 0x01 {
            continue;
        }
        if marker == 0xD9 {
            return Err(DcError::Corrupt("no image data"));
        }
        let len = be16(data, pos)?;
        let seg = data
            .get(pos + 2..pos + len.max(2))
            .ok_or(DcError::Truncated)?;
        pos += len;
        match marker {
            0xDB => {
                let mut s = seg;
                while let Some((&pq_tq, rest)) = s.split_first() {
                    let (precision, table) = (pq_tq >> 4, usize::from(pq_tq & 15));
                    let n = if precision == 0 { 64 } else { 128 };
                    let body = rest.get(..n).ok_or(DcError::Corrupt("short DQT"))?;
                    let t = quant
                        .get_mut(table)
                        .ok_or(DcError::Corrupt("bad DQT table"))?;
                    // Only the DC entry (the first, in any order) matters here.
                    t[0] = if precision == 0 {
                        u16::from(body[0])
                    } else {
                        u16::from(body[0]) << 8 | u16::from(body[1])
                    };
                    s = &rest[n..];
                }
            }
            0xC4 => {
                let mut s = seg;
                while let Some((&tc_th, rest)) = s.split_first() {
                    let counts: [u8; 16] = rest
                        .get(..16)
                        .and_then(|c| c.try_into().ok())
                        .ok_or(DcError::Corrupt("short DHT"))?;
                    let n: usize = counts.iter().map(|&c| c as usize).sum();
                    let values = rest.get(16..16 + n).ok_or(DcError::Corrupt("short DHT"))?;
                    let table = Huffman::new(&counts, values)?;
                    let slot = usize::from(tc_th & 15);
                    let tables = if tc_th >> 4 == 0 { &mut dc } else { &mut ac };
                    *tables
                        .get_mut(slot)
                        .ok_or(DcError::Corrupt("bad DHT table"))? = Some(table);
                    s = &rest[16 + n..];
                }
            }
            0xC0 | 0xC1 => {
                if seg.first() != Some(&8) {
                    return Ok(None);
                }
                height = be16(seg, 1)?;
                width = be16(seg, 3)?;
                let n = usize::from(*seg.get(5).ok_or(DcError::Truncated)?);
                if !(n == 1 || n == 3)
                    || width == 0
                    || height == 0
                    || width.max(height).div_ceil(8) < min_long_edge
                    || !budget.fits(width as u64, height as u64)
                {
                    return Ok(None);
                }
                for i in 0..n {
                    let c = seg.get(6 + 3 * i..9 + 3 * i).ok_or(DcError::Truncated)?;
                    let (h, v) = (usize::from(c[1] >> 4), usize::from(c[1] & 15));
                    if !(1..=4).contains(&h) || !(1..=4).contains(&v) || c[2] > 3 {
                        return Err(DcError::Corrupt("bad component"));
                    }
                    comps.push(Component {
                        id: c[0],
                        h,
                        v,
                        quant: usize::from(c[2]),
                        dc_table: 0,
                        ac_table: 0,
                    });
                }
            }
            // Progressive, lossless, hierarchical, arithmetic: not ours.
            0xC2 | 0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return Ok(None),
            0xDD => restart_interval = be16(seg, 0)?,
            0xEE if seg.starts_with(b"Adobe") => adobe_transform = seg.get(11).copied(),
            0xDA => {
                if comps.is_empty() {
                    return Err(DcError::Corrupt("scan before frame header"));
                }
                let n = usize::from(*seg.first().ok_or(DcError::Truncated)?);
                // Several scans (non-interleaved colour): a general decoder's job.
                if n != comps.len() {
                    return Ok(None);
                }
                for i in 0..n {
                    let s = seg.get(1 + 2 * i..3 + 2 * i).ok_or(DcError::Truncated)?;
                    let c = comps
                        .iter_mut()
                        .find(|c| c.id == s[0])
                        .ok_or(DcError::Corrupt("scan names an unknown component"))?;
                    c.dc_table = usize::from(s[1] >> 4);
                    c.ac_table = usize::from(s[1] & 15);
                }
                if comps.len() == 3 && adobe_transform == Some(0) {
                    // RGB stored as is: rare, left to a general decoder.
                    return Ok(None);
                }
                let scan = data.get(pos..).ok_or(DcError::Truncated)?;
                return scan_dc(
                    scan,
                    width,
                    height,
                    &comps,
                    &quant,
                    &dc,
                    &ac,
                    restart_interval,
                    budget,
                )
                .map(Some);
            }
            _ => {}
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn scan_dc(
    scan: &[u8],
    width: usize,
    height: usize,
    comps: &[Component],
    quant: &[[u16; 64]; 4],
    dc: &[Option<Huffman>; 4],
    ac: &[Option<Huffman>; 4],
    restart_interval: usize,
    budget: &Budget,
) -> Result<RgbImage, DcError> {
    let hmax = comps.iter().map(|c| c.h).max().unwrap_or(1);
    let vmax = comps.iter().map(|c| c.v).max().unwrap_or(1);
    // A single component is coded block by block over its own size, whatever its factors.
    let single = comps.len() == 1;
    let (mcux, mcuy) = if single {
        (width.div_ceil(8), height.div_ceil(8))
    } else {
        (width.div_ceil(8 * hmax), height.div_ceil(8 * vmax))
    };
    let tables: Vec<(&Huffman, &Huffman)> = comps
        .iter()
        .map(|c| {
            let d = dc.get(c.dc_table).and_then(Option::as_ref);
            let a = ac.get(c.ac_table).and_then(Option::as_ref);
            d.zip(a)
                .ok_or(DcError::Corrupt("scan uses a missing Huffman table"))
        })
        .collect::<Result<_, _>>()?;
    // Planes of DC values, one per component, in blocks.
    let mut planes: Vec<(usize, Vec<u8>)> = comps
        .iter()
        .map(|c| {
            let (bw, bh) = if single {
                (mcux, mcuy)
            } else {
                (mcux * c.h, mcuy * c.v)
            };
            (bw, vec![0u8; bw * bh])
        })
        .collect();
    let mut pred = vec![0i32; comps.len()];
    let mut bits = Bits::new(scan);
    let total = mcux * mcuy;
    for mcu in 0..total {
        if restart_interval > 0 && mcu > 0 && mcu % restart_interval == 0 {
            bits.restart()?;
            pred.fill(0);
        }
        let (mx, my) = (mcu % mcux, mcu / mcux);
        if mx == 0 && budget.over() {
            return Err(DcError::TimedOut(budget.limit()));
        }
        for (ci, c) in comps.iter().enumerate() {
            let (hb, vb) = if single { (1, 1) } else { (c.h, c.v) };
            let (dct, act) = tables[ci];
            let q = i32::from(quant[c.quant][0]);
            let (bw, plane) = &mut planes[ci];
            for by in 0..vb {
                for bx in 0..hb {
                    let s = u32::from(bits.symbol(dct)?);
                    if s > 11 {
                        return Err(DcError::Corrupt("bad DC difference"));
                    }
                    pred[ci] += bits.receive(s)?;
                    skip_ac(&mut bits, act)?;
                    // DC-only inverse DCT: the block's mean, level-shifted.
                    let v = (pred[ci] * q + 4).div_euclid(8) + 128;
                    let (x, y) = (mx * hb + bx, my * vb + by);
                    plane[y * *bw + x] = v.clamp(0, 255) as u8;
                }
            }
        }
    }
    let (out_w, out_h) = (width.div_ceil(8), height.div_ceil(8));
    let mut img = RgbImage::new(out_w as u32, out_h as u32);
    // Subsampled chroma is upsampled bilinearly between block centres (libjpeg's "fancy"
    // upsampling), so colour edges do not come out blocky.
    let sample = |ci: usize, x: usize, y: usize| -> f32 {
        let (c, (bw, plane)) = (&comps[ci], &planes[ci]);
        let bh = plane.len() / bw;
        if single || (c.h == hmax && c.v == vmax) {
            return f32::from(plane[y * bw + x]);
        }
        let pos = |p: usize, factor: usize, max: usize, limit: usize| {
            let f = ((p as f32 + 0.5) * factor as f32 / max as f32 - 0.5).max(0.0);
            let i = (f as usize).min(limit - 1);
            (i, (i + 1).min(limit - 1), f - i as f32)
        };
        let (x0, x1, fx) = pos(x, c.h, hmax, *bw);
        let (y0, y1, fy) = pos(y, c.v, vmax, bh);
        let p = |x: usize, y: usize| f32::from(plane[y * bw + x]);
        let top = p(x0, y0) + (p(x1, y0) - p(x0, y0)) * fx;
        let bottom = p(x0, y1) + (p(x1, y1) - p(x0, y1)) * fx;
        top + (bottom - top) * fy
    };
    for (x, y, px) in img.enumerate_pixels_mut() {
        let (x, y) = (x as usize, y as usize);
        let luma = sample(0, x, y);
        px.0 = if comps.len() == 1 {
            let l = luma as u8;
            [l, l, l]
        } else {
            let cb = sample(1, x, y) - 128.0;
            let cr = sample(2, x, y) - 128.0;
            let r = luma + 1.402 * cr;
            let g = luma - 0.344_136 * cb - 0.714_136 * cr;
            let b = luma + 1.772 * cb;
            [r, g, b].map(|v| v.round().clamp(0.0, 255.0) as u8)
        };
    }
    Ok(img)
}

/// Step over one block's AC coefficients without computing them.
#[inline]
fn skip_ac(bits: &mut Bits<'_>, table: &Huffman) -> Result<(), DcError> {
    let mut k = 1u32;
    while k < 64 {
        let (n, step) = table.skip[bits.peek(LOOKUP) as usize];
        if n > 0 {
            bits.consume(u32::from(n))?;
            if step == 64 {
                break;
            }
            k += u32::from(step);
            continue;
        }
        let rs = bits.symbol(table)?;
        let (run, size) = (u32::from(rs >> 4), u32::from(rs & 15));
        if size == 0 {
            if run == 15 {
                k += 16;
                continue;
            }
            break;
        }
        bits.consume(size)?;
        k += run + 1;
    }
    if k > 64 {
        return Err(DcError::Corrupt("AC coefficients overrun the block"));
    }
    Ok(())
}
