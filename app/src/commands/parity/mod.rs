//! `darkroom parity`: the release gate on real photographs (model-shipping.md §03 C5, §05;
//! inference-backends §7, §10 M2). The reference and the candidate see the same photos through
//! the app's own decode and preprocessing, and their *decisions* are compared: detections
//! matched one-to-one per size band, or embeddings by cosine. It fails closed: a missing
//! model, a missing photo, a photo whose bytes differ from the manifest, a manifest whose
//! counts do not add up, or a reference that finds no faces is an error (non-zero), never a
//! pass. `--baseline` also fails on a regression against a stored report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use darkroom_engine::face::{Face, FaceDetector, FaceEmbedder, cosine};
use darkroom_engine::{ModelSession, Role, SessionSettings, Sessions, image_io};
use serde::{Deserialize, Serialize};

mod crops;

use darkroom_models::parity::corpus::Corpus;
use darkroom_models::parity::{
    self as compare, Bands, EmbedderTally, FaceOutcome, Gate, RULES, Summary,
};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The reference: an installed model_id, or a model file.
    #[arg(long)]
    pub reference: String,
    /// The candidate: an installed model_id, or a model file.
    #[arg(long)]
    pub candidate: String,
    /// The card a candidate file is held to (its IO contract), e.g. scrfd_2.5g_i8.
    #[arg(long = "as")]
    pub as_model: Option<String>,
    /// The card a reference file is held to (default: the card pinning its hash, else --as).
    #[arg(long)]
    pub reference_as: Option<String>,
    /// The corpus manifest (assets/corpus/faces.toml).
    #[arg(long)]
    pub manifest: PathBuf,
    /// Which of its sets to run.
    #[arg(long, default_value = "evaluation")]
    pub set: String,
    /// Where the manifest's paths are (default: DARKROOM_ASSETS).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The verdict rule (default: from the candidate's card: an int8 detector, an f32
    /// detector, an embedder).
    #[arg(long, value_parser = gate_parser())]
    pub gate: Option<Gate>,
    /// The detector that finds the faces an embedder gate embeds (default: scrfd_2.5g, else
    /// the first installed).
    #[arg(long)]
    pub detector: Option<String>,
    /// Models directory (default: DARKROOM_MODELS, else the app data dir's models/).
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// A stored report: exit non-zero on a regression against it.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The landmarks and embedder-reference gates: write each crop's input tensor here
    /// (little-endian f32), for the release tool to feed the reference (TFLite, dlib).
    #[arg(long)]
    pub crops: Option<PathBuf>,
}

/// The report as JSON: written to `--out` where given, printed with `--json`. False when it
/// was not printed (the caller says it in words).
fn emit_report(args: &Args, report: &impl Serialize) -> anyhow::Result<bool> {
    let json = serde_json::to_string_pretty(report)?;
    if let Some(out) = &args.out {
        std::fs::write(out, format!("{json}\n"))
            .with_context(|| format!("cannot write the report: {}", out.display()))?;
    }
    if args.json {
        println!("{json}");
    }
    Ok(args.json)
}

