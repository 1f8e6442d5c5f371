//! Decoding photos: format from content, the right way up (EXIF orientation), and within a
//! [`Budget`]: a hostile header claiming 100000×100000 is refused before any allocation, and a
//! decode that runs past its time is cut off.

use std::io::Cursor;
use std::path::Path;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

use crate::budget::{Budget, Timed};
use crate::error::LibraryError;

pub use crate::budget::MAX_PIXELS;

fn decode_reader<R: std::io::BufRead + std::io::Seek>(
    reader: R,
    path: &Path,
    orientation_override: Option<Orientation>,
    budget: &Budget,
) -> Result<DynamicImage, LibraryError> {
    // Every failure past the clock is the clock's, whatever the decoder made of it.
    let fail = |e: &dyn std::fmt::Display| {
        if budget.over() {
            LibraryError::image(path, budget.cut_off())
        } else {
            LibraryError::image(path, e)
        }
    };
    let mut reader = ImageReader::new(Timed::new(reader, *budget))
        .with_guessed_format()
        .map_err(|e| fail(&e))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(budget.max_pixels.saturating_mul(4));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| fail(&e))?;
    let (w, h) = decoder.dimensions();
    if !budget.fits(u64::from(w), u64::from(h)) {
        return Err(LibraryError::image(
            path,
            format!(
                "{w}x{h} pixels is larger than the {} pixel limit",
                budget.max_pixels
            ),
        ));
    }
    // A broken EXIF block should not cost the photo: decode it upright-as-stored.
    let orientation = orientation_override
        .unwrap_or_else(|| decoder.orientation().unwrap_or(Orientation::NoTransforms));
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| fail(&e))?;
    // The JPEG decoder reads the whole file before it starts: its clock is checked after.
    if budget.over() {
        return Err(LibraryError::image(path, budget.cut_off()));
    }
    img.apply_orientation(orientation);
    Ok(img)
}

/// Decode the file at `path`, upright, within the default budget.
pub fn load_oriented(path: &Path) -> Result<DynamicImage, LibraryError> {
    load_oriented_within(path, &Budget::start())
}

/// Decode the file at `path`, upright, within `budget`.
pub fn load_oriented_within(path: &Path, budget: &Budget) -> Result<DynamicImage, LibraryError> {
    load_oriented_in_bands(path, budget, 1)
}

/// As [`load_oriented_within`], a JPEG's rows decoded in `bands` bands at once
/// ([`decode_bytes_in_bands`]).
pub fn load_oriented_in_bands(
    path: &Path,
    budget: &Budget,
    bands: usize,
) -> Result<DynamicImage, LibraryError> {
    let bytes = crate::regular::read_photo(path).map_err(|e| LibraryError::image(path, e))?;
    check_complete_jpeg(&bytes, path)?;
    decode_bytes_in_bands(&bytes, path, None, budget, bands)
}

/// A JPEG file must end with its end-of-image marker (trailing padding allowed). Decoders fill a
/// cut-off file with grey and say nothing; a photographer culling it must be told.
pub fn check_complete_jpeg(bytes: &[u8], path: &Path) -> Result<(), LibraryError> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Ok(());
    }
    let end = bytes
        .iter()
        .rposition(|&b| b != 0x00 && b != 0xFF)
        .map_or(0, |i| i + 1);
    // The last non-padding byte is EOI's D9, preceded by its FF.
    let complete = bytes.get(end.saturating_sub(1)) == Some(&0xD9)
        && bytes.get(end.saturating_sub(2)) == Some(&0xFF);
    if complete {
        Ok(())
    } else {
        Err(LibraryError::image(
            path,
            "truncated JPEG: the file ends before its end-of-image marker",
        ))
    }
}

/// Decode bytes that came from `path` (an embedded preview), upright by `orientation` if the
/// container says, else by the bytes' own EXIF.
pub fn decode_bytes(
    bytes: &[u8],
    path: &Path,
    orientation: Option<Orientation>,
    budget: &Budget,
) -> Result<DynamicImage, LibraryError> {
    decode_bytes_in_bands(bytes, path, orientation, budget, 1)
}

/// As [`decode_bytes`], a JPEG's rows decoded in `bands` bands at once
/// ([`crate::jpeg::decode_full_in_bands`]): for a photo someone is waiting for.
pub fn decode_bytes_in_bands(
    bytes: &[u8],
    path: &Path,
    orientation: Option<Orientation>,
    budget: &Budget,
    bands: usize,
) -> Result<DynamicImage, LibraryError> {
    // A JPEG at full scale through libjpeg-turbo; what it declines, the general decoder has.
    if let Some(full) = crate::jpeg::decode_full_in_bands(bytes, budget, bands) {
        let mut img = full.image;
        img.apply_orientation(
            orientation
                .or_else(|| crate::preview::exif_orientation(bytes))
                .unwrap_or(Orientation::NoTransforms),
        );
        return Ok(img);
    }
    decode_reader(Cursor::new(bytes), path, orientation, budget)
}

/// Bytes libjpeg-turbo already declined (a CMYK or broken JPEG) straight to the general
/// decoder, upright by their own EXIF: it decodes what it can and names the cause of what it
/// cannot. Not libjpeg-turbo a second time: a broken file is tried once.
pub fn decode_declined(
    bytes: &[u8],
    path: &Path,
    budget: &Budget,
) -> Result<DynamicImage, LibraryError> {
    check_complete_jpeg(bytes, path)?;
    decode_reader(Cursor::new(bytes), path, None, budget)
}

/// A JPEG decoded in the DCT domain (libjpeg-turbo) at the smallest eighth whose size is at
/// least what `want` asks for given the stored size, then turned upright by its EXIF
/// orientation. Returns the picture and the upright full size. None where libjpeg-turbo declines
/// (CMYK, 12-bit, broken, over the budget): the general decoder then names the cause.
pub fn jpeg_scaled(
    bytes: &[u8],
    budget: &Budget,
    want: impl FnOnce(u32, u32) -> (u32, u32),
) -> Option<(DynamicImage, (u32, u32))> {
    let crate::jpeg::Scaled {
        mut image,
        full_size: (w, h),
    } = crate::jpeg::decode(bytes, budget, want)?;
    let orientation = crate::preview::exif_orientation(bytes).unwrap_or(Orientation::NoTransforms);
    image.apply_orientation(orientation);
    Some((image, if swaps(orientation) { (h, w) } else { (w, h) }))
}

/// What to ask of a scaled decode so that the long edge, upright or not, is at least `side`.
pub fn long_edge_at_least(side: u32) -> impl FnOnce(u32, u32) -> (u32, u32) {
    move |w, h| {
        let long = u64::from(w.max(h).max(1));
        let at = |n: u32| {
            u32::try_from((u64::from(n) * u64::from(side)).div_ceil(long)).unwrap_or(u32::MAX)
        };
        (at(w), at(h))
    }
}

fn swaps(orientation: Orientation) -> bool {
    matches!(
        orientation,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}
