//! `darkroom faces`: real SCRFD and embedder on real photos, on ONNX Runtime and on tract, and
//! the parity gate between them (fails closed: a face missing on either side fails).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::*;
use serde_json::Value;

const PHOTOS: &[&str] = &[
    "solvay_conference_1927.jpg",
    "newton.png",
    "gauss.png",
    "astronaut.png",
    "camera.png",
    "grace_hopper.jpg",
    "coffee.png",
    "rocket.jpg",
    "chelsea.png",
];

/// One `faces --json --embed` run over every sample photo per runtime, shared by the tests.
fn report(rt: Rt) -> &'static Value {
    static ORT: OnceLock<Value> = OnceLock::new();
    static TRACT: OnceLock<Value> = OnceLock::new();
    let cell = match rt {
        Rt::Ort => &ORT,
        Rt::Tract => &TRACT,
    };
    cell.get_or_init(|| {
        let data = tempfile::tempdir().expect("tempdir");
        let mut cmd = darkroom_on(rt, data.path());
        cmd.args(["faces", "--json", "--embed", "--models"])
            .arg(models());
        cmd.args(PHOTOS.iter().map(|p| photo(p)));
        let out = json(&run_ok(&mut cmd));
        let expected = match rt {
            Rt::Ort => "onnx_runtime",
            Rt::Tract => "tract",
        };
        assert_eq!(out["runtime"]["kind"], expected, "ran on the wrong runtime");
        out
    })
}

fn faces<'a>(report: &'a Value, name: &str) -> &'a Vec<Value> {
    report["images"]
        .as_array()
        .expect("images")
        .iter()
        .find(|i| i["path"].as_str().is_some_and(|p| p.ends_with(name)))
        .and_then(|i| {
            assert!(i.get("error").is_none(), "{name}: {}", i["error"]);
            i["faces"].as_array()
        })
        .unwrap_or_else(|| panic!("{name} missing from report"))
}

fn bbox(face: &Value) -> [f64; 4] {
    let b = face["box"].as_array().expect("box");
    [0, 1, 2, 3].map(|i| b[i].as_f64().expect("number"))
}

fn embedding(face: &Value) -> Vec<f64> {
    face["embedding"]
        .as_array()
        .expect("embedding")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect()
}

