//! Luma and its resize, shared by focus and the perceptual hash: computed once per photo, with
//! the SIMD resizer (the `image` crate's scalar Triangle filter was three quarters of the
//! decode stage's own work: 36 ms of focus on a 1,500 px frame).

use darkroom_library::resize::{self, Filter};
use image::{GrayImage, RgbImage};

/// Rec. 709 luma, in the `image` crate's own integer weights, so scores keep their scale.
pub fn of(rgb: &RgbImage) -> GrayImage {
    let px: Vec<u8> = rgb
        .as_raw()
        .chunks_exact(3)
        .map(|p| {
            let y = 2126 * u32::from(p[0]) + 7152 * u32::from(p[1]) + 722 * u32::from(p[2]);
            (y / 10_000) as u8
        })
        .collect();
    GrayImage::from_raw(rgb.width(), rgb.height(), px)
        .unwrap_or_else(|| GrayImage::new(rgb.width(), rgb.height()))
}

/// Antialiased triangle-filter resize (the same filter as `imageops::FilterType::Triangle`).
pub fn resize(g: &GrayImage, w: u32, h: u32) -> GrayImage {
    resize::luma(g, w, h, Filter::Bilinear)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luma_matches_the_image_crate() {
        let rgb = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, ((x + y) * 3) as u8])
        });
        let ours = of(&rgb);
        let theirs = image::DynamicImage::ImageRgb8(rgb).into_luma8();
        let worst = ours
            .as_raw()
            .iter()
            .zip(theirs.as_raw())
            .map(|(a, b)| a.abs_diff(*b))
            .max();
        assert!(worst <= Some(1), "{worst:?}");
    }

    #[test]
    fn resize_matches_the_triangle_filter() {
        let g = GrayImage::from_fn(300, 200, |x, y| {
            image::Luma([((x * 7 + y * 13) % 251) as u8])
        });
        let ours = resize(&g, 97, 64);
        let theirs = image::imageops::resize(&g, 97, 64, image::imageops::FilterType::Triangle);
        let mean_diff = ours
            .as_raw()
            .iter()
            .zip(theirs.as_raw())
            .map(|(a, b)| f64::from(a.abs_diff(*b)))
            .sum::<f64>()
            / ours.as_raw().len() as f64;
        assert!(mean_diff < 2.0, "{mean_diff}");
    }
}
