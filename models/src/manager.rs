//! What the models dir holds, what each card is missing, and getting it: from the card's
//! upstream download, from a mirror, or from a folder the user points at.
//!
//! Layout inside the models dir: the model files by card name (what the engine loads),
//! `downloads/` (parts being fetched, resumable) and `quarantine/` (files that failed
//! verification, with a note each; never loaded, never deleted by us).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use darkroom_engine::{ArchiveKind, DownloadSource, EngineError, ModelCard, ModelStore, Role};
use serde::Serialize;

use crate::error::{FetchError, ManagerError};
use crate::fetch::{FetchRequest, Fetcher, Pin, Progress, file_sha256, quarantine};
use crate::people_accuracy;

/// The environment variable naming a mirror that serves model files by name.
pub const MIRROR_ENV: &str = "DARKROOM_MODEL_MIRROR";

/// A card's file as the models dir has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CardState {
    /// Present and matching its pinned or recorded hash.
    Ready {
        sha256: String,
    },
    Missing,
    /// Present but unusable; `reason` says why and what to do.
    Unusable {
        reason: String,
    },
}

/// Where a card's file can come from, for the licence dialog and the CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Offer {
    /// The download's title, or the file name for a mirror fetch.
    pub title: String,
    pub url: String,
    pub licence: String,
    pub size: Option<u64>,
    /// Every model the one download installs (an archive may hold several).
    pub installs: Vec<String>,
}

/// One row of the model manager.
#[derive(Debug, Clone, Serialize)]
pub struct CardStatus {
    pub model_id: String,
    pub role: Role,
    pub file: String,
    pub licence: String,
    pub fixture_only: bool,
    #[serde(flatten)]
    pub state: CardState,
    /// None: nothing to fetch it from (import it instead).
    pub offer: Option<Offer>,
    /// A detector's measured recall against its release gate's reference, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall: Option<String>,
    /// An embedder's measured clustering of the labelled faces, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub people: Option<String>,
}

/// A model file that was put in place and verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Installed {
    pub model_id: String,
    pub sha256: String,
    pub path: PathBuf,
}

/// A file moved out of the models dir because it failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quarantined {
    pub model_id: String,
    pub reason: String,
    pub path: PathBuf,
}

pub struct ModelManager {
    store: ModelStore,
    fetcher: Fetcher,
    mirror: Option<String>,
}

impl ModelManager {
    /// `mirror`: a base URL serving files by name, used instead of each download's upstream.
    pub fn new(store: ModelStore, mirror: Option<String>) -> Self {
        ModelManager {
            store,
            fetcher: Fetcher::new(),
            mirror: mirror.map(|m| m.trim_end_matches('/').to_owned()),
        }
    }

    /// The mirror from `DARKROOM_MODEL_MIRROR`, if set.
    pub fn mirror_from_env() -> Option<String> {
        std::env::var(MIRROR_ENV).ok().filter(|v| !v.is_empty())
    }

    pub fn with_fetcher(mut self, fetcher: Fetcher) -> Self {
        self.fetcher = fetcher;
        self
    }

    pub fn store(&self) -> &ModelStore {
        &self.store
    }

    pub fn download_dir(&self) -> PathBuf {
        self.store.dir().join("downloads")
    }

    pub fn quarantine_dir(&self) -> PathBuf {
        self.store.dir().join("quarantine")
    }

    /// Every card, with its state and what it could be fetched from. Reads (and hashes) each
    /// present file; changes nothing.
    pub fn statuses(&self) -> Vec<CardStatus> {
        self.store
            .cards()
            .iter()
            .map(|card| CardStatus {
                offer: self.offer(card),
                model_id: card.model_id(),
                role: card.role,
                file: card.file.clone(),
                licence: card.licence.clone(),
                fixture_only: card.fixture_only,
                state: self.state_of(card),
                recall: darkroom_engine::releases::builtin_detector_recall(card).map(|r| r.words()),
                people: card
                    .sha256
                    .as_deref()
                    .and_then(|sha| people_accuracy::builtin_words(&card.model_id(), sha)),
            })
            .collect()
    }

    /// What fetching `card` would download, if anything can.
    pub fn offer(&self, card: &ModelCard) -> Option<Offer> {
        match self.source_of(card)? {
            Source::Download(d) => Some(Offer {
                title: d.title.clone(),
                url: self.url_for(&d.url, d.file_name()),
                licence: d.licence.clone(),
                size: d.size,
                installs: self
                    .store
                    .cards()
                    .iter()
                    .filter(|c| c.download.as_deref() == Some(d.id.as_str()))
                    .map(ModelCard::model_id)
                    .collect(),
            }),
            Source::Mirror { url, .. } => Some(Offer {
                title: card.file.clone(),
                url,
                licence: card.licence.clone(),
                size: card.size,
                installs: vec![card.model_id()],
            }),
        }
    }

