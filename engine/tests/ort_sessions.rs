//! In process on ONNX Runtime: sessions honour the card's contract and the runtime is once per
//! process, so a later request for tract is refused with what is installed.

mod support;

use support::assets;

use darkroom_engine::face::FaceDetector;
use darkroom_engine::{
    CardSet, EngineError, ModelStore, Role, RuntimeKind, RuntimeSearch, Sessions, image_io, runtime,
};

#[test]
fn ort_sessions_then_tract_is_refused() {
    let outcome = runtime::install(&RuntimeSearch {
        explicit: Some(assets().join("runtime/libonnxruntime.so.1.31.1")),
        ..Default::default()
    });
    assert_eq!(outcome.kind, RuntimeKind::OnnxRuntime, "{outcome:?}");
    let store = || ModelStore::new(assets().join("models"), CardSet::builtin().expect("cards"));
    let sessions = Sessions::new(outcome, store(), 2).expect("sessions");
    let img = image_io::load_rgb(&assets().join("photos/astronaut.png")).expect("photo");
    let mut det = FaceDetector::new(
        sessions
            .open("scrfd_2.5g", Role::Detector)
            .expect("detector"),
    )
    .expect("contract");
    assert_eq!(det.detect(&img).expect("detect").len(), 1);

    let err = Sessions::tract(store()).expect_err("tract after ORT");
    assert!(matches!(err, EngineError::RuntimeMismatch { .. }), "{err}");
    assert!(err.to_string().contains("ONNX Runtime 1.31.1"), "{err}");
}

/// A card that claims a derived form with no release record behind it builds no session, even
/// with its file installed and verified; the released one does.
#[test]
fn a_derived_form_without_a_passing_record_is_refused() {
    let sessions = ort_sessions();
    sessions
        .open("scrfd_2.5g_i8", Role::Detector)
        .expect("the released int8 detector");
    let text = include_str!("../../assets/models.toml").replace(
        "form = \"scrfd_2.5g-i8-qdq\"",
        "form = \"scrfd_2.5g-i8-unreleased\"",
    );
    let cards = CardSet::parse(&text, "test").expect("cards");
    let store = ModelStore::new(assets().join("models"), cards);
    let unreleased = Sessions::new(sessions.runtime(), store, 1).expect("sessions");
    let Err(err) = unreleased.open("scrfd_2.5g_i8", Role::Detector) else {
        panic!("a session for a form with no release record");
    };
    assert!(matches!(err, EngineError::NotReleased { .. }), "{err}");
    assert!(err.to_string().contains("no release record"), "{err}");
}

const SAMPLE_PHOTOS: [&str; 4] = [
    "solvay_conference_1927.jpg",
    "astronaut.png",
    "grace_hopper.jpg",
    "newton.png",
];

fn ort_sessions() -> Sessions {
    let outcome = runtime::install(&RuntimeSearch {
        explicit: Some(assets().join("runtime/libonnxruntime.so.1.31.1")),
        ..Default::default()
    });
    assert_eq!(outcome.kind, RuntimeKind::OnnxRuntime, "{outcome:?}");
    let store = ModelStore::new(assets().join("models"), CardSet::builtin().expect("cards"));
    Sessions::new(outcome, store, 1).expect("sessions")
}

