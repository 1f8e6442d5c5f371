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
    let bytes = std::fs::read(path).map_err(|e| LibraryError::image(path, e))?;
    check_complete_jpeg(&bytes, path)?;
    decode_reader(ImageReader::new(Cursor::new(&bytes[..])), path, None)
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
) -> Result<DynamicImage, LibraryError> {
    decode_reader(ImageReader::new(Cursor::new(bytes)), path, orientation)
}

/// A JPEG decoded in the DCT domain at the smallest of 1/8, 1/4, 1/2 and 1 whose size is at
/// least what `want` asks for given the stored size, then turned upright by its EXIF
/// orientation. Returns the picture and the upright full size. None where `jpeg-decoder` cannot
/// (CMYK, 12-bit, broken, over the pixel budget): the general decoder then names the cause.
pub fn jpeg_scaled(
    bytes: &[u8],
    want: impl FnOnce(u32, u32) -> (u16, u16),
) -> Option<(DynamicImage, (u32, u32))> {
    let mut d = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    d.read_info().ok()?;
    let info = d.info()?;
    let (w, h) = (u32::from(info.width), u32::from(info.height));
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return None;
    }
    let (ww, wh) = want(w, h);
    d.scale(ww, wh).ok()?;
    let pixels = d.decode().ok()?;
    let info = d.info()?;
    let (sw, sh) = (u32::from(info.width), u32::from(info.height));
    let mut img = match info.pixel_format {
        jpeg_decoder::PixelFormat::RGB24 => {
            DynamicImage::ImageRgb8(image::RgbImage::from_raw(sw, sh, pixels)?)
        }
        jpeg_decoder::PixelFormat::L8 => {
            DynamicImage::ImageLuma8(image::GrayImage::from_raw(sw, sh, pixels)?)
        }
        _ => return None,
    };
    let orientation = crate::preview::exif_orientation(bytes).unwrap_or(Orientation::NoTransforms);
    img.apply_orientation(orientation);
    let swaps = matches!(
        orientation,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    );
    Some((img, if swaps { (h, w) } else { (w, h) }))
}
