//! Eye state on real faces: every eye of the sample photos' faces is open; the same eyes with
//! the lid drawn over them (the crop filled with the skin just below the eye, which is what a
//! closed lid shows) are closed. Runs on ONNX Runtime, in a process of its own.

mod support;

use darkroom_engine::face::{EYE_CROP_SIDE, EyeClassifier, EyeState, FaceDetector, eye_distance};
use darkroom_engine::{
    CardSet, ModelStore, Role, RuntimeKind, RuntimeSearch, Sessions, image_io, runtime,
};
use support::assets;

/// The eye crop with the lid closed: rows above and through the eye repainted with the
/// skin colour measured under the eye.
fn close_lid(crop: &mut image::RgbImage) {
    let (w, h) = crop.dimensions();
    let below: Vec<[u8; 3]> = (0..w).map(|x| crop.get_pixel(x, h - 2).0).collect();
    let skin = [0, 1, 2].map(|c| {
        let mut v: Vec<u8> = below.iter().map(|p| p[c]).collect();
        v.sort_unstable();
        v[v.len() / 2]
    });
    for y in 0..h * 3 / 4 {
        for x in 0..w {
            crop.put_pixel(x, y, image::Rgb(skin));
        }
    }
    // The lash line a closed eye shows.
    for x in w / 6..w * 5 / 6 {
        crop.put_pixel(x, h / 2, image::Rgb(skin.map(|v| v / 3)));
    }
}

#[test]
fn sample_eyes_are_open_and_lid_covered_eyes_closed() {
    let outcome = runtime::install(&RuntimeSearch {
        explicit: Some(assets().join("runtime/libonnxruntime.so.1.31.1")),
        ..Default::default()
    });
    assert_eq!(outcome.kind, RuntimeKind::OnnxRuntime, "{outcome:?}");
    let cards = CardSet::builtin().expect("cards");
    let classes = cards
        .classes(cards.get("fr_eye").expect("card"))
        .expect("classes");
    let sessions = Sessions::new(outcome, ModelStore::new(assets().join("models"), cards), 2)
        .expect("sessions");
    let mut det = FaceDetector::new(
        sessions
            .open("scrfd_2.5g", Role::Detector)
            .expect("detector"),
    )
    .expect("detector contract");
    let mut eyes = EyeClassifier::new(
        sessions.open("fr_eye", Role::EyeState).expect("eye model"),
        &classes,
    )
    .expect("eye contract");
    let mut readings = |photo: &str| {
        let img = image_io::load_rgb(&assets().join("photos").join(photo)).expect("photo");
        let mut out = Vec::new();
        for face in det.detect(&img).expect("detect") {
            let side = eye_distance(&face.landmarks) * EYE_CROP_SIDE;
            for centre in [face.landmarks[0], face.landmarks[1]] {
                let crop = eyes.crop(&img, centre, side);
                let reading = eyes.classify(&crop).expect("classify");
                let mut lid = crop.clone();
                close_lid(&mut lid);
                let shut = eyes.classify(&lid).expect("classify");
                out.push((reading, shut));
            }
        }
        out
    };
    // Portraits looking at the camera: every eye open, every lid-covered copy closed.
    let mut total = 0;
    for photo in [
        "astronaut.png",
        "grace_hopper.jpg",
        "newton.png",
        "gauss.png",
    ] {
        for (reading, shut) in readings(photo) {
            total += 1;
            assert_eq!(reading.state, EyeState::Open, "{photo}: {reading:?}");
            assert_eq!(shut.state, EyeState::Closed, "{photo}, lid drawn: {shut:?}");
        }
    }
    assert_eq!(total, 8, "four faces, two eyes each");
    // The known closed case: the cameraman's eye pressed to the viewfinder is shut (and
    // hidden by the camera); his other eye squints along it.
    let camera = readings("camera.png");
    assert_eq!(camera.len(), 2);
    let at_viewfinder = camera
        .iter()
        .map(|(r, _)| *r)
        .min_by(|a, b| a.p_open.total_cmp(&b.p_open))
        .expect("two eyes");
    assert_eq!(at_viewfinder.state, EyeState::Closed, "{at_viewfinder:?}");
}
