//! `darkroom probe --json`: which runtime the binary chose and why, on real libraries and on
//! each way a candidate can be wrong. Assumes no system-wide ONNX Runtime on the test machine
//! (CI has none), so every fault ends on tract.

use std::path::Path;

use crate::support::*;
use serde_json::Value;

fn probe(cmd: &mut std::process::Command) -> Value {
    json(&run_ok(cmd.args(["probe", "--json"])))
}

fn rejected_for<'a>(outcome: &'a Value, path: &Path) -> &'a Value {
    outcome["rejected"]
        .as_array()
        .expect("rejected list")
        .iter()
        .find(|r| r["path"].as_str() == Some(path.to_str().expect("utf-8 path")))
        .unwrap_or_else(|| panic!("{} not among rejected: {outcome:#}", path.display()))
}

#[test]
fn explicit_library_is_loaded_and_reported() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = probe(&mut darkroom_on(Rt::Ort, data.path()));
    assert_eq!(out["kind"], "onnx_runtime", "{out:#}");
    assert_eq!(out["version"], "1.31.1");
    assert_eq!(out["library"], ort_lib().to_str().expect("utf-8"));
    assert_eq!(out["library_source"], "explicit");
    assert_eq!(out["api_level"], 23);
}

#[test]
fn library_in_the_data_dir_is_found_without_configuration() {
    let data = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(data.path().join("runtime")).expect("mkdir");
    std::fs::copy(
        ort_lib(),
        data.path().join("runtime/libonnxruntime.so.1.31.1"),
    )
    .expect("copy");
    let out = probe(&mut darkroom(data.path()));
    assert_eq!(out["kind"], "onnx_runtime", "{out:#}");
    assert_eq!(out["library_source"], "data_dir");
}

#[test]
fn forced_tract_ignores_a_good_library() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut cmd = darkroom_on(Rt::Ort, data.path());
    cmd.env("DARKROOM_RUNTIME", "tract");
    let out = probe(&mut cmd);
    assert_eq!(out["kind"], "tract", "{out:#}");
    assert_eq!(out["forced_tract"], true);
}

#[test]
fn no_library_anywhere_falls_to_tract_saying_where_it_looked() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = probe(&mut darkroom(data.path()));
    assert_eq!(out["kind"], "tract", "{out:#}");
    let r = rejected_for(&out, &data.path().join("runtime/libonnxruntime.so"));
    assert_eq!(r["reason"]["kind"], "missing");
    assert_eq!(r["source"], "data_dir");
    let system = out["rejected"]
        .as_array()
        .expect("list")
        .iter()
        .filter(|r| r["source"] == "system")
        .count();
    assert_eq!(
        system, 2,
        "both bare names asked of the system loader: {out:#}"
    );
}

#[test]
fn text_file_named_like_the_library_is_not_a_library() {
    let data = tempfile::tempdir().expect("tempdir");
    let fake = data.path().join("runtime/libonnxruntime.so");
    std::fs::create_dir_all(fake.parent().expect("parent")).expect("mkdir");
    std::fs::write(&fake, "this is not a shared object\n").expect("write");
    let out = probe(&mut darkroom(data.path()));
    assert_eq!(out["kind"], "tract", "{out:#}");
    let r = rejected_for(&out, &fake);
    assert_eq!(r["reason"]["kind"], "not_a_library", "{r:#}");
}

#[test]
fn library_too_old_for_the_api_level_names_its_version() {
    let data = tempfile::tempdir().expect("tempdir");
    let old = data.path().join("runtime/libonnxruntime.so.1.22.1");
    std::fs::create_dir_all(old.parent().expect("parent")).expect("mkdir");
    std::fs::copy(old_ort_lib(), &old).expect("copy");
    let out = probe(&mut darkroom(data.path()));
    assert_eq!(out["kind"], "tract", "{out:#}");
    let r = rejected_for(&out, &old);
    assert_eq!(r["reason"]["kind"], "too_old", "{r:#}");
    assert_eq!(r["reason"]["found"], "1.22.1");
    assert_eq!(r["reason"]["required_api"], 23);
    assert!(r["message"].as_str().expect("message").contains("1.22.1"));
}