/// `--gate`'s values, named as in reports (the gate's own names, listed in `--help`).
fn gate_parser() -> impl clap::builder::TypedValueParser<Value = Gate> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Gate::ALL.map(Gate::name))
        .try_map(|s| s.parse::<Gate>())
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ModelRef {
    given: String,
    model_id: String,
    file: Option<PathBuf>,
    sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ManifestRef {
    path: PathBuf,
    sha256: String,
    set: String,
    photos: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ViewRow {
    photo: String,
    view: String,
    reference_faces: usize,
    candidate_faces: usize,
    matched: usize,
    reference_only: usize,
    candidate_only: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Report {
    runtime: String,
    gate: Gate,
    reference: ModelRef,
    candidate: ModelRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    detector: Option<ModelRef>,
    manifest: ManifestRef,
    summary: Summary,
    views: Vec<ViewRow>,
    /// "pass" or "fail".
    verdict: String,
    reasons: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<PathBuf>,
}

/// What a model argument names.
enum ModelArg {
    Installed(String),
    File(PathBuf),
}

impl ModelArg {
    fn parse(text: &str) -> ModelArg {
        let path = Path::new(text);
        if text.ends_with(".onnx") || text.contains(std::path::MAIN_SEPARATOR) {
            ModelArg::File(path.to_path_buf())
        } else {
            ModelArg::Installed(text.to_owned())
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = args
        .root
        .clone()
        .or_else(|| std::env::var_os("DARKROOM_ASSETS").map(PathBuf::from))
        .context("no photo root: pass --root DIR or set DARKROOM_ASSETS")?;
    let corpus = Corpus::load(&args.manifest, &args.set, &root)?;
    let sessions = crate::services::sessions(args.models.clone())?;
    let settings = SessionSettings::untuned(sessions.threads());

    let candidate_arg = ModelArg::parse(&args.candidate);
    let candidate_card = match (&candidate_arg, &args.as_model) {
        (_, Some(id)) => id.clone(),
        (ModelArg::Installed(id), None) => id.clone(),
        (ModelArg::File(f), None) => bail!(
            "a candidate file needs --as MODEL_ID (the card whose contract it meets): {}",
            f.display()
        ),
    };
    let reference_arg = ModelArg::parse(&args.reference);
    let reference_card = match (&reference_arg, &args.reference_as) {
        (_, Some(id)) => id.clone(),
        (ModelArg::Installed(id), None) => id.clone(),
        (ModelArg::File(f), None) => card_pinning(&sessions, f)?.unwrap_or(candidate_card.clone()),
    };
    let card = sessions.store().cards().get(&candidate_card)?.clone();
    let gate = args.gate.unwrap_or(match (card.role, card.numeric_form) {
        (Role::FaceMesh | Role::Iris, _) => Gate::Landmarks,
        (Role::Embedder, _) => Gate::Embedder,
        (_, darkroom_engine::NumericForm::F32) => Gate::DetectorSame,
        _ => Gate::DetectorInt8,
    });
    if matches!(gate, Gate::Landmarks | Gate::EmbedderReference) {
        return crops::run(&args, &corpus, &sessions, &candidate_arg, &candidate_card);
    }
    let role = if gate == Gate::Embedder {
        Role::Embedder
    } else {
        Role::Detector
    };
    let open = |arg: &ModelArg, card: &str| -> anyhow::Result<ModelSession> {
        Ok(match arg {
            ModelArg::Installed(id) => sessions.open_with(id, role, settings)?,
            ModelArg::File(f) => {
                let s = sessions.open_file(f, card, settings)?;
                if s.card.role != role {
                    bail!(
                        "{card} is a {} model, the {gate:?} gate needs a {role}: {}",
                        s.card.role,
                        f.display()
                    );
                }
                s
            }
        })
    };
    let reference = open(&reference_arg, &reference_card)
        .with_context(|| format!("the reference {}", args.reference))?;
    let candidate = open(&candidate_arg, &candidate_card)
        .with_context(|| format!("the candidate {}", args.candidate))?;
    let model_ref = |given: &str, arg: &ModelArg, s: &ModelSession| ModelRef {
        given: given.to_owned(),
        model_id: s.card.model_id(),
        file: match arg {
            ModelArg::File(f) => Some(f.clone()),
            ModelArg::Installed(_) => None,
        },
        sha256: s.sha256.clone(),
    };
    let reference_ref = model_ref(&args.reference, &reference_arg, &reference);
    let candidate_ref = model_ref(&args.candidate, &candidate_arg, &candidate);

    let (summary, views, detector_ref) = match gate {
        Gate::Embedder => {
            let detector_id = darkroom_index::pick_model(
                sessions.store(),
                Role::Detector,
                args.detector.clone(),
                darkroom_index::models::DEFAULT_DETECTOR,
            )?;
            let det = sessions.open_with(&detector_id, Role::Detector, settings)?;
            let det_ref = ModelRef {
                given: detector_id.clone(),
                model_id: detector_id,
                file: None,
                sha256: det.sha256.clone(),
            };
            let (s, v) = run_embedder(
                &corpus,
                FaceDetector::new(det)?,
                FaceEmbedder::new(reference)?,
                FaceEmbedder::new(candidate)?,
            )?;
            (s, v, Some(det_ref))
        }
        _ => {
            let (s, v) = run_detector(
                &corpus,
                FaceDetector::new(reference)?,
                FaceDetector::new(candidate)?,
            )?;
            (s, v, None)
        }
    };
    if summary.reference_faces == 0 {
        bail!(
            "the reference found no faces in the {} set: nothing to gate on: {}",
            corpus.set,
            corpus.manifest.display()
        );
    }
    let mut reasons = compare::verdict(gate, &summary, &RULES);
    let manifest_ref = ManifestRef {
        path: corpus.manifest.clone(),
        sha256: corpus.manifest_sha256.clone(),
        set: corpus.set.clone(),
        photos: corpus.photos.len(),
    };
    if let Some(path) = &args.baseline {
        let base = read_baseline(path)?;
        if base.gate != gate
            || base.manifest.sha256 != manifest_ref.sha256
            || base.manifest.set != manifest_ref.set
            || base.reference.sha256 != reference_ref.sha256
        {
            bail!(
                "the baseline is for another gate, corpus or reference ({:?} on {} {}, reference {}), so nothing can be compared: {}",
                base.gate,
                base.manifest.path.display(),
                base.manifest.set,
                &base.reference.sha256[..12.min(base.reference.sha256.len())],
                path.display()
            );
        }
        for r in compare::regressions(gate, &summary, &base.summary, &RULES) {
            reasons.push(format!("regression against the baseline: {r}"));
        }
    }
    let report = Report {
        runtime: sessions.runtime().summary(),
        gate,
        reference: reference_ref,
        candidate: candidate_ref,
        detector: detector_ref,
        manifest: manifest_ref,
        summary,
        views,
        verdict: if reasons.is_empty() { "pass" } else { "fail" }.to_owned(),
        reasons,
        baseline: args.baseline.clone(),
    };
    if !emit_report(&args, &report)? {
        print_human(&report);
    }
    Ok(if report.reasons.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The card whose pinned sha256 is this file's, if any.
fn card_pinning(sessions: &Sessions, file: &Path) -> anyhow::Result<Option<String>> {
    let bytes = std::fs::read(file)
        .with_context(|| format!("cannot read the model: {}", file.display()))?;
    let sha = darkroom_engine::store::sha256_hex(&bytes);
    Ok(sessions
        .store()
        .cards()
        .iter()
        .find(|c| c.sha256.as_deref() == Some(sha.as_str()))
        .map(|c| c.model_id()))
}

fn read_baseline(path: &Path) -> anyhow::Result<Report> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the baseline: {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("the baseline is not a parity report: {}", path.display()))
}

/// Each photo's faces across its views, once each, in the photo's own coordinates.
#[derive(Default)]
struct Distinct {
    boxes: Vec<[f32; 4]>,
}

impl Distinct {
    fn id(&mut self, b: [f32; 4]) -> usize {
        if let Some(i) = self
            .boxes
            .iter()
            .position(|d| darkroom_engine::face::iou(d, &b) >= RULES.match_iou)
        {
            return i;
        }
        self.boxes.push(b);
        self.boxes.len() - 1
    }
}

fn run_detector(
    corpus: &Corpus,
    mut reference: FaceDetector,
    mut candidate: FaceDetector,
) -> anyhow::Result<(Summary, Vec<ViewRow>)> {
    let mut bands = Bands::default();
    let mut rows = Vec::new();
    let mut s = Summary::default();
    for (pi, photo) in corpus.photos.iter().enumerate() {
        let img = image_io::load_rgb(&photo.file)?;
        let mut distinct = Distinct::default();
        for view in &photo.views {
            for (vimg, to) in view.apply(&img) {
                let r = reference.detect(&vimg)?;
                let c = candidate.detect(&vimg)?;
                let scale = reference.prepare_scale(vimg.width(), vimg.height());
                let matches = compare::match_faces(&r, &c, RULES.match_iou);
                let size = |f: &Face| {
                    (
                        compare::face_size(&f.bbox) * scale,
                        compare::face_size(&to.bbox(f.bbox)),
                    )
                };
                for (i, f) in r.iter().enumerate() {
                    let (input_size, original_size) = size(f);
                    let matched = matches.iter().find(|m| m.0 == i).map(|&(_, j, v)| {
                        (
                            v,
                            c[j].score - f.score,
                            compare::landmark_delta(&f.landmarks, &c[j].landmarks) * scale,
                        )
                    });
                    bands.add_reference(FaceOutcome {
                        input_size,
                        original_size,
                        distinct: (pi, distinct.id(to.bbox(f.bbox))),
                        matched,
                    });
                }
                for (j, f) in c.iter().enumerate() {
                    if !matches.iter().any(|m| m.1 == j) {
                        let (a, b) = size(f);
                        bands.add_candidate_only(a, b);
                    }
                }
                s.views += 1;
                s.reference_faces += r.len();
                s.candidate_faces += c.len();
                s.matched += matches.len();
                rows.push(ViewRow {
                    photo: photo.entry.path.clone(),
                    view: view.name(),
                    reference_faces: r.len(),
                    candidate_faces: c.len(),
                    matched: matches.len(),
                    reference_only: r.len() - matches.len(),
                    candidate_only: c.len() - matches.len(),
                });
            }
        }
        s.distinct_faces += distinct.boxes.len();
    }
    s.found_above_floor = bands.found_above(RULES.min_size);
    s.bands = Some(bands);
    Ok((s, rows))
}

fn run_embedder(
    corpus: &Corpus,
    mut detector: FaceDetector,
    mut reference: FaceEmbedder,
    mut candidate: FaceEmbedder,
) -> anyhow::Result<(Summary, Vec<ViewRow>)> {
    let mut cosines = Vec::new();
    let mut rows = Vec::new();
    let mut s = Summary::default();
    for photo in &corpus.photos {
        let img = image_io::load_rgb(&photo.file)?;
        let mut distinct = Distinct::default();
        for view in &photo.views {
            for (vimg, to) in view.apply(&img) {
                let faces = detector.detect(&vimg)?;
                let landmarks: Vec<[[f32; 2]; 5]> = faces.iter().map(|f| f.landmarks).collect();
                let a = reference.embed_all(&vimg, &landmarks)?;
                let b = candidate.embed_all(&vimg, &landmarks)?;
                cosines.extend(a.iter().zip(&b).map(|(x, y)| cosine(x, y)));
                for f in &faces {
                    distinct.id(to.bbox(f.bbox));
                }
                s.views += 1;
                s.reference_faces += faces.len();
                s.candidate_faces += faces.len();
                s.matched += faces.len();
                rows.push(ViewRow {
                    photo: photo.entry.path.clone(),
                    view: view.name(),
                    reference_faces: faces.len(),
                    candidate_faces: faces.len(),
                    matched: faces.len(),
                    reference_only: 0,
                    candidate_only: 0,
                });
            }
        }
        s.distinct_faces += distinct.boxes.len();
    }
    s.embedder = Some(EmbedderTally::from_cosines(&cosines, &RULES));
    Ok((s, rows))
}

fn print_human(r: &Report) {
    println!(
        "parity ({:?}) on {}: {} ({}) against {} ({})",
        r.gate,
        r.runtime,
        r.candidate.model_id,
        &r.candidate.sha256[..12],
        r.reference.model_id,
        &r.reference.sha256[..12]
    );
    println!(
        "corpus: {} photos of the {} set, {} views, {} distinct faces: {}",
        r.manifest.photos,
        r.manifest.set,
        r.summary.views,
        r.summary.distinct_faces,
        r.manifest.path.display()
    );
    if let Some(b) = &r.summary.bands {
        for (name, tallies) in [("input px", &b.input), ("photo px", &b.original)] {
            println!("  band ({name})  faces distinct found missed cand-only recall");
            for t in tallies {
                println!(
                    "  {:>8}        {:>5} {:>8} {:>5} {:>6} {:>9} {}",
                    t.band,
                    t.faces,
                    t.distinct,
                    t.found,
                    t.missed,
                    t.candidate_only,
                    t.recall
                        .map(|v| format!("{:.1}%", v * 100.0))
                        .unwrap_or_else(|| "-".into())
                );
            }
        }
    }
    if let Some(e) = &r.summary.embedder {
        println!(
            "  embeddings: {} faces, cosine min {:.5}, mean {:.5}, {:.2}% above {}",
            e.faces,
            e.cosine_min,
            e.cosine_mean,
            e.share_above * 100.0,
            RULES.cosine
        );
    }
    println!("verdict: {}", r.verdict);
    for reason in &r.reasons {
        println!("  {reason}");
    }
}
