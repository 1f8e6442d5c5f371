//! The index job analyses a JPEG decoded at reduced size (shrunk in the DCT domain to the
//! work side), never at full resolution: it must find the faces a full decode finds, in the
//! same places, on the sample photos and on a 24 MP one made from them.

use std::path::Path;

use darkroom_engine::face::{FaceDetector, iou};
use darkroom_engine::{CardSet, ModelStore, Role, Sessions};
use darkroom_library::working;

use crate::support::{in_process_runtime, models, photo};

/// What the index job uses (`JobConfig::work_side`'s default).
const WORK_SIDE: u32 = 1440;

fn compare(det: &mut FaceDetector, path: &Path) -> usize {
    let work = working::load(path, WORK_SIDE).expect("working decode");
    let full = image::open(path).expect("full decode").into_rgb8();
    assert_eq!(work.full_size, full.dimensions(), "{}", path.display());
    let k = work.scale_to_full();
    let reduced = det.detect(&work.image).expect("detect reduced");
    let whole = det.detect(&full).expect("detect full");
    assert_eq!(
        reduced.len(),
        whole.len(),
        "{}: faces at {}x{} vs full size",
        path.display(),
        work.image.width(),
        work.image.height()
    );
    for (i, f) in reduced.iter().enumerate() {
        let bbox = f.bbox.map(|v| v * k);
        let best = whole
            .iter()
            .map(|w| iou(&bbox, &w.bbox))
            .fold(0.0f32, f32::max);
        assert!(best >= 0.95, "{} face {i}: IoU {best}", path.display());
    }
    reduced.len()
}

#[test]
fn the_reduced_decode_finds_the_faces_a_full_decode_finds() {
    let store = ModelStore::new(models(), CardSet::builtin().expect("cards"));
    let sessions = Sessions::new(in_process_runtime(), store, 1).expect("sessions");
    let mut det = FaceDetector::new(
        sessions
            .open("scrfd_2.5g", Role::Detector)
            .expect("detector"),
    )
    .expect("contract");
    let mut faces = 0;
    for name in [
        "solvay_conference_1927.jpg",
        "grace_hopper.jpg",
        "rocket.jpg",
    ] {
        faces += compare(&mut det, &photo(name));
    }
    // A camera-sized frame: Solvay at 6000x4342, where the work decode is a quarter scale.
    let dir = tempfile::tempdir().expect("tempdir");
    let big = dir.path().join("solvay_24mp.jpg");
    let solvay = image::open(photo("solvay_conference_1927.jpg"))
        .expect("photo")
        .into_rgb8();
    let up = image::imageops::resize(&solvay, 6000, 4342, image::imageops::FilterType::Triangle);
    let mut out = std::io::BufWriter::new(std::fs::File::create(&big).expect("create"));
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92)
        .encode_image(&up)
        .expect("encode");
    drop(out);
    let work = working::load(&big, WORK_SIDE).expect("decode");
    assert_eq!(work.image.width(), 1500, "a quarter-scale decode");
    faces += compare(&mut det, &big);
    assert!(faces >= 2 * 29, "{faces} faces compared");
}
