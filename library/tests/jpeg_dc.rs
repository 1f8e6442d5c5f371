//! The DC-only JPEG decoder against `jpeg-decoder` at the same 1/8 scale, on JPEGs coded every
//! way cameras and editors write them (scripts/make-jpeg-fixtures), on the real sample photos,
//! and on broken data (errors, never panics).

use std::path::{Path, PathBuf};

use darkroom_library::budget::{Budget, MAX_DECODE_TIME};
use darkroom_library::jpeg_dc;

mod common;
use common::{CODINGS, data, mean_difference};

/// jpeg-decoder's own 1/8 decode, as RGB.
fn reference(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut d = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
    d.read_info().expect("info");
    let info = d.info().expect("info");
    d.scale(info.width.div_ceil(8), info.height.div_ceil(8))
        .expect("scale");
    let px = d.decode().expect("decode");
    let info = d.info().expect("info");
    let rgb = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => px.iter().flat_map(|&l| [l, l, l]).collect(),
        jpeg_decoder::PixelFormat::RGB24 => px,
        other => panic!("unexpected {other:?}"),
    };
    (u32::from(info.width), u32::from(info.height), rgb)
}

/// Mean absolute difference per channel, in levels.
fn compare(bytes: &[u8]) -> f64 {
    let ours = jpeg_dc::decode(bytes, 1, &Budget::new(u64::MAX, MAX_DECODE_TIME))
        .expect("decodes")
        .expect("a kind it handles");
    let (w, h, theirs) = reference(bytes);
    mean_difference("1/8", &ours, (w, h, &theirs))
}

#[test]
fn matches_jpeg_decoder_at_one_eighth_on_every_coding() {
    // Baseline only: the DC decoder declines progressive files.
    for name in &CODINGS[..6] {
        let diff = compare(&data(name));
        // The same DC values; rounding and chroma upsampling differ by about a level.
        assert!(diff < 1.5, "{name}: mean difference {diff:.2} levels");
    }
}

#[test]
fn matches_jpeg_decoder_on_the_sample_photos() {
    let photos = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"))
        .join("photos");
    for name in [
        "grace_hopper.jpg",
        "rocket.jpg",
        "solvay_conference_1927.jpg",
    ] {
        let p = photos.join(name);
        let bytes = std::fs::read(&p)
            .unwrap_or_else(|e| panic!("{e}: {} (run scripts/fetch-assets)", p.display()));
        let diff = compare(&bytes);
        assert!(diff < 1.5, "{name}: mean difference {diff:.2} levels");
    }
}

#[test]
fn declines_what_it_does_not_decode() {
    assert_eq!(
        jpeg_dc::decode(
            &data("progressive.jpg"),
            1,
            &Budget::new(u64::MAX, MAX_DECODE_TIME)
        ),
        Ok(None),
        "progressive goes to the general decoder"
    );
    // 256×192 at 1/8 is 32 wide: too small for a 64 px thumbnail.
    assert_eq!(
        jpeg_dc::decode(
            &data("s420.jpg"),
            64,
            &Budget::new(u64::MAX, MAX_DECODE_TIME)
        ),
        Ok(None)
    );
    assert_eq!(
        jpeg_dc::decode(&data("s420.jpg"), 1, &Budget::new(1000, MAX_DECODE_TIME)),
        Ok(None),
        "pixel budget"
    );
    assert_eq!(
        jpeg_dc::decode(b"GIF89a", 1, &Budget::new(u64::MAX, MAX_DECODE_TIME)),
        Err(jpeg_dc::DcError::NotJpeg)
    );
}

#[test]
fn broken_data_is_an_error_not_a_panic() {
    let good = data("restart.jpg");
    // Cut anywhere: an error (or, cut inside trailing bytes, the picture).
    let scan_start = good
        .windows(2)
        .rposition(|w| w == [0xFF, 0xDA])
        .expect("SOS");
    for cut in (0..good.len()).step_by(37) {
        let r = jpeg_dc::decode(&good[..cut], 1, &Budget::new(u64::MAX, MAX_DECODE_TIME));
        if cut < scan_start + 300 {
            assert!(r.is_err(), "cut at {cut} of {}: {r:?}", good.len());
        }
    }
    // Flip bits all over: whatever comes back, nothing panics.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut bad = good.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state as usize) % bad.len();
            bad[at] ^= 1 << (state >> 60 & 7);
        }
        let _ = jpeg_dc::decode(&bad, 1, &Budget::new(u64::MAX, MAX_DECODE_TIME));
    }
}