    /// Fetch and install `model_id` (and whatever else its download provides and is missing).
    /// Nothing is fetched unless `licence_accepted`: the caller showed `offer().licence`.
    pub fn install(
        &self,
        model_id: &str,
        licence_accepted: bool,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<Vec<Installed>, ManagerError> {
        let card = self.store.cards().get(model_id)?.clone();
        let Some(source) = self.source_of(&card) else {
            return Err(ManagerError::NoSource {
                model_id: model_id.to_owned(),
            });
        };
        if !licence_accepted {
            let licence = match &source {
                Source::Download(d) => d.licence.clone(),
                Source::Mirror { .. } => card.licence.clone(),
            };
            return Err(ManagerError::LicenceNotAccepted {
                model_id: model_id.to_owned(),
                licence,
            });
        }
        match source {
            Source::Mirror { url, pin } => {
                let req = FetchRequest {
                    url,
                    name: card.file.clone(),
                    pin,
                };
                let path = self.fetch(&req, progress, cancel)?;
                let installed = self.install_file(&card, &path, &req.url)?;
                let _ = std::fs::remove_file(&path);
                Ok(vec![installed])
            }
            Source::Download(d) => {
                let req = FetchRequest {
                    url: self.url_for(&d.url, d.file_name()),
                    name: d.file_name().to_owned(),
                    pin: Pin {
                        sha256: d.sha256.clone(),
                        size: d.size,
                    },
                };
                let path = self.fetch(&req, progress, cancel)?;
                let installed = self.install_from_download(d, &path, &req.url)?;
                // Everything it provides is in place: the archive has done its job.
                let _ = std::fs::remove_file(&path);
                Ok(installed)
            }
        }
    }

    /// Install what a folder the user chose holds: a card's file by its name (or by its name
    /// inside its upstream archive), or a download archive itself. Files are checked against
    /// their pins and copied; the user's folder is only read. A card whose hash is not pinned
    /// here is not taken from a loose file: `darkroom models import` checks its contract.
    pub fn install_from_folder(&self, folder: &Path) -> Vec<(String, Result<Installed, String>)> {
        let mut out = Vec::new();
        for d in self.store.cards().downloads() {
            let archive = folder.join(d.file_name());
            if !archive.is_file() {
                continue;
            }
            let label = d.id.clone();
            // Hashed and read from a copy of our own: the folder's file may change between
            // a hash and a second open, and its members would then go in unverified.
            let copied = match self.private_copy(&archive) {
                Ok(c) => c,
                Err(e) => {
                    out.push((label, Err(e.to_string())));
                    continue;
                }
            };
            if copied.sha256 != d.sha256.to_ascii_lowercase() {
                out.push((
                    label,
                    Err(format!(
                        "sha256 is {}, not the pinned {}; not used: {}",
                        copied.sha256,
                        d.sha256,
                        archive.display()
                    )),
                ));
                continue;
            }
            let from = archive.display().to_string();
            match self.install_from_download(d, &copied.path, &from) {
                Ok(done) => out.extend(done.into_iter().map(|i| (i.model_id.clone(), Ok(i)))),
                Err(e) => out.push((label, Err(e.to_string()))),
            }
        }
        for card in self.store.cards().iter() {
            let model_id = card.model_id();
            if out.iter().any(|(id, r)| id == &model_id && r.is_ok())
                || matches!(self.state_of(card), CardState::Ready { .. })
            {
                continue;
            }
            let names = std::iter::once(card.file.as_str()).chain(card.member.as_deref());
            let Some(path) = names.map(|n| folder.join(n)).find(|p| p.is_file()) else {
                continue;
            };
            let Some(expected) = &card.sha256 else {
                out.push((
                    model_id.clone(),
                    Err(format!(
                        "no pinned hash: import it with `darkroom models import {} --as {model_id}`",
                        path.display()
                    )),
                ));
                continue;
            };
            let result = match file_sha256(&path) {
                Ok(h) if h == expected.to_ascii_lowercase() => self
                    .install_file(card, &path, &path.display().to_string())
                    .map_err(|e| e.to_string()),
                Ok(h) => Err(format!(
                    "sha256 is {h}, not the pinned {expected}; not used: {}",
                    path.display()
                )),
                Err(e) => Err(e.to_string()),
            };
            out.push((model_id, result));
        }
        out
    }

    /// Move every card file that fails its pinned or recorded hash into quarantine, so that
    /// nothing ever loads it and a fresh download can take its place.
    pub fn quarantine_invalid(&self) -> Result<Vec<Quarantined>, ManagerError> {
        let mut out = Vec::new();
        for card in self.store.cards().iter() {
            let model_id = card.model_id();
            if !self.store.is_present(card) {
                continue;
            }
            if let Err(EngineError::HashMismatch {
                expected,
                found,
                path,
                ..
            }) = self.store.load(&model_id)
            {
                let reason = format!(
                    "{model_id}: expected sha256 {expected}, found {found} in {}",
                    path.display()
                );
                // A file a package installed (beside the executable, /usr/share) is the
                // package's: said, never moved.
                if !self.owns(&path) {
                    out.push(Quarantined {
                        model_id,
                        reason: format!(
                            "{reason}; it belongs to the package, so it is left there and not used"
                        ),
                        path,
                    });
                    continue;
                }
                let moved = quarantine(
                    &path,
                    &card.file,
                    &found,
                    &self.quarantine_dir(),
                    &format!("{reason}\n"),
                )?;
                out.push(Quarantined {
                    model_id,
                    reason,
                    path: moved,
                });
            }
        }
        Ok(out)
    }

    /// Whether `path` is a file in this manager's own models dir (by the folder's identity,
    /// however either path is spelled).
    fn owns(&self, path: &Path) -> bool {
        let (Some(parent), Ok(own)) = (path.parent(), std::fs::canonicalize(self.store.dir()))
        else {
            return false;
        };
        std::fs::canonicalize(parent).is_ok_and(|p| p == own)
    }

    fn state_of(&self, card: &ModelCard) -> CardState {
        if !self.store.is_present(card) {
            return CardState::Missing;
        }
        match self.store.load(&card.model_id()) {
            Ok(m) => CardState::Ready { sha256: m.sha256 },
            Err(e) => CardState::Unusable {
                reason: e.to_string(),
            },
        }
    }

    fn fetch(
        &self,
        req: &FetchRequest,
        progress: &mut dyn FnMut(Progress),
        cancel: &AtomicBool,
    ) -> Result<PathBuf, FetchError> {
        self.fetcher.fetch(
            req,
            &self.download_dir(),
            &self.quarantine_dir(),
            progress,
            cancel,
        )
    }

    fn source_of<'a>(&'a self, card: &ModelCard) -> Option<Source<'a>> {
        if let Some(d) = self.store.cards().download_of(card) {
            return Some(Source::Download(d));
        }
        let mirror = self.mirror.as_ref()?;
        let sha256 = card.sha256.clone()?;
        Some(Source::Mirror {
            url: format!("{mirror}/{}", card.file),
            pin: Pin {
                sha256,
                size: card.size,
            },
        })
    }

    fn url_for(&self, upstream: &str, name: &str) -> String {
        match &self.mirror {
            Some(m) => format!("{m}/{name}"),
            None => upstream.to_owned(),
        }
    }

    /// `path` copied into the download dir under a temporary name of its own, hashed as it
    /// is copied; the copy goes when the result is dropped.
    fn private_copy(&self, path: &Path) -> Result<PrivateCopy, ManagerError> {
        use sha2::{Digest, Sha256};
        use std::io::{Read, Write};
        let io = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| ManagerError::Io { what, path, source }
        };
        let dir = self.download_dir();
        std::fs::create_dir_all(&dir).map_err(io("cannot create the download dir", &dir))?;
        let name = path.file_name().unwrap_or_default();
        let (mut to, temp) = darkroom_library::durable::create_temp_beside(&dir.join(name))
            .map_err(io("cannot copy the archive", &dir))?;
        let mut copy = PrivateCopy {
            path: temp,
            sha256: String::new(),
        };
        let mut from = darkroom_library::regular::open_regular(path)
            .map_err(io("cannot read the archive", path))?;
        let mut hash = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0u64;
        loop {
            let n = from
                .read(&mut buf)
                .map_err(io("cannot read the archive", path))?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total > ARCHIVE_CAP {
                return Err(io("cannot read the archive", path)(std::io::Error::other(
                    format!("more than the {ARCHIVE_CAP} bytes a model archive may have"),
                )));
            }
            hash.update(&buf[..n]);
            to.write_all(&buf[..n])
                .map_err(io("cannot copy the archive", &copy.path))?;
        }
        to.sync_all()
            .map_err(io("cannot copy the archive", &copy.path))?;
        copy.sha256 = hex::encode(hash.finalize());
        Ok(copy)
    }

    /// Take every card `d` provides out of the verified download at `path`.
    fn install_from_download(
        &self,
        d: &DownloadSource,
        path: &Path,
        from: &str,
    ) -> Result<Vec<Installed>, ManagerError> {
        let cards: Vec<ModelCard> = self
            .store
            .cards()
            .iter()
            .filter(|c| c.download.as_deref() == Some(d.id.as_str()))
            .cloned()
            .collect();
        let mut installed = Vec::new();
        for card in cards {
            let bytes = match (d.archive, &card.member) {
                (ArchiveKind::Zip, Some(member)) => read_zip_member(path, member)?,
                _ => darkroom_library::regular::read_whole(path, ARCHIVE_CAP, "a model").map_err(
                    |source| ManagerError::Io {
                        what: "cannot read the download",
                        path: path.to_path_buf(),
                        source,
                    },
                )?,
            };
            installed.push(self.install_bytes(&card, &bytes, from)?);
        }
        Ok(installed)
    }

    fn install_file(
        &self,
        card: &ModelCard,
        path: &Path,
        from: &str,
    ) -> Result<Installed, ManagerError> {
        let bytes = darkroom_library::regular::read_whole(path, ARCHIVE_CAP, "a model").map_err(
            |source| ManagerError::Io {
                what: "cannot read the download",
                path: path.to_path_buf(),
                source,
            },
        )?;
        self.install_bytes(card, &bytes, from)
    }

    /// Check bytes against the card's own pin (when it has one), put them in place and read
    /// them back through the store, exactly as the engine will.
    fn install_bytes(
        &self,
        card: &ModelCard,
        bytes: &[u8],
        from: &str,
    ) -> Result<Installed, ManagerError> {
        let model_id = card.model_id();
        let found = darkroom_engine::store::sha256_hex(bytes);
        if let Some(expected) = &card.sha256
            && !expected.eq_ignore_ascii_case(&found)
        {
            let dir = self.quarantine_dir();
            std::fs::create_dir_all(&dir).map_err(|source| ManagerError::Io {
                what: "cannot create the quarantine dir",
                path: dir.clone(),
                source,
            })?;
            let staged = dir.join(format!(".{}.staged", card.file));
            std::fs::write(&staged, bytes).map_err(|source| ManagerError::Io {
                what: "cannot write to quarantine",
                path: staged.clone(),
                source,
            })?;
            let quarantined = quarantine(
                &staged,
                &card.file,
                &found,
                &dir,
                &format!(
                    "{model_id} from {from}\nexpected sha256 {expected}\nfound sha256    {found}\n"
                ),
            )?;
            return Err(ManagerError::Mismatch {
                model_id,
                expected: expected.clone(),
                found,
                quarantined,
            });
        }
        self.store.install(card, bytes, &found, from)?;
        let verified = self.store.load(&model_id)?;
        Ok(Installed {
            model_id,
            sha256: verified.sha256,
            path: verified.path,
        })
    }
}

