//! `darkroom faces`: detect (and optionally embed) faces in photos.

use std::path::PathBuf;
use std::process::ExitCode;

use darkroom_engine::face::{Face, FaceDetector, FaceEmbedder};
use darkroom_engine::{Role, Rung, Sessions, image_io};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Models directory (default: DARKROOM_MODELS, else the app data dir's models/).
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Detector model_id (default: scrfd_2.5g if installed, else the first installed).
    #[arg(long)]
    pub detector: Option<String>,
    /// Embedder model_id (default: the first installed).
    #[arg(long)]
    pub embedder: Option<String>,
    /// Also compute an embedding per face (as long as the embedder's card says).
    #[arg(long)]
    pub embed: bool,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
    #[arg(required = true)]
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

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let sessions: Sessions = crate::services::sessions(args.models)?;
    let detector_id = darkroom_index::pick_model(
        sessions.store(),
        Role::Detector,
        args.detector,
        darkroom_index::models::DEFAULT_DETECTOR,
    )?;
    // A batch command has no first frame to protect, so it waits for the probe (the cache
    // makes that instant after the first run) and then pins the job to what it found.
    let (backend, wait) = crate::services::start(sessions.store().clone(), false)?;
    backend.wait_ready(wait);
    let pin = backend.pin();
    let session = pin.open(&sessions, &detector_id, Role::Detector)?;
    let detector_rung = session.rung();
    let mut detector = FaceDetector::new(session)?;
    let mut embedder_rung = None;
    let mut embedder = if args.embed {
        let id = darkroom_index::pick_model(
            sessions.store(),
            Role::Embedder,
            args.embedder,
            darkroom_index::models::DEFAULT_EMBEDDER,
        )?;
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
