//! Session tuning on the CPU floor: each installed model is timed under a small grid of
//! settings (optimisation level × intra-op threads, [`crate::tuning`]) in a worker process, and
//! the fastest is kept in `session-tuning.json` beside the probe cache. An entry is trusted
//! only while its key is equal (the model's hash, the runtime, the CPU, the engine's version,
//! the thread counts measured) and its choice is what its own timings rank first; anything
//! else, a corrupt entry included, is measured again. Settings never change a `model_id`: the
//! arithmetic is the same f32 graph, rewritten.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::child::{self, ChildEnd, Launcher};
use super::device::{CpuIdentity, ModelStamp, RuntimeIdentity};
use super::worker::{self, WorkerRequest};
use crate::sessions::Sessions;
use crate::store::write_atomically;
use crate::tuning::{self, Measured, SessionSettings};

pub const TUNING_FILE: &str = "session-tuning.json";
/// Bumped when an entry's shape changes; entries of another format are measured again.
pub const FORMAT: u32 = 1;

/// Everything a tuning depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TuneKey {
    pub model_id: String,
    pub sha256: String,
    /// The engine's version: a change to the grid or the timing re-tunes.
    pub darkroom: String,
    pub runtime: RuntimeIdentity,
    pub cpu: CpuIdentity,
    /// The thread counts in the grid: the machine's budget, or the one a user set.
    pub threads: Vec<usize>,
}

/// One model's tuning: what was measured and what was chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunedModel {
    pub key: TuneKey,
    /// The settings jobs get for this model on the CPU floor.
    pub chosen: SessionSettings,
    pub measured: Vec<Measured>,
    /// Why nothing could be measured (the worker failed); `chosen` is then the untuned
    /// default. Cached like a success, so a model that cannot be timed costs one worker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TunedModel {
    /// An entry that says what it means: a failure with no timings, or a choice that is the
    /// one its own timings rank first.
    pub fn is_consistent(&self) -> bool {
        match &self.error {
            Some(_) => self.measured.is_empty() && self.chosen.threads > 0,
            None => tuning::choose(&self.measured) == Some(self.chosen),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct TuningFile {
    format: u32,
    /// Parsed one by one, so one damaged entry costs one model's measurement, not all.
    models: Vec<serde_json::Value>,
}

/// What the file held: the sound entries, and why any others were dropped.
#[derive(Debug, Default)]
pub struct Loaded {
    pub entries: Vec<TunedModel>,
    pub dropped: Vec<String>,
}

pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(TUNING_FILE)
}

/// The entries in `dir`'s tuning file. A missing file is empty; an unreadable file, an entry
/// that does not parse or one whose choice disagrees with its timings is dropped (and will be
/// measured again), with the reason.
pub fn load(dir: &Path) -> Loaded {
    let path = path_in(dir);
    let mut loaded = Loaded::default();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return loaded,
        Err(e) => {
            loaded.dropped.push(format!("{e}: {}", path.display()));
            return loaded;
        }
    };
    let file: TuningFile = match serde_json::from_slice(&bytes) {
        Ok(f) => f,
        Err(e) => {
            loaded.dropped.push(format!("{e}: {}", path.display()));
            return loaded;
        }
    };
    if file.format != FORMAT {
        loaded.dropped.push(format!(
            "format {} (this build writes {FORMAT}): {}",
            file.format,
            path.display()
        ));
        return loaded;
    }
    for (i, value) in file.models.into_iter().enumerate() {
        match serde_json::from_value::<TunedModel>(value) {
            Ok(entry) if entry.is_consistent() => loaded.entries.push(entry),
            Ok(entry) => loaded.dropped.push(format!(
                "entry {i} ({}): its choice is not what its timings rank first: {}",
                entry.key.model_id,
                path.display()
            )),
            Err(e) => loaded
                .dropped
                .push(format!("entry {i}: {e}: {}", path.display())),
        }
    }
    loaded
}

pub fn store(dir: &Path, entries: &[TunedModel]) -> std::io::Result<()> {
    let models = entries
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(std::io::Error::other)?;
    let bytes = serde_json::to_vec_pretty(&TuningFile {
        format: FORMAT,
        models,
    })
    .map_err(std::io::Error::other)?;
    std::fs::create_dir_all(dir)?;
    write_atomically(&path_in(dir), &bytes)
}

/// What one tuning pass needs from the backend.
pub struct Tuner<'a> {
    pub launcher: &'a Launcher,
    pub models_dir: &'a Path,
    pub runtime: RuntimeIdentity,
    pub cpu: CpuIdentity,
    pub threads: Vec<usize>,
    /// Per model's worker.
    pub limit: Duration,
    pub stop: &'a AtomicBool,
}

