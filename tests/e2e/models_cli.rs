//! Model files are hash-addressed and contract-checked: `darkroom models import` and the faults
//! a model file can have, through the real binary on the real ONNX Runtime.

use std::path::Path;

use crate::support::*;

fn fail_message(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().expect("runs");
    assert!(!out.status.success(), "{cmd:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn models_copy(dir: &Path) -> std::path::PathBuf {
    let m = dir.join("models");
    std::fs::create_dir_all(&m).expect("mkdir");
    for f in ["scrfd_2.5g.onnx", "fr_feature.onnx", "fr_eye.onnx"] {
        std::fs::copy(models().join(f), m.join(f)).expect("copy");
    }
    m
}

#[test]
fn a_model_whose_bytes_differ_from_its_card_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = models_copy(dir.path());
    let mut bytes = std::fs::read(m.join("scrfd_2.5g.onnx")).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(m.join("scrfd_2.5g.onnx"), &bytes).expect("write");
    let msg = fail_message(
        darkroom_on(Rt::Ort, dir.path())
            .args(["faces", "--models"])
            .arg(&m)
            .arg(photo("astronaut.png")),
    );
    assert!(msg.contains("sha256 mismatch"), "{msg}");
    assert!(
        msg.contains("expected 20b8a951fb1cf0afb32c3704ee3c08ee792ac90ebe2b4db79e7250e49ed2976c"),
        "{msg}"
    );
    assert!(msg.trim_end().ends_with("scrfd_2.5g.onnx"), "{msg}");
}

#[test]
fn a_truncated_model_is_refused_at_import_and_nothing_is_installed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = models_copy(dir.path());
    let bytes = std::fs::read(models().join("scrfd_2.5g.onnx")).expect("read");
    let truncated = dir.path().join("scrfd_500m_truncated.onnx");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).expect("write");
    let msg = fail_message(
        darkroom_on(Rt::Ort, dir.path())
            .args(["models", "import"])
            .arg(&truncated)
            .args(["--as", "scrfd_500m", "--models"])
            .arg(&m),
    );
    assert!(msg.contains("not a usable ONNX model"), "{msg}");
    assert!(
        msg.trim_end().ends_with("scrfd_500m_truncated.onnx"),
        "{msg}"
    );
    assert!(!m.join("scrfd_500m.onnx").exists());
    assert!(!m.join("local-cards.toml").exists());
}

#[test]
fn a_model_with_the_wrong_input_shape_for_its_role_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = models_copy(dir.path());
    // The 24x24 grey eye model offered as a 640x640 RGB detector.
    let msg = fail_message(
        darkroom_on(Rt::Ort, dir.path())
            .args(["models", "import"])
            .arg(models().join("fr_eye.onnx"))
            .args(["--as", "scrfd_10g", "--models"])
            .arg(&m),
    );
    assert!(msg.contains("does not fit its card"), "{msg}");
    assert!(
        msg.contains("[1, 1, 24, 24]") && msg.contains("[1, 3, 640, 640]"),
        "{msg}"
    );
    assert!(!m.join("scrfd_10g.onnx").exists());
}

#[test]
fn a_pinned_card_refuses_other_bytes_at_import() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = models_copy(dir.path());
    let msg = fail_message(
        darkroom_on(Rt::Ort, dir.path())
            .args(["models", "import"])
            .arg(models().join("fr_feature.onnx"))
            .args(["--as", "scrfd_2.5g", "--models"])
            .arg(&m),
    );
    assert!(msg.contains("sha256 mismatch"), "{msg}");
}

