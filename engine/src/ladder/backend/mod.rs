//! The ladder at run time: one `Backend` per process, started at launch. Its thread resolves
//! the probe (from the cache or by walking the ladder in workers) and then builds engines;
//! meanwhile every request is answered by the floor, so nothing waits for it. Jobs take a
//! [`JobPin`] when they start and get every session from it, so a backend never changes under a
//! running job (spec §4, §6).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::cache::{self, CacheFile, CacheMiss, EngineFailure};
use super::child::{self, ChildEnd, Launcher};
use super::device::{self, DeviceIdentity, ProbeInputs, RuntimeIdentity};
use super::engines::{self, EngineDir, EngineSpec};
use super::probe::{ProbeResult, RungState, Walk};
use super::tune::{self, TunedModel, Tuner};
use super::worker::{self, WorkerRequest};
use crate::cards::Role;
use crate::error::EngineError;
use crate::fake::{self, FakeGpu};
use crate::rungs::{self, DEFAULT_WORKSPACE_MB, Placement, Platform, Rung, precision_for};
use crate::runtime::{RuntimeKind, RuntimeOutcome};
use crate::settings::override_in;
pub use crate::settings::{
    BackendSettings, Override, OverrideSource, SETTINGS_FILE, THREADS_ENV, WORKSPACE_ENV,
    env_number, explicit_threads, override_from, threads_for,
};
use crate::store::ModelStore;
use crate::tuning;

mod pin;
mod status;

pub use pin::JobPin;
pub use status::{BackendStatus, EngineState, EngineStatus, Phase, TuningState};

/// How the backend is set up for this process.
#[derive(Debug, Clone)]
pub struct BackendConfig {
    /// Holds the probe cache, the setting and the engines (beside the models dir).
    pub inference_dir: PathBuf,
    pub launcher: Launcher,
    /// Ignore the cache and probe again (`darkroom probe --reprobe`).
    pub reprobe: bool,
    pub forced: Option<Override>,
    /// Per probe worker (a cold TensorRT probe takes tens of seconds).
    pub probe_limit: Duration,
    /// Per engine build.
    pub engine_limit: Duration,
    pub workspace_mb: u64,
    pub fake: Option<FakeGpu>,
    /// The thread counts the session tuning measures (see [`crate::tuning::thread_grid`]).
    pub tune_threads: Vec<usize>,
}

impl BackendConfig {
    /// From the environment and the persisted settings (the environment wins):
    /// `DARKROOM_BACKEND`, `DARKROOM_PROBE_TIMEOUT_S` (120), `DARKROOM_ENGINE_TIMEOUT_S` (1800),
    /// `DARKROOM_TRT_WORKSPACE_MB` (512), and the test provider's `DARKROOM_FAKE_GPU` where the
    /// build has it.
    pub fn from_env(inference_dir: PathBuf, launcher: Launcher) -> Result<Self, EngineError> {
        let fake = fake::from_env().map_err(|reason| EngineError::Setting {
            name: fake::ENV,
            reason,
            path: PathBuf::from("(environment)"),
        })?;
        let settings = BackendSettings::load(&inference_dir)?;
        Ok(BackendConfig {
            forced: override_in(&settings)?,
            inference_dir,
            launcher,
            reprobe: false,
            probe_limit: Duration::from_secs(
                env_number("DARKROOM_PROBE_TIMEOUT_S")?.unwrap_or(120),
            ),
            engine_limit: Duration::from_secs(
                env_number("DARKROOM_ENGINE_TIMEOUT_S")?.unwrap_or(1800),
            ),
            workspace_mb: env_number(WORKSPACE_ENV)?
                .or(settings.workspace_mb.filter(|n| *n > 0))
                .unwrap_or(DEFAULT_WORKSPACE_MB),
            fake,
            tune_threads: tuning::thread_grid(explicit_threads(&settings)),
        })
    }
}

#[derive(Debug)]
struct State {
    phase: Phase,
    ladder: Vec<Rung>,
    platform: Option<Platform>,
    inputs: Option<ProbeInputs>,
    cached: Option<CacheFile>,
    from_cache: bool,
    cache_miss: Option<CacheMiss>,
    cache_error: Option<String>,
    engines: Vec<EngineStatus>,
    /// Starts as the config's; Settings can change it while the app runs.
    forced: Option<Override>,
    tuning_state: TuningState,
    /// Each model's measured settings on the CPU floor, as they land.
    tuning: Vec<TunedModel>,
    /// Tuning entries that were unreadable and measured again, and a file that could not be
    /// written.
    tuning_notes: Vec<String>,
}

