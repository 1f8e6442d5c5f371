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
use std::sync::Mutex;

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
    let format = match channels_of(header.colorspace)? {
        1 => PixelFormat::GRAY,
        _ => PixelFormat::RGB,
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
    Some(Scaled {
        image: image_of(sw, sh, channels, pixels)?,
        full_size: (w, h),
    })
}

/// What skipping a row costs, as a fraction of decoding it: the rows above a band are
/// entropy-decoded only, and on 24 MP photos at camera quality that is half the work.
/// Measured by `darkroom bench-decoders` (its "last 16 rows" over its full decode, 0.51 on
/// the loupe's corpus: docs/PERFORMANCE.md); it sizes the bands so that they end together.
pub const SKIP_COST: f64 = 0.5;

/// Bands are this many rows apart at least, and start on a multiple of it: the tallest iMCU
/// row (4:2:0), so a band's top is never inside one.
const BAND_ROWS: u32 = 16;

/// `bytes` at full scale, its rows decoded in `bands` bands at once, each on a thread (and
/// libjpeg-turbo decompressor) of its own: what the person waits for after stopping on a
/// photo takes about half the time on two cores. A progressive or lossless file, or one too
/// short to split, is decoded whole as by [`decode`]; so is a band whose thread cannot start.
/// None where libjpeg-turbo declines any band or warns about it, as [`decode`].
pub fn decode_full_in_bands(bytes: &[u8], budget: &Budget, bands: usize) -> Option<Scaled> {
    let whole = || decode(bytes, budget, |w, h| (w, h));
    let mut d = Decompressor::new().ok()?;
    let header = d.read_header(bytes).ok()?;
    let (w, h) = (
        u32::try_from(header.width).ok()?,
        u32::try_from(header.height).ok()?,
    );
    let starts = band_starts(h, bands, SKIP_COST);
    if header.is_progressive || header.is_lossless || starts.len() < 2 {
        return whole();
    }
    if !budget.fits(u64::from(w), u64::from(h)) || budget.over() {
        return None;
    }
    let channels = channels_of(header.colorspace)?;
    let row = header.width.checked_mul(channels)?;
    let mut pixels = vec![0u8; row.checked_mul(header.height)?];
    let mut parts = Vec::with_capacity(starts.len());
    let mut rest = &mut pixels[..];
    for (k, &top) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(h);
        let (band, after) = rest.split_at_mut(row * (end - top) as usize);
        parts.push((top, band));
        rest = after;
    }
    // Each band in a slot its thread takes it from, so that a band whose thread cannot start
    // is still here for this one to decode.
    let slots: Vec<Band<'_>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let limit = budget.max_scans;
    let decode_slot = |slot: &Band<'_>| {
        let taken = slot.lock().ok().and_then(|mut s| s.take());
        taken.is_some_and(|(top, band)| {
            crate::sys::decode_rows(bytes, top, channels, limit, band).is_ok()
        })
    };
    let decoded = std::thread::scope(|s| {
        let running: Vec<_> = slots
            .iter()
            .skip(1)
            .map(|slot| {
                std::thread::Builder::new()
                    .name("darkroom-jpeg-band".into())
                    .spawn_scoped(s, || decode_slot(slot))
                    .ok()
            })
            .collect();
        let mut ok = slots.first().is_some_and(decode_slot);
        for (thread, slot) in running.into_iter().zip(slots.iter().skip(1)) {
            ok &= match thread {
                Some(t) => t.join().unwrap_or(false),
                None => decode_slot(slot),
            };
        }
        ok
    });
    drop(slots);
    if !decoded || budget.over() {
        return None;
    }
    Some(Scaled {
        image: image_of(w, h, channels, pixels)?,
        full_size: (w, h),
    })
}

/// The stored size (width, height) from the header alone.
pub fn stored_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let header = Decompressor::new().ok()?.read_header(bytes).ok()?;
    Some((
        u32::try_from(header.width).ok()?,
        u32::try_from(header.height).ok()?,
    ))
}

