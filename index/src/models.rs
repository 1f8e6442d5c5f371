//! Which installed models a job runs, and opening them all from one pin: what the CLI's
//! `index`, `faces` and benches and the window's index job share.

use std::path::PathBuf;

use darkroom_engine::cards::OutputContract;
use darkroom_engine::face::{
    ExpressionReader, EyeClassifier, FaceDetector, FaceEmbedder, FaceMesh, IrisModel,
};
use darkroom_engine::scene::SceneParser;
use darkroom_engine::subject::{InstanceSegmenter, SalientSegmenter};
use darkroom_engine::{EngineError, JobPin, ModelStore, Role, Sessions};

use crate::job::Models;
use crate::subject::Segmenters;

/// The detector a job uses when none is named (the "Balanced" tier).
pub const DEFAULT_DETECTOR: &str = "scrfd_2.5g";
/// The embedder a job uses when none is named.
pub const DEFAULT_EMBEDDER: &str = "w600k_mbf";

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("no {role} model installed in {}", dir.display())]
    NoModel { role: Role, dir: PathBuf },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// The preferred installed model for a role: the named one, else `preferred` if present, else
/// the first card of that role whose file is present.
pub fn pick_model(
    store: &ModelStore,
    role: Role,
    named: Option<String>,
    preferred: &str,
) -> Result<String, OpenError> {
    if let Some(id) = named {
        return Ok(id);
    }
    let cards = store.cards();
    if let Ok(card) = cards.get(preferred)
        && store.is_present(card)
    {
        return Ok(preferred.to_owned());
    }
    cards
        .by_role(role)
        .find(|c| store.is_present(c))
        .map(|c| c.model_id())
        .ok_or_else(|| OpenError::NoModel {
            role,
            dir: store.dir().to_path_buf(),
        })
}

/// The job's sessions, all from one pin: the named or preferred detector, an embedder and an
/// eye-state model where installed (without them: no people, no eyes, never faked).
pub fn open_models(
    sessions: &Sessions,
    pin: &JobPin,
    detector: Option<String>,
    embedder: Option<String>,
) -> Result<Models, OpenError> {
    let store = sessions.store();
    let detector_id = pick_model(store, Role::Detector, detector, DEFAULT_DETECTOR)?;
    let detector = FaceDetector::new(pin.open(sessions, &detector_id, Role::Detector)?)?;
    let named = embedder.is_some();
    let embedder = match pick_model(store, Role::Embedder, embedder, DEFAULT_EMBEDDER) {
        Ok(id) => Some(FaceEmbedder::new(pin.open(
            sessions,
            &id,
            Role::Embedder,
        )?)?),
        Err(_) if !named => None,
        Err(e) => return Err(e),
    };
    let eye_card = store
        .cards()
        .by_role(Role::EyeState)
        .find(|c| store.is_present(c))
        .cloned();
    let eyes = match eye_card {
        Some(card) => {
            let classes = store.cards().classes(&card).unwrap_or_default();
            let session = pin.open(sessions, &card.model_id(), Role::EyeState)?;
            Some(EyeClassifier::new(session, &classes)?)
        }
        None => None,
    };
    Ok(Models {
        detector,
        embedder,
        eyes,
        mesh: open_mesh(sessions, pin)?,
        segmenters: open_segmenters(sessions, pin)?,
        scene: open_scene(sessions, pin)?,
    })
}

/// The face mesh and the iris model, from the pin, where both are installed (one without the
/// other measures nothing).
pub fn open_mesh(sessions: &Sessions, pin: &JobPin) -> Result<Option<ExpressionReader>, OpenError> {
    let store = sessions.store();
    let present = |role: Role| {
        store
            .cards()
            .by_role(role)
            .find(|c| store.is_present(c))
            .map(|c| c.model_id())
    };
    let (Some(mesh), Some(iris)) = (present(Role::FaceMesh), present(Role::Iris)) else {
        return Ok(None);
    };
    Ok(Some(ExpressionReader {
        mesh: FaceMesh::new(pin.open(sessions, &mesh, Role::FaceMesh)?)?,
        iris: IrisModel::new(pin.open(sessions, &iris, Role::Iris)?)?,
    }))
}

