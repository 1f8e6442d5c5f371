//! The backend inside one process, as the app holds it: the first request is answered at once
//! by the floor while a slow probe runs, requests move up as engines land, and a job pinned
//! before an engine landed keeps its rung. Workers are the real `darkroom` binary; the GPU is
//! the test-only simulated one.

use std::path::Path;
use std::time::Duration;

use crate::support::*;
use darkroom_engine::ladder::backend::Phase;
use darkroom_engine::ladder::fake::FakeGpu;
use darkroom_engine::ladder::{Launcher, Override, OverrideSource};
use darkroom_engine::{
    Backend, BackendConfig, CardSet, ModelStore, Role, Rung, RuntimeOutcome, Sessions,
};

fn ort() -> &'static RuntimeOutcome {
    in_process_runtime()
}

fn store() -> ModelStore {
    ModelStore::new(models(), CardSet::builtin().expect("cards"))
}

fn config(dir: &Path, fake: &str) -> BackendConfig {
    BackendConfig {
        inference_dir: dir.to_path_buf(),
        launcher: Launcher {
            program: env!("CARGO_BIN_EXE_darkroom").into(),
            prefix: vec!["ladder-worker".into()],
            env: vec![
                (
                    "DARKROOM_ORT_LIB".into(),
                    ort_lib().to_string_lossy().into_owned(),
                ),
                ("DARKROOM_FAKE_GPU".into(), fake.into()),
            ],
        },
        reprobe: false,
        forced: None,
        probe_limit: Duration::from_secs(60),
        engine_limit: Duration::from_secs(60),
        workspace_mb: 512,
        fake: Some(FakeGpu::parse(fake).expect("fake")),
        tune_threads: vec![1],
    }
}

const LONG: Duration = Duration::from_secs(120);

#[test]
fn the_first_request_is_answered_by_the_floor_while_a_slow_probe_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let backend = Backend::start(
        ort(),
        store(),
        config(dir.path(), "probe=fast;probe_ms=3000"),
    );
    // Straight after start: no waiting, the floor serves, the line says we are looking.
    let status = backend.status();
    assert_eq!(status.phase, Phase::Probing);
    assert_eq!(status.serving, Rung::OrtCpu);
    assert!(
        status.line.ends_with("looking for a faster backend"),
        "{}",
        status.line
    );
    let pin = backend.pin();
    assert!(
        pin.placements.values().all(|p| p.rung == Rung::OrtCpu),
        "{pin:#?}"
    );
    let sessions = Sessions::new(ort(), store(), 1).expect("sessions");
    let session = pin
        .open(&sessions, "scrfd_2.5g", Role::Detector)
        .expect("floor session");
    assert_eq!(session.rung(), Rung::OrtCpu);
    assert_eq!(
        backend.status().phase,
        Phase::Probing,
        "the probe was still running"
    );

    assert!(backend.wait_ready(LONG));
    assert_eq!(backend.status().selected, Some(Rung::SimulatedGpu));
}

#[test]
fn requests_move_up_as_engines_land_and_a_pinned_job_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let backend = Backend::start(
        ort(),
        store(),
        config(dir.path(), "probe=fast;compile_ms=1500"),
    );
    assert!(backend.wait_ready(LONG));
    let early = backend.pin();
    let sessions = Sessions::new(ort(), store(), 1).expect("sessions");

    // Watch the engines land one by one; each pin taken on the way puts exactly the landed
    // models on the GPU and the rest on the fallback.
    let mut seen = Vec::new();
    loop {
        let done = backend.wait_engines(Duration::from_millis(50));
        let pin = backend.pin();
        let status = backend.status();
        let landed: Vec<String> = status
            .engines
            .iter()
            .filter(|e| {
                matches!(
                    e.state,
                    darkroom_engine::ladder::backend::EngineState::Ready { .. }
                )
            })
            .map(|e| e.spec.model_id.clone())
            .collect();
        for e in &status.engines {
            let p = pin.placement(&e.spec.model_id);
            let on_gpu = p.rung == Rung::SimulatedGpu;
            // The pin and the status were read separately: an engine may land in between.
            if on_gpu {
                assert!(p.engine_dir.is_some(), "{p:?}");
            } else {
                assert_eq!(p.rung, Rung::OrtCpu, "the fallback (CUDA failed here)");
            }
        }
        if seen.last() != Some(&landed.len()) {
            seen.push(landed.len());
        }
        if done {
            break;
        }
    }
    assert_eq!(seen.last(), Some(&installed_models()), "{seen:?}");
    assert!(seen.len() >= 3, "engines landed one at a time: {seen:?}");

    // The early job still gets the fallback for everything it pinned there.
    let pinned_fallback: Vec<&String> = early
        .placements
        .iter()
        .filter(|(_, p)| p.rung == Rung::OrtCpu)
        .map(|(id, _)| id)
        .collect();
    assert!(
        pinned_fallback.iter().any(|id| *id == "scrfd_2.5g"),
        "{early:#?}"
    );
    let old = early
        .open(&sessions, "scrfd_2.5g", Role::Detector)
        .expect("session");
    assert_eq!(old.rung(), Rung::OrtCpu, "a running job does not switch");
    let new = backend
        .pin()
        .open(&sessions, "scrfd_2.5g", Role::Detector)
        .expect("session");
    assert_eq!(
        new.rung(),
        Rung::SimulatedGpu,
        "the next job sees the engine"
    );
    let embedder = backend
        .pin()
        .open(&sessions, "fr_feature", Role::Embedder)
        .expect("session");
    assert_eq!(
        embedder.placement.precision,
        darkroom_engine::Precision::F32
    );
    assert_eq!(
        backend.status().progress,
        None,
        "no progress row once engines are done"
    );
}

