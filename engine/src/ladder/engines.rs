//! Derived engines (spec §5, §6): built on the device from the f32 model, one at a time in a
//! worker, smallest model first, each into a temporary directory that is renamed into place
//! only when complete, so no request ever loads a half-written engine. Engines are keyed by
//! the model hash, the GPU, the driver, the TensorRT version and the precision; deleting the
//! directory costs a rebuild and nothing else.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::child::{self, ChildEnd, Launcher};
use super::device::{DeviceIdentity, ModelStamp};
use super::worker::{WorkerRequest, encode};
use crate::rungs::{Precision, Rung, precision_for};
use crate::store::{ModelStore, sha256_hex, write_atomically};

pub const ENGINES_DIR: &str = "engines";
/// Written last into a complete engine directory.
pub const MANIFEST: &str = "engine.json";

/// One engine to have: which model, at which precision, under which key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineSpec {
    pub rung: Rung,
    pub model_id: String,
    pub sha256: String,
    pub size: u64,
    pub precision: Precision,
    /// `<model_id>-<precision>-<16 hex of the key>`.
    pub name: String,
}

impl EngineSpec {
    pub fn new(
        rung: Rung,
        model: &ModelStamp,
        precision: Precision,
        device: &DeviceIdentity,
        workspace_mb: u64,
    ) -> Self {
        let gpu = device.gpu.as_ref();
        let key = sha256_hex(
            [
                rung.setting_name(),
                &model.sha256,
                precision.label(),
                gpu.map(|g| g.name.as_str()).unwrap_or("-"),
                gpu.map(|g| g.compute_capability.as_str()).unwrap_or("-"),
                gpu.map(|g| g.driver_version.as_str()).unwrap_or("-"),
                device.tensorrt.as_deref().unwrap_or("-"),
                &workspace_mb.to_string(),
            ]
            .join("\n")
            .as_bytes(),
        );
        EngineSpec {
            rung,
            model_id: model.model_id.clone(),
            sha256: model.sha256.clone(),
            size: model.size,
            precision,
            name: format!("{}-{}-{}", model.model_id, precision.label(), &key[..16]),
        }
    }
}

/// The engines a compiling rung needs: every installed model that verifies, smallest first so
/// the detector, which runs on every photo, is ready soonest.
pub fn plan(
    rung: Rung,
    models: &[ModelStamp],
    store: &ModelStore,
    device: &DeviceIdentity,
    workspace_mb: u64,
) -> Vec<EngineSpec> {
    let mut specs: Vec<EngineSpec> = models
        .iter()
        .filter(|m| m.verified)
        .filter_map(|m| {
            let role = store.cards().get(&m.model_id).ok()?.role;
            Some(EngineSpec::new(
                rung,
                m,
                precision_for(rung, role),
                device,
                workspace_mb,
            ))
        })
        .collect();
    specs.sort_by(|a, b| (a.size, &a.model_id).cmp(&(b.size, &b.model_id)));
    specs
}

/// The engines directory.
#[derive(Debug, Clone)]
pub struct EngineDir {
    root: PathBuf,
}

/// Temporary directories older than this belong to a builder that died.
const STALE_AFTER: Duration = Duration::from_secs(24 * 3600);

impl EngineDir {
    pub fn new(inference_dir: &Path) -> Self {
        EngineDir {
            root: inference_dir.join(ENGINES_DIR),
        }
    }

    pub fn path_of(&self, spec: &EngineSpec) -> PathBuf {
        self.root.join(&spec.name)
    }

    /// Complete engines only: the directory arrived by rename, with its manifest inside.
    pub fn ready(&self, spec: &EngineSpec) -> Option<PathBuf> {
        let dir = self.path_of(spec);
        dir.join(MANIFEST).is_file().then_some(dir)
    }