struct Shared {
    runtime: &'static RuntimeOutcome,
    store: ModelStore,
    config: BackendConfig,
    state: Mutex<State>,
    changed: Condvar,
    stop: AtomicBool,
}

/// The process's backend. Dropping it cancels the probe or build in progress.
pub struct Backend {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("status", &self.status().line)
            .finish()
    }
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Backend {
    /// Start resolving the backend in the background and return at once.
    pub fn start(
        runtime: &'static RuntimeOutcome,
        store: ModelStore,
        config: BackendConfig,
    ) -> Self {
        let forced = config.forced;
        let shared = Arc::new(Shared {
            runtime,
            store,
            config,
            state: Mutex::new(State {
                phase: Phase::Probing,
                ladder: Vec::new(),
                platform: None,
                inputs: None,
                cached: None,
                from_cache: false,
                cache_miss: None,
                cache_error: None,
                engines: Vec::new(),
                forced,
                tuning_state: TuningState::Pending,
                tuning: Vec::new(),
                tuning_notes: Vec::new(),
            }),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("darkroom-backend".into())
            .spawn(move || worker.resolve_and_build())
            .ok();
        if thread.is_none() {
            // No thread: stay on the floor, which is always correct, and say so.
            let mut s = lock(&shared.state);
            s.phase = Phase::Ready;
            s.tuning_state = TuningState::NotNeeded;
            s.cache_error = Some("could not start the backend thread".to_owned());
        }
        Backend { shared, thread }
    }

    pub fn status(&self) -> BackendStatus {
        self.shared.status(&lock(&self.shared.state))
    }

    /// Pin a job to the backend as it is now.
    pub fn pin(&self) -> JobPin {
        let state = lock(&self.shared.state);
        let shared = &self.shared;
        let placements = shared
            .store
            .cards()
            .iter()
            .map(|card| {
                let id = card.model_id();
                let p = shared.placement(&state, &id, card.role);
                (id, p)
            })
            .collect();
        JobPin {
            line: shared.status(&state).line,
            placements,
            default: Placement::floor(shared.runtime.kind),
        }
    }

    /// Change the override for jobs started from now on (running jobs keep their pin).
    pub fn set_forced(&self, forced: Option<Override>) {
        lock(&self.shared.state).forced = forced;
        self.shared.notify();
    }

    /// Block until `done` holds or `timeout` passes; true if it holds.
    fn wait_for(&self, timeout: Duration, done: impl Fn(&State) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.shared.state);
        while !done(&state) {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }

    /// Wait for the probe to report (the command line does; the app never does).
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        self.wait_for(timeout, |s| s.phase == Phase::Ready)
    }

    /// Wait until every model's session settings are measured (or none need to be).
    pub fn wait_tuned(&self, timeout: Duration) -> bool {
        self.wait_for(timeout, |s| {
            s.phase == Phase::Ready
                && matches!(s.tuning_state, TuningState::NotNeeded | TuningState::Done)
        })
    }

    /// Wait until no engine is waiting or building.
    pub fn wait_engines(&self, timeout: Duration) -> bool {
        self.wait_for(timeout, |s| {
            s.phase == Phase::Ready
                && s.engines
                    .iter()
                    .all(|e| !matches!(e.state, EngineState::Waiting | EngineState::Building))
        })
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.changed.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Shared {
    fn notify(&self) {
        self.changed.notify_all();
    }

    fn floor(&self) -> Rung {
        Rung::floor(self.runtime.kind)
    }

    fn device_identity(&self) -> DeviceIdentity {
        if let Some(f) = &self.config.fake {
            return DeviceIdentity::simulated(f.gpu());
        }
        let end = child::run(
            &self.config.launcher,
            &[worker::encode(&WorkerRequest::Identity)],
            self.config.probe_limit,
            &self.stop,
        );
        match end {
            ChildEnd::Finished { stdout } => serde_json::from_str(&stdout)
                .unwrap_or_else(|e| DeviceIdentity::unknown(format!("unreadable report: {e}"))),
            other => DeviceIdentity::unknown(format!("device query {}", other.reason())),
        }
    }

    /// The thread's whole life: resolve the probe, publish it, build engines.
    fn resolve_and_build(&self) {
        if self.runtime.kind == RuntimeKind::Tract {
            // Without ONNX Runtime there is nothing to probe: tract is the whole ladder.
            let ladder = vec![Rung::Tract];
            let walk = self.walk(&ladder);
            let mut s = lock(&self.state);
            s.ladder = ladder;
            s.cached = Some(CacheFile {
                format: cache::FORMAT,
                inputs: self.inputs(
                    DeviceIdentity::unknown("not asked: no ONNX Runtime".into()),
                    Platform::NoNvidia,
                ),
                probe: walk,
                engine_failures: Vec::new(),
            });
            s.phase = Phase::Ready;
            s.tuning_state = TuningState::NotNeeded;
            self.notify();
            return;
        }
        let device = self.device_identity();
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        let simulated_rung = self.config.fake.as_ref().is_some_and(FakeGpu::has_rung);
        let platform = device::platform_of(&device, simulated_rung);
        let ladder = rungs::ladder_for(platform).to_vec();
        let inputs = self.inputs(device, platform);
        let cache_path = cache::path_in(&self.config.inference_dir);
        let looked_up = if self.config.reprobe {
            Err(CacheMiss::Ignored)
        } else {
            cache::lookup(&cache_path, &inputs)
        };
        let (file, from_cache, miss, write_error) = match looked_up {
            Ok(file) => (file, true, None, None),
            Err(miss) => {
                let result = self.walk(&ladder);
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
                let file = CacheFile {
                    format: cache::FORMAT,
                    inputs: inputs.clone(),
                    probe: result,
                    engine_failures: Vec::new(),
                };
                let err = cache::store(&cache_path, &file)
                    .err()
                    .map(|e| format!("{e}: {}", cache_path.display()));
                (file, false, Some(miss), err)
            }
        };
        let plan = self.engine_plan(&file);
        let tune_inputs = self.needs_tuning(&file).then(|| file.inputs.clone());
        {
            let mut s = lock(&self.state);
            s.ladder = ladder;
            s.platform = Some(platform);
            s.inputs = Some(inputs);
            s.cached = Some(file);
            s.from_cache = from_cache;
            s.cache_miss = miss;
            s.cache_error = write_error;
            s.engines = plan;
            s.phase = Phase::Ready;
            if tune_inputs.is_none() {
                s.tuning_state = TuningState::NotNeeded;
            }
        }
        self.notify();
        if let Some(inputs) = tune_inputs {
            self.tune(&inputs);
        }
        self.build_engines();
    }

    /// The CPU floor serves (chosen, or forced): its sessions are worth tuning. A GPU rung's
    /// sessions leave the CPU to feed the device, and its engine builds want the cores.
    fn needs_tuning(&self, file: &CacheFile) -> bool {
        let forced_cpu = lock(&self.state)
            .forced
            .is_some_and(|o| o.rung == Rung::OrtCpu);
        self.runtime.kind == RuntimeKind::OnnxRuntime
            && (file.probe.selected == Rung::OrtCpu || forced_cpu)
    }

    /// Measure each verified model's session settings that the tuning file does not already
    /// hold for these inputs, publishing each as it lands (jobs started before it get the
    /// untuned default).
    fn tune(&self, inputs: &ProbeInputs) {
        let dir = &self.config.inference_dir;
        let loaded = tune::load(dir);
        let tuner = Tuner {
            launcher: &self.config.launcher,
            models_dir: self.store.dir(),
            runtime: inputs.runtime.clone(),
            cpu: inputs.device.cpu.clone(),
            threads: self.config.tune_threads.clone(),
            limit: self.config.probe_limit,
            stop: &self.stop,
        };
        {
            let mut s = lock(&self.state);
            s.tuning_notes = loaded
                .dropped
                .iter()
                .map(|d| format!("measured again: {d}"))
                .collect();
        }
        let mut entries: Vec<TunedModel> = Vec::new();
        let mut measured_any = false;
        for model in inputs.models.iter().filter(|m| m.verified) {
            let key = tuner.key(model);
            let entry = match loaded.entries.iter().find(|e| e.key == key) {
                Some(known) => known.clone(),
                None => {
                    lock(&self.state).tuning_state = TuningState::Measuring {
                        model_id: model.model_id.clone(),
                    };
                    self.notify();
                    let Some(fresh) = tuner.measure(model) else {
                        return;
                    };
                    measured_any = true;
                    fresh
                }
            };
            entries.push(entry);
            lock(&self.state).tuning = entries.clone();
            self.notify();
        }
        let write_error = (measured_any || !loaded.dropped.is_empty())
            .then(|| tune::store(dir, &entries).err())
            .flatten()
            .map(|e| format!("{e}: {}", tune::path_in(dir).display()));
        let mut s = lock(&self.state);
        s.tuning_notes.extend(write_error);
        s.tuning_state = TuningState::Done;
        drop(s);
        self.notify();
    }

    fn inputs(&self, device: DeviceIdentity, platform: Platform) -> ProbeInputs {
        ProbeInputs {
            darkroom: env!("CARGO_PKG_VERSION").to_owned(),
            platform,
            runtime: RuntimeIdentity::of(self.runtime),
            device,
            models: device::model_stamps(&self.store),
            simulated: self.config.fake.as_ref().map(|f| f.raw.clone()),
            workspace_mb: self.config.workspace_mb,
        }
    }

    fn walk(&self, ladder: &[Rung]) -> ProbeResult {
        Walk {
            ladder,
            runtime: self.runtime,
            store: &self.store,
            launcher: &self.config.launcher,
            limit: self.config.probe_limit,
            workspace_mb: self.config.workspace_mb,
            stop: &self.stop,
        }
        .run()
    }

    /// The engines the selected rung needs, with those already on disk marked ready. Empty
    /// unless a compiling rung is selected, not forced away and not demoted.
    fn engine_plan(&self, file: &CacheFile) -> Vec<EngineStatus> {
        let selected = file.probe.selected;
        if !selected.compiles() || !file.engine_failures.is_empty() {
            return Vec::new();
        }
        // A user who forced a lower rung does not want the GPU busy compiling for it.
        let position = |r: Rung| file.probe.rungs.iter().position(|o| o.rung == r);
        if self
            .config
            .forced
            .is_some_and(|o| position(o.rung) > position(selected))
        {
            return Vec::new();
        }
        let dir = EngineDir::new(&self.config.inference_dir);
        dir.sweep_stale();
        engines::plan(
            selected,
            &file.inputs.models,
            &self.store,
            &file.inputs.device,
            self.config.workspace_mb,
        )
        .into_iter()
        .map(|spec| EngineStatus {
            state: match dir.ready(&spec) {
                Some(d) => EngineState::Ready { dir: d },
                None => EngineState::Waiting,
            },
            spec,
        })
        .collect()
    }

    /// Build the waiting engines one at a time, smallest first. The first failure demotes the
    /// rung and is cached with the model's hash.
    fn build_engines(&self) {
        let dir = EngineDir::new(&self.config.inference_dir);
        loop {
            let next = {
                let mut s = lock(&self.state);
                let next = s
                    .engines
                    .iter_mut()
                    .find(|e| e.state == EngineState::Waiting);
                match next {
                    Some(e) => {
                        e.state = EngineState::Building;
                        e.spec.clone()
                    }
                    None => return,
                }
            };
            self.notify();
            let result = dir.build(
                &next,
                &self.store,
                &self.config.launcher,
                self.config.engine_limit,
                self.config.workspace_mb,
                &self.stop,
            );
            let mut s = lock(&self.state);
            match result {
                Ok(path) => set_engine(&mut s, &next, EngineState::Ready { dir: path }),
                Err(ChildEnd::Cancelled) => return,
                Err(end) => {
                    let reason = end.reason();
                    set_engine(
                        &mut s,
                        &next,
                        EngineState::Failed {
                            reason: reason.clone(),
                        },
                    );
                    // The rest will not be needed on a demoted rung.
                    for e in &mut s.engines {
                        if e.state == EngineState::Waiting {
                            e.state = EngineState::Failed {
                                reason: format!("not built: {} failed", next.model_id),
                            };
                        }
                    }
                    if let Some(file) = s.cached.as_mut() {
                        file.engine_failures.push(EngineFailure {
                            rung: next.rung,
                            model_id: next.model_id.clone(),
                            sha256: next.sha256.clone(),
                            precision: next.precision,
                            reason,
                        });
                        let path = cache::path_in(&self.config.inference_dir);
                        if let Err(e) = cache::store(&path, file) {
                            s.cache_error = Some(format!("{e}: {}", path.display()));
                        }
                    }
                    drop(s);
                    self.notify();
                    return;
                }
            }
            drop(s);
            self.notify();
        }
    }

    /// The rung the probe chose, moved down by a failed engine build.
    fn chosen(&self, s: &State) -> (Rung, Option<String>) {
        let Some(file) = s.cached.as_ref().filter(|_| s.phase == Phase::Ready) else {
            return (self.floor(), None);
        };
        let selected = file.probe.selected;
        let failure = file
            .engine_failures
            .iter()
            .find(|f| f.rung == selected)
            .map(|f| {
                format!(
                    "{} engine build failed for {}: {}",
                    selected.label(),
                    f.model_id,
                    f.reason
                )
            });
        match failure {
            Some(reason) => (
                file.probe.fallback.unwrap_or_else(|| self.floor()),
                Some(reason),
            ),
            None => (selected, None),
        }
    }

    /// The rung serving new jobs, after the override; and why an override was not honoured.
    fn serving(&self, s: &State) -> (Rung, Option<String>) {
        let (chosen, _) = self.chosen(s);
        let Some(forced) = s.forced else {
            return (chosen, None);
        };
        if forced.rung == chosen {
            return (chosen, None);
        }
        if s.phase == Phase::Probing {
            return (chosen, None);
        }
        let position = |r: Rung| s.ladder.iter().position(|&x| x == r);
        let below =
            matches!((position(forced.rung), position(chosen)), (Some(f), Some(c)) if f > c);
        let outcome = s
            .cached
            .as_ref()
            .and_then(|f| f.probe.rungs.iter().find(|o| o.rung == forced.rung));
        let usable = match forced.rung {
            Rung::Tract => false,
            Rung::OrtCpu => self.runtime.kind == RuntimeKind::OnnxRuntime,
            _ => outcome.is_some_and(|o| {
                !matches!(
                    o.state,
                    RungState::Failed
                        | RungState::Crashed
                        | RungState::TimedOut
                        | RungState::Unavailable
                )
            }),
        };
        if below && usable {
            (forced.rung, None)
        } else if forced.rung == Rung::Tract {
            (
                chosen,
                Some("tract is used only when the process starts on it (restart DarkRoom)".into()),
            )
        } else if !below {
            (
                chosen,
                Some(format!(
                    "{} is not below {} on this machine's ladder; only a lower rung can be forced",
                    forced.rung, chosen
                )),
            )
        } else {
            (
                chosen,
                Some(format!(
                    "{} cannot be forced: {}",
                    forced.rung,
                    outcome
                        .and_then(|o| o.reason.clone())
                        .unwrap_or_else(|| "it did not pass the probe".into())
                )),
            )
        }
    }

    fn placement(&self, s: &State, model_id: &str, role: Role) -> Placement {
        let (rung, _) = self.serving(s);
        let tuned = s
            .tuning
            .iter()
            .find(|t| t.key.model_id == model_id)
            .map(|t| t.chosen);
        let with = |rung: Rung, engine_dir: Option<PathBuf>| Placement {
            rung,
            precision: precision_for(rung, role),
            engine_dir,
            workspace_mb: self.config.workspace_mb,
            session: tuned.filter(|_| rung == Rung::OrtCpu),
        };
        if !rung.compiles() {
            return with(rung, None);
        }
        let ready = s.engines.iter().find_map(|e| match &e.state {
            EngineState::Ready { dir } if e.spec.model_id == model_id => Some(dir.clone()),
            _ => None,
        });
        match ready {
            Some(dir) => with(rung, Some(dir)),
            None => {
                let fallback = s
                    .cached
                    .as_ref()
                    .and_then(|f| f.probe.fallback)
                    .unwrap_or_else(|| self.floor());
                with(fallback, None)
            }
        }
    }
}

fn set_engine(s: &mut State, spec: &EngineSpec, state: EngineState) {
    if let Some(e) = s.engines.iter_mut().find(|e| e.spec == *spec) {
        e.state = state;
    }
}