#[test]
fn an_override_pins_new_jobs_to_the_forced_rung() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cfg = config(dir.path(), "probe=fast;compile_ms=10");
    cfg.forced = Some(Override {
        rung: Rung::OrtCpu,
        source: OverrideSource::Setting,
    });
    let backend = Backend::start(ort(), store(), cfg);
    assert!(backend.wait_engines(LONG));
    let status = backend.status();
    assert_eq!(status.selected, Some(Rung::SimulatedGpu));
    assert_eq!(status.serving, Rung::OrtCpu);
    assert!(
        status.engines.is_empty(),
        "no engines for a rung the user turned off"
    );
    assert!(
        backend
            .pin()
            .placements
            .values()
            .all(|p| p.rung == Rung::OrtCpu)
    );
}

#[test]
fn an_index_job_keeps_its_backend_when_engines_land_mid_job() {
    use darkroom_catalog::{Catalog, SidecarNaming};
    use darkroom_engine::face::{FaceDetector, FaceEmbedder};
    use darkroom_index::{Control, Event, JobConfig, Models, Thresholds, job};

    let dir = tempfile::tempdir().expect("tempdir");
    let backend = Backend::start(
        ort(),
        store(),
        config(dir.path(), "probe=fast;compile_ms=1500"),
    );
    assert!(backend.wait_ready(LONG));
    let pin = backend.pin();
    assert!(
        pin.placements.values().all(|p| p.rung == Rung::OrtCpu),
        "no engine is ready yet: {pin:#?}"
    );
    let sessions = Sessions::new(ort(), store(), 1).expect("sessions");
    let mut models = Models {
        detector: FaceDetector::new(
            pin.open(&sessions, "scrfd_2.5g", Role::Detector)
                .expect("detector"),
        )
        .expect("contract"),
        embedder: Some(
            FaceEmbedder::new(
                pin.open(&sessions, "fr_feature", Role::Embedder)
                    .expect("embedder"),
            )
            .expect("contract"),
        ),
        eyes: None,
        mesh: None,
        segmenters: Default::default(),
        scene: None,
    };
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let photos: Vec<_> = [
        "astronaut.png",
        "grace_hopper.jpg",
        "newton.png",
        "gauss.png",
    ]
    .iter()
    .map(|n| {
        let to = folder.join(n);
        std::fs::copy(photo(n), &to).expect("copy");
        to
    })
    .collect();
    let mut catalog = Catalog::open(&dir.path().join("catalog.sqlite"), SidecarNaming::default())
        .expect("catalog");
    let config = JobConfig {
        photos: photos.clone(),
        backend: pin.line.clone(),
        decode_threads: 1,
        work_side: darkroom_index::job::WORK_SIDE,
        thresholds: Thresholds::default(),
    };
    let mut landed_mid_job = false;
    let summary = job::run(
        &config,
        &mut models,
        &mut catalog,
        &Control::default(),
        &mut |e| {
            if matches!(e, Event::Indexed { .. }) && !landed_mid_job {
                // After the first photo, let every engine land before the job goes on.
                landed_mid_job = backend.wait_engines(LONG);
            }
        },
    )
    .expect("job");
    assert!(landed_mid_job, "the engines landed during the job");
    assert_eq!(summary.indexed, photos.len());
    let now = backend.pin();
    assert!(
        now.placements
            .values()
            .any(|p| p.rung == Rung::SimulatedGpu),
        "a new job would run on the GPU: {now:#?}"
    );
    assert_ne!(now.line, pin.line);
    for p in &photos {
        let i = catalog.photo_index(p).expect("query").expect("indexed");
        assert_eq!(i.backend, pin.line, "{}", p.display());
    }
}
