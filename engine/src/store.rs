//! The models directory: model files addressed by content hash.
//!
//! Every file the engine loads is checked against a sha256: the card's pinned hash, or, for a
//! card that has none (a model not obtainable here), the hash recorded in the directory's
//! `local-cards.toml` when the user imported the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::cards::{CardSet, ModelCard};
use crate::error::EngineError;

/// The file in the models dir that records imported models' hashes.
pub const LOCAL_CARDS_FILE: &str = "local-cards.toml";

/// A model file read from disk and matched to its hash.
#[derive(Debug, Clone)]
pub struct VerifiedModel {
    pub card: ModelCard,
    pub path: PathBuf,
    pub sha256: String,
    pub bytes: Vec<u8>,
}

impl VerifiedModel {
    /// The first 12 hex digits, for the About screen and logs.
    pub fn short_hash(&self) -> &str {
        &self.sha256[..12]
    }
}

/// A hash recorded by `darkroom models import`, or for a file taken from a verified download.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedModel {
    pub model_id: String,
    pub sha256: String,
    pub size: u64,
    /// The file imported, or the download's URL.
    pub imported_from: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct LocalCards {
    #[serde(default)]
    imported: Vec<ImportedModel>,
}

/// Cards plus the directory their files live in, and the read-only folders a package installs
/// models into.
#[derive(Debug, Clone)]
pub struct ModelStore {
    dir: PathBuf,
    cards: CardSet,
    /// Where a package put the models any package may ship (`paths::bundled_models_dirs`):
    /// read only, and only for cards that pin their bytes.
    bundled: Vec<PathBuf>,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl ModelStore {
    pub fn new(dir: impl Into<PathBuf>, cards: CardSet) -> Self {
        ModelStore {
            dir: dir.into(),
            cards,
            bundled: Vec::new(),
        }
    }

    /// Also look for pinned cards' files in these folders (a package's), after the models dir.
    pub fn with_bundled(mut self, dirs: Vec<PathBuf>) -> Self {
        self.bundled = dirs;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn cards(&self) -> &CardSet {
        &self.cards
    }

    /// Where a card's file lives: the models dir's copy, else — for a card that pins its
    /// bytes, so a package's file is checked like any other — the first bundled folder that
    /// has it; else where the models dir would hold it.
    pub fn path_of(&self, card: &ModelCard) -> PathBuf {
        let own = self.install_path(card);
        if own.is_file() || card.sha256.is_none() {
            return own;
        }
        self.bundled
            .iter()
            .map(|d| d.join(&card.file))
            .find(|p| p.is_file())
            .unwrap_or(own)
    }

    /// Where an install writes a card's file: always the models dir.
    pub fn install_path(&self, card: &ModelCard) -> PathBuf {
        self.dir.join(&card.file)
    }

    /// Whether a card's file is present (not whether it verifies).
    pub fn is_present(&self, card: &ModelCard) -> bool {
        self.path_of(card).is_file()
    }

    /// The hash a card's file must have: pinned on the card, or recorded at import.
    pub fn expected_hash(&self, card: &ModelCard) -> Result<Option<String>, EngineError> {
        if let Some(h) = &card.sha256 {
            return Ok(Some(h.to_ascii_lowercase()));
        }
        let id = card.model_id();
        Ok(self
            .local_cards()?
            .imported
            .into_iter()
            .find(|m| m.model_id == id)
            .map(|m| m.sha256))
    }

    /// Read a model's bytes and check them against the expected hash.
    pub fn load(&self, model_id: &str) -> Result<VerifiedModel, EngineError> {
        let card = self.cards.get(model_id)?.clone();
        let path = self.path_of(&card);
        // Only a regular file within a model's cap: a FIFO or a device under a model's name
        // must not hang or exhaust the process that loads it.
        let bytes = match darkroom_library::regular::read_whole(&path, MODEL_CAP, "a model") {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(EngineError::ModelMissing {
                    model_id: model_id.to_owned(),
                    path,
                });
            }
            Err(source) => {
                return Err(EngineError::ModelRead {
                    model_id: model_id.to_owned(),
                    path,
                    source,
                });
            }
        };
        let found = sha256_hex(&bytes);
        match self.expected_hash(&card)? {
            Some(expected) if expected == found => Ok(VerifiedModel {
                card,
                path,
                sha256: found,
                bytes,
            }),
            Some(expected) => Err(EngineError::HashMismatch {
                model_id: model_id.to_owned(),
                expected,
                found,
                path,
            }),
            None => Err(EngineError::NotImported {
                model_id: model_id.to_owned(),
                path,
            }),
        }
    }

    fn local_cards_path(&self) -> PathBuf {
        self.dir.join(LOCAL_CARDS_FILE)
    }

    fn local_cards(&self) -> Result<LocalCards, EngineError> {
        let path = self.local_cards_path();
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).map_err(|e| EngineError::CardsInvalid {
                reason: e.to_string(),
                origin: path.display().to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LocalCards::default()),
            Err(source) => Err(EngineError::Io {
                what: "cannot read local model cards",
                path,
                source,
            }),
        }
    }

