//! Decoding a photo for the models: the right way up, within memory limits, with errors that
//! name the file.

use std::path::Path;

use image::{DynamicImage, RgbImage};

use crate::error::EngineError;

/// Decode `path` (format from its content, not its extension) within the library's pixel
/// budget and apply its EXIF orientation, so detection sees the photo as it was framed.
pub fn load_oriented(path: &Path) -> Result<DynamicImage, EngineError> {
    darkroom_library::decode::load_oriented(path).map_err(|e| match e {
        darkroom_library::LibraryError::Image { reason, path }
        | darkroom_library::LibraryError::Io { reason, path, .. } => {
            EngineError::Image { reason, path }
        }
    })
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
