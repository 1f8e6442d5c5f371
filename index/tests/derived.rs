//! What the index derives from pixels, on real photos: focus ranks blur, the perceptual hash
//! tells a burst from other scenes, bursts group and suggest the sharpest frame, EXIF capture
//! times order and split them.

use std::path::{Path, PathBuf};

use darkroom_index::{BurstRules, Frame, bursts, focus, phash};
use image::RgbImage;

fn photo(name: &str) -> RgbImage {
    let p = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"))
        .join("photos")
        .join(name);
    image::open(&p)
        .unwrap_or_else(|e| panic!("{e}: {} (run scripts/fetch-assets)", p.display()))
        .into_rgb8()
}

fn blur(img: &RgbImage, sigma: f32) -> RgbImage {
    if sigma == 0.0 {
        img.clone()
    } else {
        image::imageops::blur(img, sigma)
    }
}

/// `img` moved by (dx, dy) pixels, edges repeated: a hand-held burst frame.
fn shifted(img: &RgbImage, dx: i64, dy: i64) -> RgbImage {
    let (w, h) = img.dimensions();
    RgbImage::from_fn(w, h, |x, y| {
        let sx = (i64::from(x) - dx).clamp(0, i64::from(w) - 1) as u32;
        let sy = (i64::from(y) - dy).clamp(0, i64::from(h) - 1) as u32;
        *img.get_pixel(sx, sy)
    })
}

#[test]
fn focus_falls_strictly_as_blur_grows() {
    for name in ["grace_hopper.jpg", "astronaut.png", "rocket.jpg"] {
        let img = photo(name);
        let scores: Vec<f32> = [0.0, 0.8, 1.6, 3.2, 6.4]
            .iter()
            .map(|&s| focus::photo(&blur(&img, s)))
            .collect();
        assert!(scores.windows(2).all(|w| w[0] > w[1]), "{name}: {scores:?}");
        // A face box of the same photo ranks the same way.
        let faces: Vec<f32> = [0.0, 1.6, 6.4]
            .iter()
            .map(|&s| focus::face(&blur(&img, s), [100.0, 100.0, 300.0, 300.0]))
            .collect();
        assert!(faces.windows(2).all(|w| w[0] > w[1]), "{name}: {faces:?}");
    }
}

#[test]
fn focus_compares_across_resolutions() {
    // The same photo at two camera-like sizes scores about the same (the score is taken with
    // the long edge at focus::PHOTO_SIDE); a photo smaller than that is measured as it is.
    let img = photo("solvay_conference_1927.jpg");
    let (w, h) = img.dimensions();
    let half = image::imageops::resize(&img, w / 2, h / 2, image::imageops::FilterType::Lanczos3);
    let (a, b) = (focus::photo(&img), focus::photo(&half));
    assert!((a - b).abs() / a < 0.25, "{a} vs {b}");
}

#[test]
fn the_hash_tells_a_burst_from_other_scenes() {
    let base = photo("grace_hopper.jpg");
    let near = phash::hash(&blur(&shifted(&base, 6, -4), 1.0));
    let h = phash::hash(&base);
    assert!(
        phash::distance(h, near) <= 8,
        "{}",
        phash::distance(h, near)
    );
    for other in ["astronaut.png", "coffee.png", "rocket.jpg", "chelsea.png"] {
        let d = phash::distance(h, phash::hash(&photo(other)));
        assert!(d > 20, "{other}: {d}");
    }
}

fn frame(name: &str, img: &RgbImage, captured_at: Option<f64>) -> Frame {
    Frame {
        name: name.into(),
        captured_at,
        hash: phash::hash(img),
        sharpness: focus::photo(img),
        faces: 1,
        doing: Default::default(),
        af_sharpness: None,
    }
}

#[test]
fn bursts_group_near_frames_and_suggest_the_sharpest() {
    let grace = photo("grace_hopper.jpg");
    let rocket = photo("rocket.jpg");
    // Two bursts (names in shooting order) with an unrelated photo between and after.
    let frames = vec![
        frame("IMG_0001", &blur(&shifted(&grace, 0, 0), 2.0), None),
        frame("IMG_0002", &shifted(&grace, 5, 2), None),
        frame("IMG_0003", &blur(&shifted(&grace, -4, 3), 1.2), None),
        frame("IMG_0004", &photo("coffee.png"), None),
        frame("IMG_0005", &blur(&rocket, 1.5), None),
        frame("IMG_0006", &shifted(&rocket, 3, 3), None),
        frame("IMG_0007", &photo("chelsea.png"), None),
    ];
    let groups = bursts::group(&frames, &BurstRules::default());
    assert_eq!(groups, vec![vec![0, 1, 2], vec![4, 5]]);
    assert_eq!(
        bursts::suggest(&frames, &groups[0]),
        Some(1),
        "the unblurred frame"
    );
    assert_eq!(bursts::suggest(&frames, &groups[1]), Some(5));
    // A suggestion weighs closed eyes above sharpness.
    let mut blink = frames.clone();
    blink[1].doing.prominent = vec![0];
    blink[1].doing.blinking = vec![0];
    assert_eq!(bursts::suggest(&blink, &groups[0]), Some(2));
}

#[test]
fn capture_times_order_frames_and_a_long_gap_splits_a_burst() {
    let grace = photo("grace_hopper.jpg");
    // Named out of order; the camera's clock says otherwise. A 30 s pause splits the burst.
    let frames = vec![
        frame("b", &shifted(&grace, 2, 0), Some(100.25)),
        frame("a", &shifted(&grace, 0, 0), Some(100.0)),
        frame("c", &shifted(&grace, 4, 0), Some(100.5)),
        frame("d", &shifted(&grace, 6, 0), Some(130.5)),
        frame("e", &shifted(&grace, 8, 0), Some(131.0)),
    ];
    let groups = bursts::group(&frames, &BurstRules::default());
    assert_eq!(groups, vec![vec![1, 0, 2], vec![3, 4]]);
}
