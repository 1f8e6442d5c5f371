//! A photo's look, measured once on the index job's decode workers and stored with its row: its
//! colour layout (an 8×8 grid of mean CIELAB, MPEG-7's colour-layout idea without the DCT), a
//! 64×64 luma thumbnail (where consecutive frames overlap and by how much), and its tones (the
//! shares of the frame that are black, white or clipped, and its contrast). Scenes compare
//! layouts, sets find pans in the thumbnails, the proposal finds misfires in the tones.

use darkroom_catalog::LookRow;
use darkroom_library::histogram::{self, Clip};
use darkroom_library::resize::{self, Filter};
use image::{GrayImage, RgbImage};

use crate::luma;

/// Cells on a side of the colour layout.
pub const LAYOUT_SIDE: u32 = 8;
/// The thumbnail's side (the frame stretched to a square: consecutive frames share an aspect).
pub const THUMB_SIDE: u32 = 64;
/// Luma at or below this is black, at or above `WHITE_LEVEL` white (a lens cap, a frame blown
/// to white). Lower and higher than the histogram's clipping, which asks for the very ends.
pub const BLACK_LEVEL: u8 = 16;
pub const WHITE_LEVEL: u8 = 240;

/// What the index stores of a photo's look (`darkroom_catalog::LookRow`), measured.
pub fn measure(rgb: &RgbImage, luma_at_photo_side: &GrayImage) -> LookRow {
    let px = luma_at_photo_side.as_raw();
    let n = px.len().max(1) as f64;
    let black = px.iter().filter(|&&v| v <= BLACK_LEVEL).count() as f64 / n;
    let white = px.iter().filter(|&&v| v >= WHITE_LEVEL).count() as f64 / n;
    let mean = px.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
    let var = px
        .iter()
        .map(|&v| (f64::from(v) - mean).powi(2))
        .sum::<f64>()
        / n;
    // The loupe's own clipping rule, so a share here is the share its mask shows.
    let pixels = rgb.pixels().len().max(1) as f64;
    let clipped = rgb
        .pixels()
        .filter(|p| histogram::clip(p.0) == Clip::Blown)
        .count() as f64
        / pixels;
    LookRow {
        layout: layout(rgb),
        thumb: luma::resize(luma_at_photo_side, THUMB_SIDE, THUMB_SIDE).into_raw(),
        black: black as f32,
        white: white as f32,
        clipped: clipped as f32,
        contrast: (var.sqrt() / 255.0) as f32,
    }
}

/// The colour layout: each cell's mean colour in CIELAB, quantised to bytes (L × 2.55, a + 128,
/// b + 128), row after row.
pub fn layout(rgb: &RgbImage) -> Vec<u8> {
    let side = LAYOUT_SIDE;
    let cells = resize::rgb(rgb, side, side, Filter::Box).into_raw();
    cells
        .chunks_exact(3)
        .flat_map(|p| {
            let [l, a, b] = lab([p[0], p[1], p[2]]);
            [
                (l * 2.55).round().clamp(0.0, 255.0) as u8,
                (a + 128.0).round().clamp(0.0, 255.0) as u8,
                (b + 128.0).round().clamp(0.0, 255.0) as u8,
            ]
        })
        .collect()
}

/// sRGB (D65) to CIELAB.
pub fn lab(p: [u8; 3]) -> [f32; 3] {
    let lin = |c: u8| {
        let c = f32::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(p[0]), lin(p[1]), lin(p[2]));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f32| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// How far apart two colour layouts are: the mean ΔE (CIE76) over their cells, with each
/// layout's mean lightness taken out first, so the same set-up a stop brighter or darker (a
/// cloud, a flash that did not fire, a bracket) stays near. None when either is not a layout.
pub fn layout_distance(a: &[u8], b: &[u8]) -> Option<f32> {
    let cells = (LAYOUT_SIDE * LAYOUT_SIDE) as usize;
    if a.len() != cells * 3 || b.len() != cells * 3 {
        return None;
    }
    let mean_l = |v: &[u8]| v.chunks_exact(3).map(|c| f32::from(c[0])).sum::<f32>() / cells as f32;
    let (ma, mb) = (mean_l(a), mean_l(b));
    let total: f32 = a
        .chunks_exact(3)
        .zip(b.chunks_exact(3))
        .map(|(p, q)| {
            let dl = ((f32::from(p[0]) - ma) - (f32::from(q[0]) - mb)) / 2.55;
            let da = f32::from(p[1]) - f32::from(q[1]);
            let db = f32::from(p[2]) - f32::from(q[2]);
            (dl * dl + da * da + db * db).sqrt()
        })
        .sum();
    Some(total / cells as f32)
}

/// Where a frame's content lies in the frame before it: the next frame's pixel (x, y) shows
/// what the earlier one had at (x + dx, y + dy), as fractions of the width and height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    pub dx: f32,
    pub dy: f32,
    /// Normalised cross-correlation over the overlap at that shift (1: the same pixels).
    pub ncc: f32,
    /// The same at no shift: a camera that did not move matches best there.
    pub ncc_still: f32,
}

