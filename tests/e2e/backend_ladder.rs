//! The backend ladder on the real CPU-only ONNX Runtime, with the test-only simulated GPU
//! (`fake-gpu` feature) standing in for the hardware these machines lack: probe outcomes and
//! their cache, background engines, job pins, the override, and workers that crash or hang.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::*;
use serde_json::Value;

/// `darkroom` on the real runtime with a simulated GPU configured by `fake`.
fn dr(data: &Path, fake: &str) -> Command {
    let mut cmd = darkroom_on(Rt::Ort, data);
    cmd.env("DARKROOM_MODELS", models());
    if !fake.is_empty() {
        cmd.env("DARKROOM_FAKE_GPU", fake);
    }
    cmd
}

fn probe(data: &Path, fake: &str, extra: &[&str]) -> Value {
    let out = run_ok(dr(data, fake).args(["probe", "--json"]).args(extra));
    json(&out)["ladder"].clone()
}

fn rung<'a>(ladder: &'a Value, name: &str) -> &'a Value {
    ladder["rungs"]
        .as_array()
        .expect("rungs")
        .iter()
        .find(|r| r["rung"] == name)
        .unwrap_or_else(|| panic!("no rung {name}: {ladder:#}"))
}

fn changed(ladder: &Value) -> Vec<String> {
    ladder["cache_miss"]["stale"]["changed"]
        .as_array()
        .unwrap_or_else(|| panic!("not a stale cache: {ladder:#}"))
        .iter()
        .map(|v| v.as_str().expect("name").to_owned())
        .collect()
}

const REAL_GPU_LADDER: &str = "device=Fake RTX 3050;probe=none";

#[test]
fn cpu_only_runtime_fails_gpu_rungs_in_its_own_words_and_the_cache_remembers() {
    let data = tempfile::tempdir().expect("tempdir");
    let first = probe(data.path(), REAL_GPU_LADDER, &[]);
    assert_eq!(first["platform"], "nvidia_gpu", "{first:#}");
    for (name, words) in [
        (
            "tensorrt",
            "TensorRT execution provider is not enabled in this build",
        ),
        (
            "cuda",
            "CUDA execution provider is not enabled in this build",
        ),
    ] {
        let r = rung(&first, name);
        assert_eq!(r["state"], "failed", "{r:#}");
        assert!(
            r["reason"].as_str().expect("reason").contains(words),
            "{r:#}"
        );
    }
    assert_eq!(rung(&first, "ort_cpu")["state"], "floor");
    assert!(
        rung(&first, "ort_cpu")["timing"]["median_ms"]
            .as_f64()
            .expect("median")
            > 0.0
    );
    assert_eq!(first["selected"], "ort_cpu");
    assert_eq!(first["serving"], "ort_cpu");
    assert_eq!(first["from_cache"], false);
    assert_eq!(first["cache_miss"], "absent");
    let line = first["line"].as_str().expect("line");
    assert!(
        line.starts_with("CPU · ONNX Runtime 1.31.1 · TensorRT probe failed: TensorRT execution provider is not enabled"),
        "{line}"
    );

    let second = probe(data.path(), REAL_GPU_LADDER, &[]);
    assert_eq!(second["from_cache"], true, "{second:#}");
    assert_eq!(
        second["rungs"], first["rungs"],
        "the cached failures, timings and all"
    );
    assert_eq!(second["line"], first["line"]);

    let again = probe(data.path(), REAL_GPU_LADDER, &["--reprobe"]);
    assert_eq!(again["from_cache"], false);
    assert_eq!(again["cache_miss"], "ignored");
}

