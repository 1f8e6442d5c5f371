//! The probe (spec §4): time the floor, then build and time a real session on each rung above
//! it, each in its own worker process; a rung is taken only if its median beats the floor's.
//! A provider that silently hands the graph to the CPU is slower than the floor and loses.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::child::{self, ChildEnd, Launcher};
use super::device::DeviceIdentity;
use super::worker::{WorkerRequest, encode, fixed_input};
use crate::cards::Role;
use crate::error::EngineError;
use crate::fake::FakeGpu;
use crate::rungs::{Placement, Rung, precision_for};
use crate::runtime::{RuntimeKind, RuntimeOutcome};
use crate::sessions::Sessions;
use crate::store::ModelStore;

/// Runs timed after the warm-up run.
pub const TIMED_RUNS: usize = 3;

/// One session's timings on one rung.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub build_ms: f64,
    pub first_run_ms: f64,
    pub runs_ms: Vec<f64>,
    pub median_ms: f64,
}

/// What became of one rung.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RungState {
    /// The floor's own measurement.
    Floor,
    /// Beat the floor; serves every model.
    Selected,
    /// Beat the floor below a selected compiling rung: serves while engines build.
    Fallback,
    /// Built and ran, but no faster than the floor.
    Slower,
    /// The provider refused in its own words.
    Failed,
    /// The worker died (a signal, an abort).
    Crashed,
    /// The worker ran past the time limit.
    TimedOut,
    /// Not needed: a better rung was already taken.
    Skipped,
    /// This process cannot use it (tract beside a loaded ONNX Runtime, GPU rungs on tract).
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RungOutcome {
    pub rung: Rung,
    pub state: RungState,
    pub reason: Option<String>,
    pub timing: Option<Timing>,
}

/// The probe's answer for this device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// The model every rung was timed on (the smallest installed detector).
    pub model_id: Option<String>,
    pub rungs: Vec<RungOutcome>,
    pub selected: Rung,
    /// For a compiling selected rung, the rung that serves until its engines land.
    pub fallback: Option<Rung>,
}

/// The smallest installed f32 detector: the model the ladder is timed on. An int8 form is
/// smaller, but its arithmetic is not what the compiling rungs build from.
pub fn probe_model(store: &ModelStore) -> Option<String> {
    store
        .cards()
        .by_role(Role::Detector)
        .filter(|c| c.numeric_form == crate::cards::NumericForm::F32)
        .filter_map(|c| {
            let size = std::fs::metadata(store.path_of(c)).ok()?.len();
            Some((size, c.model_id()))
        })
        .min()
        .map(|(_, id)| id)
}

/// Limits and surroundings for one walk.
pub struct Walk<'a> {
    pub ladder: &'a [Rung],
    pub runtime: &'a RuntimeOutcome,
    pub store: &'a ModelStore,
    pub launcher: &'a Launcher,
    pub limit: Duration,
    pub workspace_mb: u64,
    pub stop: &'a AtomicBool,
}

