//! What the window remembers between runs (recent folders, sidecar naming, the detector, the
//! blurry threshold, how culling behaves), read before the window opens and written by the
//! settings thread.

use std::path::{Path, PathBuf};

use darkroom_catalog::SidecarNaming;

#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct AppSettings {
    #[serde(default)]
    pub recent: Vec<PathBuf>,
    #[serde(default)]
    pub naming: SidecarNaming,
    /// The face detector's model_id (None: the default tier).
    #[serde(default)]
    pub detector: Option<String>,
    /// Sharpness under which a photo is "blurry" (None: the default).
    #[serde(default)]
    pub blurry_below: Option<f32>,
    #[serde(default)]
    pub culling: CullSettings,
    /// Which other tools' words the sidecars carry (digiKam's, Photo Mechanic's).
    #[serde(default)]
    pub sidecar_words: darkroom_catalog::SidecarWords,
    /// Decisions on a camera card's photos go into sidecars on the card (default: never; they
    /// wait in the catalog for the ingest).
    #[serde(default)]
    pub write_to_cards: bool,
}

/// How deciding behaves: moving on after a decision, and the auto-cull proposal's rules.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct CullSettings {
    /// After a decision on one photo, the loupe (and compare) shows the next.
    pub advance_in_loupe: bool,
    /// The same in the grid, where the decided photo usually stays in view.
    pub advance_in_grid: bool,
    pub strictness: darkroom_index::Strictness,
    /// Frames the proposal keeps per burst.
    pub keep_per_burst: usize,
    /// How alike and how close in time frames must be to be one scene.
    pub scenes: darkroom_index::scenes::SceneRules,
    /// Whose verdict a face's eyes get: the face mesh's, or the eye-state model's.
    pub eye_judge: darkroom_index::eyes::EyeJudge,
}

impl Default for CullSettings {
    fn default() -> Self {
        CullSettings {
            advance_in_loupe: true,
            advance_in_grid: false,
            strictness: darkroom_index::Strictness::Balanced,
            keep_per_burst: 1,
            scenes: Default::default(),
            eye_judge: Default::default(),
        }
    }
}

impl AppSettings {
    /// Read at start-up, before the window exists. A bad file means defaults, and the reason,
    /// which the window shows as a notice.
    pub fn load(path: &Path) -> (Self, Option<String>) {
        match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice(&bytes) {
                Ok(s) => (s, None),
                Err(e) => (
                    AppSettings::default(),
                    Some(format!("settings ignored: {e}: {}", path.display())),
                ),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (AppSettings::default(), None),
            Err(e) => (
                AppSettings::default(),
                Some(format!("settings not read: {e}: {}", path.display())),
            ),
        }
    }

    /// Written whole, through a temporary file, so a crash leaves the old or the new one.
    pub fn store(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, path)
    }
}
