//! `darkroom subject`: U²-Netp (Apache-2.0) through the same sessions, ladder and runtimes as
//! the face models — ONNX Runtime and tract find the same subject in every sample photo (mask
//! IoU ≥ 0.98) — and the astronaut's mask is hers.

use std::path::Path;

use crate::support::*;
use serde_json::Value;

const PHOTOS: &[&str] = &[
    "astronaut.png",
    "rocket.jpg",
    "chelsea.png",
    "coffee.png",
    "grace_hopper.jpg",
    "camera.png",
];

fn subjects(rt: Rt, masks: &Path) -> Value {
    let data = tempfile::tempdir().expect("tempdir");
    let mut cmd = darkroom_on(rt, data.path());
    cmd.args(["subject", "--json", "--models"])
        .arg(models())
        .arg("--masks")
        .arg(masks);
    cmd.args(PHOTOS.iter().map(|p| photo(p)));
    json(&run_ok(&mut cmd))
}

fn mask(path: &Path) -> image::GrayImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_luma8()
}

fn iou(a: &image::GrayImage, b: &image::GrayImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let (mut inter, mut union) = (0u64, 0u64);
    for (p, q) in a.pixels().zip(b.pixels()) {
        let (p, q) = (p[0] > 127, q[0] > 127);
        inter += u64::from(p && q);
        union += u64::from(p || q);
    }
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

#[test]
fn onnx_runtime_and_tract_find_the_same_subject() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ort_dir, tract_dir) = (dir.path().join("ort"), dir.path().join("tract"));
    let (ort, tract) = (subjects(Rt::Ort, &ort_dir), subjects(Rt::Tract, &tract_dir));
    assert_eq!(ort["runtime"]["kind"], "onnx_runtime");
    assert_eq!(tract["runtime"]["kind"], "tract");
    assert_eq!(ort["segmenter"], "u2netp");
    for (i, name) in PHOTOS.iter().enumerate() {
        let (a, b) = (&ort["images"][i], &tract["images"][i]);
        assert!(
            a.get("error").is_none() && b.get("error").is_none(),
            "{name}: {a} / {b}"
        );
        assert_eq!(a["subject"]["segmenter"], "u2netp", "{name}: {a}");
        let file = |d: &Path| {
            d.join(format!(
                "{}.subject.png",
                name.split('.').next().unwrap_or(name)
            ))
        };
        let overlap = iou(&mask(&file(&ort_dir)), &mask(&file(&tract_dir)));
        assert!(
            overlap >= 0.98,
            "{name}: ONNX Runtime and tract masks IoU {overlap:.4}"
        );
    }
    // The astronaut: a subject over half the frame; the rocket: a sliver.
    let coverage = |i: usize| {
        ort["images"][i]["subject"]["coverage"]
            .as_f64()
            .expect("coverage")
    };
    assert!(
        (0.45..0.65).contains(&coverage(0)),
        "astronaut {}",
        coverage(0)
    );
    assert!(coverage(1) < 0.06, "rocket {}", coverage(1));
}

/// The blur series as a test of the ranking property, not of timing: on two portraits, focus
/// falls with every step of Gaussian and motion blur, the subject blurred alone is called
/// "subject soft", the eyes blurred alone "eyes soft", and neither original is called soft.
#[test]
fn the_blur_series_ranks_and_catches_what_was_blurred() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut cmd = darkroom_on(Rt::Ort, data.path());
    cmd.env("DARKROOM_MODELS", models())
        .args(["bench-focus", "--json"])
        .arg(photo("astronaut.png"))
        .arg(photo("grace_hopper.jpg"));
    let out = json(&run_ok(&mut cmd));
    for p in out["photos"].as_array().expect("photos") {
        let name = p["path"].as_str().expect("path");
        for series in ["gaussian_correlation", "motion_correlation"] {
            let rho = p[series].as_f64().expect("rho");
            assert!(rho >= 0.9, "{name}: {series} {rho}");
        }
        assert_eq!(p["subject_caught"], true, "{name}: {p}");
        assert_eq!(p["background_false_soft"], false, "{name}: {p}");
        assert_eq!(p["eyes_caught"], serde_json::json!([true]), "{name}: {p}");
        assert_eq!(p["original_soft"], false, "{name}: {p}");
    }
    assert_eq!(out["summary"]["bars_met"], true, "{}", out["summary"]);
}