    /// Put verified bytes in place as `card`'s file and, for a card without a pinned hash,
    /// record theirs. The caller vouches for the bytes: `Sessions::import` checked the IO
    /// contract; the model manager checked the pinned hash of the download they came from.
    pub fn install(
        &self,
        card: &ModelCard,
        bytes: &[u8],
        sha256: &str,
        from: &str,
    ) -> Result<PathBuf, EngineError> {
        let io = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| EngineError::Io { what, path, source }
        };
        std::fs::create_dir_all(&self.dir).map_err(io("cannot create models dir", &self.dir))?;
        let target = self.install_path(card);
        write_atomically(&target, bytes).map_err(io("cannot write model", &target))?;
        if card.sha256.is_none() {
            let mut local = self.local_cards()?;
            let id = card.model_id();
            local.imported.retain(|m| m.model_id != id);
            local.imported.push(ImportedModel {
                model_id: id,
                sha256: sha256.to_owned(),
                size: bytes.len() as u64,
                imported_from: from.to_owned(),
            });
            let text = toml::to_string_pretty(&local).map_err(|e| EngineError::CardsInvalid {
                reason: e.to_string(),
                origin: self.local_cards_path().display().to_string(),
            })?;
            let path = self.local_cards_path();
            write_atomically(&path, text.as_bytes())
                .map_err(io("cannot write local model cards", &path))?;
        }
        Ok(target)
    }
}

/// The most a model file may be: far above any this app runs (the largest is tens of MB).
pub const MODEL_CAP: u64 = 4 << 30;

/// Temp file in the same directory (created exclusively, never through a planted link),
/// fsync, rename: a reader sees the old file or the new one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    darkroom_library::durable::replace_file(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> ModelStore {
        ModelStore::new(dir, CardSet::builtin().expect("cards"))
    }

    #[test]
    fn missing_and_unimported_models_are_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(dir.path());
        let err = s.load("scrfd_2.5g").expect_err("missing");
        assert!(matches!(err, EngineError::ModelMissing { .. }), "{err}");
        assert!(err.to_string().ends_with("scrfd_2.5g.onnx"), "{err}");

        std::fs::write(dir.path().join("scrfd_10g.onnx"), b"bytes").expect("write");
        let err = s.load("scrfd_10g").expect_err("not imported");
        assert!(matches!(err, EngineError::NotImported { .. }), "{err}");
        assert!(err.to_string().contains("darkroom models import"), "{err}");
    }

    #[test]
    fn pinned_hash_mismatch_names_both_hashes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(dir.path());
        std::fs::write(dir.path().join("fr_eye.onnx"), b"not the model").expect("write");
        let err = s.load("fr_eye").expect_err("mismatch");
        let msg = err.to_string();
        assert!(
            msg.contains("1afcea006abc1ccac3c517022abde0aa092bed74ff3c9fe6878483ef9e6e38de"),
            "{msg}"
        );
        assert!(msg.contains(&sha256_hex(b"not the model")), "{msg}");
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.bin");
        write_atomically(&p, b"one").expect("write");
        write_atomically(&p, b"two").expect("write");
        assert_eq!(std::fs::read(&p).expect("read"), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .flatten()
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_package_s_folder_serves_pinned_cards_only_and_never_takes_installs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (own, package) = (dir.path().join("models"), dir.path().join("package"));
        std::fs::create_dir_all(&package).expect("mkdir");
        let cards = CardSet::builtin().expect("cards");
        let pinned = cards.get("u2netp").expect("card").clone();
        let unpinned = cards.get("yolo_seg").expect("card").clone();
        std::fs::write(package.join(&pinned.file), b"bytes").expect("write");
        std::fs::write(package.join(&unpinned.file), b"bytes").expect("write");
        let store = ModelStore::new(&own, cards).with_bundled(vec![package.clone()]);
        assert_eq!(store.path_of(&pinned), package.join(&pinned.file));
        assert!(store.is_present(&pinned));
        assert!(
            !store.is_present(&unpinned),
            "a file without a pin is the user's import, never a package's"
        );
        assert_eq!(store.install_path(&pinned), own.join(&pinned.file));
        // The user's own copy comes first.
        std::fs::create_dir_all(&own).expect("mkdir");
        std::fs::write(own.join(&pinned.file), b"mine").expect("write");
        assert_eq!(store.path_of(&pinned), own.join(&pinned.file));
    }
}
