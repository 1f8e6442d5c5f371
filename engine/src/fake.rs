//! The test-only GPU: a provider behind the same seam as TensorRT, for the hardware these
//! machines lack. It is configured by `DARKROOM_FAKE_GPU` and only read when the `fake-gpu`
//! feature is on, so a packaged binary never simulates anything.
//!
//! `DARKROOM_FAKE_GPU="device=Fake RTX 3050;probe=fast;compile_ms=800;compile_fail=fr_eye"`
//! - `device`: the GPU name device identity reports (a GPU "is present").
//! - `probe`: `none` walks the real NVIDIA ladder (TensorRT, CUDA) on whatever ONNX Runtime is
//!   loaded; `fast`, `slow`, `fail`, `crash`, `hang` put the simulated rung on top and make its
//!   probe beat the floor, lose to it, fail at session build, abort the child, or never return.
//! - `probe_ms`: extra time the simulated session build takes (a cold TensorRT probe).
//! - `compile_ms`: how long each simulated engine takes to write (in chunks, so a killed
//!   builder leaves a partial file behind).
//! - `compile_fail`: a model_id whose engine build fails.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::runtime::NvidiaGpu;

pub const ENV: &str = "DARKROOM_FAKE_GPU";

/// What the simulated rung's probe does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FakeProbe {
    None,
    Fast,
    Slow,
    Fail,
    Crash,
    Hang,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FakeGpu {
    /// The setting as given: part of the probe's inputs, and passed on to workers.
    pub raw: String,
    pub device: String,
    pub probe: FakeProbe,
    pub probe_ms: u64,
    pub compile_ms: u64,
    pub compile_fail: Option<String>,
}

/// The simulated GPU, if this build has the feature and the environment asks for it.
pub fn from_env() -> Result<Option<FakeGpu>, String> {
    if !cfg!(feature = "fake-gpu") {
        return Ok(None);
    }
    match std::env::var(ENV) {
        Ok(v) if !v.trim().is_empty() => FakeGpu::parse(&v).map(Some),
        _ => Ok(None),
    }
}