impl Walk<'_> {
    fn time(&self, rung: Rung, model_id: &str) -> Result<Timing, (RungState, String)> {
        let request = WorkerRequest::Time {
            rung,
            models: self.store.dir().to_path_buf(),
            model_id: model_id.to_owned(),
            workspace_mb: self.workspace_mb,
        };
        let end = child::run(self.launcher, &[encode(&request)], self.limit, self.stop);
        match end {
            ChildEnd::Finished { stdout } => serde_json::from_str::<Timing>(&stdout)
                .map_err(|e| (RungState::Crashed, format!("unreadable worker report: {e}"))),
            ChildEnd::Failed { reason } => Err((RungState::Failed, reason)),
            ChildEnd::TimedOut { .. } => Err((RungState::TimedOut, end.reason())),
            ChildEnd::Crashed { .. } | ChildEnd::Cancelled => {
                Err((RungState::Crashed, end.reason()))
            }
        }
    }

    /// Walk the ladder. Never fails: every way a rung can go wrong is an outcome.
    pub fn run(&self) -> ProbeResult {
        let floor = Rung::floor(self.runtime.kind);
        let unavailable = |rung: Rung, reason: &str| RungOutcome {
            rung,
            state: RungState::Unavailable,
            reason: Some(reason.to_owned()),
            timing: None,
        };
        if self.runtime.kind == RuntimeKind::Tract {
            let rungs = self
                .ladder
                .iter()
                .map(|&r| match r {
                    Rung::Tract => RungOutcome {
                        rung: r,
                        state: RungState::Floor,
                        reason: None,
                        timing: None,
                    },
                    _ => unavailable(r, "needs ONNX Runtime, which this process does not have"),
                })
                .collect();
            return ProbeResult {
                model_id: None,
                rungs,
                selected: Rung::Tract,
                fallback: None,
            };
        }
        let Some(model_id) = probe_model(self.store) else {
            let rungs = self
                .ladder
                .iter()
                .map(|&r| RungOutcome {
                    rung: r,
                    state: RungState::Skipped,
                    reason: Some("no detector installed to time".to_owned()),
                    timing: None,
                })
                .collect();
            return ProbeResult {
                model_id: None,
                rungs,
                selected: floor,
                fallback: None,
            };
        };
        let floor_timing = self.time(Rung::OrtCpu, &model_id);
        let floor_median = floor_timing.as_ref().ok().map(|t| t.median_ms);
        let mut selected: Option<Rung> = None;
        let mut fallback: Option<Rung> = None;
        let mut rungs = Vec::new();
        for &rung in self.ladder {
            let outcome = match rung {
                Rung::OrtCpu => match &floor_timing {
                    Ok(t) => RungOutcome {
                        rung,
                        state: RungState::Floor,
                        reason: None,
                        timing: Some(t.clone()),
                    },
                    Err((state, reason)) => RungOutcome {
                        rung,
                        state: *state,
                        reason: Some(reason.clone()),
                        timing: None,
                    },
                },
                Rung::Tract => unavailable(
                    rung,
                    "this process runs ONNX Runtime; tract serves only without it",
                ),
                _ if selected.is_some_and(|s| !s.compiles() || fallback.is_some()) => RungOutcome {
                    rung,
                    state: RungState::Skipped,
                    reason: Some(format!("{} was taken", selected.unwrap_or(rung))),
                    timing: None,
                },
                _ => {
                    let Some(floor_ms) = floor_median else {
                        rungs.push(RungOutcome {
                            rung,
                            state: RungState::Skipped,
                            reason: Some("the floor could not be timed".to_owned()),
                            timing: None,
                        });
                        continue;
                    };
                    match self.time(rung, &model_id) {
                        Ok(t) if t.median_ms < floor_ms => {
                            let state = if selected.is_none() {
                                selected = Some(rung);
                                RungState::Selected
                            } else {
                                fallback = Some(rung);
                                RungState::Fallback
                            };
                            RungOutcome {
                                rung,
                                state,
                                reason: None,
                                timing: Some(t),
                            }
                        }
                        Ok(t) => RungOutcome {
                            rung,
                            state: RungState::Slower,
                            reason: Some(format!(
                                "median {:.1} ms, no faster than the CPU's {:.1} ms",
                                t.median_ms, floor_ms
                            )),
                            timing: Some(t),
                        },
                        Err((state, reason)) => RungOutcome {
                            rung,
                            state,
                            reason: Some(reason),
                            timing: None,
                        },
                    }
                }
            };
            rungs.push(outcome);
        }
        let selected = selected.unwrap_or(floor);
        let fallback = selected.compiles().then(|| fallback.unwrap_or(floor));
        ProbeResult {
            model_id: Some(model_id),
            rungs,
            selected,
            fallback,
        }
    }
}

fn role_of(sessions: &Sessions, model_id: &str) -> Result<Role, String> {
    Ok(sessions
        .store()
        .cards()
        .get(model_id)
        .map_err(|e| e.to_string())?
        .role)
}

