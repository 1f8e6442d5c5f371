//! The app's half of the gates whose reference runs in the release tool: the crops the app makes
//! of the corpus's real faces (the detector's faces, then the mesh's crop about each, the iris
//! model's about each eye, or the embedder's aligned chip), each crop's input tensor written as
//! little-endian f32 and the candidate's outputs beside it in the report. The release tool
//! feeds the same tensors to the reference (the TFLite interpreter, dlib) and gives the verdict
//! (tools/release/release.py: `landmark_parity`, `embedder_reference_parity`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use darkroom_engine::face::{Face, FaceDetector, FaceEmbedder, FaceMesh, IrisModel, eye_distance};
use darkroom_engine::{ModelSession, Role, SessionSettings, Sessions, image_io, sessions::Output};
use darkroom_models::parity::corpus::Corpus;
use serde::Serialize;

use super::{Args, ModelArg};

/// Faces whose eyes are closer than this (photo pixels) are too small for a crop that says
/// anything about the conversion.
const MIN_EYE_DISTANCE: f32 = 24.0;

#[derive(Serialize)]
struct CropRow {
    photo: String,
    face: [f32; 4],
    /// Which crop of the face: "face", "left eye", "right eye", "chip".
    part: &'static str,
    /// The tensor's file, under the crops folder.
    input: String,
    /// An embedder's aligned chip as 8-bit RGB, row by row, under the crops folder: what dlib's
    /// own input layer takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    chip: Option<String>,
    outputs: std::collections::BTreeMap<String, Vec<f32>>,
}

#[derive(Serialize)]
struct Report {
    runtime: String,
    gate: &'static str,
    reference: FileRef,
    candidate: FileRef,
    detector: String,
    manifest: PathBuf,
    manifest_sha256: String,
    crops_dir: PathBuf,
    crops: Vec<CropRow>,
    /// What the app subtracts from each channel before the model (the card's mean): the
    /// reference checks it against its own file's.
    mean: Vec<f32>,
    /// The verdict is the release tool's, which runs the reference.
    verdict: &'static str,
}

#[derive(Serialize)]
struct FileRef {
    given: String,
    model_id: String,
    sha256: String,
}

enum Model {
    Mesh(FaceMesh),
    Iris(IrisModel),
    Embedder(FaceEmbedder),
}

/// One crop: which part of the face, its input tensor, the model's outputs and (an embedder's)
/// the aligned chip.
type Crop = (&'static str, Vec<f32>, Vec<Output>, Option<image::RgbImage>);

impl Model {
    fn gate(&self) -> &'static str {
        match self {
            Model::Mesh(_) | Model::Iris(_) => "landmarks",
            Model::Embedder(_) => "embedder-reference",
        }
    }

    fn crops(&mut self, img: &image::RgbImage, face: &Face) -> anyhow::Result<Vec<Crop>> {
        let mut out = Vec::new();
        match self {
            Model::Mesh(m) => {
                let crop = m.crop(img, face);
                let mut tensor = Vec::new();
                crop.tensor(m.input_spec(), &mut tensor);
                out.push(("face", tensor, m.run_raw(&crop)?, None));
            }
            Model::Iris(m) => {
                // The eyes' corners from the detector's eye centres: a fifth of the distance
                // between the eyes either side along the line through them.
                let [l, r] = [face.landmarks[0], face.landmarks[1]];
                let (dx, dy) = ((r[0] - l[0]) * 0.2, (r[1] - l[1]) * 0.2);
                let around = |c: [f32; 2]| ([c[0] - dx, c[1] - dy], [c[0] + dx, c[1] + dy]);
                let (ls, le) = around(l);
                let (rs, re) = around(r);
                for (part, crop) in [
                    ("left eye", m.crop(img, ls, le, false)),
                    ("right eye", m.crop(img, rs, re, true)),
                ] {
                    let mut tensor = Vec::new();
                    crop.tensor(m.input_spec(), &mut tensor);
                    out.push((part, tensor, m.run_raw(&crop)?, None));
                }
            }
            Model::Embedder(e) => {
                let chip = e.align(img, &face.landmarks);
                let (tensor, descriptor) = e.run_raw(&chip)?;
                let output = Output {
                    name: "descriptor".to_owned(),
                    shape: vec![1, descriptor.len()],
                    data: descriptor,
                };
                out.push(("chip", tensor, vec![output], Some(chip)));
            }
        }
        Ok(out)
    }
}

