//! `darkroom bench-expressions`: the face mesh, and the eye-state model where installed,
//! against faces a person labelled (assets/corpus/expressions.toml). Each photo is decoded as
//! the index decodes it (its working size) and its faces found as the index finds them; each
//! labelled face is the detected face whose box holds its point. Prints precision and recall
//! for closed eyes (each judge; half-closed eyes are counted apart), smiles and gaze, and with
//! `--json` every face's measures and verdicts (what docs/EXPRESSIONS.md and its contact sheet,
//! `tools/fixtures/expression_sheet.py`, are made from).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use darkroom_engine::face::{
    EXPRESSION_RULES, Expression, ExpressionReader, EyeClassifier, Face, FaceDetector, FaceMesh,
    IrisModel,
};
use darkroom_engine::{Role, SessionSettings};
use serde::{Deserialize, Serialize};

/// The analysis's working size, as the index decodes (`commands::index`).
const WORK_SIDE: u32 = 1440;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The labelled faces.
    #[arg(long, default_value = "assets/corpus/expressions.toml")]
    manifest: PathBuf,
    /// Where the manifest's photos are (default: DARKROOM_ASSETS).
    #[arg(long)]
    root: Option<PathBuf>,
    #[arg(long)]
    models: Option<PathBuf>,
    /// Print every face's measures and the tallies as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    photo: Vec<PhotoEntry>,
    face: Vec<Labelled>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhotoEntry {
    path: String,
    #[allow(dead_code)]
    source: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Labelled {
    photo: String,
    at: [f32; 2],
    eyes: Option<String>,
    smile: bool,
    gaze: Option<String>,
}

#[derive(Debug, Serialize)]
struct FaceRow {
    label: Labelled,
    /// The detected face's box in the photo's pixels; None: no detected face holds the point.
    found: Option<[f32; 4]>,
    mesh: Option<Expression>,
    mesh_blink: Option<bool>,
    mesh_smiling: Option<bool>,
    mesh_away: Option<bool>,
    /// The eye-state model's mean probability of open, and its verdict.
    classifier_p_open: Option<f32>,
    classifier_closed: Option<bool>,
}

/// A yes/no judge against the labels.
#[derive(Debug, Default, Clone, Copy, Serialize)]
struct Tally {
    true_pos: usize,
    false_pos: usize,
    false_neg: usize,
    true_neg: usize,
    /// Faces the judge could not judge.
    unjudged: usize,
}

impl Tally {
    fn add(&mut self, truth: bool, said: Option<bool>) {
        match (truth, said) {
            (_, None) => self.unjudged += 1,
            (true, Some(true)) => self.true_pos += 1,
            (false, Some(true)) => self.false_pos += 1,
            (true, Some(false)) => self.false_neg += 1,
            (false, Some(false)) => self.true_neg += 1,
        }
    }

    fn precision(&self) -> Option<f64> {
        let said = self.true_pos + self.false_pos;
        (said > 0).then(|| self.true_pos as f64 / said as f64)
    }

    fn recall(&self) -> Option<f64> {
        let real = self.true_pos + self.false_neg;
        (real > 0).then(|| self.true_pos as f64 / real as f64)
    }

    fn line(&self, what: &str) -> String {
        let pct = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{:.0}%", v * 100.0));
        format!(
            "{what:<34} precision {:>4} recall {:>4}  ({} right, {} false, {} missed, {} right no, {} unjudged)",
            pct(self.precision()),
            pct(self.recall()),
            self.true_pos,
            self.false_pos,
            self.false_neg,
            self.true_neg,
            self.unjudged
        )
    }
}

#[derive(Debug, Default, Serialize)]
struct Tallies {
    faces: usize,
    not_found: usize,
    closed_mesh: Tally,
    closed_classifier: Option<Tally>,
    /// Half-closed eyes the mesh, and the eye-state model, call a blink.
    half_flagged_mesh: (usize, usize),
    half_flagged_classifier: (usize, usize),
    smile_mesh: Tally,
    away_mesh: Tally,
}

#[derive(Debug, Serialize)]
struct Report {
    manifest: PathBuf,
    mesh: String,
    classifier: Option<String>,
    tallies: Tallies,
    faces: Vec<FaceRow>,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let root = args
        .root
        .clone()
        .or_else(|| std::env::var_os("DARKROOM_ASSETS").map(PathBuf::from))
        .context("no photo root: pass --root DIR or set DARKROOM_ASSETS")?;
    let text = std::fs::read_to_string(&args.manifest)
        .with_context(|| format!("cannot read the labels: {}", args.manifest.display()))?;
    let manifest: Manifest = toml::from_str(&text)
        .with_context(|| format!("the labels are malformed: {}", args.manifest.display()))?;
    let sessions = crate::services::sessions(args.models.clone())?;
    let settings = SessionSettings::untuned(sessions.threads());
    let open = |role: Role| -> anyhow::Result<Option<darkroom_engine::ModelSession>> {
        let store = sessions.store();
        let Some(card) = store
            .cards()
            .by_role(role)
            .find(|c| store.is_present(c))
            .cloned()
        else {
            return Ok(None);
        };
        Ok(Some(sessions.open_with(
            &card.model_id(),
            role,
            settings,
        )?))
    };
    let detector_id = darkroom_index::pick_model(
        sessions.store(),
        Role::Detector,
        None,
        darkroom_index::models::DEFAULT_DETECTOR,
    )?;
    let mut detector =
        FaceDetector::new(sessions.open_with(&detector_id, Role::Detector, settings)?)?;
    let (Some(mesh), Some(iris)) = (open(Role::FaceMesh)?, open(Role::Iris)?) else {
        bail!("the face mesh and the iris model are not installed: nothing to measure");
    };
    let mut reader = ExpressionReader {
        mesh: FaceMesh::new(mesh)?,
        iris: IrisModel::new(iris)?,
    };
    let mut classifier = match open(Role::EyeState)? {
        Some(session) => {
            let classes = sessions
                .store()
                .cards()
                .classes(&session.card)
                .unwrap_or_default();
            Some(EyeClassifier::new(session, &classes)?)
        }
        None => None,
    };
    let thresholds = darkroom_index::Thresholds::default();
    let rules = &EXPRESSION_RULES;
    let mut rows = Vec::new();
    for photo in &manifest.photo {
        let path = root.join(&photo.path);
        let work = darkroom_library::working::load(&path, WORK_SIDE)
            .map_err(|e| anyhow::anyhow!("{}: {}", e.cause(), path.display()))?;
        let k = work.scale_to_full();
        let faces = detector.detect(&work.image)?;
        for label in manifest.face.iter().filter(|f| f.photo == photo.path) {
            let at = [label.at[0] / k, label.at[1] / k];
            let Some(face) = holding(&faces, at) else {
                rows.push(FaceRow {
                    label: label.clone(),
                    found: None,
                    mesh: None,
                    mesh_blink: None,
                    mesh_smiling: None,
                    mesh_away: None,
                    classifier_p_open: None,
                    classifier_closed: None,
                });
                continue;
            };
            let mesh = reader.read(&work.image, face, rules)?;
            let p_open = match classifier.as_mut() {
                Some(c) => {
                    let [l, r] = c.classify_face(&work.image, &face.landmarks)?;
                    Some((l.p_open + r.p_open) / 2.0)
                }
                None => None,
            };
            rows.push(FaceRow {
                label: label.clone(),
                found: Some(face.bbox.map(|v| v * k)),
                mesh_blink: mesh.as_ref().map(|e| rules.blinking(e)),
                mesh_smiling: mesh.as_ref().map(|e| rules.smiling(e)),
                mesh_away: mesh.as_ref().map(|e| rules.looking_away(e)),
                mesh,
                classifier_p_open: p_open,
                classifier_closed: p_open.map(|p| p < thresholds.eyes_open_at_least),
            });
        }
    }
    if let Some(orphan) = manifest
        .face
        .iter()
        .find(|f| !manifest.photo.iter().any(|p| p.path == f.photo))
    {
        bail!(
            "a labelled face's photo {} is not among the manifest's photos: {}",
            orphan.photo,
            args.manifest.display()
        );
    }
    let tallies = tally(&rows, classifier.is_some());
    let report = Report {
        manifest: args.manifest.clone(),
        mesh: reader.model_id(),
        classifier: classifier.as_ref().map(EyeClassifier::model_id),
        tallies,
        faces: rows,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_human(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The detected face whose box holds `at`, the nearest centre first.
fn holding(faces: &[Face], at: [f32; 2]) -> Option<&Face> {
    faces
        .iter()
        .filter(|f| {
            let [x0, y0, x1, y1] = f.bbox;
            (x0..=x1).contains(&at[0]) && (y0..=y1).contains(&at[1])
        })
        .min_by(|a, b| centre_distance(a, at).total_cmp(&centre_distance(b, at)))
}

fn centre_distance(f: &Face, at: [f32; 2]) -> f32 {
    let [x0, y0, x1, y1] = f.bbox;
    ((x0 + x1) / 2.0 - at[0]).hypot((y0 + y1) / 2.0 - at[1])
}

fn tally(rows: &[FaceRow], with_classifier: bool) -> Tallies {
    let mut t = Tallies {
        faces: rows.len(),
        closed_classifier: with_classifier.then(Tally::default),
        ..Default::default()
    };
    for r in rows {
        if r.found.is_none() {
            t.not_found += 1;
            continue;
        }
        match r.label.eyes.as_deref() {
            Some(eyes @ ("open" | "closed")) => {
                let closed = eyes == "closed";
                t.closed_mesh.add(closed, r.mesh_blink);
                if let Some(c) = t.closed_classifier.as_mut() {
                    c.add(closed, r.classifier_closed);
                }
            }
            Some("half") => {
                t.half_flagged_mesh.1 += 1;
                t.half_flagged_mesh.0 += usize::from(r.mesh_blink == Some(true));
                t.half_flagged_classifier.1 += 1;
                t.half_flagged_classifier.0 += usize::from(r.classifier_closed == Some(true));
            }
            _ => {}
        }
        t.smile_mesh.add(r.label.smile, r.mesh_smiling);
        if let Some(gaze) = r.label.gaze.as_deref() {
            t.away_mesh.add(gaze == "away", r.mesh_away);
        }
    }
    t
}

fn print_human(r: &Report) {
    let t = &r.tallies;
    println!(
        "{} labelled faces ({} not found by the detector) · mesh {}{}",
        t.faces,
        t.not_found,
        r.mesh,
        r.classifier
            .as_ref()
            .map(|c| format!(" · eye-state model {c}"))
            .unwrap_or_default()
    );
    println!("{}", t.closed_mesh.line("closed eyes, the mesh"));
    if let Some(c) = &t.closed_classifier {
        println!("{}", c.line("closed eyes, the eye-state model"));
    }
    println!(
        "half-closed eyes called closed: the mesh {} of {}{}",
        t.half_flagged_mesh.0,
        t.half_flagged_mesh.1,
        if t.closed_classifier.is_some() {
            format!(
                ", the eye-state model {} of {}",
                t.half_flagged_classifier.0, t.half_flagged_classifier.1
            )
        } else {
            String::new()
        }
    );
    println!("{}", t.smile_mesh.line("smiling, the mesh"));
    println!("{}", t.away_mesh.line("looking away, the mesh"));
}