impl Tuner<'_> {
    pub fn key(&self, model: &ModelStamp) -> TuneKey {
        TuneKey {
            model_id: model.model_id.clone(),
            sha256: model.sha256.clone(),
            darkroom: env!("CARGO_PKG_VERSION").to_owned(),
            runtime: self.runtime.clone(),
            cpu: self.cpu.clone(),
            threads: self.threads.clone(),
        }
    }

    /// Measure one model in a worker. Never fails: a worker that cannot time it is an entry
    /// with the untuned default and the reason. None when asked to stop.
    pub fn measure(&self, model: &ModelStamp) -> Option<TunedModel> {
        let key = self.key(model);
        let request = WorkerRequest::Tune {
            models: self.models_dir.to_path_buf(),
            model_id: model.model_id.clone(),
            grid: tuning::grid(&self.threads),
            runs: tuning::TIMED_RUNS,
        };
        let end = child::run(
            self.launcher,
            &[worker::encode(&request)],
            self.limit,
            self.stop,
        );
        if self.stop.load(Ordering::Relaxed) || end == ChildEnd::Cancelled {
            return None;
        }
        let untuned = SessionSettings::untuned(self.threads.iter().copied().min().unwrap_or(1));
        let failed = |error: String| TunedModel {
            key: key.clone(),
            chosen: untuned,
            measured: Vec::new(),
            error: Some(error),
        };
        Some(match end {
            ChildEnd::Finished { stdout } => match serde_json::from_str::<Vec<Measured>>(&stdout) {
                Ok(measured) => match tuning::choose(&measured) {
                    Some(chosen) => TunedModel {
                        key,
                        chosen,
                        measured,
                        error: None,
                    },
                    None => failed("no setting could be timed".to_owned()),
                },
                Err(e) => failed(format!("unreadable worker report: {e}")),
            },
            other => failed(other.reason()),
        })
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// The worker's side: for each setting of `grid` in turn, build `model_id`, run it once to
/// warm it, time `runs` runs, and drop it before the next. One session at a time: ONNX
/// Runtime's intra-op threads spin after a run, and a second live session's threads would
/// take the cores from the one being timed (interleaving them made two-thread timings
/// wrong by a third on a 2-core machine). A setting that cannot be built or run is reported
/// with no runs (never chosen).
pub fn serve(
    sessions: &Sessions,
    model_id: &str,
    grid: &[SessionSettings],
    runs: usize,
) -> Result<Vec<Measured>, String> {
    let role = sessions
        .store()
        .cards()
        .get(model_id)
        .map_err(|e| e.to_string())?
        .role;
    let mut input = Vec::new();
    let mut out = Vec::with_capacity(grid.len());
    for &settings in grid {
        let started = Instant::now();
        let Ok(mut session) = sessions.open_with(model_id, role, settings) else {
            out.push(Measured::new(settings, 0.0, Vec::new()));
            continue;
        };
        let build_ms = ms(started);
        if input.is_empty() {
            input = worker::fixed_input(session.input_shape().iter().product());
        }
        let mut times = Vec::with_capacity(runs);
        if session.run(&input).is_ok() {
            for _ in 0..runs {
                let t = Instant::now();
                if session.run(&input).is_err() {
                    times.clear();
                    break;
                }
                times.push(ms(t));
            }
        }
        drop(session);
        out.push(Measured::new(settings, build_ms, times));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::RuntimeKind;
    use crate::tuning::OptLevel;

    fn key(model_id: &str) -> TuneKey {
        TuneKey {
            model_id: model_id.to_owned(),
            sha256: "ab".repeat(32),
            darkroom: "0.1.0".to_owned(),
            runtime: RuntimeIdentity {
                kind: RuntimeKind::OnnxRuntime,
                version: "1.31.1".to_owned(),
                library: None,
                providers: Vec::new(),
            },
            cpu: CpuIdentity::default(),
            threads: vec![1, 2],
        }
    }

    fn entry(model_id: &str) -> TunedModel {
        let s = |level, threads| SessionSettings { level, threads };
        let measured = vec![
            Measured::new(s(OptLevel::Basic, 1), 10.0, vec![30.0, 28.0, 29.0]),
            Measured::new(s(OptLevel::All, 1), 12.0, vec![85.0, 84.0, 86.0]),
            Measured::new(s(OptLevel::Basic, 2), 10.0, vec![20.0, 21.0, 20.5]),
        ];
        TunedModel {
            key: key(model_id),
            chosen: tuning::choose(&measured).expect("sound"),
            measured,
            error: None,
        }
    }

    #[test]
    fn entries_round_trip_and_a_corrupt_one_is_dropped_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = entry("fr_feature");
        let mut lying = entry("scrfd_2.5g");
        lying.chosen = SessionSettings::untuned(1);
        store(dir.path(), &[good.clone(), lying]).expect("store");
        // Damage a third entry by hand: it does not parse.
        let path = path_in(dir.path());
        let mut file: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        file["models"]
            .as_array_mut()
            .expect("models")
            .push(serde_json::json!({"key": 7}));
        std::fs::write(&path, serde_json::to_vec(&file).expect("json")).expect("write");

        let loaded = load(dir.path());
        assert_eq!(loaded.entries, vec![good]);
        assert_eq!(loaded.dropped.len(), 2, "{:?}", loaded.dropped);
        assert!(loaded.dropped[0].contains("scrfd_2.5g"));
    }

    #[test]
    fn an_unreadable_file_means_measure_everything_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(path_in(dir.path()), b"{not json").expect("write");
        let loaded = load(dir.path());
        assert!(loaded.entries.is_empty());
        assert_eq!(loaded.dropped.len(), 1);
        assert!(load(&dir.path().join("absent")).dropped.is_empty());
    }

    #[test]
    fn a_failure_is_consistent_only_without_timings() {
        let mut failed = entry("fr_eye");
        failed.error = Some("worker timed out".to_owned());
        assert!(!failed.is_consistent());
        failed.measured.clear();
        assert!(failed.is_consistent());
    }
}