impl Shift {
    pub fn length(&self) -> f32 {
        self.dx.hypot(self.dy)
    }
}

/// The overlap must be at least this share of the frame to be measured.
const MIN_OVERLAP: f32 = 0.2;
/// The coarse search's thumbnail is this many times smaller on a side.
const COARSE: usize = 4;

/// The shift between two thumbnails ([`THUMB_SIDE`]²) that best lines the second up with the
/// first: an exhaustive search at a quarter of the side, refined at the full side around its
/// best. None when either is not a thumbnail.
pub fn shift(a: &[u8], b: &[u8]) -> Option<Shift> {
    let side = THUMB_SIDE as usize;
    if a.len() != side * side || b.len() != side * side {
        return None;
    }
    let (ca, cb) = (shrink(a, side, COARSE), shrink(b, side, COARSE));
    let cs = side / COARSE;
    let reach = (cs as f32 * (1.0 - MIN_OVERLAP.sqrt())).floor() as i32;
    let mut best = (f32::MIN, 0, 0);
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            if let Some(c) = ncc(&ca, &cb, cs, dx, dy)
                && c > best.0
            {
                best = (c, dx, dy);
            }
        }
    }
    let (cx, cy) = (best.1 * COARSE as i32, best.2 * COARSE as i32);
    let mut fine = (f32::MIN, cx, cy);
    let r = COARSE as i32;
    for dy in cy - r..=cy + r {
        for dx in cx - r..=cx + r {
            if let Some(c) = ncc(a, b, side, dx, dy)
                && c > fine.0
            {
                fine = (c, dx, dy);
            }
        }
    }
    if fine.0 == f32::MIN {
        return None;
    }
    Some(Shift {
        dx: fine.1 as f32 / side as f32,
        dy: fine.2 as f32 / side as f32,
        ncc: fine.0,
        ncc_still: ncc(a, b, side, 0, 0).unwrap_or(0.0),
    })
}

fn shrink(v: &[u8], side: usize, by: usize) -> Vec<f32> {
    let s = side / by;
    let mut out = vec![0f32; s * s];
    for (y, row) in v.chunks_exact(side).enumerate() {
        for (x, &p) in row.iter().enumerate() {
            out[(y / by) * s + x / by] += f32::from(p);
        }
    }
    let n = (by * by) as f32;
    for p in &mut out {
        *p /= n;
    }
    out
}

/// Zero-mean normalised cross-correlation of `a` at (x + dx, y + dy) with `b` at (x, y), over
/// their overlap; None when the overlap is under [`MIN_OVERLAP`].
fn ncc<T: Copy + Into<f32>>(a: &[T], b: &[T], side: usize, dx: i32, dy: i32) -> Option<f32> {
    let s = side as i32;
    let (x0, x1) = (0.max(-dx), s.min(s - dx));
    let (y0, y1) = (0.max(-dy), s.min(s - dy));
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    let n = ((x1 - x0) * (y1 - y0)) as f32;
    if n < MIN_OVERLAP * (s * s) as f32 {
        return None;
    }
    let (mut sa, mut sb, mut saa, mut sbb, mut sab) = (0f32, 0f32, 0f32, 0f32, 0f32);
    for y in y0..y1 {
        let ra = ((y + dy) * s) as usize;
        let rb = (y * s) as usize;
        for x in x0..x1 {
            let p: f32 = a[ra + (x + dx) as usize].into();
            let q: f32 = b[rb + x as usize].into();
            sa += p;
            sb += q;
            saa += p * p;
            sbb += q * q;
            sab += p * q;
        }
    }
    let cov = sab - sa * sb / n;
    let va = saa - sa * sa / n;
    let vb = sbb - sb * sb / n;
    // A flat overlap (sky, a wall) says nothing about where it lies.
    if va <= 1e-3 * n || vb <= 1e-3 * n {
        return Some(0.0);
    }
    Some(cov / (va * vb).sqrt())
}

