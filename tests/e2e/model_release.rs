//! Model releases end to end: the release tool (`tools/release/release.py`, in its pinned venv)
//! builds every form of `assets/model-forms.toml` it can from the fixtures, reports the rest
//! as refused or blocked, and gates what it built with `darkroom parity` on the corpus's real
//! photographs; the int8 detector it makes is byte for byte the one its committed release
//! record names. The gate fails a detector calibrated without faces and one with other
//! weights, and fails closed on a missing, changed or uncounted photo and an absent model.
//! Indexing with the int8 detector writes its own model_id; the embedder stays f32.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::support::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The release tool's python, from the venv scripts/fetch-assets made (made here if absent,
/// once: the tests that need it run in parallel).
fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let downloads = assets().join("downloads");
            let out = run_ok(
                Command::new(repo().join("tools/release/venv"))
                    .arg(downloads.join("venv-release"))
                    .arg(&downloads),
            );
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        })
        .clone()
}

/// The tool with a clean environment: darkroom finds ONNX Runtime by DARKROOM_ORT_LIB, tract
/// when the tool asks for it.
fn release(data_dir: &Path) -> Command {
    let mut cmd = Command::new(python());
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("DARKROOM_") {
            cmd.env_remove(k);
        }
    }
    cmd.arg(repo().join("tools/release/release.py"))
        .env("DARKROOM_DATA_DIR", data_dir)
        .env("DARKROOM_ORT_LIB", ort_lib());
    cmd
}

struct Built {
    _dir: tempfile::TempDir,
    out: PathBuf,
    report: serde_json::Value,
}

/// One full build of every form, shared by the tests that read it.
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let run = release(dir.path())
            .arg("build")
            .arg("--models")
            .arg(models())
            .arg("--assets")
            .arg(assets())
            .arg("--darkroom")
            .arg(env!("CARGO_BIN_EXE_darkroom"))
            .arg("--out")
            .arg(&out)
            .output()
            .expect("release.py runs");
        assert!(
            run.status.success(),
            "release.py build ({}):\n{}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        let report =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
                .expect("report.json");
        Built {
            _dir: dir,
            out,
            report,
        }
    })
}

fn row<'a>(report: &'a serde_json::Value, form: &str) -> &'a serde_json::Value {
    report["forms"]
        .as_array()
        .expect("forms")
        .iter()
        .find(|r| r["form"] == form)
        .unwrap_or_else(|| panic!("{form} is not in the report: {report}"))
}

