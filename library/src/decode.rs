//! Decoding photos: format from content, the right way up (EXIF orientation), and within a
//! pixel budget so a hostile header claiming 100000×100000 is refused before any allocation.

use std::io::Cursor;
use std::path::Path;

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

use crate::error::LibraryError;

/// The largest image decoded (a 100 MP frame has room).
pub const MAX_PIXELS: u64 = 200_000_000;

fn decode_reader<R: std::io::BufRead + std::io::Seek>(
    reader: ImageReader<R>,
    path: &Path,
    orientation_override: Option<Orientation>,
) -> Result<DynamicImage, LibraryError> {
    let mut reader = reader
        .with_guessed_format()
        .map_err(|e| LibraryError::image(path, e))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_PIXELS * 4);
    reader.limits(limits);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| LibraryError::image(path, e))?;
    let (w, h) = decoder.dimensions();
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(LibraryError::image(
            path,
            format!("{w}x{h} pixels is larger than the {MAX_PIXELS} pixel limit"),
        ));
    }
    // A broken EXIF block should not cost the photo: decode it upright-as-stored.
    let orientation = orientation_override
        .unwrap_or_else(|| decoder.orientation().unwrap_or(Orientation::NoTransforms));
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| LibraryError::image(path, e))?;
    img.apply_orientation(orientation);
    Ok(img)
}

/// Decode the file at `path`, upright.
pub fn load_oriented(path: &Path) -> Result<DynamicImage, LibraryError> {
    let reader = ImageReader::open(path).map_err(|e| LibraryError::image(path, e))?;
    decode_reader(reader, path, None)
}

/// Decode bytes that came from `path` (an embedded preview), upright by `orientation` if the
/// container says, else by the bytes' own EXIF.
pub fn decode_bytes(
    bytes: &[u8],
    path: &Path,
    orientation: Option<Orientation>,
) -> Result<DynamicImage, LibraryError> {
    decode_reader(ImageReader::new(Cursor::new(bytes)), path, orientation)
}
