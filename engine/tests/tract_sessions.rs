//! `Sessions::tract()` in process: the test-only constructor runs the real pipeline on tract,
//! and asking for tract once another runtime is installed is refused, not silently ignored.

mod support;

use support::assets;

use darkroom_engine::face::{FaceDetector, FaceEmbedder};
use darkroom_engine::{CardSet, ModelStore, Role, RuntimeKind, Sessions, image_io};

#[test]
fn tract_sessions_detect_and_embed_in_process() {
    let store = ModelStore::new(assets().join("models"), CardSet::builtin().expect("cards"));
    let sessions = Sessions::tract(store).expect("tract sessions");
    assert_eq!(sessions.runtime().kind, RuntimeKind::Tract);
    let img = image_io::load_rgb(&assets().join("photos/grace_hopper.jpg")).expect("photo");
    let mut det = FaceDetector::new(
        sessions
            .open("scrfd_2.5g", Role::Detector)
            .expect("detector"),
    )
    .expect("contract");
    let faces = det.detect(&img).expect("detect");
    assert_eq!(faces.len(), 1);
    let mut emb = FaceEmbedder::new(
        sessions
            .open("fr_feature", Role::Embedder)
            .expect("embedder"),
    )
    .expect("contract");
    let v = emb.embed(&img, &faces[0].landmarks).expect("embed");
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert_eq!(v.len(), 512);
    assert!((norm - 1.0).abs() < 1e-4, "unit length, got {norm}");

    // The runtime is once per process: a second Sessions shares it, and a later install
    // request keeps the runtime already chosen.
    let again = Sessions::tract(ModelStore::new(
        assets().join("models"),
        CardSet::builtin().expect("cards"),
    ));
    if let Err(e) = &again {
        panic!("tract again is the same runtime: {e}");
    }
    let other = darkroom_engine::runtime::install(&darkroom_engine::RuntimeSearch {
        explicit: Some(assets().join("runtime/libonnxruntime.so.1.31.1")),
        ..Default::default()
    });
    assert_eq!(
        other.kind,
        RuntimeKind::Tract,
        "the first installed runtime stays"
    );
}