#[test]
fn an_imported_model_is_hash_addressed_and_serves_its_role() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = models_copy(dir.path());
    // fr_feature has the ArcFace contract (112x112 RGB in, 512 out): it stands in for the
    // w600k_mbf weights, which no registry here ships.
    run_ok(
        darkroom_on(Rt::Ort, dir.path())
            .args(["models", "import"])
            .arg(models().join("fr_feature.onnx"))
            .args(["--as", "w600k_mbf", "--models"])
            .arg(&m),
    );
    let local = std::fs::read_to_string(m.join("local-cards.toml")).expect("local cards");
    assert!(
        local.contains("87aacdfe57510db2af90c0251df680e8eec88f122ee94712121d09bcaaaf3581"),
        "{local}"
    );

    let list = json(&run_ok(
        darkroom(dir.path())
            .args(["models", "list", "--json", "--models"])
            .arg(&m),
    ));
    let row = list
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["model_id"] == "w600k_mbf")
        .expect("w600k_mbf row");
    assert_eq!(row["status"], "ok", "{row:#}");

    let out = json(&run_ok(
        darkroom_on(Rt::Ort, dir.path())
            .args([
                "faces",
                "--json",
                "--embed",
                "--embedder",
                "w600k_mbf",
                "--models",
            ])
            .arg(&m)
            .arg(photo("astronaut.png")),
    ));
    assert_eq!(out["model_ids"]["embedder"], "w600k_mbf");
    let emb = out["images"][0]["faces"][0]["embedding"]
        .as_array()
        .expect("embedding");
    assert_eq!(emb.len(), 512);

    // Changing the imported file's bytes afterwards is caught by the recorded hash.
    let mut bytes = std::fs::read(m.join("w600k_mbf.onnx")).expect("read");
    bytes[100] ^= 1;
    std::fs::write(m.join("w600k_mbf.onnx"), bytes).expect("write");
    let msg = fail_message(
        darkroom_on(Rt::Ort, dir.path())
            .args(["faces", "--embed", "--embedder", "w600k_mbf", "--models"])
            .arg(&m)
            .arg(photo("astronaut.png")),
    );
    assert!(msg.contains("sha256 mismatch"), "{msg}");
}

#[test]
fn an_embedder_is_never_opened_as_a_detector() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = models_copy(dir.path());
    let msg = fail_message(
        darkroom_on(Rt::Ort, dir.path())
            .args(["faces", "--detector", "fr_feature", "--models"])
            .arg(&m)
            .arg(photo("astronaut.png")),
    );
    assert!(
        msg.contains("has role embedder, asked for as detector"),
        "{msg}"
    );
}

#[test]
fn models_fetch_shows_the_licence_first_then_downloads_and_verifies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let eye = std::fs::read(models().join("fr_eye.onnx")).expect("fetched model");
    let server = crate::http::Server::start(std::collections::HashMap::from([(
        "/fr_eye.onnx".to_owned(),
        crate::http::Serve::Whole(eye.clone()),
    )]));
    let m = dir.path().join("models");
    let fetch = |accept: bool| {
        let mut cmd = darkroom(dir.path());
        cmd.args([
            "models",
            "fetch",
            "fr_eye",
            "--mirror",
            &server.base,
            "--models",
        ])
        .arg(&m);
        if accept {
            cmd.arg("--accept-licence");
        }
        cmd.output().expect("runs")
    };

    let out = fetch(false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("licence: unknown provenance: test fixture only")
            && stdout.contains("--accept-licence"),
        "{stdout}"
    );
    assert!(
        server.seen().is_empty(),
        "fetched before the licence was accepted"
    );

    let out = fetch(true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("fr_eye: installed (sha256 1afcea006abc)"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(m.join("fr_eye.onnx")).expect("installed"),
        eye
    );

    // A file that is then damaged on disk is quarantined by `models verify`.
    std::fs::write(m.join("fr_eye.onnx"), b"damaged").expect("damage");
    let out = run_ok(
        darkroom(dir.path())
            .args(["models", "verify", "--models"])
            .arg(&m),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("quarantined fr_eye"), "{stderr}");
    assert!(!m.join("fr_eye.onnx").exists());
    assert!(m.join("quarantine").read_dir().expect("quarantine").count() >= 2);
}
