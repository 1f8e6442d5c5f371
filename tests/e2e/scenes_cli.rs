//! Scenes, sets, misfires and the proposal's reasons on the synthetic shoot of known truth
//! (`darkroom bench-shoot`: real photos cut into a posed group, a burst, a bracket, a pan,
//! misfires and scenes seconds or an hour apart, each frame with a camera's EXIF), indexed by
//! the real `darkroom index` on ONNX Runtime, then read back by `darkroom propose`: scenes at
//! the default controls and at each control's extremes, no bracket or pan frame proposed for
//! rejection, every misfire found and said why, and a reason set aside taking exactly its
//! proposals with it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::support::*;

/// The shoot made and indexed once for the suite: its folder, catalog, truth and report.
struct Shoot {
    _dir: tempfile::TempDir,
    data: PathBuf,
    out: PathBuf,
    report: serde_json::Value,
    truth: serde_json::Value,
}

fn shoot() -> &'static Shoot {
    static SHOOT: OnceLock<Shoot> = OnceLock::new();
    SHOOT.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let out = dir.path().join("out");
        let report = json(&run_ok(
            darkroom_on(Rt::Ort, &data)
                .env("DARKROOM_MODELS", models())
                .args(["bench-shoot", "--json", "--photos"])
                .arg(assets().join("photos"))
                .arg("--out")
                .arg(&out),
        ));
        let truth = serde_json::from_slice(&std::fs::read(out.join("truth.json")).expect("truth"))
            .expect("truth.json");
        Shoot {
            _dir: dir,
            data,
            out,
            report,
            truth,
        }
    })
}

fn propose(s: &Shoot, args: &[&str]) -> serde_json::Value {
    json(&run_ok(
        darkroom_on(Rt::Ort, &s.data)
            .args(["propose", "--json", "--catalog"])
            .arg(s.out.join("catalog.sqlite"))
            .args(args)
            .arg(s.out.join("shoot")),
    ))
}

fn name(r: &serde_json::Value) -> String {
    Path::new(r["path"].as_str().expect("path"))
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a name")
        .to_owned()
}

/// The truth of the frame named so.
fn truth_of<'a>(s: &'a Shoot, file: &str) -> &'a serde_json::Value {
    s.truth
        .as_array()
        .expect("truth")
        .iter()
        .find(|t| t["file"] == file)
        .unwrap_or_else(|| panic!("{file} is not in the truth"))
}

fn scene_ids(report: &serde_json::Value) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (name(r), r["scene"]["id"].as_u64().expect("a scene")))
        .collect();
    out.sort();
    out
}

#[test]
fn the_shoot_scores_its_bars_at_the_default_controls() {
    let s = shoot();
    let r = &s.report;
    let frames = r["frames"].as_u64().expect("frames");
    for d in r["defaults"].as_array().expect("defaults") {
        assert_eq!(d["set_frames"], 6, "{d}");
        assert_eq!(
            d["set_frames_rejected"], 0,
            "no bracket or pan frame rejected: {d}"
        );
        assert_eq!(
            d["misfires_found"], d["misfires"],
            "every misfire found: {d}"
        );
        assert_eq!(d["brackets_found"], 1, "{d}");
        assert_eq!(d["pans_found"], 1, "{d}");
    }
    let balanced = &r["defaults"][1];
    assert_eq!(balanced["strictness"], "Balanced");
    assert!(balanced["ari"].as_f64().expect("ari") >= 0.9, "{balanced}");
    assert_eq!(balanced["false_misfires"], 0, "{balanced}");
    // The time-gap control at 0 gives every frame its own scene.
    let apart = &r["time_gap_sweep"][0];
    assert_eq!(apart["time_gap_s"], 0.0);
    assert_eq!(apart["scenes"], frames, "{apart}");
}

