//! `darkroom faces`: detect (and optionally embed) faces in photos.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use darkroom_engine::face::{Face, FaceDetector, FaceEmbedder};
use darkroom_engine::{ModelStore, Role, Rung, Sessions, image_io};
use serde::Serialize;

pub struct FacesArgs {
    pub models: Option<PathBuf>,
    pub detector: Option<String>,
    pub embedder: Option<String>,
    pub embed: bool,
    pub json: bool,
    pub images: Vec<PathBuf>,
}

#[derive(Serialize)]
struct ImageResult {
    path: PathBuf,
    faces: Vec<Face>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct ModelIds {
    detector: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    embedder: Option<String>,
}

/// The backend the job was pinned to when it started, and where each model ran.
#[derive(Serialize)]
struct JobBackend {
    line: String,
    detector: Rung,
    #[serde(skip_serializing_if = "Option::is_none")]
    embedder: Option<Rung>,
}

#[derive(Serialize)]
struct Report<'a> {
    runtime: &'a darkroom_engine::RuntimeOutcome,
    backend: JobBackend,
    model_ids: ModelIds,
    images: Vec<ImageResult>,
}

/// The preferred installed model for a role: the named one, else `preferred` if present, else
/// the first card of that role whose file is present.
pub fn pick_model(
    store: &ModelStore,
    role: Role,
    named: Option<String>,
    preferred: &str,
) -> anyhow::Result<String> {
    if let Some(id) = named {
        return Ok(id);
    }
    let cards = store.cards();
    if let Ok(card) = cards.get(preferred)
        && store.is_present(card)
    {
        return Ok(preferred.to_string());
    }
    cards
        .by_role(role)
        .find(|c| store.is_present(c))
        .map(|c| c.model_id())
        .with_context(|| format!("no {role} model installed in {}", store.dir().display()))
}

pub fn run(args: FacesArgs) -> anyhow::Result<ExitCode> {
    let sessions: Sessions = crate::cli::sessions(args.models)?;
    let detector_id = pick_model(
        sessions.store(),
        Role::Detector,
        args.detector,
        "scrfd_2.5g",
    )?;
    // A batch command has no first frame to protect, so it waits for the probe (the cache
    // makes that instant after the first run) and then pins the job to what it found.
    let (backend, wait) = crate::backend_cmd::start(sessions.store().clone(), false)?;
    backend.wait_ready(wait);
    let pin = backend.pin();
    let session = pin.open(&sessions, &detector_id, Role::Detector)?;
    let detector_rung = session.rung();
    let mut detector = FaceDetector::new(session)?;
    let mut embedder_rung = None;
    let mut embedder = if args.embed {
        let id = pick_model(sessions.store(), Role::Embedder, args.embedder, "w600k_mbf")?;
        let session = pin.open(&sessions, &id, Role::Embedder)?;
        embedder_rung = Some(session.rung());
        Some(FaceEmbedder::new(session)?)
    } else {
        None
    };

    let mut results = Vec::with_capacity(args.images.len());
    for path in &args.images {
        let outcome = image_io::load_rgb(path).and_then(|img| {
            let mut faces = detector.detect(&img)?;
            if let Some(embedder) = embedder.as_mut() {
                for face in &mut faces {
                    face.embedding = Some(embedder.embed(&img, &face.landmarks)?);
                }
            }
            Ok(faces)
        });
        results.push(match outcome {
            Ok(faces) => ImageResult {
                path: path.clone(),
                faces,
                error: None,
            },
            Err(e) => ImageResult {
                path: path.clone(),
                faces: Vec::new(),
                error: Some(e.to_string()),
            },
        });
    }

    let failed = results.iter().filter(|r| r.error.is_some()).count();
    let report = Report {
        runtime: sessions.runtime(),
        backend: JobBackend {
            line: pin.line.clone(),
            detector: detector_rung,
            embedder: embedder_rung,
        },
        model_ids: ModelIds {
            detector: detector.model_id(),
            embedder: embedder.as_ref().map(FaceEmbedder::model_id),
        },
        images: results,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} · detector {}{}",
            report.backend.line,
            report.model_ids.detector,
            report
                .model_ids
                .embedder
                .as_ref()
                .map(|e| format!(" · embedder {e}"))
                .unwrap_or_default()
        );
        for r in &report.images {
            match &r.error {
                Some(e) => eprintln!("{}: error: {e}", r.path.display()),
                None => {
                    println!("{}: {} faces", r.path.display(), r.faces.len());
                    for f in &r.faces {
                        let b = f.bbox;
                        println!(
                            "  [{:.0}, {:.0}, {:.0}, {:.0}] score {:.2}",
                            b[0], b[1], b[2], b[3], f.score
                        );
                    }
                }
            }
        }
    }
    Ok(if failed > 0 && failed == report.images.len() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