fn iou(a: [f64; 4], b: [f64; 4]) -> f64 {
    let iw = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let ih = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = iw * ih;
    let area = |r: [f64; 4]| (r[2] - r[0]) * (r[3] - r[1]);
    inter / (area(a) + area(b) - inter)
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

/// The truth boxes the scrfd package tests itself against, read from its truth_faces.py.
fn truth_box(name: &str) -> [f64; 4] {
    let path: PathBuf = assets().join("truth/truth_faces.py");
    let text = std::fs::read_to_string(&path).expect("truth_faces.py");
    let start = text
        .find(&format!("\"{name}\""))
        .expect("photo in truth file");
    let rest = &text[start..];
    let point = |key: &str| -> [f64; 2] {
        let at = rest.find(key).expect("point key") + key.len();
        let s = &rest[at..];
        let num = |tag: &str| -> f64 {
            let i = s.find(tag).expect("coordinate") + tag.len();
            let end = s[i..].find([',', ')']).expect("end of number");
            s[i..i + end].trim().parse().expect("number")
        };
        [num("x="), num("y=")]
    };
    let ul = point("upper_left=Point(");
    let lr = point("lower_right=Point(");
    [ul[0], ul[1], lr[0], lr[1]]
}

fn check_counts(rt: Rt) {
    let r = report(rt);
    let n = faces(r, "solvay_conference_1927.jpg").len();
    assert!(
        (28..=30).contains(&n),
        "{rt:?}: Solvay 1927 has 29 faces, found {n}"
    );
    for name in ["coffee.png", "rocket.jpg", "chelsea.png"] {
        assert_eq!(faces(r, name).len(), 0, "{rt:?}: {name} has no faces");
    }
    for name in ["newton.png", "gauss.png"] {
        let found = faces(r, name);
        assert_eq!(found.len(), 1, "{rt:?}: {name} has one face");
        let (got, want) = (bbox(&found[0]), truth_box(name));
        for i in 0..4 {
            assert!(
                (got[i] - want[i]).abs() <= 8.0,
                "{rt:?}: {name} box {got:?} vs truth {want:?}"
            );
        }
    }
    assert_eq!(r["model_ids"]["detector"], "scrfd_2.5g");
    assert_eq!(r["model_ids"]["embedder"], "fr_feature");
}

#[test]
fn sample_photos_on_onnx_runtime() {
    check_counts(Rt::Ort);
}

#[test]
fn sample_photos_on_tract() {
    check_counts(Rt::Tract);
}

#[test]
fn tract_and_onnx_runtime_agree_on_every_face() {
    let (ort, tract) = (report(Rt::Ort), report(Rt::Tract));
    let mut matched = 0;
    for name in PHOTOS {
        let (a, b) = (faces(ort, name), faces(tract, name));
        assert_eq!(
            a.len(),
            b.len(),
            "{name}: face counts differ between runtimes"
        );
        for fa in a {
            let best = b
                .iter()
                .max_by(|x, y| iou(bbox(fa), bbox(x)).total_cmp(&iou(bbox(fa), bbox(y))))
                .expect("a face to match");
            let overlap = iou(bbox(fa), bbox(best));
            assert!(overlap >= 0.95, "{name}: box IoU {overlap:.3} < 0.95");
            let ds = (fa["score"].as_f64().expect("score")
                - best["score"].as_f64().expect("score"))
            .abs();
            assert!(ds <= 0.01, "{name}: score differs by {ds:.4}");
            let cos = cosine(&embedding(fa), &embedding(best));
            assert!(cos >= 0.999, "{name}: embedding cosine {cos:.5} < 0.999");
            matched += 1;
        }
    }
    assert!(matched >= 33, "parity compared only {matched} faces");
}

/// A one-face photo, its horizontal flip and a JPEG quality 30 copy, embedded in one run.
#[test]
fn embeddings_survive_flip_and_jpeg_and_separate_people() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut variants: Vec<PathBuf> = Vec::new();
    for name in ["astronaut.png", "grace_hopper.jpg", "newton.png"] {
        let img = image::open(photo(name)).expect("decode").to_rgb8();
        let stem = Path::new(name)
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let flipped = dir.path().join(format!("{stem}-flip.png"));
        image::imageops::flip_horizontal(&img)
            .save(&flipped)
            .expect("save");
        let q30 = dir.path().join(format!("{stem}-q30.jpg"));
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 30)
            .encode_image(&img)
            .expect("encode");
        std::fs::write(&q30, bytes).expect("write");
        variants.extend([photo(name), flipped, q30]);
    }
    let mut cmd = darkroom_on(Rt::Ort, dir.path());
    cmd.args(["faces", "--json", "--embed", "--models"])
        .arg(models())
        .args(&variants);
    let out = json(&run_ok(&mut cmd));
    let images = out["images"].as_array().expect("images");
    let emb: Vec<Vec<f64>> = images
        .iter()
        .map(|i| {
            let f = i["faces"].as_array().expect("faces");
            assert_eq!(f.len(), 1, "{}: one face expected", i["path"]);
            embedding(&f[0])
        })
        .collect();
    for person in 0..3 {
        let base = &emb[person * 3];
        for v in 1..3 {
            let c = cosine(base, &emb[person * 3 + v]);
            assert!(
                c >= 0.8,
                "{}: same face cosine {c:.3} < 0.8",
                images[person * 3 + v]["path"]
            );
        }
        for other in 0..3 {
            if other != person {
                let c = cosine(base, &emb[other * 3]);
                assert!(c < 0.5, "different people at cosine {c:.3}");
            }
        }
    }
    // Different people across the sample set stay apart: the single-face photos against each
    // other and against all 29 people at Solvay.
    let r = report(Rt::Ort);
    let singles: Vec<Vec<f64>> = [
        "astronaut.png",
        "grace_hopper.jpg",
        "newton.png",
        "gauss.png",
        "camera.png",
    ]
    .iter()
    .map(|n| embedding(&faces(r, n)[0]))
    .collect();
    let solvay: Vec<Vec<f64>> = faces(r, "solvay_conference_1927.jpg")
        .iter()
        .map(embedding)
        .collect();
    for (i, a) in singles.iter().enumerate() {
        for b in singles.iter().skip(i + 1).chain(solvay.iter()) {
            let c = cosine(a, b);
            assert!(c < 0.5, "different people at cosine {c:.3}");
        }
    }
    // Within Solvay the faces are ~80 px in a 1927 print and the fixture embedder is weak
    // there: the Python reference oracle (shared/reference/run_embed.py) puts 5 of its 406
    // pairs above 0.5 (max 0.556) and the mean at 0.13. Hold the pipeline to the same.
    let mut pairs = Vec::new();
    for i in 0..solvay.len() {
        for j in i + 1..solvay.len() {
            pairs.push(cosine(&solvay[i], &solvay[j]));
        }
    }
    let mean = pairs.iter().sum::<f64>() / pairs.len() as f64;
    let above = pairs.iter().filter(|c| **c >= 0.5).count();
    let max = pairs.iter().copied().fold(f64::MIN, f64::max);
    assert!(
        mean < 0.2 && above <= 6 && max < 0.6,
        "Solvay impostors: mean {mean:.3}, {above} >= 0.5, max {max:.3}"
    );
}

#[test]
fn unreadable_image_is_an_entry_and_the_rest_still_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = dir.path().join("broken.jpg");
    std::fs::write(&broken, b"\xFF\xD8\xFF\xE0 truncated").expect("write");
    let mut cmd = darkroom_on(Rt::Ort, dir.path());
    cmd.args(["faces", "--json", "--models"])
        .arg(models())
        .arg(&broken)
        .arg(photo("astronaut.png"));
    let out = json(&run_ok(&mut cmd));
    let images = out["images"].as_array().expect("images");
    assert!(
        images[0]["error"]
            .as_str()
            .expect("error")
            .ends_with("broken.jpg")
    );
    assert_eq!(images[1]["faces"].as_array().expect("faces").len(), 1);

    let mut all_bad = darkroom_on(Rt::Ort, dir.path());
    all_bad
        .args(["faces", "--json", "--models"])
        .arg(models())
        .arg(&broken)
        .arg(dir.path().join("absent.png"));
    let out = all_bad.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "all images failed: non-zero exit"
    );
    assert_eq!(json(&out)["images"].as_array().expect("images").len(), 2);
}