#[test]
fn a_changed_model_runtime_or_device_reprobes() {
    let data = tempfile::tempdir().expect("tempdir");
    let models_copy = data.path().join("models");
    std::fs::create_dir_all(&models_copy).expect("mkdir");
    for f in ["scrfd_2.5g.onnx", "fr_eye.onnx"] {
        std::fs::copy(models().join(f), models_copy.join(f)).expect("copy model");
    }
    let lib_copy = data.path().join("libonnxruntime.so.1.31.1");
    std::fs::copy(ort_lib(), &lib_copy).expect("copy runtime");
    let run = |device: &str| {
        let out = run_ok(
            dr(data.path(), &format!("device={device};probe=none"))
                .env("DARKROOM_MODELS", &models_copy)
                .env("DARKROOM_ORT_LIB", &lib_copy)
                .args(["probe", "--json"]),
        );
        json(&out)["ladder"].clone()
    };
    assert_eq!(run("GPU A")["from_cache"], false);
    assert_eq!(run("GPU A")["from_cache"], true);

    // A model file's bytes.
    let mut bytes = std::fs::read(models_copy.join("fr_eye.onnx")).expect("read");
    bytes.push(0);
    std::fs::write(models_copy.join("fr_eye.onnx"), bytes).expect("write");
    let after_model = run("GPU A");
    assert_eq!(after_model["from_cache"], false);
    assert_eq!(changed(&after_model), ["models"]);
    assert_eq!(run("GPU A")["from_cache"], true);

    // The runtime library is replaced (an update keeps its name and changes its stamp).
    let f = std::fs::File::options()
        .write(true)
        .open(&lib_copy)
        .expect("open");
    f.set_modified(std::time::SystemTime::now() + Duration::from_secs(3600))
        .expect("set mtime");
    drop(f);
    let after_runtime = run("GPU A");
    assert_eq!(changed(&after_runtime), ["runtime"]);

    // Another GPU, or the same one after a driver update.
    let after_device = run("GPU B");
    assert!(
        changed(&after_device).contains(&"device".to_owned()),
        "{after_device:#}"
    );
    assert_eq!(run("GPU B")["from_cache"], true);
}

#[test]
fn a_corrupt_cache_file_means_probe_again() {
    let data = tempfile::tempdir().expect("tempdir");
    probe(data.path(), REAL_GPU_LADDER, &[]);
    let cache = data.path().join("inference/probe.json");
    std::fs::write(&cache, b"{\"format\": 1, \"inputs\": [tru").expect("corrupt");
    let out = probe(data.path(), REAL_GPU_LADDER, &[]);
    assert_eq!(out["from_cache"], false, "{out:#}");
    assert!(
        out["cache_miss"]["unreadable"]["reason"]
            .as_str()
            .expect("reason")
            .ends_with("probe.json"),
        "{out:#}"
    );
    assert_eq!(probe(data.path(), REAL_GPU_LADDER, &[])["from_cache"], true);
}

#[test]
fn a_gpu_that_beats_the_floor_is_selected_and_builds_engines_smallest_first() {
    let data = tempfile::tempdir().expect("tempdir");
    let out =
        run_ok(dr(data.path(), "probe=fast;compile_ms=300").args(["probe", "--json", "--engines"]));
    let ladder = json(&out)["ladder"].clone();
    assert_eq!(ladder["selected"], "simulated_gpu", "{ladder:#}");
    assert_eq!(rung(&ladder, "simulated_gpu")["state"], "selected");
    assert_eq!(
        ladder["fallback"], "ort_cpu",
        "CUDA failed, so the CPU serves while engines build"
    );
    let engines = ladder["engines"].as_array().expect("engines");
    // One engine per installed model.
    let models = installed_models();
    assert_eq!(engines.len(), models, "{ladder:#}");
    let sizes: Vec<u64> = engines
        .iter()
        .map(|e| e["size"].as_u64().expect("size"))
        .collect();
    assert!(
        sizes.windows(2).all(|w| w[0] <= w[1]),
        "smallest first: {sizes:?}"
    );
    // Built in that order, one at a time: each manifest is older than the next.
    let landed: Vec<std::time::SystemTime> = engines
        .iter()
        .map(|e| {
            assert_eq!(e["state"], "ready", "{e:#}");
            let dir = PathBuf::from(e["dir"].as_str().expect("dir"));
            std::fs::metadata(dir.join("engine.json"))
                .and_then(|m| m.modified())
                .expect("manifest")
        })
        .collect();
    assert!(landed.windows(2).all(|w| w[0] < w[1]), "{landed:?}");
    let precisions: Vec<(&str, &str)> = engines
        .iter()
        .map(|e| {
            (
                e["model_id"].as_str().expect("id"),
                e["precision"].as_str().expect("p"),
            )
        })
        .collect();
    assert!(
        precisions.contains(&("fr_feature", "f32")),
        "embedder stays f32: {precisions:?}"
    );
    assert!(
        precisions.contains(&("scrfd_2.5g", "fp16")),
        "{precisions:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("Preparing GPU engines · 0 of {models}")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "Preparing GPU engines · {} of {models}",
            models - 1
        )),
        "{stderr}"
    );
    // CUDA's failure is below the selected rung, so the line has nothing to explain.
    assert_eq!(ladder["line"], "Simulated GPU fp16 · ONNX Runtime 1.31.1");

    // A job now runs every model on the selected rung.
    let faces = json(&run_ok(
        dr(data.path(), "probe=fast;compile_ms=300")
            .args(["faces", "--json", "--embed"])
            .arg(photo("astronaut.png")),
    ));
    assert_eq!(
        faces["backend"]["detector"], "simulated_gpu",
        "{:#}",
        faces["backend"]
    );
    assert_eq!(faces["backend"]["embedder"], "simulated_gpu");
    assert_eq!(
        faces["images"][0]["faces"].as_array().expect("faces").len(),
        1
    );
}

