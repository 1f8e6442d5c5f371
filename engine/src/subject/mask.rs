//! A binary mask over a photo, and its compact form for the catalog.

use serde::{Deserialize, Serialize};

/// Which pixels of a `width`×`height` picture belong to something: one byte (0 or 1) a pixel,
/// row by row. Masks are made at the size a caller asks (the analysis's luma), so they line up
/// pixel for pixel with what is measured through them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mask {
    pub width: u32,
    pub height: u32,
    pixels: Vec<u8>,
}

impl Mask {
    pub fn empty(width: u32, height: u32) -> Self {
        Mask {
            width,
            height,
            pixels: vec![0; width as usize * height as usize],
        }
    }

    /// A mask from a predicate on each pixel's (x, y).
    pub fn from_fn(width: u32, height: u32, mut inside: impl FnMut(u32, u32) -> bool) -> Self {
        let mut pixels = Vec::with_capacity(width as usize * height as usize);
        for y in 0..height {
            for x in 0..width {
                pixels.push(u8::from(inside(x, y)));
            }
        }
        Mask {
            width,
            height,
            pixels,
        }
    }

    pub fn get(&self, x: u32, y: u32) -> bool {
        x < self.width
            && y < self.height
            && self.pixels[y as usize * self.width as usize + x as usize] != 0
    }

    /// One byte a pixel, 1 inside, row by row.
    pub fn as_bytes(&self) -> &[u8] {
        &self.pixels
    }

    /// How many pixels are inside.
    pub fn area(&self) -> usize {
        self.pixels.iter().filter(|&&p| p != 0).count()
    }

    /// The share of the picture inside, 0..=1.
    pub fn coverage(&self) -> f32 {
        if self.pixels.is_empty() {
            0.0
        } else {
            self.area() as f32 / self.pixels.len() as f32
        }
    }

    /// Intersection over union with a mask of the same size (0 when either differs in size or
    /// both are empty).
    pub fn iou(&self, other: &Mask) -> f32 {
        if (self.width, self.height) != (other.width, other.height) {
            return 0.0;
        }
        let (mut inter, mut union) = (0usize, 0usize);
        for (&a, &b) in self.pixels.iter().zip(&other.pixels) {
            inter += usize::from(a != 0 && b != 0);
            union += usize::from(a != 0 || b != 0);
        }
        if union == 0 {
            0.0
        } else {
            inter as f32 / union as f32
        }
    }

    /// This mask at another size, each pixel taking the value under its centre.
    pub fn resized(&self, width: u32, height: u32) -> Mask {
        if (width, height) == (self.width, self.height) {
            return self.clone();
        }
        let sx = self.width as f32 / width.max(1) as f32;
        let sy = self.height as f32 / height.max(1) as f32;
        Mask::from_fn(width, height, |x, y| {
            let u = (((x as f32 + 0.5) * sx) as u32).min(self.width.saturating_sub(1));
            let v = (((y as f32 + 0.5) * sy) as u32).min(self.height.saturating_sub(1));
            self.get(u, v)
        })
    }

    /// Bit-packed, eight pixels a byte, least significant bit first, row after row.
    pub fn packed(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.pixels.len().div_ceil(8)];
        for (i, &p) in self.pixels.iter().enumerate() {
            if p != 0 {
                out[i / 8] |= 1 << (i % 8);
            }
        }
        out
    }

    /// The inverse of [`Mask::packed`]; `None` when `bits` is not that size's length.
    pub fn from_packed(width: u32, height: u32, bits: &[u8]) -> Option<Mask> {
        let n = width as usize * height as usize;
        if bits.len() != n.div_ceil(8) {
            return None;
        }
        let pixels = (0..n).map(|i| (bits[i / 8] >> (i % 8)) & 1).collect();
        Some(Mask {
            width,
            height,
            pixels,
        })
    }

    /// The smallest box holding every inside pixel, [x0, y0, x1, y1] with x1, y1 exclusive.
    pub fn bounds(&self) -> Option<[u32; 4]> {
        let mut b: Option<[u32; 4]> = None;
        for y in 0..self.height {
            for x in 0..self.width {
                if self.get(x, y) {
                    let r = b.get_or_insert([x, y, x + 1, y + 1]);
                    r[0] = r[0].min(x);
                    r[1] = r[1].min(y);
                    r[2] = r[2].max(x + 1);
                    r[3] = r[3].max(y + 1);
                }
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_any_size() {
        for (w, h) in [(1, 1), (7, 3), (8, 8), (13, 5)] {
            let m = Mask::from_fn(w, h, |x, y| (x * 3 + y) % 5 < 2);
            let packed = m.packed();
            assert_eq!(packed.len(), (w * h).div_ceil(8) as usize);
            assert_eq!(Mask::from_packed(w, h, &packed), Some(m));
        }
        assert_eq!(Mask::from_packed(4, 4, &[0]), None, "too short");
    }

    #[test]
    fn iou_area_bounds_and_resize() {
        let a = Mask::from_fn(10, 10, |x, _| x < 5);
        let b = Mask::from_fn(10, 10, |x, _| x < 10);
        assert_eq!(a.area(), 50);
        assert!((a.iou(&b) - 0.5).abs() < 1e-6);
        assert_eq!(a.bounds(), Some([0, 0, 5, 10]));
        assert_eq!(Mask::empty(3, 3).bounds(), None);
        let big = a.resized(20, 20);
        assert_eq!(big.area(), 200);
        assert_eq!(big.resized(10, 10), a);
    }
}
