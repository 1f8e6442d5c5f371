//! The rungs and the ladders, as data (spec inference-backends §2): which backends a platform
//! tries, in which order, and which precision each role gets on each rung (§7).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::role::Role;
use crate::runtime::RuntimeKind;
use crate::tuning::SessionSettings;

/// One backend a model can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rung {
    /// ONNX Runtime's TensorRT provider: f32 model, fp16 engine, compiled on the device.
    #[serde(rename = "tensorrt")]
    TensorRt,
    /// ONNX Runtime's CUDA provider, f32.
    Cuda,
    /// ONNX Runtime's CPU provider, f32: the floor whenever the library loaded.
    OrtCpu,
    /// tract: the floor without ONNX Runtime.
    Tract,
    /// A GPU that is not there: the test-only provider (`fake-gpu` feature). It compiles
    /// engines like TensorRT and computes on the CPU.
    SimulatedGpu,
}

impl Rung {
    /// For people: the status line and Settings.
    pub fn label(self) -> &'static str {
        match self {
            Rung::TensorRt => "TensorRT",
            Rung::Cuda => "CUDA",
            Rung::OrtCpu => "CPU",
            Rung::Tract => "tract",
            Rung::SimulatedGpu => "Simulated GPU",
        }
    }

    /// The name `DARKROOM_BACKEND` and the persisted override use.
    pub fn setting_name(self) -> &'static str {
        match self {
            Rung::TensorRt => "tensorrt",
            Rung::Cuda => "cuda",
            Rung::OrtCpu => "cpu",
            Rung::Tract => "tract",
            Rung::SimulatedGpu => "simulated_gpu",
        }
    }

    pub fn from_setting(name: &str) -> Option<Rung> {
        let name = name.trim().to_ascii_lowercase();
        [
            Rung::TensorRt,
            Rung::Cuda,
            Rung::OrtCpu,
            Rung::Tract,
            Rung::SimulatedGpu,
        ]
        .into_iter()
        .find(|r| r.setting_name() == name)
    }

    /// Rungs that need a per-device engine before they can serve a model (§6).
    pub fn compiles(self) -> bool {
        matches!(self, Rung::TensorRt | Rung::SimulatedGpu)
    }

    /// The floor of a process on `kind`: what serves every request until the probe reports.
    pub fn floor(kind: RuntimeKind) -> Rung {
        match kind {
            RuntimeKind::OnnxRuntime => Rung::OrtCpu,
            RuntimeKind::Tract => Rung::Tract,
        }
    }
}

impl std::fmt::Display for Rung {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The kind of machine a ladder is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    /// Linux or Windows with an NVIDIA GPU the CUDA driver reports.
    NvidiaGpu,
    /// Linux or Windows without one.
    NoNvidia,
    /// macOS (CoreML is unmeasured, so it is not a rung).
    MacOs,
    /// The test-only simulated GPU.
    SimulatedGpu,
}

/// One row of the spec's ladder table.
#[derive(Debug)]
pub struct LadderSpec {
    pub platform: Platform,
    /// Best first; the last rung is the floor without ONNX Runtime.
    pub rungs: &'static [Rung],
}

/// The desktop ladders (spec §2). A rung is added here by a measurement, not because a
/// provider exists.
pub const LADDERS: &[LadderSpec] = &[
    LadderSpec {
        platform: Platform::NvidiaGpu,
        rungs: &[Rung::TensorRt, Rung::Cuda, Rung::OrtCpu, Rung::Tract],
    },
    LadderSpec {
        platform: Platform::NoNvidia,
        rungs: &[Rung::OrtCpu, Rung::Tract],
    },
    LadderSpec {
        platform: Platform::MacOs,
        rungs: &[Rung::OrtCpu, Rung::Tract],
    },
    LadderSpec {
        platform: Platform::SimulatedGpu,
        rungs: &[Rung::SimulatedGpu, Rung::Cuda, Rung::OrtCpu, Rung::Tract],
    },
];

pub fn ladder_for(platform: Platform) -> &'static [Rung] {
    LADDERS
        .iter()
        .find(|l| l.platform == platform)
        .map(|l| l.rungs)
        .unwrap_or(&[Rung::OrtCpu, Rung::Tract])
}

/// The arithmetic a session runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    F32,
    Fp16,
}

impl Precision {
    pub fn label(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Fp16 => "fp16",
        }
    }
}

/// The precision a role gets on a rung: compiling rungs build fp16 engines, except for the
/// embedder, which is f32 everywhere so embeddings stay comparable across devices (§7).
pub fn precision_for(rung: Rung, role: Role) -> Precision {
    if rung.compiles() && role != Role::Embedder {
        Precision::Fp16
    } else {
        Precision::F32
    }
}

/// Where one model's session is built: the rung, its precision, and the engine directory a
/// compiling rung loads from (None: build in memory, as the probe does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub rung: Rung,
    pub precision: Precision,
    pub engine_dir: Option<PathBuf>,
    /// TensorRT builder workspace cap.
    pub workspace_mb: u64,
    /// The measured optimisation level and threads on the CPU floor (None: untuned, or a
    /// rung the settings do not apply to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionSettings>,
}

/// TensorRT's builder workspace cap unless configured (spec §9: the develop view's tiles
/// share the card).
pub const DEFAULT_WORKSPACE_MB: u64 = 512;

impl Placement {
    pub fn on(rung: Rung) -> Self {
        Placement {
            rung,
            precision: Precision::F32,
            engine_dir: None,
            workspace_mb: DEFAULT_WORKSPACE_MB,
            session: None,
        }
    }

    /// The floor for a process on `kind`.
    pub fn floor(kind: RuntimeKind) -> Self {
        Placement::on(Rung::floor(kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ladder_ends_on_the_floors() {
        for l in LADDERS {
            let n = l.rungs.len();
            assert_eq!(&l.rungs[n - 2..], &[Rung::OrtCpu, Rung::Tract], "{l:?}");
        }
    }

    #[test]
    fn embedder_is_f32_on_every_rung() {
        for rung in [Rung::TensorRt, Rung::Cuda, Rung::OrtCpu, Rung::SimulatedGpu] {
            assert_eq!(precision_for(rung, Role::Embedder), Precision::F32);
        }
        assert_eq!(
            precision_for(Rung::TensorRt, Role::Detector),
            Precision::Fp16
        );
        assert_eq!(precision_for(Rung::Cuda, Role::Detector), Precision::F32);
    }

    #[test]
    fn setting_names_round_trip() {
        for r in [Rung::TensorRt, Rung::Cuda, Rung::OrtCpu, Rung::Tract] {
            assert_eq!(Rung::from_setting(r.setting_name()), Some(r));
        }
        assert_eq!(Rung::from_setting(" CPU "), Some(Rung::OrtCpu));
        assert_eq!(Rung::from_setting("vulkan"), None);
    }
}