#[test]
fn a_gpu_slower_than_the_floor_is_rejected_by_the_measurement() {
    let data = tempfile::tempdir().expect("tempdir");
    let ladder = probe(data.path(), "probe=slow", &[]);
    let sim = rung(&ladder, "simulated_gpu");
    assert_eq!(sim["state"], "slower", "{ladder:#}");
    assert!(
        sim["timing"]["median_ms"].as_f64().expect("median")
            >= rung(&ladder, "ort_cpu")["timing"]["median_ms"]
                .as_f64()
                .expect("floor")
    );
    assert_eq!(ladder["selected"], "ort_cpu");
    assert!(
        ladder["line"]
            .as_str()
            .expect("line")
            .contains("Simulated GPU slower than CPU")
    );
}

#[test]
fn failing_crashing_and_hanging_probes_are_recorded_once_and_the_app_carries_on() {
    // The hang is cut off after 3 s; the failure and the crash come back on their own, so
    // they get a limit no loaded machine reaches (a crash taken for a hang was seen on a busy
    // one).
    for (behaviour, state, words, limit) in [
        ("fail", "failed", "the driver is in a wedged state", "120"),
        ("crash", "crashed", "killed by signal 6 (SIGABRT)", "120"),
        ("hang", "timed_out", "timed out after 3 s", "3"),
    ] {
        let data = tempfile::tempdir().expect("tempdir");
        let fake = format!("probe={behaviour}");
        let run = || {
            json(&run_ok(
                dr(data.path(), &fake)
                    .env("DARKROOM_PROBE_TIMEOUT_S", limit)
                    .args(["probe", "--json"]),
            ))["ladder"]
                .clone()
        };
        let ladder = run();
        let sim = rung(&ladder, "simulated_gpu");
        assert_eq!(sim["state"], state, "{behaviour}: {ladder:#}");
        assert!(
            sim["reason"].as_str().expect("reason").contains(words),
            "{sim:#}"
        );
        assert_eq!(ladder["selected"], "ort_cpu", "{behaviour}");
        assert_eq!(rung(&ladder, "ort_cpu")["state"], "floor", "{behaviour}");
        // Not retried while nothing changed: the second start reads the failure, and leaves
        // the record as it was (a probe run again would write its own), so a cached hang is
        // not waited for again — told by the record, not by a clock a busy machine races.
        let record = data.path().join("inference/probe.json");
        let before = std::fs::read(&record).expect("the probe's record");
        let cached = run();
        assert_eq!(cached["from_cache"], true, "{behaviour}");
        assert_eq!(rung(&cached, "simulated_gpu")["state"], state);
        assert_eq!(
            std::fs::read(&record).expect("the probe's record"),
            before,
            "{behaviour}: probed again"
        );
    }
}

#[test]
fn a_failed_engine_build_demotes_the_rung_and_is_cached() {
    let data = tempfile::tempdir().expect("tempdir");
    let fake = "probe=fast;compile_ms=100;compile_fail=scrfd_2.5g";
    let ladder = json(&run_ok(dr(data.path(), fake).args([
        "probe",
        "--json",
        "--engines",
    ])))["ladder"]
        .clone();
    assert_eq!(ladder["selected"], "simulated_gpu");
    assert_eq!(ladder["serving"], "ort_cpu", "{ladder:#}");
    let demoted = ladder["demoted"].as_str().expect("demoted");
    assert!(
        demoted.contains("scrfd_2.5g") && demoted.contains("unsupported layer"),
        "{demoted}"
    );
    assert!(
        ladder["line"]
            .as_str()
            .expect("line")
            .contains("engine build failed")
    );

    let again = probe(data.path(), fake, &[]);
    assert_eq!(again["from_cache"], true);
    assert_eq!(again["serving"], "ort_cpu");
    assert_eq!(
        again["engines"].as_array().expect("engines").len(),
        0,
        "no rebuild: {again:#}"
    );
}

