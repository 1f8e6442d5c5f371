//! Sessions by role: consumers ask for "a session for this model card in this role" and never
//! name a provider. This is where the runtime's settings (optimisation level, threads) and the
//! role's precision rule (the embedder is f32 everywhere) are applied, and where a model's
//! declared IO is checked against its card before anyone runs it.

use std::path::Path;

use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;

use crate::cards::{ModelCard, NumericForm, OutputContract, Role};
use crate::error::EngineError;
use crate::fake;
use crate::rungs::{Placement, Precision, Rung};
use crate::runtime::{self, RuntimeKind, RuntimeOutcome};
use crate::settings::{BackendSettings, threads_for};
use crate::store::{ModelStore, VerifiedModel, sha256_hex};
use crate::tuning::{OptLevel, SessionSettings};

/// Intra-op threads for ONNX Runtime: `DARKROOM_THREADS`, else the persisted setting in the
/// inference dir, else physical cores minus two; see [`crate::settings::threads_for`].
pub fn default_threads() -> usize {
    let settings = crate::paths::inference_dir()
        .and_then(|dir| BackendSettings::load(&dir).ok())
        .unwrap_or_default();
    threads_for(&settings)
}

/// Hands out sessions on the process's runtime.
pub struct Sessions {
    runtime: &'static RuntimeOutcome,
    env: ort::environment::Environment,
    store: ModelStore,
    /// Threads for an untuned session.
    threads: usize,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("runtime", &self.runtime.kind)
            .field("threads", &self.threads)
            .field("models", &self.store.dir())
            .finish()
    }
}

/// A built session with the card it was built for.
pub struct ModelSession {
    pub card: ModelCard,
    pub sha256: String,
    /// Where it runs.
    pub placement: Placement,
    session: Session,
    input_name: String,
    input_shape: Vec<usize>,
    /// The file declares its input's first dimension free: one run takes any batch.
    dynamic_batch: bool,
}

/// CenterFace's outputs' channels, in their order: heatmap, scale, offset, landmarks.
pub const CENTERFACE_CHANNELS: [i64; 4] = [1, 2, 2, 10];

