//! JPEG through libjpeg-turbo (its TurboJPEG API, built from source and linked statically): the
//! decoder every path uses for baseline and progressive JPEGs at any scale, because it decodes
//! several times faster than the pure-Rust decoders on the same file (`darkroom bench-decoders`,
//! docs/PERFORMANCE.md).
//!
//! It scales in the DCT domain by any eighth, 1/8 … 1, so a 2,048 px loupe picture from a
//! 6,000 px photo decodes at 3/8 rather than at 1/2. Whatever it declines or finds wrong (CMYK,
//! 12-bit, a warning about corrupt data) is answered `None`, and the caller goes on to the
//! general decoder, which decodes what it can and names the cause of what it cannot: a photo is
//! never lost to the fast path.

use image::{DynamicImage, GrayImage, RgbImage};
use turbojpeg::{Colorspace, Compressor, Decompressor, Image, PixelFormat, ScalingFactor, Subsamp};

use crate::budget::Budget;

/// What came out: the picture as stored (not yet turned upright) and the stored full size.
pub struct Scaled {
    pub image: DynamicImage,
    pub full_size: (u32, u32),
}

/// Decode `bytes` at the smallest eighth whose size is at least what `want` asks for given the
/// stored size (width, height). None where libjpeg-turbo declines (not a JPEG, CMYK, 12-bit,
/// lossless at a scale, over the pixel budget, any error or warning): the general decoder then
/// decodes it or names the cause. The clock is read after: the decode itself cannot be stopped,
/// and is bounded by the budget's pixels and scans.
pub fn decode(
    bytes: &[u8],
    budget: &Budget,
    want: impl FnOnce(u32, u32) -> (u32, u32),
) -> Option<Scaled> {
    let mut d = Decompressor::new().ok()?;
    let header = d.read_header(bytes).ok()?;
    let (w, h) = (
        u32::try_from(header.width).ok()?,
        u32::try_from(header.height).ok()?,
    );
    // Time already spent (a caller's earlier attempt) is not spent again on a decode that
    // cannot be stopped: the general decoder behind this one then reports the cut-off.
    if w == 0 || h == 0 || !budget.fits(u64::from(w), u64::from(h)) || budget.over() {
        return None;
    }
    let format = match header.colorspace {
        Colorspace::Gray => PixelFormat::GRAY,
        Colorspace::YCbCr | Colorspace::RGB => PixelFormat::RGB,
        // libjpeg-turbo does not convert these to RGB; the general decoder does.
        Colorspace::CMYK | Colorspace::YCCK => return None,
    };
    let (ww, wh) = want(w, h);
    let scale = if header.is_lossless {
        ScalingFactor::ONE
    } else {
        scale_for(header.width, header.height, ww as usize, wh as usize)
    };
    d.set_scaling_factor(scale).ok()?;
    d.set_scan_limit(budget.max_scans).ok()?;
    let (sw, sh) = (scale.scale(header.width), scale.scale(header.height));
    let channels = format.size();
    let mut pixels = vec![0u8; sw.checked_mul(sh)?.checked_mul(channels)?];
    d.decompress(
        bytes,
        Image {
            pixels: &mut pixels[..],
            width: sw,
            pitch: sw * channels,
            height: sh,
            format,
        },
    )
    .ok()?;
    if budget.over() {
        return None;
    }
    let (sw, sh) = (u32::try_from(sw).ok()?, u32::try_from(sh).ok()?);
    let image = if channels == 1 {
        DynamicImage::ImageLuma8(GrayImage::from_raw(sw, sh, pixels)?)
    } else {
        DynamicImage::ImageRgb8(RgbImage::from_raw(sw, sh, pixels)?)
    };
    Some(Scaled {
        image,
        full_size: (w, h),
    })
}

/// `img` as a JPEG at `quality` (4:2:0), for the thumbnail cache; None if libjpeg-turbo
/// refuses (it does not, for an RGB picture of any size it could decode).
pub fn encode(img: &RgbImage, quality: i32) -> Option<Vec<u8>> {
    let mut c = Compressor::new().ok()?;
    c.set_quality(quality).ok()?;
    c.set_subsamp(Subsamp::Sub2x2).ok()?;
    let (w, h) = (img.width() as usize, img.height() as usize);
    c.compress_to_vec(Image {
        pixels: img.as_raw().as_slice(),
        width: w,
        pitch: w * 3,
        height: h,
        format: PixelFormat::RGB,
    })
    .ok()
}

/// The smallest scale libjpeg-turbo offers, at most 1, that keeps both sides at least the size
/// asked for; 1 when nothing smaller does.
fn scale_for(width: usize, height: usize, want_w: usize, want_h: usize) -> ScalingFactor {
    let mut offered: Vec<ScalingFactor> = Decompressor::supported_scaling_factors()
        .into_iter()
        .filter(|s| s.num() <= s.denom())
        .collect();
    // Smallest first: n/d against m/e by cross-multiplying.
    offered.sort_by_key(|s| (s.num() * 840) / s.denom());
    offered
        .into_iter()
        .find(|s| s.scale(width) >= want_w && s.scale(height) >= want_h)
        .unwrap_or(ScalingFactor::ONE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_the_smallest_eighth_that_still_covers_the_ask() {
        let pick = |w, h, ww, wh| {
            let s = scale_for(w, h, ww, wh);
            (s.num(), s.denom())
        };
        assert_eq!(pick(6000, 4000, 2048, 2048), (5, 8));
        assert_eq!(pick(6000, 4000, 3000, 2000), (1, 2));
        assert_eq!(pick(6000, 4000, 2048, 1366), (3, 8));
        assert_eq!(pick(6000, 4000, 256, 171), (1, 8));
        assert_eq!(pick(6000, 4000, 6000, 4000), (1, 1));
        assert_eq!(pick(6000, 4000, 9000, 6000), (1, 1));
        assert_eq!(pick(100, 100, 1, 1), (1, 8));
    }
}