/// A picture with detail at every scale and no period (value noise: random levels on a grid,
/// blended), for tests that must find where one crop lies in another.
#[cfg(test)]
pub(crate) fn texture(w: u32, h: u32, seed: u32) -> RgbImage {
    let level = |gx: u32, gy: u32, cell: u32| {
        let mut v = gx.wrapping_mul(0x9E37_79B9) ^ gy.wrapping_mul(0x85EB_CA6B) ^ seed ^ cell;
        v ^= v >> 13;
        v = v.wrapping_mul(0xC2B2_AE35);
        v ^= v >> 16;
        (v & 0xFF) as f32
    };
    let noise = |x: u32, y: u32, cell: u32| {
        let (fx, fy) = (x as f32 / cell as f32, y as f32 / cell as f32);
        let (gx, gy) = (fx as u32, fy as u32);
        let (tx, ty) = (fx.fract(), fy.fract());
        let top = level(gx, gy, cell) * (1.0 - tx) + level(gx + 1, gy, cell) * tx;
        let bottom = level(gx, gy + 1, cell) * (1.0 - tx) + level(gx + 1, gy + 1, cell) * tx;
        top * (1.0 - ty) + bottom * ty
    };
    RgbImage::from_fn(w, h, |x, y| {
        let g = (0.5 * noise(x, y, 61) + 0.3 * noise(x, y, 23) + 0.2 * noise(x, y, 7)) as u8;
        image::Rgb([g, g.saturating_sub(30), 255 - g])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn textured(w: u32, h: u32, seed: u32) -> RgbImage {
        texture(w, h, seed)
    }

    #[test]
    fn tones_count_black_white_and_clipped_shares() {
        let img = RgbImage::from_fn(100, 100, |x, _| {
            if x < 50 {
                image::Rgb([0, 0, 0])
            } else if x < 75 {
                image::Rgb([255, 255, 255])
            } else {
                image::Rgb([120, 120, 120])
            }
        });
        let l = luma::of(&img);
        let look = measure(&img, &l);
        assert!((look.black - 0.5).abs() < 1e-6, "{}", look.black);
        assert!((look.white - 0.25).abs() < 1e-6, "{}", look.white);
        assert!((look.clipped - 0.25).abs() < 1e-6, "{}", look.clipped);
        assert!(look.contrast > 0.3, "{}", look.contrast);
        assert_eq!(look.layout.len(), 192);
        assert_eq!(look.thumb.len(), (THUMB_SIDE * THUMB_SIDE) as usize);
    }

    #[test]
    fn lab_of_white_black_and_red() {
        let w = lab([255, 255, 255]);
        assert!(
            (w[0] - 100.0).abs() < 0.1 && w[1].abs() < 0.5 && w[2].abs() < 0.5,
            "{w:?}"
        );
        assert!(lab([0, 0, 0])[0].abs() < 0.1);
        let r = lab([255, 0, 0]);
        assert!(
            (r[0] - 53.2).abs() < 0.5 && (r[1] - 80.1).abs() < 1.0,
            "{r:?}"
        );
    }

    #[test]
    fn a_layout_is_near_itself_a_stop_brighter_and_far_from_another_scene() {
        let a = textured(320, 200, 1);
        let brighter = RgbImage::from_fn(320, 200, |x, y| {
            let p = a.get_pixel(x, y).0;
            image::Rgb(p.map(|c| c.saturating_add(25)))
        });
        let other = RgbImage::from_fn(320, 200, |x, y| {
            image::Rgb([(x % 255) as u8, 200, (y % 255) as u8])
        });
        let (la, lb, lo) = (layout(&a), layout(&brighter), layout(&other));
        let near = layout_distance(&la, &lb).expect("layouts");
        let far = layout_distance(&la, &lo).expect("layouts");
        assert!(near < 8.0, "{near}");
        assert!(far > 3.0 * near && far > 25.0, "{far} vs {near}");
        assert_eq!(layout_distance(&la, &la), Some(0.0));
        assert_eq!(layout_distance(&la, &[1, 2, 3]), None);
    }

    fn thumb_of(img: &RgbImage) -> Vec<u8> {
        luma::resize(&luma::of(img), THUMB_SIDE, THUMB_SIDE).into_raw()
    }

    #[test]
    fn the_shift_between_overlapping_crops_is_found_and_a_still_frame_has_none() {
        let wide = textured(900, 300, 7);
        let crop = |x0: u32| image::imageops::crop_imm(&wide, x0, 0, 450, 300).to_image();
        let (first, second) = (thumb_of(&crop(0)), thumb_of(&crop(180)));
        let s = shift(&first, &second).expect("thumbnails");
        // 180 of 450 px: the second frame starts 0.4 of a width into the first.
        assert!((s.dx - 0.4).abs() <= 1.5 / THUMB_SIDE as f32, "{s:?}");
        assert!(s.dy.abs() <= 1.5 / THUMB_SIDE as f32, "{s:?}");
        assert!(s.ncc > 0.9 && s.ncc_still < s.ncc - 0.2, "{s:?}");
        let still = shift(&first, &first).expect("thumbnails");
        assert_eq!((still.dx, still.dy), (0.0, 0.0));
        assert!(still.ncc > 0.999);
        assert_eq!(shift(&first, &[0; 10]), None);
    }
}