#[test]
fn scenes_follow_each_control_to_its_extremes() {
    let s = shoot();
    let defaults = propose(s, &[]);
    let frames = defaults["results"].as_array().expect("results").len();
    assert_eq!(frames as u64, s.report["frames"].as_u64().expect("frames"));
    // The defaults' scenes are the truth's, frame for frame (up to numbering).
    let found = scene_ids(&defaults);
    let truth: Vec<u64> = found
        .iter()
        .map(|(f, _)| truth_of(s, f)["scene"].as_u64().expect("scene"))
        .collect();
    let mut pairs_wrong = Vec::new();
    for i in 0..found.len() {
        for j in i + 1..found.len() {
            if (found[i].1 == found[j].1) != (truth[i] == truth[j]) {
                pairs_wrong.push((&found[i].0, &found[j].0));
            }
        }
    }
    let all_pairs = frames * (frames - 1) / 2;
    assert!(
        pairs_wrong.len() * 20 <= all_pairs,
        "more than 5% of pairs grouped wrong: {pairs_wrong:?}"
    );

    let one = propose(s, &["--similarity", "0", "--time-gap", "3600"]);
    assert_eq!(one["scenes"], 1, "any look, an hour apart: one scene");
    let apart = propose(s, &["--time-gap", "0"]);
    assert_eq!(
        apart["scenes"], frames,
        "no time between frames: each its own"
    );
    // Alike only when the same picture: what still shares a scene is a set's frames, or a
    // misfire with the frame before it.
    let identical = propose(s, &["--similarity", "1"]);
    let results = identical["results"].as_array().expect("results");
    let mut by_time: Vec<&serde_json::Value> = results.iter().collect();
    by_time.sort_by_key(|r| name(r));
    for w in by_time.windows(2) {
        if w[0]["scene"]["id"] == w[1]["scene"]["id"] {
            let (a, b) = (truth_of(s, &name(w[0])), truth_of(s, &name(w[1])));
            let same_set = !a["set"].is_null() && a["set"] == b["set"];
            assert!(
                same_set || b["misfire"] == true,
                "{} and {} share a scene at similarity 1",
                name(w[0]),
                name(w[1])
            );
        }
    }
    assert!(
        identical["scenes"].as_u64().expect("scenes")
            > defaults["scenes"].as_u64().expect("scenes")
    );
    let bad = run_err(
        darkroom_on(Rt::Ort, &s.data)
            .args(["propose", "--similarity", "1.5", "--catalog"])
            .arg(s.out.join("catalog.sqlite"))
            .arg(s.out.join("shoot")),
    );
    assert!(bad.contains("--similarity 1.5"), "{bad}");
}