/// One output tensor, copied out of the runtime.
#[derive(Debug, Clone)]
pub struct Output {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// The process's one ort environment: both runtimes allow only one per process, and every
/// `Sessions` shares it.
fn shared_environment() -> Result<ort::environment::Environment, EngineError> {
    static ENV: std::sync::Mutex<Option<ort::environment::Environment>> =
        std::sync::Mutex::new(None);
    let mut slot = ENV
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(env) = slot.as_ref() {
        return Ok(env.clone());
    }
    let env = ort::init()
        .with_name("darkroom")
        .build()
        .map_err(|e| EngineError::Inference {
            model_id: "(environment)".to_owned(),
            reason: ort_reason(e),
        })?;
    *slot = Some(env.clone());
    Ok(env)
}

fn ort_reason(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Sessions {
    /// Sessions on the runtime this process has installed (see [`runtime::install`]).
    pub fn new(
        runtime: &'static RuntimeOutcome,
        store: ModelStore,
        threads: usize,
    ) -> Result<Self, EngineError> {
        let env = shared_environment()?;
        Ok(Sessions {
            runtime,
            env,
            store,
            threads: threads.max(1),
        })
    }

    /// Sessions on tract, for tests. Fails if this process already runs on ONNX Runtime.
    pub fn tract(store: ModelStore) -> Result<Self, EngineError> {
        let outcome = runtime::install_tract();
        if outcome.kind != RuntimeKind::Tract {
            return Err(EngineError::RuntimeMismatch {
                wanted: "tract",
                installed: outcome.summary(),
            });
        }
        Sessions::new(outcome, store, 1)
    }

    pub fn runtime(&self) -> &'static RuntimeOutcome {
        self.runtime
    }

    pub fn store(&self) -> &ModelStore {
        &self.store
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// A session for `model_id` serving as `role`, from the verified file in the store, on the
    /// floor with this process's thread count and no measured settings.
    pub fn open(&self, model_id: &str, role: Role) -> Result<ModelSession, EngineError> {
        self.open_with(model_id, role, SessionSettings::untuned(self.threads))
    }

    /// As [`Sessions::open`] with explicit settings (the tuning worker and the benchmark
    /// compare them). The optimisation level and threads are ignored on tract, which runs one
    /// thread with its own optimiser.
    pub fn open_with(
        &self,
        model_id: &str,
        role: Role,
        settings: SessionSettings,
    ) -> Result<ModelSession, EngineError> {
        let card = self.store.cards().get(model_id)?;
        check_role(card, role)?;
        let model = load_released(&self.store, model_id)?;
        let placement = Placement {
            session: Some(settings),
            ..Placement::floor(self.runtime.kind)
        };
        self.build(&model, &placement, settings)
    }

    /// A session for `model_id` on `placement`: the rung's provider registered so that a
    /// provider that cannot load is an error in its own words, never a silent CPU session.
    /// On the CPU floor the placement's measured settings apply (untuned: the highest level
    /// at this process's thread count).
    pub fn open_placed(
        &self,
        model_id: &str,
        role: Role,
        placement: &Placement,
    ) -> Result<ModelSession, EngineError> {
        let card = self.store.cards().get(model_id)?;
        check_role(card, role)?;
        if role == Role::Embedder && placement.precision != Precision::F32 {
            return Err(EngineError::EmbedderNotF32 {
                model_id: model_id.to_owned(),
            });
        }
        let model = load_released(&self.store, model_id)?;
        self.build(&model, placement, self.settings_for(placement))
    }

    /// The settings a session on `placement` is built with: the measured ones (a thread count
    /// a person set is the only one the tuning measures, so it wins there), else untuned.
    fn settings_for(&self, placement: &Placement) -> SessionSettings {
        match placement.rung {
            Rung::OrtCpu => placement
                .session
                .unwrap_or_else(|| SessionSettings::untuned(self.threads)),
            // A GPU rung's CPU side only feeds the device.
            _ => SessionSettings::untuned(1),
        }
    }

    fn build(
        &self,
        model: &VerifiedModel,
        placement: &Placement,
        settings: SessionSettings,
    ) -> Result<ModelSession, EngineError> {
        let id = model.card.model_id();
        let invalid = |e: ort::Error<_>| EngineError::ModelInvalid {
            model_id: id.clone(),
            reason: ort_reason(e),
            path: model.path.clone(),
        };
        let mut builder = Session::builder(&self.env)
            .map_err(|e| EngineError::Inference {
                model_id: id.clone(),
                reason: ort_reason(e),
            })?
            // tract is 2-6x slower without optimisation (it has one switch: on); on ONNX
            // Runtime the level is measured per model and CPU (`crate::tuning`).
            .with_optimization_level(match (self.runtime.kind, settings.level) {
                (RuntimeKind::Tract, _) | (_, OptLevel::All) => GraphOptimizationLevel::All,
                (_, OptLevel::Extended) => GraphOptimizationLevel::Level2,
                (_, OptLevel::Basic) => GraphOptimizationLevel::Level1,
            })
            .map_err(invalid)?;
        let floor = Rung::floor(self.runtime.kind);
        match placement.rung {
            Rung::OrtCpu | Rung::Tract if placement.rung == floor => {}
            Rung::OrtCpu | Rung::Tract => {
                return Err(EngineError::RuntimeMismatch {
                    wanted: placement.rung.setting_name(),
                    installed: self.runtime.summary(),
                });
            }
            Rung::Cuda => {
                builder = builder
                    .with_execution_providers([ort::ep::CUDA::default().build().error_on_failure()])
                    .map_err(|e| provider_error(&id, placement.rung, e))?;
            }
            Rung::TensorRt => {
                let mut trt = ort::ep::TensorRT::default()
                    .with_fp16(placement.precision == Precision::Fp16)
                    .with_max_workspace_size((placement.workspace_mb as usize) << 20);
                if let Some(dir) = &placement.engine_dir {
                    let dir = dir.to_string_lossy().into_owned();
                    trt = trt
                        .with_engine_cache(true)
                        .with_engine_cache_path(&dir)
                        .with_timing_cache(true)
                        .with_timing_cache_path(&dir);
                }
                // Nodes TensorRT declines go to CUDA, not silently to the CPU.
                builder = builder
                    .with_execution_providers([
                        trt.build().error_on_failure(),
                        ort::ep::CUDA::default().build().error_on_failure(),
                    ])
                    .map_err(|e| provider_error(&id, placement.rung, e))?;
            }
            Rung::SimulatedGpu => {
                // The simulated GPU computes on the CPU; its engine is checked like a real one.
                if let Some(dir) = &placement.engine_dir {
                    fake::check_engine(dir, &model.sha256).map_err(|reason| {
                        EngineError::Provider {
                            model_id: id.clone(),
                            rung: placement.rung,
                            reason,
                        }
                    })?;
                }
            }
        }
        if self.runtime.kind == RuntimeKind::OnnxRuntime {
            builder = builder
                .with_intra_threads(settings.threads)
                .map_err(invalid)?
                .with_inter_threads(1)
                .map_err(invalid)?;
        }
        let session =
            builder
                .commit_from_memory(&model.bytes)
                .map_err(|e| EngineError::ModelInvalid {
                    model_id: id.clone(),
                    reason: ort_reason(e),
                    path: model.path.clone(),
                })?;
        let contract = check_contract(&session, &model.card, &model.path)?;
        Ok(ModelSession {
            card: model.card.clone(),
            sha256: model.sha256.clone(),
            placement: placement.clone(),
            session,
            input_name: contract.input_name,
            input_shape: contract.input_shape,
            dynamic_batch: contract.dynamic_batch,
        })
    }

    /// A session for a file outside the store, held to `model_id`'s card's IO contract but
    /// not to its pinned hash: the release tool's checks and the parity gate's candidates
    /// (a file just made, whose hash the record is about to state). On the floor at `settings`.
    pub fn open_file(
        &self,
        file: &Path,
        model_id: &str,
        settings: SessionSettings,
    ) -> Result<ModelSession, EngineError> {
        let card = self.store.cards().get(model_id)?.clone();
        let model = read_outside_store(file, card)?;
        let placement = Placement {
            session: Some(settings),
            ..Placement::floor(self.runtime.kind)
        };
        self.build(&model, &placement, settings)
    }

    /// Import a user-supplied file as `model_id`: hash it, build a session and check its IO
    /// against the card, then copy it into the store and record its hash. Nothing is written
    /// unless every check passes.
    pub fn import(&self, file: &Path, model_id: &str) -> Result<VerifiedModel, EngineError> {
        let card = self.store.cards().get(model_id)?.clone();
        let candidate = read_outside_store(file, card.clone())?;
        if let Some(expected) = &card.sha256
            && !expected.eq_ignore_ascii_case(&candidate.sha256)
        {
            return Err(EngineError::HashMismatch {
                model_id: model_id.to_owned(),
                expected: expected.clone(),
                found: candidate.sha256,
                path: file.to_path_buf(),
            });
        }
        if card.role == Role::Embedder && card.numeric_form != NumericForm::F32 {
            return Err(EngineError::EmbedderNotF32 {
                model_id: model_id.to_owned(),
            });
        }
        self.build(
            &candidate,
            &Placement::floor(self.runtime.kind),
            SessionSettings::untuned(1),
        )?;
        let path = self.store.install(
            &card,
            &candidate.bytes,
            &candidate.sha256,
            &file.display().to_string(),
        )?;
        Ok(VerifiedModel { path, ..candidate })
    }
}

/// The store's verified file for `model_id`, refused when its card claims a derived form that
/// no passing release record stands behind.
fn load_released(store: &ModelStore, model_id: &str) -> Result<VerifiedModel, EngineError> {
    let model = store.load(model_id)?;
    if let Some(reason) = crate::releases::builtin_refusal(&model.card) {
        return Err(EngineError::NotReleased {
            model_id: model_id.to_owned(),
            reason,
        });
    }
    Ok(model)
}

/// A model file read from outside the store and hashed, not yet held to anything.
fn read_outside_store(file: &Path, card: ModelCard) -> Result<VerifiedModel, EngineError> {
    let bytes = darkroom_library::regular::read_whole(file, crate::store::MODEL_CAP, "a model")
        .map_err(|source| EngineError::ModelRead {
            model_id: card.model_id(),
            path: file.to_path_buf(),
            source,
        })?;
    Ok(VerifiedModel {
        card,
        path: file.to_path_buf(),
        sha256: sha256_hex(&bytes),
        bytes,
    })
}

fn provider_error(
    model_id: &str,
    rung: Rung,
    e: ort::Error<ort::session::builder::SessionBuilder>,
) -> EngineError {
    EngineError::Provider {
        model_id: model_id.to_owned(),
        rung,
        reason: ort_reason(e),
    }
}

fn check_role(card: &ModelCard, role: Role) -> Result<(), EngineError> {
    if card.role != role {
        return Err(EngineError::WrongRole {
            model_id: card.model_id(),
            wanted: role,
            actual: card.role,
        });
    }
    if role == Role::Embedder && card.numeric_form != NumericForm::F32 {
        return Err(EngineError::EmbedderNotF32 {
            model_id: card.model_id(),
        });
    }
    Ok(())
}

fn dims_match(declared: &[i64], expected: &[i64]) -> bool {
    declared.len() == expected.len()
        && declared
            .iter()
            .zip(expected)
            .all(|(d, e)| *d < 0 || *e < 0 || d == e)
}

/// What the graph's declared input says, once checked against the card.
struct Contract {
    input_name: String,
    /// The concrete shape of one sample's input (batch 1).
    input_shape: Vec<usize>,
    dynamic_batch: bool,
}

/// Check the graph's declared inputs and outputs against the card.
fn check_contract(
    session: &Session,
    card: &ModelCard,
    path: &Path,
) -> Result<Contract, EngineError> {
    let mismatch = |reason: String| EngineError::ContractMismatch {
        model_id: card.model_id(),
        reason,
        path: path.to_path_buf(),
    };
    let inputs = session.inputs();
    let input = match inputs.iter().find(|i| i.name() == card.input.name) {
        Some(i) => i,
        // Re-exports often rename the single input; the shape check below still applies.
        None if inputs.len() == 1 => &inputs[0],
        None => {
            return Err(mismatch(format!(
                "no input named {} (has {})",
                card.input.name,
                inputs
                    .iter()
                    .map(|i| i.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    };
    let declared: Vec<i64> = input
        .dtype()
        .tensor_shape()
        .map(|s| s.iter().copied().collect())
        .unwrap_or_default();
    if !dims_match(&declared, &card.input.shape) {
        return Err(mismatch(format!(
            "input {} has shape {:?}, the card needs {:?}",
            input.name(),
            declared,
            card.input.shape
        )));
    }
    if input.dtype().tensor_type() != Some(ort::value::TensorElementType::Float32) {
        return Err(mismatch(format!(
            "input {} is {:?}, the card needs float32",
            input.name(),
            input.dtype().tensor_type()
        )));
    }
    let outputs: Vec<(String, Vec<i64>)> = session
        .outputs()
        .iter()
        .map(|o| {
            (
                o.name().to_owned(),
                o.dtype()
                    .tensor_shape()
                    .map(|s| s.iter().copied().collect())
                    .unwrap_or_default(),
            )
        })
        .collect();
    let last_dim = |i: usize| outputs.get(i).and_then(|(_, s)| s.last().copied());
    match &card.output {
        OutputContract::ScrfdKps { strides, .. } => {
            if outputs.len() != strides.len() * 3 {
                return Err(mismatch(format!(
                    "{} outputs, SCRFD with keypoints has {} (score, bbox, kps per stride)",
                    outputs.len(),
                    strides.len() * 3
                )));
            }
        }
        OutputContract::CenterFace { .. } => {
            let channels: Vec<i64> = outputs
                .iter()
                .map(|(_, s)| s.get(1).copied().unwrap_or(-1))
                .collect();
            let known = |c: &[i64]| {
                c.iter()
                    .zip(CENTERFACE_CHANNELS)
                    .all(|(&a, b)| a < 0 || a == b)
            };
            if outputs.len() != CENTERFACE_CHANNELS.len() || !known(&channels) {
                return Err(mismatch(format!(
                    "outputs {outputs:?}, CenterFace has 4 (heatmap, scale, offset, landmarks: 1, 2, 2 and 10 channels)"
                )));
            }
        }
        OutputContract::Embedding { dim, .. } => {
            if outputs.len() != 1 || last_dim(0).is_some_and(|d| d >= 0 && d as usize != *dim) {
                return Err(mismatch(format!(
                    "outputs {outputs:?}, an embedder has one output of {dim} values"
                )));
            }
        }
        OutputContract::Classes { classes } => {
            let n = match classes {
                crate::cards::Classes::Inline(v) => v.len(),
                crate::cards::Classes::Named(_) => 0,
            };
            if outputs.len() != 1
                || (n > 0 && last_dim(0).is_some_and(|d| d >= 0 && d as usize != n))
            {
                return Err(mismatch(format!(
                    "outputs {outputs:?}, a classifier has one output of {n} logits"
                )));
            }
        }
        OutputContract::YoloSeg { .. } => {
            if outputs.len() != 2 {
                return Err(mismatch(format!(
                    "{} outputs, YOLO segmentation has 2 (detections, mask prototypes)",
                    outputs.len()
                )));
            }
        }
        OutputContract::Salient { maps, .. } => {
            let one_channel = outputs
                .iter()
                .all(|(_, s)| s.get(1).is_none_or(|&c| c < 0 || c == 1));
            if outputs.len() != *maps || !one_channel {
                return Err(mismatch(format!(
                    "outputs {outputs:?}, a salient-object segmenter has {maps} maps of one channel"
                )));
            }
        }
        OutputContract::Semantic { .. } => {
            if outputs.is_empty() {
                return Err(mismatch("no outputs".to_owned()));
            }
        }
        OutputContract::FaceMesh { points } => {
            if outputs.len() != 2 || last_dim(0).is_some_and(|d| d >= 0 && d as usize != points * 3)
            {
                return Err(mismatch(format!(
                    "outputs {outputs:?}, a face mesh has 2 ({points} points × 3, a face logit)"
                )));
            }
        }
        OutputContract::Iris { contour, iris } => {
            let sizes = (last_dim(0), last_dim(1));
            let want = (Some((contour * 3) as i64), Some((iris * 3) as i64));
            if outputs.len() != 2 || sizes != want {
                return Err(mismatch(format!(
                    "outputs {outputs:?}, an iris model has 2 ({contour} and {iris} points × 3)"
                )));
            }
        }
    }
    let shape = card
        .input
        .shape
        .iter()
        .map(|&d| d.max(1) as usize)
        .collect();
    Ok(Contract {
        input_name: input.name().to_owned(),
        input_shape: shape,
        dynamic_batch: declared.first().is_some_and(|d| *d < 0),
    })
}

impl ModelSession {
    pub fn model_id(&self) -> String {
        self.card.model_id()
    }

    pub fn rung(&self) -> Rung {
        self.placement.rung
    }

    /// The concrete input shape this session is fed.
    pub fn input_shape(&self) -> &[usize] {
        &self.input_shape
    }

    /// Whether one run can take several samples ([`ModelSession::run_batch`] with n > 1).
    pub fn dynamic_batch(&self) -> bool {
        self.dynamic_batch
    }

    /// Run on one input tensor laid out as [`ModelSession::input_shape`].
    pub fn run(&mut self, input: &[f32]) -> Result<Vec<Output>, EngineError> {
        self.run_batch(1, input)
    }

    /// Run on `n` samples, each laid out as [`ModelSession::input_shape`], one after another in
    /// `input`. Each output's first dimension is then `n`. More than one needs a model whose
    /// input batch is free ([`ModelSession::dynamic_batch`]).
    pub fn run_batch(&mut self, n: usize, input: &[f32]) -> Result<Vec<Output>, EngineError> {
        let fail = |e: ort::Error| EngineError::Inference {
            model_id: self.card.model_id(),
            reason: e.to_string(),
        };
        if n != 1 && !self.dynamic_batch {
            return Err(EngineError::Inference {
                model_id: self.card.model_id(),
                reason: format!("a batch of {n}: this model's input takes one sample a run"),
            });
        }
        let mut shape = self.input_shape.clone();
        if let Some(first) = shape.first_mut() {
            *first = n;
        }
        let expected: usize = shape.iter().product();
        if input.len() != expected {
            return Err(EngineError::Inference {
                model_id: self.card.model_id(),
                reason: format!(
                    "input has {} values, shape {shape:?} needs {expected}",
                    input.len(),
                ),
            });
        }
        let tensor = TensorRef::from_array_view((shape, input)).map_err(fail)?;
        let outputs = self
            .session
            .run(ort::inputs![self.input_name.as_str() => tensor])
            .map_err(fail)?;
        let mut out = Vec::with_capacity(outputs.len());
        for (name, value) in &outputs {
            let (shape, data) = value.try_extract_tensor::<f32>().map_err(fail)?;
            out.push(Output {
                name: name.to_owned(),
                shape: shape.iter().map(|&d| d.max(0) as usize).collect(),
                data: data.to_vec(),
            });
        }
        Ok(out)
    }
}