pub(super) fn run(
    args: &Args,
    corpus: &Corpus,
    sessions: &Sessions,
    candidate_arg: &ModelArg,
    candidate_card: &str,
) -> anyhow::Result<ExitCode> {
    let dir = args
        .crops
        .as_ref()
        .context("this gate writes each crop's tensor for the reference: pass --crops DIR")?;
    let settings = SessionSettings::untuned(sessions.threads());
    // The reference runs in the release tool, but a gate without one is no gate.
    let reference_bytes = std::fs::read(&args.reference)
        .with_context(|| format!("cannot read the reference: {}", args.reference))?;
    let session: ModelSession = match candidate_arg {
        ModelArg::File(f) => sessions.open_file(f, candidate_card, settings)?,
        ModelArg::Installed(id) => {
            let role = sessions.store().cards().get(id)?.role;
            sessions.open_with(id, role, settings)?
        }
    };
    let candidate = FileRef {
        given: args.candidate.clone(),
        model_id: session.model_id(),
        sha256: session.sha256.clone(),
    };
    let mean = session.card.input.mean.clone();
    let mut model = match session.card.role {
        Role::FaceMesh => Model::Mesh(FaceMesh::new(session)?),
        Role::Iris => Model::Iris(IrisModel::new(session)?),
        Role::Embedder => Model::Embedder(FaceEmbedder::new(session)?),
        other => bail!(
            "the reference's gates are for face mesh, iris and embedder models, {candidate_card} is a {other} model"
        ),
    };
    let detector_id = darkroom_index::pick_model(
        sessions.store(),
        Role::Detector,
        args.detector.clone(),
        darkroom_index::models::DEFAULT_DETECTOR,
    )?;
    let mut detector =
        FaceDetector::new(sessions.open_with(&detector_id, Role::Detector, settings)?)?;
    darkroom_library::durable::create_dir_all(dir)
        .with_context(|| format!("cannot make the crops folder: {}", dir.display()))?;
    let mut rows = Vec::new();
    for photo in &corpus.photos {
        let img = image_io::load_rgb(&photo.file)?;
        for face in detector.detect(&img)? {
            if eye_distance(&face.landmarks) < MIN_EYE_DISTANCE {
                continue;
            }
            for (part, tensor, outputs, chip) in model.crops(&img, &face)? {
                let name = format!("{:04}.f32", rows.len());
                let chip = match chip {
                    Some(chip) => {
                        let file = format!("{:04}.rgb", rows.len());
                        write_bytes(&dir.join(&file), chip.as_raw())?;
                        Some(file)
                    }
                    None => None,
                };
                write_tensor(&dir.join(&name), &tensor)?;
                rows.push(CropRow {
                    photo: photo.entry.path.clone(),
                    face: face.bbox,
                    part,
                    input: name,
                    chip,
                    outputs: outputs.into_iter().map(|o| (o.name, o.data)).collect(),
                });
            }
        }
    }
    if rows.is_empty() {
        bail!(
            "no face in the {} set is big enough to crop: nothing to gate on: {}",
            corpus.set,
            corpus.manifest.display()
        );
    }
    let report = Report {
        runtime: sessions.runtime().summary(),
        gate: model.gate(),
        reference: FileRef {
            given: args.reference.clone(),
            model_id: candidate.model_id.clone(),
            sha256: darkroom_engine::store::sha256_hex(&reference_bytes),
        },
        candidate,
        detector: detector_id,
        manifest: corpus.manifest.clone(),
        manifest_sha256: corpus.manifest_sha256.clone(),
        crops_dir: dir.clone(),
        crops: rows,
        mean,
        verdict: "reference-needed",
    };
    if !super::emit_report(args, &report)? {
        println!(
            "{} crops of real faces written for the reference to {}",
            report.crops.len(),
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn write_tensor(path: &Path, values: &[f32]) -> anyhow::Result<()> {
    let mut bytes = Vec::with_capacity(values.len() * 4);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    write_bytes(path, &bytes)
}

fn write_bytes(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut f = std::fs::File::create(path)
        .with_context(|| format!("cannot write a crop: {}", path.display()))?;
    f.write_all(bytes)
        .with_context(|| format!("cannot write a crop: {}", path.display()))?;
    Ok(())
}