#[test]
fn the_release_tool_builds_every_form_it_can_and_reports_the_rest() {
    let b = built();
    for form in [
        "scrfd_2.5g-opset17",
        "scrfd_2.5g-i8-qdq",
        "fr_feature-opset17",
        "face_mesh-onnx",
        "iris_landmark-onnx",
        "dlib_resnet-onnx",
    ] {
        let r = row(&b.report, form);
        assert_eq!(r["status"], "built", "{r}");
        assert_eq!(r["verdict"], "pass", "{r}");
    }
    let refused = row(&b.report, "fr_feature-i8-qdq");
    assert_eq!(refused["status"], "refused", "{refused}");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap_or("")
            .contains("f32 on every rung"),
        "{refused}"
    );
    for form in ["scrfd_500m-opset17", "scrfd_500m-i8-qdq"] {
        let r = row(&b.report, form);
        assert_eq!(r["status"], "blocked", "{r}");
        assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
    }
    // Every descriptor is in the report: none dropped.
    let forms = std::fs::read_to_string(repo().join("assets/model-forms.toml")).expect("forms");
    let declared = forms.matches("[[form]]").count();
    assert_eq!(b.report["forms"].as_array().map(Vec::len), Some(declared));

    // The int8 detector is the one the committed record and the card name, byte for byte, and
    // so is its record's identity (same source, descriptor, tools, calibration set).
    let record: serde_json::Value = serde_json::from_slice(
        &std::fs::read(b.out.join("scrfd_2.5g-i8-qdq.record.json")).expect("record"),
    )
    .expect("record json");
    let releases = darkroom_engine::releases::ReleaseSet::builtin().expect("records");
    let committed = releases
        .for_form("scrfd_2.5g-i8-qdq")
        .expect("a committed record");
    assert_eq!(
        record["artifact"]["sha256"],
        committed.artifact.sha256.as_str()
    );
    assert_eq!(
        record["identity_sha256"],
        committed.identity_sha256.as_str()
    );
    let cards = darkroom_engine::CardSet::builtin().expect("cards");
    let card = cards.get("scrfd_2.5g_i8").expect("the int8 card");
    assert_eq!(
        card.sha256.as_deref(),
        Some(committed.artifact.sha256.as_str())
    );
    assert!(releases.passed(card));
    // Checked on both runtimes before it was declared built.
    assert_eq!(record["checks"]["onnxruntime"], "built", "{record}");
    assert_eq!(record["checks"]["tract"], "built", "{record}");

    // The gate's report has per-band numbers and the corpus they stand on.
    let parity: serde_json::Value = serde_json::from_slice(
        &std::fs::read(b.out.join("scrfd_2.5g-i8-qdq.parity.onnxruntime.json")).expect("parity"),
    )
    .expect("parity json");
    assert_eq!(parity["verdict"], "pass", "{}", parity["reasons"]);
    let bands = parity["summary"]["bands"]["input"]
        .as_array()
        .expect("bands");
    assert_eq!(bands.len(), 4);
    assert!(
        parity["summary"]["distinct_faces"].as_u64().unwrap_or(0) >= 40,
        "{}",
        parity["summary"]
    );
    // The opset-17 file makes the same detections on both runtimes.
    for runtime in ["onnxruntime", "tract"] {
        let p: serde_json::Value = serde_json::from_slice(
            &std::fs::read(
                b.out
                    .join(format!("scrfd_2.5g-opset17.parity.{runtime}.json")),
            )
            .expect("parity"),
        )
        .expect("json");
        assert_eq!(p["verdict"], "pass", "{runtime}: {}", p["reasons"]);
        assert!(
            p["runtime"]
                .as_str()
                .unwrap_or("")
                .to_lowercase()
                .contains(if runtime == "tract" {
                    "tract"
                } else {
                    "onnx runtime"
                }),
            "{p}"
        );
    }
}

/// The face mesh and the iris model, made ONNX from MediaPipe's TFLite files: the artifacts
/// are the bytes the cards pin, and on both runtimes every point of every crop of a real face
/// lies within the gate's bound of the TFLite interpreter's.
#[test]
fn the_tflite_forms_match_the_interpreter_on_real_faces_on_both_runtimes() {
    let b = built();
    let cards = darkroom_engine::CardSet::builtin().expect("cards");
    for (form, model_id) in [
        ("face_mesh-onnx", "face_mesh"),
        ("iris_landmark-onnx", "iris_landmark"),
    ] {
        let r = row(&b.report, form);
        assert_eq!(r["status"], "built", "{r}");
        assert_eq!(r["verdict"], "pass", "{r}");
        let card = cards.get(model_id).expect("card");
        assert_eq!(card.sha256.as_deref(), r["sha256"].as_str(), "{r}");
        let record: serde_json::Value = serde_json::from_slice(
            &std::fs::read(b.out.join(format!("{form}.record.json"))).expect("record"),
        )
        .expect("record json");
        for runtime in ["onnxruntime", "tract"] {
            let p = &record["parity"][runtime];
            assert_eq!(p["verdict"], "pass", "{form} on {runtime}: {p}");
            assert!(p["crops"].as_u64().unwrap_or(0) >= 12, "{form}: {p}");
            assert!(
                p["worst_point"].as_f64().unwrap_or(1.0) < 1e-4,
                "{form} on {runtime}: {p}"
            );
        }
    }
}

