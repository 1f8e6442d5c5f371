//! Decoding a photo for the models: the right way up, within memory limits, with errors that
//! name the file.

use std::path::Path;

use image::{DynamicImage, ImageDecoder, ImageReader, Limits, RgbImage};

use crate::error::EngineError;

/// The largest image the engine will decode (a 100 MP frame has room; a hostile header claiming
/// 100000x100000 does not).
const MAX_PIXELS: u64 = 200_000_000;

fn image_error(path: &Path, reason: impl std::fmt::Display) -> EngineError {
    EngineError::Image {
        reason: reason.to_string(),
        path: path.to_path_buf(),
    }
}

/// Decode `path` (format from its content, not its extension) and apply its EXIF orientation,
/// so detection sees the photo as the photographer framed it.
pub fn load_oriented(path: &Path) -> Result<DynamicImage, EngineError> {
    let mut reader = ImageReader::open(path)
        .map_err(|e| image_error(path, e))?
        .with_guessed_format()
        .map_err(|e| image_error(path, e))?;
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_PIXELS * 4);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(|e| image_error(path, e))?;
    let (w, h) = decoder.dimensions();
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(image_error(
            path,
            format!("{w}x{h} pixels is larger than the {MAX_PIXELS} pixel limit"),
        ));
    }
    // A broken EXIF block should not cost the photo: decode it upright-as-stored.
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(|e| image_error(path, e))?;
    img.apply_orientation(orientation);
    Ok(img)
}

/// As [`load_oriented`], as 8-bit RGB.
pub fn load_rgb(path: &Path) -> Result<RgbImage, EngineError> {
    Ok(load_oriented(path)?.into_rgb8())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_files_name_the_file_and_cause() {
        let dir = tempfile::tempdir().expect("tempdir");
        let empty = dir.path().join("empty.jpg");
        std::fs::write(&empty, b"").expect("write");
        let err = load_rgb(&empty).expect_err("empty file");
        assert!(err.to_string().ends_with("empty.jpg"), "{err}");

        let text = dir.path().join("notes.png");
        std::fs::write(&text, b"hello, not a picture").expect("write");
        let err = load_rgb(&text).expect_err("text file");
        assert!(err.to_string().ends_with("notes.png"), "{err}");

        let missing = dir.path().join("missing.jpg");
        let err = load_rgb(&missing).expect_err("missing file");
        assert!(err.to_string().ends_with("missing.jpg"), "{err}");
    }

    #[test]
    fn exif_orientation_is_applied() {
        // A 4x2 JPEG tagged "rotate 90 CW" must come out 2x4.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("rotated.jpg");
        let img = RgbImage::from_pixel(4, 2, image::Rgb([200, 10, 10]));
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
            .encode_image(&img)
            .expect("encode");
        // APP1 Exif, big-endian TIFF, one IFD entry: Orientation (0x0112) SHORT = 6.
        let tiff: Vec<u8> = [
            &b"MM\x00\x2a\x00\x00\x00\x08"[..],
            &[0x00, 0x01],
            &[
                0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00,
            ],
            &[0, 0, 0, 0],
        ]
        .concat();
        let mut app1 = b"Exif\x00\x00".to_vec();
        app1.extend_from_slice(&tiff);
        let len = (app1.len() + 2) as u16;
        let mut out = jpeg[..2].to_vec();
        out.extend_from_slice(&[0xFF, 0xE1]);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&app1);
        out.extend_from_slice(&jpeg[2..]);
        std::fs::write(&path, out).expect("write");
        let loaded = load_rgb(&path).expect("decode");
        assert_eq!(loaded.dimensions(), (2, 4));
    }
}
