//! A photo's histogram and where it clips: the counts of each channel's 256 levels, and the
//! pixels blown out (any channel at the top) or crushed (every channel at the bottom), as the
//! share of the photo and as a mask the loupe lays over it.

use image::RgbImage;

/// A channel at or above this is blown out; every channel at or below `CRUSHED` is crushed.
/// 8-bit previews put clipped highlights at 255, and sensor noise leaves crushed shadows a
/// level or two above 0.
pub const BLOWN: u8 = 255;
pub const CRUSHED: u8 = 2;

#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Red, green and blue: how many pixels have each level.
    pub channels: [[u32; 256]; 3],
    pub pixels: u64,
    pub blown: u64,
    pub crushed: u64,
}

/// What a pixel is, for the clipping mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clip {
    None,
    Blown,
    Crushed,
}

pub fn clip(p: [u8; 3]) -> Clip {
    // Widened, so the test still reads right if BLOWN is ever set below the top.
    // One comparison each way on the brightest channel: it runs on every pixel of a photo.
    let brightest = p[0].max(p[1]).max(p[2]);
    if u16::from(brightest) >= u16::from(BLOWN) {
        Clip::Blown
    } else if brightest <= CRUSHED {
        Clip::Crushed
    } else {
        Clip::None
    }
}

impl Histogram {
    pub fn of(img: &RgbImage) -> Histogram {
        let mut h = Histogram {
            channels: [[0; 256]; 3],
            pixels: 0,
            blown: 0,
            crushed: 0,
        };
        // A buffer longer than its picture (from_raw allows it) is read to the picture's end.
        let raw = img.as_raw();
        let raw = &raw[..(img.width() as usize * img.height() as usize * 3).min(raw.len())];
        for p in raw.chunks_exact(3) {
            let p = [p[0], p[1], p[2]];
            for (c, &v) in p.iter().enumerate() {
                h.channels[c][usize::from(v)] += 1;
            }
            match clip(p) {
                Clip::Blown => h.blown += 1,
                Clip::Crushed => h.crushed += 1,
                Clip::None => {}
            }
        }
        h.pixels = u64::from(img.width()) * u64::from(img.height());
        h
    }

    /// The share of the photo blown out and crushed, in percent.
    pub fn clipped_percent(&self) -> (f64, f64) {
        let n = self.pixels.max(1) as f64;
        (
            100.0 * self.blown as f64 / n,
            100.0 * self.crushed as f64 / n,
        )
    }

    /// The tallest level of any channel, the extremes left out (a clipped photo's spike at 0
    /// or 255 would flatten the rest of the curve).
    pub fn peak(&self) -> u32 {
        self.channels
            .iter()
            .flat_map(|c| c[1..255].iter().copied())
            .max()
            .unwrap_or(0)
            .max(1)
    }
}

/// Where a photo clips, one mark per block of at most `side` blocks a side: a block is blown if
/// any pixel in it is (a blown highlight must not average away), else crushed if any is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipMask {
    pub width: u32,
    pub height: u32,
    /// Row by row.
    pub marks: Vec<Clip>,
}

impl ClipMask {
    pub fn of(img: &RgbImage, side: u32) -> ClipMask {
        let (w, h) = img.dimensions();
        let block = w.max(h).div_ceil(side.max(1)).max(1);
        let (mw, mh) = (w.div_ceil(block), h.div_ceil(block));
        let mut marks = vec![Clip::None; mw as usize * mh as usize];
        let (block, width) = (block as usize, w as usize);
        // An empty picture has no rows (and chunks of 0 would panic).
        let raw = img.as_raw();
        let raw = &raw[..(width * h as usize * 3).min(raw.len())];
        for (y, row) in raw.chunks_exact((width * 3).max(1)).enumerate() {
            let marks_row = &mut marks[(y / block) * mw as usize..][..mw as usize];
            for (mark, pixels) in marks_row.iter_mut().zip(row.chunks(block * 3)) {
                for p in pixels.chunks_exact(3) {
                    let c = clip([p[0], p[1], p[2]]);
                    // Blown wins over crushed within a block: it is what a photographer fixes
                    // first.
                    if c == Clip::Blown || (c == Clip::Crushed && *mark == Clip::None) {
                        *mark = c;
                    }
                }
            }
        }
        ClipMask {
            width: mw,
            height: mh,
            marks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_levels_and_clipping() {
        let mut img = RgbImage::new(4, 1);
        img.put_pixel(0, 0, image::Rgb([255, 10, 10]));
        img.put_pixel(1, 0, image::Rgb([1, 2, 0]));
        img.put_pixel(2, 0, image::Rgb([128, 128, 128]));
        img.put_pixel(3, 0, image::Rgb([3, 0, 0]));
        let h = Histogram::of(&img);
        assert_eq!(h.pixels, 4);
        assert_eq!(
            (h.blown, h.crushed),
            (1, 1),
            "one channel at 3 is not crushed"
        );
        assert_eq!(h.channels[0][255], 1);
        assert_eq!(h.channels[1][128], 1);
        assert_eq!(h.clipped_percent(), (25.0, 25.0));
        assert_eq!(h.peak(), 1);
        assert_eq!(clip([200, 255, 0]), Clip::Blown);
    }

    #[test]
    fn a_clipping_mask_marks_a_block_if_any_pixel_in_it_clips_blown_first() {
        let mut img = RgbImage::from_pixel(10, 4, image::Rgb([128, 128, 128]));
        img.put_pixel(0, 0, image::Rgb([255, 10, 10]));
        img.put_pixel(1, 1, image::Rgb([0, 0, 0]));
        img.put_pixel(9, 3, image::Rgb([1, 2, 0]));
        let m = ClipMask::of(&img, 5);
        assert_eq!((m.width, m.height), (5, 2), "2-pixel blocks");
        assert_eq!(
            m.marks[0],
            Clip::Blown,
            "blown wins over the crushed pixel beside it"
        );
        assert_eq!(m.marks[9], Clip::Crushed);
        assert_eq!(m.marks.iter().filter(|c| **c == Clip::None).count(), 8);
    }

    #[test]
    fn partial_blocks_at_the_right_and_bottom_edges_are_read_as_the_pixels_say() {
        // 11 × 5 in blocks of 3: the last column and row of blocks are partial.
        let mut img = RgbImage::from_pixel(11, 5, image::Rgb([100, 100, 100]));
        img.put_pixel(10, 4, image::Rgb([255, 255, 255]));
        img.put_pixel(9, 0, image::Rgb([0, 0, 0]));
        img.put_pixel(0, 3, image::Rgb([1, 2, 0]));
        img.put_pixel(1, 3, image::Rgb([255, 20, 20]));
        let m = ClipMask::of(&img, 4);
        assert_eq!((m.width, m.height), (4, 2));
        // Each pixel where a plain walk over the blocks puts it.
        let mut want = vec![Clip::None; 8];
        for (x, y, p) in img.enumerate_pixels() {
            let at = (y / 3) as usize * 4 + (x / 3) as usize;
            let c = clip(p.0);
            if c == Clip::Blown || (c == Clip::Crushed && want[at] == Clip::None) {
                want[at] = c;
            }
        }
        assert_eq!(m.marks, want);
        assert_eq!(m.marks[7], Clip::Blown);
        assert_eq!(m.marks[3], Clip::Crushed);
        assert_eq!(
            m.marks[4],
            Clip::Blown,
            "blown wins over crushed in a block"
        );
    }
}
