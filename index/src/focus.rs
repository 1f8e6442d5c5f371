//! Sharpness: the variance of the Laplacian of luma, measured at a fixed scale so a score means
//! the same on a 12 MP and a 45 MP photo (blur is a fraction of the frame, not a pixel count).
//! A face is measured on its box resized to a fixed side, for the same reason.

use image::{GrayImage, RgbImage};

use crate::luma;

/// A photo's sharpness is measured with its long edge at this many pixels.
pub const PHOTO_SIDE: u32 = 1024;
/// A face's box is resized to this square before measuring.
pub const FACE_SIDE: u32 = 96;

/// Variance of the 3×3 Laplacian (4-neighbour) over the image's interior.
pub fn laplacian_variance(luma: &GrayImage) -> f32 {
    let (w, h) = (luma.width() as usize, luma.height() as usize);
    if w < 3 || h < 3 {
        return 0.0;
    }
    let px = luma.as_raw();
    let (mut sum, mut sum2) = (0f64, 0f64);
    for y in 1..h - 1 {
        let row = y * w;
        for x in 1..w - 1 {
            let i = row + x;
            let l = 4 * i32::from(px[i])
                - i32::from(px[i - 1])
                - i32::from(px[i + 1])
                - i32::from(px[i - w])
                - i32::from(px[i + w]);
            let l = f64::from(l);
            sum += l;
            sum2 += l * l;
        }
    }
    let n = ((w - 2) * (h - 2)) as f64;
    let mean = sum / n;
    (sum2 / n - mean * mean) as f32
}

/// The photo's sharpness at [`PHOTO_SIDE`] (smaller photos are measured as they are).
pub fn photo(rgb: &RgbImage) -> f32 {
    photo_luma(&luma::of(rgb))
}

/// As [`photo`], from the photo's luma (the index job computes it once for focus and hash).
pub fn photo_luma(g: &GrayImage) -> f32 {
    let long = g.width().max(g.height());
    if long <= PHOTO_SIDE {
        return laplacian_variance(g);
    }
    let s = PHOTO_SIDE as f32 / long as f32;
    let (w, h) = (
        ((g.width() as f32 * s).round() as u32).max(1),
        ((g.height() as f32 * s).round() as u32).max(1),
    );
    laplacian_variance(&luma::resize(g, w, h))
}

/// A face's sharpness: its box (`[x0, y0, x1, y1]` in `rgb`'s pixels) at [`FACE_SIDE`]².
pub fn face(rgb: &RgbImage, bbox: [f32; 4]) -> f32 {
    let x0 = bbox[0].max(0.0) as u32;
    let y0 = bbox[1].max(0.0) as u32;
    let x1 = (bbox[2].max(0.0) as u32).min(rgb.width());
    let y1 = (bbox[3].max(0.0) as u32).min(rgb.height());
    if x1 <= x0 + 2 || y1 <= y0 + 2 {
        return 0.0;
    }
    let crop = image::imageops::crop_imm(rgb, x0, y0, x1 - x0, y1 - y0).to_image();
    laplacian_variance(&luma::resize(&luma::of(&crop), FACE_SIDE, FACE_SIDE))
}
