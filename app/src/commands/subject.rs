//! `darkroom subject`: what each photo is of, and whether it is in focus — the subject the
//! installed segmenters find (the largest person, animal or vehicle, else the salient object),
//! its sharpness inside and outside, and "soft" as the index would judge it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use darkroom_engine::image_io;
use darkroom_index::subject::Segmenters;
use darkroom_index::{Thresholds, analysis, focus, luma};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Models directory (default: DARKROOM_MODELS, else the app data dir's models/).
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Write each photo's subject mask here as NAME.subject.png (white: subject), at the size
    /// it is measured at.
    #[arg(long)]
    pub masks: Option<PathBuf>,
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
    #[arg(required = true)]
    pub images: Vec<PathBuf>,
}

#[derive(Serialize, Default)]
struct Found {
    path: PathBuf,
    /// Sharpness of the whole photo.
    sharpness: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<SubjectReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct SubjectReport {
    segmenter: String,
    class: Option<String>,
    score: f32,
    /// The share of the photo it covers.
    coverage: f32,
    sharpness: Option<f32>,
    background: Option<f32>,
    soft: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mask: Option<PathBuf>,
}

#[derive(Serialize)]
struct Report<'a> {
    runtime: &'a darkroom_engine::RuntimeOutcome,
    backend: String,
    segmenter: Option<String>,
    images: Vec<Found>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let sessions = crate::services::sessions(args.models)?;
    let (backend, wait) = crate::services::start(sessions.store().clone(), false)?;
    backend.wait_ready(wait);
    let pin = backend.pin();
    let mut segmenters = darkroom_index::models::open_segmenters(&sessions, &pin)?;
    let Some(segmenter) = segmenters.id() else {
        anyhow::bail!(
            "no segmenter installed in {}",
            sessions.store().dir().display()
        );
    };
    if let Some(dir) = &args.masks {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot make the masks folder {}", dir.display()))?;
    }
    let thresholds = Thresholds::default();
    let images: Vec<Found> = args
        .images
        .iter()
        .map(|path| {
            look(path, &mut segmenters, &thresholds, args.masks.as_deref()).unwrap_or_else(
                |error| Found {
                    path: path.clone(),
                    error: Some(error),
                    ..Found::default()
                },
            )
        })
        .collect();
    let failed = images.iter().filter(|f| f.error.is_some()).count();
    let report = Report {
        runtime: sessions.runtime(),
        backend: pin.line.clone(),
        segmenter: Some(segmenter),
        images,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} · segmenter {}",
            report.backend,
            report.segmenter.as_deref().unwrap_or("none")
        );
        for f in &report.images {
            match (&f.error, &f.subject) {
                (Some(e), _) => eprintln!("{}: error: {e}", f.path.display()),
                (None, None) => println!("{}: no subject", f.path.display()),
                (None, Some(s)) => println!(
                    "{}: {} ({:.0}% of the frame): sharpness {}, background {}{}",
                    f.path.display(),
                    s.class.as_deref().unwrap_or("subject"),
                    s.coverage * 100.0,
                    s.sharpness
                        .map_or("too small".to_owned(), |v| format!("{v:.0}")),
                    s.background.map_or("-".to_owned(), |v| format!("{v:.0}")),
                    if s.soft == Some(true) { " · soft" } else { "" }
                ),
            }
        }
    }
    Ok(if failed > 0 && failed == report.images.len() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One photo: decoded whole, measured at the photo scale.
fn look(
    path: &Path,
    segmenters: &mut Segmenters,
    thresholds: &Thresholds,
    masks: Option<&Path>,
) -> Result<Found, String> {
    let img = image_io::load_rgb(path).map_err(|e| e.to_string())?;
    let small = focus::at_photo_side(&luma::of(&img));
    let (w, h) = small.dimensions();
    let subject = segmenters.find(&img, w, h)?;
    let subject = match subject {
        None => None,
        Some(s) => {
            let f = focus::subject(&small, &s.mask);
            let mask = match masks {
                Some(dir) => {
                    let stem = path.file_stem().unwrap_or(path.as_os_str());
                    let out = dir.join(format!("{}.subject.png", stem.to_string_lossy()));
                    let pixels = s.mask.as_bytes().iter().map(|&p| p * 255).collect();
                    image::GrayImage::from_raw(w, h, pixels)
                        .ok_or("the mask is not its size")?
                        .save(&out)
                        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
                    Some(out)
                }
                None => None,
            };
            Some(SubjectReport {
                segmenter: s.segmenter.clone(),
                class: s.class.clone(),
                score: s.score,
                coverage: s.mask.coverage(),
                sharpness: f.subject,
                background: f.background,
                soft: f
                    .subject
                    .map(|v| analysis::subject_soft(v, f.background, thresholds)),
                mask,
            })
        }
    };
    Ok(Found {
        path: path.to_path_buf(),
        sharpness: focus::laplacian_variance(&small),
        subject,
        error: None,
    })
}