/// dlib's face recogniser made ONNX from its own file: the artifact is the bytes the card pins,
/// and on both runtimes each real face's descriptor is dlib's own (cosine to dlib itself).
#[test]
fn dlibs_recogniser_matches_dlib_on_real_faces_on_both_runtimes() {
    let b = built();
    let r = row(&b.report, "dlib_resnet-onnx");
    assert_eq!(r["status"], "built", "{r}");
    assert_eq!(r["verdict"], "pass", "{r}");
    let cards = darkroom_engine::CardSet::builtin().expect("cards");
    let card = cards.get("dlib_resnet").expect("card");
    assert_eq!(card.sha256.as_deref(), r["sha256"].as_str(), "{r}");
    let record: serde_json::Value = serde_json::from_slice(
        &std::fs::read(b.out.join("dlib_resnet-onnx.record.json")).expect("record"),
    )
    .expect("record json");
    for runtime in ["onnxruntime", "tract"] {
        let p = &record["parity"][runtime];
        assert_eq!(p["verdict"], "pass", "{runtime}: {p}");
        assert!(p["crops"].as_u64().unwrap_or(0) >= 12, "{p}");
        assert!(
            p["worst_cosine"].as_f64().unwrap_or(0.0) > 0.999_999,
            "{runtime}: {p}"
        );
        assert!(
            p["reference"]
                .as_str()
                .is_some_and(|r| r.starts_with("dlib ")),
            "{p}"
        );
    }
}

/// A gate whose reference runs in the release tool fails closed: `form`'s artifact with its
/// first weights (its first convolution's, in both forms here) scaled by 1.1 fails it, saying each of `why`; with no upstream
/// file (the reference's input) it does not run at all.
fn gate_fails_a_perturbed_form_and_a_missing_reference(form: &str, why: &[&str]) {
    let b = built();
    let dir = tempfile::tempdir().expect("tempdir");
    let perturbed = dir.path().join(format!("{form}-perturbed.onnx"));
    let made = Command::new(python())
        .args([
            "-c",
            "import sys, onnx, numpy as np\n\
             from onnx import numpy_helper\n\
             m = onnx.load(sys.argv[1])\n\
             w = m.graph.initializer[0]\n\
             w.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(w) * 1.1, w.name))\n\
             onnx.save(m, sys.argv[2])",
        ])
        .arg(b.out.join(format!("{form}.onnx")))
        .arg(&perturbed)
        .status()
        .expect("python");
    assert!(made.success());
    // The reference programs the build compiled (dlib's, named by their source's hash) serve
    // here too: compiled again they cost a core for 20 s.
    let out_dir = dir.path().join("gate");
    std::fs::create_dir_all(&out_dir).expect("mkdir");
    for entry in std::fs::read_dir(&b.out)
        .expect("the build's folder")
        .flatten()
    {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("dlib_reference-")
        {
            std::fs::copy(entry.path(), out_dir.join(entry.file_name())).expect("copy");
        }
    }
    let gate = |artifact: &Path, assets: &Path| {
        release(dir.path())
            .arg("gate")
            .arg(form)
            .arg("--artifact")
            .arg(artifact)
            .arg("--models")
            .arg(models())
            .arg("--assets")
            .arg(assets)
            .arg("--darkroom")
            .arg(env!("CARGO_BIN_EXE_darkroom"))
            .arg("--out")
            .arg(&out_dir)
            .output()
            .expect("release.py runs")
    };
    let out = gate(&perturbed, &assets());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("\"verdict\": \"fail\""), "{text}");
    for w in why {
        assert!(text.contains(w), "{w}: {text}");
    }
    // (The form as built passes it: its record's verdict, on both runtimes, in the tests
    // above.)
    // No upstream file where the form's source should be: blocked, never a pass.
    let bare = dir.path().join("bare-assets");
    std::fs::create_dir_all(&bare).expect("mkdir");
    let out = gate(&b.out.join(format!("{form}.onnx")), &bare);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the upstream file is not here"),
        "{out:?}"
    );
}

/// The landmarks gate fails a mesh whose weights moved (its points and its face logit).
#[test]
fn the_landmarks_gate_fails_a_perturbed_form_and_a_missing_reference() {
    gate_fails_a_perturbed_form_and_a_missing_reference(
        "face_mesh-onnx",
        &["of its crop's side from the reference", "an output"],
    );
}

/// The embedder-reference gate fails dlib's recogniser with moved weights (measured at a
/// cosine of 0.99948 to dlib: a fail by the descriptor alone).
#[test]
fn the_dlib_gate_fails_a_perturbed_form_and_a_missing_reference() {
    gate_fails_a_perturbed_form_and_a_missing_reference("dlib_resnet-onnx", &["to dlib's (bound"]);
}