impl FakeGpu {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut fake = FakeGpu {
            raw: text.to_owned(),
            device: "Simulated GPU".to_owned(),
            probe: FakeProbe::Fast,
            probe_ms: 0,
            compile_ms: 200,
            compile_fail: None,
        };
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{ENV}: expected key=value, found {part:?}"))?;
            let number = |v: &str| {
                v.trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{ENV}: {key} must be a number, found {v:?}"))
            };
            match key.trim() {
                "device" => fake.device = value.trim().to_owned(),
                "probe" => {
                    fake.probe = match value.trim() {
                        "none" => FakeProbe::None,
                        "fast" => FakeProbe::Fast,
                        "slow" => FakeProbe::Slow,
                        "fail" => FakeProbe::Fail,
                        "crash" => FakeProbe::Crash,
                        "hang" => FakeProbe::Hang,
                        other => return Err(format!("{ENV}: unknown probe behaviour {other:?}")),
                    }
                }
                "probe_ms" => fake.probe_ms = number(value)?,
                "compile_ms" => fake.compile_ms = number(value)?,
                "compile_fail" => fake.compile_fail = Some(value.trim().to_owned()),
                other => return Err(format!("{ENV}: unknown key {other:?}")),
            }
        }
        Ok(fake)
    }

    pub fn gpu(&self) -> NvidiaGpu {
        NvidiaGpu {
            name: self.device.clone(),
            compute_capability: "8.6".to_owned(),
            driver_version: "simulated".to_owned(),
        }
    }

    /// Whether the simulated rung sits on the ladder (otherwise only the device is simulated).
    pub fn has_rung(&self) -> bool {
        self.probe != FakeProbe::None
    }

    /// Called in the probe worker before the simulated session is built.
    pub fn before_build(&self) -> Result<(), String> {
        std::thread::sleep(Duration::from_millis(self.probe_ms));
        match self.probe {
            FakeProbe::Fail => Err(
                "simulated GPU: session build failed: the driver is in a wedged state".to_owned(),
            ),
            FakeProbe::Crash => std::process::abort(),
            // A probe that never answers is the point: the parent must time it out.
            #[allow(clippy::infinite_loop)]
            FakeProbe::Hang => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            _ => Ok(()),
        }
    }

    /// Called in the probe worker before each timed run; returns whether to skip the real
    /// CPU run. A fast GPU takes a millisecond; a slow one does the CPU's work and then some
    /// ([`FakeGpu::after_run`]).
    pub fn timed_run(&self) -> bool {
        match self.probe {
            FakeProbe::Fast => {
                std::thread::sleep(Duration::from_millis(1));
                true
            }
            _ => false,
        }
    }

    /// Called after each timed run that did the CPU's work, `took` long. A slow GPU takes three
    /// times that at least (and 50 ms more): slower than the CPU floor on a machine busy
    /// enough to slow one CPU measurement and not the other, not only on a quiet one.
    pub fn after_run(&self, took: Duration) {
        if self.probe == FakeProbe::Slow {
            std::thread::sleep(took * 2 + Duration::from_millis(50));
        }
    }

    /// Write a simulated engine for `model_sha256` into `dir`, slowly and in chunks.
    pub fn compile(&self, model_id: &str, model_sha256: &str, dir: &Path) -> Result<(), String> {
        if self.compile_fail.as_deref() == Some(model_id) {
            std::thread::sleep(Duration::from_millis(self.compile_ms / 2));
            return Err(format!(
                "simulated GPU: engine build failed for {model_id}: unsupported layer"
            ));
        }
        let path = dir.join(ENGINE_FILE);
        let mut file =
            std::fs::File::create(&path).map_err(|e| format!("{e}: {}", path.display()))?;
        let chunks = 8;
        let body = format!("{ENGINE_MAGIC}{model_sha256}");
        file.write_all(body.as_bytes())
            .and_then(|_| file.flush())
            .map_err(|e| format!("{e}: {}", path.display()))?;
        for _ in 0..chunks {
            std::thread::sleep(Duration::from_millis(self.compile_ms / chunks));
            file.write_all(&[0x5a; 4096])
                .and_then(|_| file.flush())
                .map_err(|e| format!("{e}: {}", path.display()))?;
        }
        file.write_all(ENGINE_END.as_bytes())
            .and_then(|_| file.sync_all())
            .map_err(|e| format!("{e}: {}", path.display()))
    }
}

pub const ENGINE_FILE: &str = "simulated.engine";
const ENGINE_MAGIC: &str = "DARKROOM-SIMULATED-ENGINE:";
const ENGINE_END: &str = ":END";

/// Check a simulated engine the way a runtime checks a real one: complete, and for this
/// model. A half-written file is refused.
pub fn check_engine(dir: &Path, model_sha256: &str) -> Result<(), String> {
    let path = dir.join(ENGINE_FILE);
    let bytes = std::fs::read(&path).map_err(|e| format!("{e}: {}", path.display()))?;
    let head = format!("{ENGINE_MAGIC}{model_sha256}");
    if !bytes.starts_with(head.as_bytes()) || !bytes.ends_with(ENGINE_END.as_bytes()) {
        return Err(format!(
            "simulated engine is incomplete or for another model: {}",
            path.display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key_and_refuses_unknown_ones() {
        let f = FakeGpu::parse("device=Fake A; probe=slow;probe_ms=5;compile_ms=9;compile_fail=x")
            .expect("parses");
        assert_eq!(f.device, "Fake A");
        assert_eq!(f.probe, FakeProbe::Slow);
        assert_eq!((f.probe_ms, f.compile_ms), (5, 9));
        assert_eq!(f.compile_fail.as_deref(), Some("x"));
        assert!(FakeGpu::parse("probe=warp").is_err());
        assert!(FakeGpu::parse("colour=red").is_err());
        assert!(FakeGpu::parse("compile_ms=soon").is_err());
    }

    #[test]
    fn a_half_written_engine_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(ENGINE_FILE), format!("{ENGINE_MAGIC}abc")).expect("write");
        assert!(check_engine(dir.path(), "abc").is_err());
        let fake = FakeGpu::parse("compile_ms=0").expect("parses");
        fake.compile("m", "abc", dir.path()).expect("compiles");
        check_engine(dir.path(), "abc").expect("complete engine accepted");
        assert!(
            check_engine(dir.path(), "def").is_err(),
            "another model's engine"
        );
    }
}
