//! Focus peaking: where the photo's own pixels hold its sharpest edges, found at full
//! resolution and kept as a mask of at most `side` pixels a side, a mask pixel standing for a
//! block of the photo and marked when any such edge is in it (a thin edge must not average
//! away). An edge is a pixel whose luma steps across its two neighbours (left and right, or
//! above and below) by at least the frame's `PEAK_SHARE` quantile of such steps, and never
//! less than `EDGE_FLOOR`: what is in focus holds the frame's steepest steps, what a lens
//! spreads over several pixels does not, and a frame soft everywhere marks nothing.

use image::RgbImage;

/// The share of the frame's pixels with the steepest luma steps that are marked.
pub const PEAK_SHARE: f64 = 0.03;
/// Luma levels a step across two pixels must reach however soft the frame: a high-contrast
/// edge blurred by a 4 px sigma steps by about 25, a sharp one of the same contrast by over
/// 100; below, the steepest steps of a frame soft everywhere would light up.
pub const EDGE_FLOOR: u8 = 32;

pub struct PeakMask {
    pub width: u32,
    pub height: u32,
    /// Row by row.
    pub marks: Vec<bool>,
    /// The step, in luma levels, that marked a pixel.
    pub threshold: u8,
}

/// Rec. 601 luma of one RGB pixel, in 0–255.
fn luma(p: &[u8]) -> u8 {
    ((299 * u32::from(p[0]) + 587 * u32::from(p[1]) + 114 * u32::from(p[2])) / 1000) as u8
}

impl PeakMask {
    pub fn of(img: &RgbImage, side: u32) -> PeakMask {
        let (w, h) = img.dimensions();
        let block = w.max(h).div_ceil(side.max(1)).max(1) as usize;
        let (mw, mh) = ((w as usize).div_ceil(block), (h as usize).div_ceil(block));
        let (width, height) = (w as usize, h as usize);
        let raw = img.as_raw();
        let mut mask = PeakMask {
            width: mw as u32,
            height: mh as u32,
            marks: vec![false; mw * mh],
            threshold: EDGE_FLOOR,
        };
        if width < 3 || height < 3 || raw.len() < width * height * 3 {
            return mask;
        }
        let l: Vec<u8> = raw[..width * height * 3]
            .chunks_exact(3)
            .map(luma)
            .collect();
        // Each interior pixel's steeper step, across or down: counted first, marked after
        // (found again rather than held: the luma is the one full-resolution copy).
        let step = |i: usize| {
            l[i + 1]
                .abs_diff(l[i - 1])
                .max(l[i + width].abs_diff(l[i - width]))
        };
        let mut histogram = [0u64; 256];
        for y in 1..height - 1 {
            for i in y * width + 1..(y + 1) * width - 1 {
                histogram[usize::from(step(i))] += 1;
            }
        }
        let interior = ((width - 2) * (height - 2)) as f64;
        let mut above = 0u64;
        let mut threshold = 255u8;
        for level in (0..=255u8).rev() {
            above += histogram[usize::from(level)];
            if above as f64 >= PEAK_SHARE * interior {
                threshold = level;
                break;
            }
        }
        mask.threshold = threshold.max(EDGE_FLOOR);
        for y in 1..height - 1 {
            let marks_row = &mut mask.marks[(y / block) * mw..][..mw];
            for x in 1..width - 1 {
                if step(y * width + x) >= mask.threshold {
                    marks_row[x / block] = true;
                }
            }
        }
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sharpest_edges_are_marked_and_soft_ones_are_not() {
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
        let mask = PeakMask::of(&img, 64);
        assert_eq!((mask.width, mask.height), (64, 16));
        let marked = |x0: usize, x1: usize| {
            (1..15)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .filter(|&(x, y)| mask.marks[y * 64 + x])
                .count()
        };
        // Stripe edges on the sharp side, none on the soft side.
        assert!(marked(0, 31) >= 15 * 14, "{:?}", &mask.marks[64..128]);
        assert_eq!(marked(34, 64), 0, "{:?}", &mask.marks[64..128]);
        // The same stripes soft everywhere: nothing reaches the floor.
        let all_soft = PeakMask::of(&soft, 64);
        assert!(
            all_soft.marks.iter().all(|m| !m),
            "threshold {}",
            all_soft.threshold
        );
        // An empty picture is an empty mask, not a panic.
        assert!(PeakMask::of(&RgbImage::new(0, 0), 64).marks.is_empty());
    }
}
