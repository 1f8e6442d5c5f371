//! A photo decoded for analysis (faces, focus, bursts): upright, with its long edge at least
//! what the analysis needs, as cheaply as the file allows: a JPEG shrunk in the DCT domain, a
//! RAW's embedded preview, anything else decoded whole. A 24 MP JPEG analysed at 1,500 px
//! never costs a 24 MP decode.

use std::path::Path;

use image::RgbImage;

use crate::budget::Budget;
use crate::decode;
use crate::error::LibraryError;
use crate::facts::{self, Facts};
use crate::formats;
use crate::preview;

pub struct Working {
    pub image: RgbImage,
    /// The upright photo's full size (for a RAW: its largest preview's), in whose pixels
    /// results are reported; `image` may be smaller.
    pub full_size: (u32, u32),
    /// EXIF DateTimeOriginal (+ sub-seconds), seconds on the camera's clock.
    pub captured_at: Option<f64>,
    /// The EXIF facts, from the bytes already read (exposure and bracketing for the index).
    pub facts: Facts,
}

impl Working {
    /// Full-size pixels per working pixel.
    pub fn scale_to_full(&self) -> f32 {
        self.full_size.0.max(self.full_size.1) as f32
            / self.image.width().max(self.image.height()).max(1) as f32
    }
}

/// Decode `path` for analysis with a long edge of at least `min_long` where it has that many,
/// within the default budget.
pub fn load(path: &Path, min_long: u32) -> Result<Working, LibraryError> {
    load_within(path, min_long, &Budget::start())
}

/// As [`load`], within `budget`.
pub fn load_within(path: &Path, min_long: u32, budget: &Budget) -> Result<Working, LibraryError> {
    let bytes =
        crate::regular::read_photo(path).map_err(|e| LibraryError::io("cannot read", path, &e))?;
    let captured_at = preview::capture_time(&bytes);
    let facts = facts::from_bytes(&bytes, formats::is_raw(path));
    if formats::is_raw(path) {
        let img = largest_preview(&bytes, path, budget, 1)?;
        return Ok(Working {
            full_size: img.dimensions(),
            image: img,
            captured_at,
            facts,
        });
    }
    let img = if bytes.starts_with(&[0xFF, 0xD8]) {
        decode::check_complete_jpeg(&bytes, path)?;
        if let Some(w) = scaled_jpeg(&bytes, min_long, budget) {
            return Ok(Working {
                captured_at,
                facts,
                ..w
            });
        }
        decode::decode_declined(&bytes, path, budget)?
    } else {
        decode::decode_bytes(&bytes, path, None, budget)?
    }
    .into_rgb8();
    Ok(Working {
        full_size: img.dimensions(),
        image: img,
        captured_at,
        facts,
    })
}

/// The photo at its own resolution, upright, within the default budget: what the loupe shows
/// at 100%. A RAW's pixels are its largest embedded preview (full size for most cameras, and
/// the frame the index's face boxes are in); anything else is decoded whole by the general
/// decoder, never in the DCT domain.
pub fn full(path: &Path) -> Result<RgbImage, LibraryError> {
    full_within(path, &Budget::start())
}

/// As [`full`], within `budget`.
pub fn full_within(path: &Path, budget: &Budget) -> Result<RgbImage, LibraryError> {
    // Someone waits for it: a JPEG's rows are decoded on every core at once.
    let bands = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if formats::is_raw(path) {
        let bytes = crate::regular::read_photo(path)
            .map_err(|e| LibraryError::io("cannot read", path, &e))?;
        return largest_preview(&bytes, path, budget, bands);
    }
    Ok(decode::load_oriented_in_bands(path, budget, bands)?.into_rgb8())
}

/// Rows of a photo at its own resolution, decoded before the rest: the band a zoomed loupe
/// shows, so that the screen fills before the whole photo is decoded.
pub struct FullRows {
    /// The band, the photo's whole width.
    pub image: RgbImage,
    /// Its first row in the photo.
    pub top: u32,
    /// The photo's size.
    pub full_size: (u32, u32),
}

/// Rows decoded before the whole are at most this fraction (1 / it) of the photo's height.
const ROWS_FIRST_AT_MOST: u32 = 3;

/// The rows `rows` asks for given the photo's size (width, height), at its own resolution,
/// where rows on screen are rows in the file: a JPEG stored upright (no EXIF orientation, or
/// 1), not a RAW, not progressive, and at most a third of the photo. None otherwise, and
/// wherever the band cannot be had: the whole decode that follows ([`full`]) names any cause.
pub fn full_rows(
    path: &Path,
    rows: impl FnOnce(u32, u32) -> std::ops::Range<u32>,
) -> Option<FullRows> {
    if formats::is_raw(path) {
        return None;
    }
    let bytes = crate::regular::read_photo(path).ok()?;
    decode::check_complete_jpeg(&bytes, path).ok()?;
    let upright = preview::exif_orientation(&bytes)
        .is_none_or(|o| o == image::metadata::Orientation::NoTransforms);
    if !upright {
        return None;
    }
    let (w, h) = crate::jpeg::stored_size(&bytes)?;
    let rows = rows(w, h);
    // More than a third of the photo costs about what the whole does on two cores, and comes
    // before it: then only the whole.
    if rows.end.saturating_sub(rows.start) > h / ROWS_FIRST_AT_MOST {
        return None;
    }
    let top = rows.start;
    let image = crate::jpeg::decode_band(&bytes, &Budget::start(), rows)?.into_rgb8();
    Some(FullRows {
        image,
        top,
        full_size: (w, h),
    })
}

fn largest_preview(
    bytes: &[u8],
    path: &Path,
    budget: &Budget,
    bands: usize,
) -> Result<RgbImage, LibraryError> {
    let p = preview::largest(bytes).map_err(|why| LibraryError::image(path, why))?;
    let preview = &bytes[p.range.clone()];
    Ok(decode::decode_bytes_in_bands(preview, path, p.orientation, budget, bands)?.into_rgb8())
}

/// The smallest DCT scale (an eighth, 1/8 … 1) whose long edge is still `min_long`; None when the general
/// decoder should have it (CMYK, 12-bit, broken).
fn scaled_jpeg(bytes: &[u8], min_long: u32, budget: &Budget) -> Option<Working> {
    let (img, full_size) =
        decode::jpeg_scaled(bytes, budget, decode::long_edge_at_least(min_long))?;
    Some(Working {
        image: img.into_rgb8(),
        full_size,
        captured_at: None,
        facts: Facts::default(),
    })
}
