//! The session tuning on the real runtime: the probe's workers time every fixture model under
//! the grid, the choice is what its own timings rank first, jobs get it, it is read back
//! instead of measured again, and only what changed or was damaged is measured again.

use std::path::Path;
use std::time::Duration;

use darkroom_engine::ladder::backend::TuningState;
use darkroom_engine::ladder::device::CpuIdentity;
use darkroom_engine::ladder::tune::{self, TunedModel};
use darkroom_engine::{Backend, CardSet, ModelStore, Rung, tuning};

use crate::support::{in_process_runtime, live_config, models};

/// Start a backend, wait for its tuning, and return what it tuned (then stop it).
fn tuned(inference: &Path) -> (Vec<TunedModel>, Vec<String>) {
    let store = ModelStore::new(models(), CardSet::builtin().expect("cards"));
    let backend = Backend::start(
        in_process_runtime(),
        store,
        live_config(inference, vec![1, 2]),
    );
    assert!(
        backend.wait_tuned(Duration::from_secs(300)),
        "tuning did not finish: {:?}",
        backend.status().tuning_state
    );
    let status = backend.status();
    assert_eq!(status.serving, Rung::OrtCpu, "{}", status.line);
    assert_eq!(status.tuning_state, TuningState::Done);
    // A job pinned now opens every tuned model with what was chosen for it.
    let pin = backend.pin();
    for t in &status.tuning {
        assert_eq!(
            pin.placement(&t.key.model_id).session,
            Some(t.chosen),
            "{}",
            t.key.model_id
        );
    }
    (status.tuning, status.tuning_notes)
}

fn entry<'a>(all: &'a [TunedModel], model_id: &str) -> &'a TunedModel {
    all.iter()
        .find(|t| t.key.model_id == model_id)
        .unwrap_or_else(|| panic!("no tuning for {model_id}: {all:?}"))
}

#[test]
fn tuning_is_measured_cached_and_measured_again_only_where_stale() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inference = dir.path().join("inference");

    let (first, notes) = tuned(&inference);
    assert!(notes.is_empty(), "{notes:?}");
    let ids: Vec<&str> = first.iter().map(|t| t.key.model_id.as_str()).collect();
    for id in ["scrfd_2.5g", "fr_feature", "fr_feature_batched", "fr_eye"] {
        assert!(ids.contains(&id), "{id} not tuned: {ids:?}");
    }
    for t in &first {
        assert_eq!(t.error, None, "{}", t.key.model_id);
        // Three levels at 1 and 2 threads, every one timed.
        assert_eq!(t.measured.len(), 6, "{}", t.key.model_id);
        assert!(
            t.measured
                .iter()
                .all(|m| m.runs_ms.len() == tuning::TIMED_RUNS)
        );
        // What it chose is what its own recorded timings rank first.
        assert_eq!(tuning::choose(&t.measured), Some(t.chosen), "{t:?}");
        assert_eq!(t.key.cpu, CpuIdentity::query());
        assert_eq!(t.key.threads, vec![1, 2]);
    }

    // Started again: read back, not measured (measuring again would give other timings).
    let (second, notes) = tuned(&inference);
    assert_eq!(second, first);
    assert!(notes.is_empty(), "{notes:?}");

    // Another machine's entry, another model file's entry and a damaged entry are measured
    // again; the detector's sound entry is kept.
    let path = tune::path_in(&inference);
    let mut file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
    for m in file["models"].as_array_mut().expect("models") {
        match m["key"]["model_id"].as_str() {
            Some("fr_feature") => m["key"]["cpu"]["model"] = "Another CPU @ 5.0GHz".into(),
            Some("fr_feature_batched") => m["key"]["sha256"] = "00".repeat(32).into(),
            Some("fr_eye") => {
                // A choice its timings do not rank first.
                let slowest = m["measured"]
                    .as_array()
                    .expect("measured")
                    .iter()
                    .max_by(|a, b| {
                        a["median_ms"]
                            .as_f64()
                            .unwrap_or(0.0)
                            .total_cmp(&b["median_ms"].as_f64().unwrap_or(0.0))
                    })
                    .expect("timings")["settings"]
                    .clone();
                m["chosen"] = slowest;
            }
            _ => {}
        }
    }
    std::fs::write(&path, serde_json::to_vec(&file).expect("json")).expect("write");

    let (third, notes) = tuned(&inference);
    assert_eq!(entry(&third, "scrfd_2.5g"), entry(&first, "scrfd_2.5g"));
    for id in ["fr_feature", "fr_feature_batched", "fr_eye"] {
        let (before, after) = (entry(&first, id), entry(&third, id));
        assert_eq!(
            after.key, before.key,
            "{id}: measured for this machine's key"
        );
        assert_ne!(
            after.measured, before.measured,
            "{id} was not measured again"
        );
        assert_eq!(tuning::choose(&after.measured), Some(after.chosen));
    }
    assert!(
        notes.iter().any(|n| n.contains("fr_eye")),
        "the damaged entry is reported: {notes:?}"
    );
    // And the file is whole again.
    assert_eq!(tune::load(&inference).entries.len(), third.len());
}