#[test]
fn each_proposal_carries_its_reasons_and_refining_takes_exactly_its_own() {
    let s = shoot();
    let all = propose(s, &[]);
    let results = all["results"].as_array().expect("results");
    let mut kinds_seen = std::collections::BTreeSet::new();
    for r in results {
        let t = truth_of(s, &name(r));
        let p = &r["proposed"];
        if !t["set"].is_null() {
            assert_eq!(p["flag"], "pick", "{r}");
            let words = p["reasons"][0]["words"].as_str().expect("words");
            assert!(
                words.starts_with("kept: ") && words.contains(" set "),
                "{words}"
            );
        }
        if t["misfire"] == true {
            assert_eq!(p["flag"], "reject", "{r}");
            let reason = &p["reasons"][0];
            assert_eq!(reason["kind"], "misfire", "{r}");
            assert!(
                reason["words"]
                    .as_str()
                    .is_some_and(|w| w.starts_with("misfire: ")),
                "{reason}"
            );
        }
        for reason in p["reasons"].as_array().into_iter().flatten() {
            kinds_seen.insert(reason["refine"].as_str().expect("refine").to_owned());
            assert!(!reason["words"].as_str().expect("words").is_empty());
        }
    }
    // A burst's others say where they stand among the alike and in which scene.
    let alike = results
        .iter()
        .flat_map(|r| r["proposed"]["reasons"].as_array().into_iter().flatten())
        .find(|reason| reason["kind"] == "burst_other")
        .expect("a burst's other frame");
    let words = alike["words"].as_str().expect("words");
    assert!(words.contains(" alike in scene "), "{words}");

    for kind in &kinds_seen {
        let refined = propose(s, &["--without", kind]);
        for (before, after) in results
            .iter()
            .zip(refined["results"].as_array().expect("results"))
        {
            assert_eq!(before["path"], after["path"]);
            let kept: Vec<&serde_json::Value> = before["proposed"]["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|r| r["refine"] != kind.as_str())
                .collect();
            let left: Vec<&serde_json::Value> = after["proposed"]["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .collect();
            assert!(
                left.iter().all(|r| r["refine"] != kind.as_str()),
                "--without {kind}: {}",
                name(before)
            );
            // A frame's own reason set aside lets it compete in its burst: its burst role
            // (and its burst's) is chosen again. Every other reason stays exactly.
            let burst_role = |r: &&&serde_json::Value| {
                matches!(
                    r["kind"].as_str(),
                    Some("burst_keeper" | "burst_other" | "best_of_failed_burst")
                )
            };
            if ["alike", "keeper", "set"].contains(&kind.as_str()) {
                assert_eq!(left, kept, "--without {kind}: {}", name(before));
                assert_eq!(after["proposed"].is_null(), kept.is_empty());
            } else {
                let own = |v: &[&serde_json::Value]| -> Vec<serde_json::Value> {
                    v.iter()
                        .filter(|r| !burst_role(r))
                        .map(|r| (*r).clone())
                        .collect()
                };
                assert_eq!(own(&left), own(&kept), "--without {kind}: {}", name(before));
            }
        }
        assert_eq!(refined["rules"]["without"][0], kind.as_str());
    }
    assert!(
        kinds_seen.contains("misfire") && kinds_seen.contains("set"),
        "{kinds_seen:?}"
    );
    let bad = run_err(
        darkroom_on(Rt::Ort, &s.data)
            .args(["propose", "--without", "smiles", "--catalog"])
            .arg(s.out.join("catalog.sqlite"))
            .arg(s.out.join("shoot")),
    );
    assert!(bad.contains("no such reason: smiles"), "{bad}");
}

/// The user's scene model, imported as the card asks, runs in the index job: every photo gets
/// the classes the fixture's logits encode and the tags they make, in `index --json`; a second
/// run skips them all; the model removed, the next run measures again and the tags go.
#[test]
fn an_imported_scene_model_tags_every_photo_and_its_removal_measures_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = dir.path().join("models");
    std::fs::create_dir_all(&m).expect("mkdir");
    for f in ["scrfd_2.5g.onnx", "fr_feature.onnx", "fr_eye.onnx"] {
        std::fs::copy(models().join(f), m.join(f)).expect("copy");
    }
    let data = dir.path().join("data");
    run_ok(
        darkroom_on(Rt::Ort, &data)
            .args(["models", "import"])
            .arg(assets().join("fixtures/ade20k_scene.onnx"))
            .args(["--as", "ade20k_scene", "--models"])
            .arg(&m),
    );
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for n in ["astronaut.png", "coffee.png"] {
        std::fs::copy(photo(n), folder.join(n)).expect("copy");
    }
    let index = || {
        json(&run_ok(
            darkroom_on(Rt::Ort, &data)
                .env("DARKROOM_MODELS", &m)
                .args(["index", "--json", "--catalog"])
                .arg(dir.path().join("catalog.sqlite"))
                .arg(&folder),
        ))
    };
    let report = index();
    assert_eq!(report["model_ids"]["scene"], "ade20k_scene", "{report}");
    assert_eq!(report["indexed"], 2);
    let want_classes = serde_json::json!([
        ["sky", 0.375],
        ["person", 0.21875],
        ["building", 0.1875],
        ["tree", 0.109375],
        ["water", 0.109375]
    ]);
    let want_tags = serde_json::json!([
        ["sky", 0.375],
        ["person", 0.21875],
        ["building", 0.1875],
        ["water", 0.109375],
        ["vegetation", 0.109375]
    ]);
    for r in report["results"].as_array().expect("results") {
        assert_eq!(r["scene_classes"], want_classes, "{}", name(r));
        assert_eq!(r["tags"], want_tags, "{}", name(r));
    }
    let again = index();
    assert_eq!(again["skipped"], 2, "same file, same models: {again}");

    std::fs::remove_file(m.join("ade20k-scene.onnx")).expect("remove the scene model");
    let without = index();
    assert_eq!(without["remeasured"], 2, "{without}");
    assert!(without["model_ids"]["scene"].is_null());
    for r in without["results"].as_array().expect("results") {
        assert_eq!(r["tags"], serde_json::json!([]), "{}", name(r));
    }
}
