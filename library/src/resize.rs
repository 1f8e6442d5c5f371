//! Resizing 8-bit RGB and luma with the SIMD resizer (`fast_image_resize`), for every crate
//! that resizes photos: the engine's model inputs, the index's luma and colour layout.
//!
//! Its untyped `resize` dispatches over every pixel type and CPU extension at run time, so each
//! crate that called it compiled every convolution kernel for every pixel type again: two
//! thirds of the engine's generated code, in four compilations of each test build (the engine,
//! the index, and their unit tests). Typed to the two pixel kinds here, it is compiled for those
//! two, in this crate.

use fast_image_resize::images::{TypedImage, TypedImageRef};
use fast_image_resize::pixels::{U8, U8x3};
use fast_image_resize::{FilterType, PixelTrait, ResizeAlg, ResizeOptions, Resizer};
use image::{GrayImage, RgbImage, imageops};

/// The convolution filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Antialiased bilinear (PIL's BILINEAR, the `image` crate's Triangle).
    Bilinear,
    /// The mean of the pixels each output pixel covers.
    Box,
}

impl Filter {
    fn options(self) -> ResizeOptions {
        ResizeOptions::new().resize_alg(ResizeAlg::Convolution(match self {
            Filter::Bilinear => FilterType::Bilinear,
            Filter::Box => FilterType::Box,
        }))
    }
}

/// `img` at `w` × `h`.
pub fn rgb(img: &RgbImage, w: u32, h: u32, filter: Filter) -> RgbImage {
    if img.dimensions() == (w, h) {
        return img.clone();
    }
    typed::<U8x3>(img.as_raw(), img.dimensions(), (w, h), filter)
        .and_then(|px| RgbImage::from_raw(w, h, px))
        // Only a buffer/size mismatch an RgbImage cannot have fails the fast path; the answer
        // stays correct anyway.
        .unwrap_or_else(|| imageops::resize(img, w, h, imageops::FilterType::Triangle))
}

/// `g` at `w` × `h`.
pub fn luma(g: &GrayImage, w: u32, h: u32, filter: Filter) -> GrayImage {
    if g.dimensions() == (w, h) {
        return g.clone();
    }
    typed::<U8>(g.as_raw(), g.dimensions(), (w, h), filter)
        .and_then(|px| GrayImage::from_raw(w, h, px))
        .unwrap_or_else(|| imageops::resize(g, w, h, imageops::FilterType::Triangle))
}

/// `src` (`from` pixels of `P`) resized into a new buffer of `to` pixels.
fn typed<P: PixelTrait>(
    src: &[u8],
    from: (u32, u32),
    to: (u32, u32),
    filter: Filter,
) -> Option<Vec<u8>> {
    let src = TypedImageRef::<P>::from_buffer(from.0, from.1, src).ok()?;
    let mut out = vec![0u8; to.0 as usize * to.1 as usize * P::size()];
    let mut dst = TypedImage::<P>::from_buffer(to.0, to.1, &mut out).ok()?;
    Resizer::new()
        .resize_typed(&src, &mut dst, &filter.options())
        .ok()?;
    Some(out)
}