    /// Remove temporary directories a killed builder left behind long ago. Recent ones may
    /// belong to another running instance and are left alone; they are never loaded anyway.
    pub fn sweep_stale(&self) {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') || !name.contains(".tmp-") {
                continue;
            }
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age > STALE_AFTER);
            if old {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }

    /// Build `spec` in a worker and move it into place. Returns the engine's directory.
    pub fn build(
        &self,
        spec: &EngineSpec,
        store: &ModelStore,
        launcher: &Launcher,
        limit: Duration,
        workspace_mb: u64,
        stop: &AtomicBool,
    ) -> Result<PathBuf, ChildEnd> {
        let io = |what: &str, e: std::io::Error, p: &Path| ChildEnd::Failed {
            reason: format!("{what}: {e}: {}", p.display()),
        };
        std::fs::create_dir_all(&self.root)
            .map_err(|e| io("cannot create the engines directory", e, &self.root))?;
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = self
            .root
            .join(format!(".{}.tmp-{}-{nanos}", spec.name, std::process::id()));
        std::fs::create_dir_all(&tmp).map_err(|e| io("cannot create", e, &tmp))?;
        let request = WorkerRequest::Engine {
            rung: spec.rung,
            models: store.dir().to_path_buf(),
            model_id: spec.model_id.clone(),
            precision: spec.precision,
            out: tmp.clone(),
            workspace_mb,
        };
        let end = child::run(launcher, &[encode(&request)], limit, stop);
        if !matches!(end, ChildEnd::Finished { .. }) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(end);
        }
        let manifest = serde_json::to_vec_pretty(spec).unwrap_or_default();
        write_atomically(&tmp.join(MANIFEST), &manifest)
            .map_err(|e| io("cannot write the engine manifest", e, &tmp))?;
        let target = self.path_of(spec);
        match std::fs::rename(&tmp, &target) {
            Ok(()) => Ok(target),
            // Another instance finished the same engine first: theirs is as good as ours.
            Err(_) if self.ready(spec).is_some() => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(target)
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                Err(io("cannot move the engine into place", e, &target))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::NvidiaGpu;

    fn device(driver: &str, trt: &str) -> DeviceIdentity {
        DeviceIdentity {
            gpu: Some(NvidiaGpu {
                name: "RTX 3050 Laptop".into(),
                compute_capability: "8.6".into(),
                driver_version: driver.into(),
            }),
            gpu_error: None,
            tensorrt: Some(trt.into()),
            cpu: Default::default(),
        }
    }

    fn model(sha: &str) -> ModelStamp {
        ModelStamp {
            model_id: "scrfd_2.5g".into(),
            sha256: sha.into(),
            size: 1,
            verified: true,
        }
    }

    #[test]
    fn every_input_of_an_engine_changes_its_key() {
        let base = EngineSpec::new(
            Rung::TensorRt,
            &model("aa"),
            Precision::Fp16,
            &device("550", "10.3"),
            512,
        );
        let variants = [
            EngineSpec::new(
                Rung::TensorRt,
                &model("ab"),
                Precision::Fp16,
                &device("550", "10.3"),
                512,
            ),
            EngineSpec::new(
                Rung::TensorRt,
                &model("aa"),
                Precision::F32,
                &device("550", "10.3"),
                512,
            ),
            EngineSpec::new(
                Rung::TensorRt,
                &model("aa"),
                Precision::Fp16,
                &device("555", "10.3"),
                512,
            ),
            EngineSpec::new(
                Rung::TensorRt,
                &model("aa"),
                Precision::Fp16,
                &device("550", "10.4"),
                512,
            ),
            EngineSpec::new(
                Rung::TensorRt,
                &model("aa"),
                Precision::Fp16,
                &device("550", "10.3"),
                256,
            ),
        ];
        for v in &variants {
            assert_ne!(v.name, base.name, "{v:?}");
        }
        assert!(base.name.starts_with("scrfd_2.5g-fp16-"), "{}", base.name);
    }

    #[test]
    fn only_complete_engine_directories_are_ready() {
        let dir = tempfile::tempdir().expect("tempdir");
        let engines = EngineDir::new(dir.path());
        let spec = EngineSpec::new(
            Rung::TensorRt,
            &model("aa"),
            Precision::Fp16,
            &device("550", "10.3"),
            512,
        );
        assert_eq!(engines.ready(&spec), None);
        std::fs::create_dir_all(engines.path_of(&spec)).expect("mkdir");
        assert_eq!(engines.ready(&spec), None, "no manifest: not ready");
        std::fs::write(engines.path_of(&spec).join(MANIFEST), b"{}").expect("write");
        assert_eq!(engines.ready(&spec), Some(engines.path_of(&spec)));
    }
}
