//! What the backend shows: its phase, every engine's state, and the one status line with the
//! progress row (data for Settings, About and `darkroom probe --json`), computed from the
//! backend thread's state.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Shared, State};
use crate::ladder::cache::{self, CacheMiss};
use crate::ladder::device::ProbeInputs;
use crate::ladder::engines::EngineSpec;
use crate::ladder::probe::{ProbeResult, RungOutcome, RungState};
use crate::ladder::tune::{self, TunedModel};
use crate::rungs::{Platform, Rung};
use crate::runtime::RuntimeKind;
use crate::settings::Override;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The probe has not reported: the floor serves.
    Probing,
    /// The probe's answer is in (engines may still be building).
    Ready,
}

/// Where the session tuning is (it runs after the probe, on the backend's thread).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TuningState {
    /// The probe has not reported yet.
    Pending,
    /// The CPU floor does not serve (a GPU rung does, or the process runs on tract).
    NotNeeded,
    /// Timing this model's settings in a worker.
    Measuring { model_id: String },
    /// Every installed model has its settings (measured now or read from the file).
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum EngineState {
    Waiting,
    Building,
    Ready { dir: PathBuf },
    Failed { reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineStatus {
    #[serde(flatten)]
    pub spec: EngineSpec,
    #[serde(flatten)]
    pub state: EngineState,
}

/// Everything Settings, the About screen and `darkroom probe --json` show.
#[derive(Debug, Clone, Serialize)]
pub struct BackendStatus {
    pub phase: Phase,
    /// The one line: "CPU · ONNX Runtime 1.31.1 · TensorRT probe failed: ...".
    pub line: String,
    /// "Preparing GPU engines · 3 of 6" while engines build, else None.
    pub progress: Option<String>,
    /// What a job started now would run on (models with a ready engine, or all on a
    /// non-compiling rung).
    pub serving: Rung,
    pub floor: Rung,
    pub selected: Option<Rung>,
    pub fallback: Option<Rung>,
    /// A failed engine build moved the selection down one rung.
    pub demoted: Option<String>,
    pub forced: Option<Override>,
    /// Why an override could not be honoured.
    pub forced_note: Option<String>,
    pub platform: Option<Platform>,
    pub ladder: Vec<Rung>,
    /// The model the rungs were timed on.
    pub model_id: Option<String>,
    pub rungs: Vec<RungOutcome>,
    pub from_cache: bool,
    pub cache_file: PathBuf,
    /// Why the cache was not used, when it was not.
    pub cache_miss: Option<CacheMiss>,
    /// The cache could not be written (the probe's answer still stands for this run).
    pub cache_error: Option<String>,
    pub engines: Vec<EngineStatus>,
    pub inputs: Option<ProbeInputs>,
    pub tuning_state: TuningState,
    /// Each model's session settings on the CPU floor and the timings behind them.
    pub tuning: Vec<TunedModel>,
    pub tuning_file: PathBuf,
    /// Entries measured again because they were unreadable; a file that could not be written.
    pub tuning_notes: Vec<String>,
}

impl Shared {
    pub(super) fn status(&self, s: &State) -> BackendStatus {
        let (serving, forced_note) = self.serving(s);
        let (_, demoted) = self.chosen(s);
        let probe = s
            .cached
            .as_ref()
            .filter(|_| s.phase == Phase::Ready)
            .map(|f| &f.probe);
        let total = s.engines.len();
        let ready = s
            .engines
            .iter()
            .filter(|e| matches!(e.state, EngineState::Ready { .. }))
            .count();
        let building = s
            .engines
            .iter()
            .any(|e| matches!(e.state, EngineState::Waiting | EngineState::Building));
        let progress = (serving.compiles() && building)
            .then(|| format!("Preparing GPU engines · {ready} of {total}"));
        let line = self.line(
            s,
            serving,
            probe,
            demoted.as_deref(),
            building.then_some((ready, total)),
        );
        BackendStatus {
            phase: s.phase,
            line,
            progress,
            serving,
            floor: self.floor(),
            selected: probe.map(|p| p.selected),
            fallback: probe.and_then(|p| p.fallback),
            demoted,
            forced: s.forced,
            forced_note,
            platform: s.platform,
            ladder: s.ladder.clone(),
            model_id: probe.and_then(|p| p.model_id.clone()),
            rungs: probe.map(|p| p.rungs.clone()).unwrap_or_default(),
            from_cache: s.from_cache,
            cache_file: cache::path_in(&self.config.inference_dir),
            cache_miss: s.cache_miss.clone(),
            cache_error: s.cache_error.clone(),
            engines: s.engines.clone(),
            inputs: s.inputs.clone(),
            tuning_state: s.tuning_state.clone(),
            tuning: s.tuning.clone(),
            tuning_file: tune::path_in(&self.config.inference_dir),
            tuning_notes: s.tuning_notes.clone(),
        }
    }

    /// The one line, spec style.
    fn line(
        &self,
        s: &State,
        serving: Rung,
        probe: Option<&ProbeResult>,
        demoted: Option<&str>,
        building: Option<(usize, usize)>,
    ) -> String {
        if self.runtime.kind == RuntimeKind::Tract {
            return self.runtime.summary();
        }
        let mut head = match serving {
            Rung::TensorRt | Rung::SimulatedGpu => format!("{} fp16", serving.label()),
            other => other.label().to_owned(),
        };
        if s.forced.is_some_and(|f| f.rung == serving)
            && probe.is_some_and(|p| p.selected != serving)
        {
            head.push_str(" (forced)");
        }
        let runtime = format!("ONNX Runtime {}", self.runtime.version);
        if s.phase == Phase::Probing {
            return format!("{head} · {runtime} · looking for a faster backend");
        }
        if let Some((ready, total)) = building.filter(|_| serving.compiles()) {
            return format!("{head} · preparing engines {ready} of {total}");
        }
        let mut parts = vec![head, runtime];
        if serving == Rung::TensorRt
            && let Some(v) = s.inputs.as_ref().and_then(|i| i.device.tensorrt.as_ref())
        {
            parts.push(format!("TensorRT {v}"));
        }
        if let Some(d) = demoted {
            parts.push(d.to_owned());
        } else if let Some(p) = probe {
            // The best rung that did not make it says most about why we are where we are.
            let mut above = p.rungs.iter().take_while(|o| o.rung != serving);
            if let Some(o) = above.find(|o| {
                matches!(
                    o.state,
                    RungState::Failed
                        | RungState::Crashed
                        | RungState::TimedOut
                        | RungState::Slower
                )
            }) {
                let reason = o.reason.clone().unwrap_or_default();
                parts.push(match o.state {
                    RungState::Slower => format!("{} slower than CPU", o.rung.label()),
                    _ => format!("{} probe failed: {reason}", o.rung.label()),
                });
            }
        }
        parts.join(" · ")
    }
}
