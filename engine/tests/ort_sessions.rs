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