#[cfg(unix)]
#[test]
fn a_builder_killed_mid_write_leaves_nothing_that_loads() {
    use std::os::unix::process::CommandExt;
    let data = tempfile::tempdir().expect("tempdir");
    let fake = "probe=fast;compile_ms=6000";
    let mut builder = dr(data.path(), fake)
        .args(["probe", "--engines"])
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn builder");
    let engines = data.path().join("inference/engines");
    let deadline = Instant::now() + Duration::from_secs(60);
    let partial = loop {
        let found = std::fs::read_dir(&engines)
            .into_iter()
            .flatten()
            .flatten()
            .find_map(|e| {
                let f = e.path().join("simulated.engine");
                let name = e.file_name().to_string_lossy().into_owned();
                (name.contains(".tmp-") && std::fs::metadata(&f).is_ok_and(|m| m.len() > 4096))
                    .then_some(e.path())
            });
        if let Some(p) = found {
            break p;
        }
        assert!(Instant::now() < deadline, "no engine started building");
        std::thread::sleep(Duration::from_millis(20));
    };
    let pgid = builder.id().to_string();
    let killed = Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pgid}")])
        .status()
        .expect("kill");
    assert!(killed.success());
    let _ = builder.wait();
    let listing: Vec<_> = std::fs::read_dir(&engines)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        partial.exists(),
        "the half-written engine is still on disk: {} {listing:?}",
        partial.display()
    );

    // Nothing finished: the next job loads every model on the fallback.
    let faces = json(&run_ok(
        dr(data.path(), fake)
            .args(["faces", "--json"])
            .arg(photo("astronaut.png")),
    ));
    assert_eq!(
        faces["backend"]["detector"], "ort_cpu",
        "{:#}",
        faces["backend"]
    );
    let ready = std::fs::read_dir(&engines)
        .expect("engines dir")
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(ready, 0, "no engine directory was moved into place");
}

#[test]
fn the_override_forces_a_lower_rung_and_refuses_a_higher_one() {
    let data = tempfile::tempdir().expect("tempdir");
    let fake = "probe=fast;compile_ms=50";
    run_ok(dr(data.path(), fake).args(["probe", "--engines"]));
    let detector = |cmd: &mut Command| {
        json(&run_ok(
            cmd.args(["faces", "--json"]).arg(photo("astronaut.png")),
        ))["backend"]
            .clone()
    };
    assert_eq!(
        detector(&mut dr(data.path(), fake))["detector"],
        "simulated_gpu"
    );

    let forced = detector(dr(data.path(), fake).env("DARKROOM_BACKEND", "cpu"));
    assert_eq!(forced["detector"], "ort_cpu");
    assert!(
        forced["line"]
            .as_str()
            .expect("line")
            .starts_with("CPU (forced)"),
        "{forced:#}"
    );

    run_ok(dr(data.path(), fake).args(["backend", "force", "cpu"]));
    assert_eq!(
        detector(&mut dr(data.path(), fake))["detector"],
        "ort_cpu",
        "persisted"
    );
    let status = probe(data.path(), fake, &[]);
    assert_eq!(status["forced"]["source"], "setting");

    // CUDA failed its probe here, so it cannot be forced; the note says why.
    let refused = json(&run_ok(
        dr(data.path(), fake)
            .env("DARKROOM_BACKEND", "cuda")
            .args(["probe", "--json"]),
    ))["ladder"]
        .clone();
    assert_eq!(refused["serving"], "simulated_gpu");
    assert!(
        refused["forced_note"]
            .as_str()
            .expect("note")
            .contains("not enabled in this build"),
        "{refused:#}"
    );

    run_ok(dr(data.path(), fake).args(["backend", "auto"]));
    assert_eq!(
        detector(&mut dr(data.path(), fake))["detector"],
        "simulated_gpu"
    );

    let tract = json(&run_ok(
        dr(data.path(), fake)
            .env("DARKROOM_BACKEND", "tract")
            .args(["probe", "--json"]),
    ));
    assert_eq!(
        tract["kind"], "tract",
        "a tract override starts the process on tract"
    );

    let bad = dr(data.path(), fake)
        .env("DARKROOM_BACKEND", "vulkan")
        .args(["probe"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("DARKROOM_BACKEND") && stderr.contains("vulkan"),
        "{stderr}"
    );
}