/// Rows `rows` of `bytes` at full scale, the whole width (RGB, or grey for a grey JPEG): the
/// rows above are only entropy-decoded, those below not read. None where libjpeg-turbo declines
/// or warns, the rows are not inside the photo, the photo is over the pixel budget, or it is
/// progressive (every scan would be read for any band).
pub fn decode_band(
    bytes: &[u8],
    budget: &Budget,
    rows: std::ops::Range<u32>,
) -> Option<DynamicImage> {
    let mut d = Decompressor::new().ok()?;
    let header = d.read_header(bytes).ok()?;
    let w = u32::try_from(header.width).ok()?;
    let h = rows.end.checked_sub(rows.start).filter(|&h| h > 0)?;
    // The photo within the budget, not only the band: a progressive or multi-scan file makes
    // libjpeg-turbo hold every coefficient of it. A progressive file has no cheap band at all.
    let whole_fits = budget.fits(u64::from(w), u64::try_from(header.height).ok()?);
    if header.is_progressive || !whole_fits || budget.over() {
        return None;
    }
    let channels = channels_of(header.colorspace)?;
    let mut pixels = vec![
        0u8;
        header
            .width
            .checked_mul(channels)?
            .checked_mul(h as usize)?
    ];
    crate::sys::decode_rows(bytes, rows.start, channels, budget.max_scans, &mut pixels).ok()?;
    image_of(w, h, channels, pixels)
}

/// The bytes a pixel of a JPEG in `colorspace` decodes to: grey 1, colour 3. None for CMYK and
/// YCCK, which libjpeg-turbo does not turn into RGB (the general decoder does).
fn channels_of(colorspace: Colorspace) -> Option<usize> {
    match colorspace {
        Colorspace::Gray => Some(1),
        Colorspace::YCbCr | Colorspace::RGB => Some(3),
        Colorspace::CMYK | Colorspace::YCCK => None,
    }
}

/// `pixels` as a `w`×`h` picture: grey with one channel, RGB with three.
fn image_of(w: u32, h: u32, channels: usize, pixels: Vec<u8>) -> Option<DynamicImage> {
    if channels == 1 {
        Some(DynamicImage::ImageLuma8(GrayImage::from_raw(w, h, pixels)?))
    } else {
        Some(DynamicImage::ImageRgb8(RgbImage::from_raw(w, h, pixels)?))
    }
}

/// A band of rows to decode: its first row and its pixels, until a thread takes it.
type Band<'a> = Mutex<Option<(u32, &'a mut [u8])>>;

/// Where each of at most `bands` bands of a `height` px photo starts, so that they end
/// together when skipping a row costs `skip_cost` of decoding it: band k starts at
/// (1 − qᵏ) / (1 − qⁿ) of the height, q = 1 − `skip_cost` (band k decodes what it has and skips
/// what the bands above have, and every band takes as long). Starts are multiples of
/// [`BAND_ROWS`] and bands at least that high; one start (0) when the photo is too short.
pub fn band_starts(height: u32, bands: usize, skip_cost: f64) -> Vec<u32> {
    let n = i32::try_from(bands.clamp(1, 64)).unwrap_or(1);
    let q = (1.0 - skip_cost).clamp(0.01, 1.0);
    let whole = 1.0 - q.powi(n);
    let mut starts: Vec<u32> = vec![0];
    for k in 1..n {
        let at = if whole > 0.0 && q < 1.0 {
            (1.0 - q.powi(k)) / whole
        } else {
            f64::from(k) / f64::from(n)
        };
        let row = (at * f64::from(height) / f64::from(BAND_ROWS)).round() as u32 * BAND_ROWS;
        let last = starts.last().copied().unwrap_or(0);
        if row >= last + BAND_ROWS && row + BAND_ROWS <= height {
            starts.push(row);
        }
    }
    starts
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
    fn bands_start_on_whole_imcu_rows_and_the_first_is_the_tallest() {
        let starts = band_starts(4000, 2, 0.3);
        assert_eq!(starts.len(), 2);
        assert_eq!(starts[0], 0);
        assert_eq!(starts[1] % BAND_ROWS, 0);
        // The second band also skips the first's rows, so the first is taller: 1 / (2 − 0.3).
        assert!((2320..=2384).contains(&starts[1]), "{starts:?}");
        // Half the work skipped: 1 / (2 − 0.5).
        assert_eq!(band_starts(4000, 2, SKIP_COST), vec![0, 2672]);
        let four = band_starts(4000, 4, 0.3);
        assert_eq!(four.len(), 4);
        assert!(four.windows(2).all(|w| w[0] < w[1]));
        let heights: Vec<u32> = four
            .iter()
            .zip(four.iter().skip(1).chain([&4000]))
            .map(|(a, b)| b - a)
            .collect();
        assert!(heights.windows(2).all(|h| h[0] > h[1]), "{heights:?}");
        // Nothing to skip: equal bands.
        assert_eq!(band_starts(4000, 2, 0.0), vec![0, 2000]);
        // Too short to split, or one band asked for.
        assert_eq!(band_starts(20, 2, 0.3), vec![0]);
        assert_eq!(band_starts(4000, 1, 0.3), vec![0]);
        assert_eq!(band_starts(4000, 0, 0.3), vec![0]);
    }

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