/// Arch's onnxruntime 1.23 runs the face pipeline: the same faces as on 1.31.
#[test]
fn arch_s_onnx_runtime_1_23_runs_the_detector() {
    let data = tempfile::tempdir().expect("tempdir");
    let faces = |lib: std::path::PathBuf| {
        let out = run_ok(
            darkroom(data.path())
                .env("DARKROOM_ORT_LIB", lib)
                .args(["faces", "--json", "--models"])
                .arg(models())
                .arg(photo("astronaut.png")),
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v
    };
    let arch = faces(arch_ort_lib());
    let current = faces(ort_lib());
    let runtime = |v: &serde_json::Value| v.to_string();
    assert!(runtime(&arch).contains("1.23.2"), "{arch:#}");
    let count = |v: &serde_json::Value| v.to_string().matches("\"score\"").count();
    assert!(count(&arch) >= 1, "{arch:#}");
    assert_eq!(count(&arch), count(&current), "{arch:#}\n{current:#}");
}

#[test]
fn explicit_garbage_is_named_loudly_then_the_search_goes_on() {
    let data = tempfile::tempdir().expect("tempdir");
    let garbage = data.path().join("garbage.so");
    std::fs::write(&garbage, [0u8, 1, 2, 3, 4, 5]).expect("write");
    std::fs::create_dir_all(data.path().join("runtime")).expect("mkdir");
    std::fs::copy(
        ort_lib(),
        data.path().join("runtime/libonnxruntime.so.1.31.1"),
    )
    .expect("copy");
    let out = darkroom(data.path())
        .env("DARKROOM_ORT_LIB", &garbage)
        .args(["probe", "--json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DARKROOM_ORT_LIB") && stderr.contains("garbage.so"),
        "{stderr}"
    );
    let outcome = json(&out);
    let r = &outcome["rejected"][0];
    assert_eq!(r["source"], "explicit");
    assert_eq!(r["path"], garbage.to_str().expect("utf-8"));
    assert_eq!(
        outcome["kind"], "onnx_runtime",
        "fell back to the data dir: {outcome:#}"
    );
}

#[test]
fn without_a_gpu_the_ladder_is_the_cpu_then_tract_and_says_what_it_asked() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = probe(darkroom_on(Rt::Ort, data.path()).env("DARKROOM_MODELS", models()));
    let ladder = &out["ladder"];
    assert_eq!(ladder["platform"], "no_nvidia", "{ladder:#}");
    assert_eq!(ladder["ladder"], serde_json::json!(["ort_cpu", "tract"]));
    assert_eq!(ladder["selected"], "ort_cpu");
    assert_eq!(ladder["line"], "CPU · ONNX Runtime 1.31.1");
    // The identity worker asked the (absent) CUDA driver: no GPU is an answer, not an error.
    assert_eq!(ladder["inputs"]["device"]["gpu"], Value::Null, "{ladder:#}");
    assert_eq!(ladder["inputs"]["device"]["gpu_error"], Value::Null);
    let models: Vec<&str> = ladder["inputs"]["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| m["model_id"].as_str().expect("id"))
        .collect();
    assert!(
        models.contains(&"scrfd_2.5g") && models.contains(&"fr_feature"),
        "{models:?}"
    );
    // The report waited for the session tuning: every model's chosen settings and the timings
    // behind them, on this machine's CPU.
    assert_eq!(ladder["tuning_state"]["state"], "done", "{ladder:#}");
    let tuned = ladder["tuning"].as_array().expect("tuning");
    assert_eq!(tuned.len(), models.len(), "{ladder:#}");
    for t in tuned {
        assert!(t["chosen"]["threads"].as_u64() >= Some(1), "{t:#}");
        assert!(!t["measured"].as_array().expect("measured").is_empty());
        assert_eq!(t["key"]["cpu"], ladder["inputs"]["device"]["cpu"]);
    }
    assert!(data.path().join("inference/session-tuning.json").is_file());
}

#[test]
fn on_tract_the_line_is_the_runtime_summary_and_nothing_is_probed() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = probe(darkroom_on(Rt::Tract, data.path()).env("DARKROOM_MODELS", models()));
    let ladder = &out["ladder"];
    assert_eq!(ladder["selected"], "tract", "{ladder:#}");
    assert_eq!(
        ladder["line"], "tract (forced by DARKROOM_RUNTIME=tract)",
        "{ladder:#}"
    );
    assert!(
        !data.path().join("inference/probe.json").exists(),
        "no cache for tract"
    );
    assert_eq!(ladder["tuning_state"]["state"], "not_needed");
    assert!(!data.path().join("inference/session-tuning.json").exists());
}