enum Source<'a> {
    Download(&'a DownloadSource),
    Mirror { url: String, pin: Pin },
}

/// The most a model archive, or a member taken out of one, may be.
const ARCHIVE_CAP: u64 = 4 << 30;

/// A file copied for the manager's own use, removed when dropped.
struct PrivateCopy {
    path: PathBuf,
    sha256: String,
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn read_zip_member(archive: &Path, member: &str) -> Result<Vec<u8>, ManagerError> {
    let fail = |reason: String| ManagerError::Archive {
        member: member.to_owned(),
        reason,
        path: archive.to_path_buf(),
    };
    let file = std::fs::File::open(archive).map_err(|source| ManagerError::Io {
        what: "cannot open the archive",
        path: archive.to_path_buf(),
        source,
    })?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| fail(e.to_string()))?;
    // Packs put their files at the top or in one folder: match the name at any depth.
    let suffix = format!("/{member}");
    let name = zip
        .file_names()
        .filter_map(Result::ok)
        .find(|n| n == member || n.ends_with(&suffix))
        .map(|n| n.into_owned())
        .ok_or_else(|| fail("no such file".to_owned()))?;
    let entry = zip.by_name(&name).map_err(|e| fail(e.to_string()))?;
    let mut bytes = Vec::with_capacity(entry.size().min(1 << 30) as usize);
    // The size a member declares is the archive's word: what it inflates to is capped too.
    entry
        .take(ARCHIVE_CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    if bytes.len() as u64 > ARCHIVE_CAP {
        return Err(fail(format!(
            "it inflates past the {ARCHIVE_CAP} bytes a model may have"
        )));
    }
    Ok(bytes)
}