/// `darkroom parity` of the int8 detector against the installed f32 one, on the corpus.
fn parity(
    dir: &Path,
    candidate: &Path,
    extra: &[&str],
    manifest: &Path,
    root: &Path,
) -> std::process::Output {
    let mut args = vec![
        "--reference".into(),
        "scrfd_2.5g".into(),
        "--candidate".into(),
    ];
    args.push(candidate.as_os_str().to_owned());
    args.extend(["--as".into(), "scrfd_2.5g_i8".into()]);
    args.extend(extra.iter().map(Into::into));
    parity_with(dir, &args, manifest, root)
}

/// `darkroom parity ARGS --manifest M --root R` on ONNX Runtime with the fixture models.
fn parity_with(
    dir: &Path,
    args: &[std::ffi::OsString],
    manifest: &Path,
    root: &Path,
) -> std::process::Output {
    darkroom_on(Rt::Ort, dir)
        .env("DARKROOM_MODELS", models())
        .arg("parity")
        .args(args)
        .arg("--manifest")
        .arg(manifest)
        .arg("--root")
        .arg(root)
        .output()
        .expect("darkroom runs")
}

fn manifest() -> PathBuf {
    repo().join("assets/corpus/faces.toml")
}

#[test]
fn a_detector_calibrated_without_faces_fails_the_gate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let run = release(dir.path())
        .args([
            "build",
            "--only",
            "scrfd_2.5g-i8-qdq",
            "--calibration",
            "corpus/no-faces.toml#calibration",
        ])
        .arg("--models")
        .arg(models())
        .arg("--assets")
        .arg(assets())
        .arg("--darkroom")
        .arg(env!("CARGO_BIN_EXE_darkroom"))
        .arg("--out")
        .arg(&out)
        .output()
        .expect("release.py runs");
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("json");
    let r = row(&report, "scrfd_2.5g-i8-qdq");
    assert_eq!(r["status"], "built", "{r}");
    assert_eq!(r["verdict"], "fail", "{r}");
    let p: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("scrfd_2.5g-i8-qdq.parity.onnxruntime.json")).expect("parity"),
    )
    .expect("json");
    assert!(
        p["summary"]["found_above_floor"].as_f64().unwrap_or(1.0) < 0.97,
        "{}",
        p["summary"]
    );
}

#[test]
fn a_candidate_with_other_weights_fails_the_gate_and_a_baseline_catches_a_regression() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The same architecture and contract, other weights.
    let other = dir.path().join("other.onnx");
    run_ok(
        Command::new(python())
            .arg(repo().join("tools/fixtures/other_weights.py"))
            .arg(assets().join("models/scrfd_2.5g.onnx"))
            .arg(&other),
    );
    let out = parity(dir.path(), &other, &["--json"], &manifest(), &assets());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    assert_eq!(report["verdict"], "fail");

    // The real int8 detector passes; against a baseline that found everything it regresses.
    let good = models().join("scrfd_2.5g_i8.onnx");
    let stored = dir.path().join("baseline.json");
    let out = parity(
        dir.path(),
        &good,
        &["--out", stored.to_str().expect("utf-8")],
        &manifest(),
        &assets(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let same = parity(
        dir.path(),
        &good,
        &["--baseline", stored.to_str().expect("utf-8")],
        &manifest(),
        &assets(),
    );
    assert!(
        same.status.success(),
        "no regression against itself: {}",
        String::from_utf8_lossy(&same.stdout)
    );
    // A candidate that finds fewer faces than the baseline did regresses against it. (Not a
    // baseline raised above the int8 detector: on a CPU with VNNI its integer kernels do not
    // saturate, and it finds every face the f32 model finds, leaving no recall to fall short of.)
    let worse = parity(
        dir.path(),
        &other,
        &["--baseline", stored.to_str().expect("utf-8")],
        &manifest(),
        &assets(),
    );
    assert_eq!(
        worse.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&worse.stdout)
    );
    assert!(
        String::from_utf8_lossy(&worse.stdout).contains("regression against the baseline"),
        "{}",
        String::from_utf8_lossy(&worse.stdout)
    );
}

/// A copy of the corpus (manifest and photos) that a test may break.
fn corpus_copy(dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join("root");
    let text = std::fs::read_to_string(manifest()).expect("manifest");
    for line in text.lines().filter_map(|l| l.strip_prefix("path = \"")) {
        let rel = line.trim_end_matches('"');
        let to = root.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(assets().join(rel), &to).expect("copy");
    }
    let m = dir.join("faces.toml");
    std::fs::write(&m, text).expect("write");
    (m, root)
}