/// The tuning may pick any level for any model, and a level never changes a `model_id`: the
/// faces found and their embeddings are the same at every level, within the parity
/// tolerances, on the sample photos.
#[test]
fn optimisation_levels_agree_on_faces_and_embeddings() {
    use darkroom_engine::face::{FaceEmbedder, cosine, iou};
    use darkroom_engine::{OptLevel, SessionSettings};
    let sessions = ort_sessions();
    let at = |level| SessionSettings { level, threads: 1 };
    for name in SAMPLE_PHOTOS {
        let img = image_io::load_rgb(&assets().join("photos").join(name)).expect("photo");
        let mut found = Vec::new();
        let mut embedded = Vec::new();
        for level in OptLevel::MEASURED {
            let mut det = FaceDetector::new(
                sessions
                    .open_with("scrfd_2.5g", Role::Detector, at(level))
                    .expect("detector"),
            )
            .expect("contract");
            let mut emb = FaceEmbedder::new(
                sessions
                    .open_with("fr_feature", Role::Embedder, at(level))
                    .expect("embedder"),
            )
            .expect("contract");
            let faces = det.detect(&img).expect("detect");
            let lm: Vec<_> = faces.iter().map(|f| f.landmarks).collect();
            embedded.push(emb.embed_all(&img, &lm).expect("embed"));
            found.push(faces);
        }
        let (base, base_emb) = (&found[0], &embedded[0]);
        assert!(!base.is_empty(), "{name}: no faces");
        for (level, (faces, emb)) in OptLevel::MEASURED.iter().zip(found.iter().zip(&embedded)) {
            assert_eq!(faces.len(), base.len(), "{name} at {level}");
            for (i, (a, b)) in faces.iter().zip(base).enumerate() {
                assert!(
                    iou(&a.bbox, &b.bbox) >= 0.99,
                    "{name} face {i} at {level}: {:?} vs {:?}",
                    a.bbox,
                    b.bbox
                );
                let c = cosine(&emb[i], &base_emb[i]);
                assert!(c >= 0.999, "{name} face {i} at {level}: cosine {c}");
            }
        }
    }
}

/// A photo's faces embedded in one run (a model whose batch is free) are the faces embedded
/// one at a time, and the same as the fixed-batch model they were derived from.
#[test]
fn batched_embeddings_agree_with_single_face_runs() {
    use darkroom_engine::face::{FaceEmbedder, cosine};
    let sessions = ort_sessions();
    let open = |id: &str| {
        FaceEmbedder::new(sessions.open(id, Role::Embedder).expect("embedder")).expect("contract")
    };
    let mut batched = open("fr_feature_batched");
    let mut single = open("fr_feature");
    assert!(batched.batches(), "fr_feature_batched's batch is free");
    assert!(!single.batches(), "fr_feature's batch is 1");
    // One run of three samples gives three embeddings on the free-batch model and is refused,
    // in words, on the fixed one.
    let one: usize = 3 * 112 * 112;
    let three = vec![0.25f32; 3 * one];
    let mut free = sessions
        .open("fr_feature_batched", Role::Embedder)
        .expect("embedder");
    let out = free.run_batch(3, &three).expect("a batch of 3");
    assert_eq!(out[0].shape, vec![3, 512]);
    let mut fixed = sessions
        .open("fr_feature", Role::Embedder)
        .expect("embedder");
    let err = fixed.run_batch(3, &three).expect_err("batch 1 only");
    assert!(err.to_string().contains("one sample a run"), "{err}");
    let mut det = FaceDetector::new(
        sessions
            .open("scrfd_2.5g", Role::Detector)
            .expect("detector"),
    )
    .expect("contract");
    let mut compared = 0;
    for name in SAMPLE_PHOTOS {
        let img = image_io::load_rgb(&assets().join("photos").join(name)).expect("photo");
        let lm: Vec<_> = det
            .detect(&img)
            .expect("detect")
            .iter()
            .map(|f| f.landmarks)
            .collect();
        let together = batched.embed_all(&img, &lm).expect("batched");
        let fixed = single.embed_all(&img, &lm).expect("fixed batch");
        assert_eq!((together.len(), fixed.len()), (lm.len(), lm.len()));
        for (i, l) in lm.iter().enumerate() {
            let alone = batched.embed(&img, l).expect("one face");
            let c = cosine(&together[i], &alone);
            assert!(c >= 0.9999, "{name} face {i}: batched vs single {c}");
            let c = cosine(&together[i], &fixed[i]);
            assert!(c >= 0.9999, "{name} face {i}: derived vs original {c}");
            compared += 1;
        }
    }
    // Solvay alone has 29 faces: the batch path ran with many faces in one run.
    assert!(compared >= 30, "{compared} faces compared");
}