/// A provider's refusal in the library's own words (the rung is named by the record).
fn provider_words(e: EngineError) -> String {
    match e {
        EngineError::Provider { reason, .. } => reason,
        other => other.to_string(),
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// The worker's side: serve one request in this process and return the line to print.
pub fn serve(
    request: &WorkerRequest,
    sessions: Option<&Sessions>,
    fake: Option<&FakeGpu>,
) -> Result<String, String> {
    let sessions = || sessions.ok_or_else(|| "no runtime in the worker".to_owned());
    let placement = |rung: Rung, role: Role, workspace_mb: u64| Placement {
        rung,
        precision: precision_for(rung, role),
        engine_dir: None,
        workspace_mb,
        session: None,
    };
    match request {
        WorkerRequest::Identity => {
            let identity = match fake {
                Some(f) => DeviceIdentity::simulated(f.gpu()),
                None => DeviceIdentity::query(),
            };
            serde_json::to_string(&identity).map_err(|e| e.to_string())
        }
        WorkerRequest::Time {
            rung,
            model_id,
            workspace_mb,
            ..
        } => {
            let sessions = sessions()?;
            let simulated = match (rung, fake) {
                (Rung::SimulatedGpu, Some(f)) => Some(f),
                (Rung::SimulatedGpu, None) => {
                    return Err("the simulated GPU is not configured".to_owned());
                }
                _ => None,
            };
            let role = role_of(sessions, model_id)?;
            let started = Instant::now();
            if let Some(f) = simulated {
                f.before_build()?;
            }
            let mut session = sessions
                .open_placed(model_id, role, &placement(*rung, role, *workspace_mb))
                .map_err(provider_words)?;
            let build_ms = ms(started);
            let input = fixed_input(session.input_shape().iter().product());
            let first = Instant::now();
            session.run(&input).map_err(|e| e.to_string())?;
            let first_run_ms = ms(first);
            let mut runs_ms = Vec::with_capacity(TIMED_RUNS);
            for _ in 0..TIMED_RUNS {
                let t = Instant::now();
                let skip_real = simulated.is_some_and(|f| f.timed_run());
                if !skip_real {
                    session.run(&input).map_err(|e| e.to_string())?;
                    if let Some(f) = simulated {
                        f.after_run(t.elapsed());
                    }
                }
                runs_ms.push(ms(t));
            }
            let timing = Timing {
                build_ms,
                first_run_ms,
                median_ms: crate::tuning::median(&runs_ms),
                runs_ms,
            };
            serde_json::to_string(&timing).map_err(|e| e.to_string())
        }
        WorkerRequest::Tune {
            model_id,
            grid,
            runs,
            ..
        } => {
            let measured = super::tune::serve(sessions()?, model_id, grid, *runs)?;
            serde_json::to_string(&measured).map_err(|e| e.to_string())
        }
        WorkerRequest::Engine {
            rung,
            model_id,
            precision,
            out,
            workspace_mb,
            ..
        } => {
            let sessions = sessions()?;
            match (rung, fake) {
                (Rung::SimulatedGpu, Some(f)) => {
                    let model = sessions.store().load(model_id).map_err(|e| e.to_string())?;
                    f.compile(model_id, &model.sha256, out)?;
                }
                (Rung::TensorRt, _) => {
                    let role = role_of(sessions, model_id)?;
                    // Building the session is what makes TensorRT compile and write the engine
                    // and timing caches into `out`; one run makes sure nothing is deferred.
                    let mut session = sessions
                        .open_placed(
                            model_id,
                            role,
                            &Placement {
                                rung: *rung,
                                precision: *precision,
                                engine_dir: Some(out.clone()),
                                workspace_mb: *workspace_mb,
                                session: None,
                            },
                        )
                        .map_err(provider_words)?;
                    let input = fixed_input(session.input_shape().iter().product());
                    session.run(&input).map_err(|e| e.to_string())?;
                }
                (other, _) => return Err(format!("{other} does not build engines")),
            }
            Ok("{\"built\":true}".to_owned())
        }
    }
}