/// The installed scene model (the user's ADE20K weights), from the pin, where there is one.
pub fn open_scene(sessions: &Sessions, pin: &JobPin) -> Result<Option<SceneParser>, OpenError> {
    let store = sessions.store();
    let Some(card) = store
        .cards()
        .by_role(Role::Scene)
        .find(|c| store.is_present(c))
        .cloned()
    else {
        return Ok(None);
    };
    let classes = store.cards().classes(&card).unwrap_or_default();
    let session = pin.open(sessions, &card.model_id(), Role::Scene)?;
    Ok(Some(SceneParser::new(session, classes)?))
}

/// The installed segmenters, from the pin: the first instance segmenter (a YOLO-seg the user
/// brought) and the first salient-object one (U²-Netp), each where present.
pub fn open_segmenters(sessions: &Sessions, pin: &JobPin) -> Result<Segmenters, OpenError> {
    let store = sessions.store();
    let present = |instances: bool| {
        store
            .cards()
            .by_role(Role::Segmenter)
            .filter(|c| matches!(c.output, OutputContract::YoloSeg { .. }) == instances)
            .find(|c| store.is_present(c))
            .cloned()
    };
    let mut segmenters = Segmenters::default();
    if let Some(card) = present(true) {
        let classes = store.cards().classes(&card).unwrap_or_default();
        let session = pin.open(sessions, &card.model_id(), Role::Segmenter)?;
        segmenters.instances = Some(InstanceSegmenter::new(session, classes)?);
    }
    if let Some(card) = present(false) {
        let session = pin.open(sessions, &card.model_id(), Role::Segmenter)?;
        segmenters.salient = Some(SalientSegmenter::new(session)?);
    }
    Ok(segmenters)
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkroom_engine::CardSet;

    fn file_of(cards: &CardSet, id: &str) -> String {
        cards.get(id).expect("a built-in card").file.clone()
    }

    /// A first run on a package's install: the models dir is empty and the package put
    /// CenterFace in its read-only folder, so the detector is CenterFace; a downloaded SCRFD
    /// takes over as the default; with neither, the error names the models dir.
    #[test]
    fn a_packaged_centerface_is_the_detector_until_scrfd_is_installed() {
        let cards = CardSet::builtin().expect("built-in cards parse");
        let own = tempfile::tempdir().expect("temp dir");
        let package = tempfile::tempdir().expect("temp dir");
        let store =
            ModelStore::new(own.path(), cards.clone()).with_bundled(vec![package.path().into()]);

        match pick_model(&store, Role::Detector, None, DEFAULT_DETECTOR) {
            Err(OpenError::NoModel { role, dir }) => {
                assert_eq!(role, Role::Detector);
                assert_eq!(dir, own.path());
            }
            other => panic!("no detector installed, got {other:?}"),
        }

        std::fs::write(
            package.path().join(file_of(&cards, "centerface")),
            b"packaged",
        )
        .expect("write the packaged model");
        let picked = pick_model(&store, Role::Detector, None, DEFAULT_DETECTOR);
        assert_eq!(picked.ok().as_deref(), Some("centerface"));

        std::fs::write(
            own.path().join(file_of(&cards, DEFAULT_DETECTOR)),
            b"downloaded",
        )
        .expect("write the downloaded model");
        let picked = pick_model(&store, Role::Detector, None, DEFAULT_DETECTOR);
        assert_eq!(picked.ok().as_deref(), Some(DEFAULT_DETECTOR));

        let named = pick_model(
            &store,
            Role::Detector,
            Some("centerface".into()),
            DEFAULT_DETECTOR,
        );
        assert_eq!(named.ok().as_deref(), Some("centerface"));
    }
}
