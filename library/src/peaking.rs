//! Focus peaking: where the photo's own pixels hold a sharp edge, found at full resolution
//! (neighbouring pixels' luma apart by at least the edge threshold, across or down) and kept
//! as a mask of at most `side` pixels a side, a mask pixel standing for a block of the photo
//! and marked when any edge is in it (a thin edge must not average away). Out of focus, a
//! lens spreads every edge over several pixels, so no two neighbours differ that much.

use image::RgbImage;

/// Luma levels two neighbouring pixels differ by, at least, for an edge to be marked: a
/// sharp edge of moderate contrast on a 12–45 MP photo; a defocused one spreads its step over
/// pixels that each differ by far less.
pub const EDGE_LEVELS: u8 = 40;

pub struct PeakMask {
    pub width: u32,
    pub height: u32,
    /// Row by row.
    pub marks: Vec<bool>,
}

/// Rec. 601 luma of one RGB pixel, in 0–255.
fn luma(p: &[u8]) -> i32 {
    (299 * i32::from(p[0]) + 587 * i32::from(p[1]) + 114 * i32::from(p[2])) / 1000
}

impl PeakMask {
    pub fn of(img: &RgbImage, side: u32, edge: u8) -> PeakMask {
        let (w, h) = img.dimensions();
        let block = w.max(h).div_ceil(side.max(1)).max(1) as usize;
        let (mw, mh) = ((w as usize).div_ceil(block), (h as usize).div_ceil(block));
        let mut marks = vec![false; mw * mh];
        let (width, height) = (w as usize, h as usize);
        let raw = img.as_raw();
        if width == 0 || height == 0 || raw.len() < width * height * 3 {
            return PeakMask {
                width: mw as u32,
                height: mh as u32,
                marks,
            };
        }
        let edge = i32::from(edge);
        // Each row's luma once; the row above kept for the vertical step.
        let mut above: Vec<i32> = Vec::new();
        let mut this = Vec::with_capacity(width);
        for y in 0..height {
            this.clear();
            this.extend(
                raw[y * width * 3..(y + 1) * width * 3]
                    .chunks_exact(3)
                    .map(luma),
            );
            let marks_row = &mut marks[(y / block) * mw..][..mw];
            for x in 0..width {
                let across = x > 0 && (this[x] - this[x - 1]).abs() >= edge;
                let down = y > 0 && (this[x] - above[x]).abs() >= edge;
                if across || down {
                    marks_row[x / block] = true;
                }
            }
            std::mem::swap(&mut above, &mut this);
        }
        PeakMask {
            width: mw as u32,
            height: mh as u32,
            marks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharp_edges_are_marked_and_soft_ones_are_not() {
        // Stripes 8 px wide: the left half as they are, the right half blurred.
        let stripes = RgbImage::from_fn(256, 64, |x, _| {
            let v = if (x / 8) % 2 == 0 { 40 } else { 200 };
            image::Rgb([v, v, v])
        });
        let soft = image::imageops::blur(&stripes, 4.0);
        let img = RgbImage::from_fn(256, 64, |x, y| {
            if x < 128 {
                *stripes.get_pixel(x, y)
            } else {
                *soft.get_pixel(x, y)
            }
        });
        // 256 px into a mask of 64: blocks of 4.
        let mask = PeakMask::of(&img, 64, EDGE_LEVELS);
        assert_eq!((mask.width, mask.height), (64, 16));
        let marked = |x0: usize, x1: usize| {
            (0..16)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .filter(|&(x, y)| mask.marks[y * 64 + x])
                .count()
        };
        // Every stripe edge on the sharp side (a block of 4 holds one every other block).
        assert_eq!(marked(0, 31), 15 * 16, "{:?}", &mask.marks[..64]);
        assert_eq!(marked(34, 64), 0);
        // An empty picture is an empty mask, not a panic.
        assert!(
            PeakMask::of(&RgbImage::new(0, 0), 64, EDGE_LEVELS)
                .marks
                .is_empty()
        );
    }
}