fn fails_closed(out: &std::process::Output, cause: &str) {
    assert!(
        !out.status.success(),
        "must not pass: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(cause), "expected {cause:?} in:\n{err}");
}

#[test]
fn the_gate_fails_closed_on_missing_changed_or_uncounted_photos_and_absent_models() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = models().join("scrfd_2.5g_i8.onnx");

    let (m, root) = corpus_copy(&dir.path().join("missing"));
    std::fs::remove_file(root.join("corpus/insightface/t1.jpg")).expect("rm");
    fails_closed(
        &parity(dir.path(), &good, &[], &m, &root),
        "a manifest photo is missing",
    );

    let (m, root) = corpus_copy(&dir.path().join("changed"));
    let photo = root.join("corpus/face-api/sample4.jpg");
    let mut bytes = std::fs::read(&photo).expect("read");
    let last = bytes.len() - 3;
    bytes[last] ^= 1;
    std::fs::write(&photo, bytes).expect("write");
    fails_closed(
        &parity(dir.path(), &good, &[], &m, &root),
        "differ from its sha256",
    );

    let (m, root) = corpus_copy(&dir.path().join("short"));
    let text = std::fs::read_to_string(&m).expect("read");
    let cut = text.rfind("[[photo]]").expect("a photo");
    std::fs::write(&m, &text[..cut]).expect("write");
    fails_closed(&parity(dir.path(), &good, &[], &m, &root), "declares");

    let absent = dir.path().join("absent.onnx");
    fails_closed(
        &parity(dir.path(), &absent, &[], &manifest(), &assets()),
        "absent.onnx",
    );
    let os = |v: &[&str]| -> Vec<std::ffi::OsString> { v.iter().map(Into::into).collect() };
    let not_installed = parity_with(
        dir.path(),
        &os(&["--reference", "scrfd_10g", "--candidate", "scrfd_2.5g_i8"]),
        &manifest(),
        &assets(),
    );
    fails_closed(&not_installed, "not installed");
    // A corpus with no faces at all gives nothing to gate on.
    let none = parity_with(
        dir.path(),
        &os(&[
            "--reference",
            "scrfd_2.5g",
            "--candidate",
            "scrfd_2.5g_i8",
            "--set",
            "calibration",
        ]),
        &repo().join("assets/corpus/no-faces.toml"),
        &assets(),
    );
    fails_closed(&none, "no faces");
}

#[test]
fn indexing_with_the_int8_detector_writes_its_own_model_id_and_an_f32_embedder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for n in ["solvay_conference_1927.jpg", "astronaut.png"] {
        std::fs::copy(photo(n), folder.join(n)).expect("copy");
    }
    let out = run_ok(
        darkroom_on(Rt::Ort, dir.path())
            .env("DARKROOM_MODELS", models())
            .args([
                "index",
                "--json",
                "--detector",
                "scrfd_2.5g_i8",
                "--catalog",
            ])
            .arg(dir.path().join("catalog.sqlite"))
            .arg(&folder),
    );
    let report = json(&out);
    assert_eq!(report["model_ids"]["detector"], "scrfd_2.5g_i8", "{report}");
    let embedder = report["model_ids"]["embedder"]
        .as_str()
        .expect("an embedder");
    let cards = darkroom_engine::CardSet::builtin().expect("cards");
    assert_eq!(
        cards.get(embedder).expect("card").numeric_form,
        darkroom_engine::NumericForm::F32,
        "{embedder}"
    );
    let catalog = darkroom_catalog::Catalog::open(
        &dir.path().join("catalog.sqlite"),
        darkroom_catalog::SidecarNaming::default(),
    )
    .expect("catalog");
    let i = catalog
        .photo_index(&folder.join("solvay_conference_1927.jpg"))
        .expect("query")
        .expect("indexed");
    assert_eq!(i.stamp.detector, "scrfd_2.5g_i8");
    assert_eq!(i.stamp.embedder.as_deref(), Some(embedder));
    assert!(i.faces.len() >= 20, "{}", i.faces.len());
}
