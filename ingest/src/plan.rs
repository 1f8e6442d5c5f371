//! The plan: what a run will do, decided before anything is written. The card is only read;
//! each photo is named by the pattern, or by the journal where an unfinished run to the same
//! drives named it already.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use darkroom_catalog::{Catalog, FileStamp, SidecarNaming, SidecarWords, journal};
use darkroom_library::ingest::{self, Fields, Pattern};
use darkroom_library::{Item, ScanEvent, clock, facts, scan, sidecars};

use crate::error::PlanError;

/// The naming pattern when none is given: a folder per day, the camera's own name.
pub const DEFAULT_PATTERN: &str = "{date}/{name}";

/// What to do with a photo whose name is already taken on a drive by another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collisions {
    /// Give it the next free name: `-2`, `-3`, … (nothing is ever overwritten).
    #[default]
    Number,
    /// Leave it on the card.
    Skip,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// The card (a DCIM root or any folder).
    pub source: PathBuf,
    /// The working drive's folder.
    pub to: PathBuf,
    pub backups: Vec<PathBuf>,
    pub pattern: Pattern,
    pub job: String,
    /// Write each body's clock correction into the working copy's EXIF times (the backups
    /// stay the card's bytes).
    pub write_times: bool,
    /// How a copy's new sidecar is named, and which other tools' words it carries (Settings').
    pub naming: SidecarNaming,
    pub words: SidecarWords,
}

impl Options {
    /// The working drive, then each backup.
    pub fn roots(&self) -> Vec<&Path> {
        std::iter::once(self.to.as_path())
            .chain(self.backups.iter().map(PathBuf::as_path))
            .collect()
    }

    /// The journal's key for these drives.
    pub fn roots_key(&self) -> Vec<u8> {
        journal::roots_key(&self.roots())
    }
}

/// One file of a photo to bring in.
#[derive(Debug, Clone)]
pub struct PlannedFile {
    pub source: PathBuf,
    pub size: u64,
    /// Which file the source was when planned: a decision held for it is carried only into
    /// the copy of that very file.
    pub stamp: FileStamp,
    /// Its new path under each drive. A drive that holds the card file's bytes under it
    /// when the run reaches it (a run stopped after it landed) is not written to again.
    pub rel: PathBuf,
}

/// A file of a photo that was ingested before: where its working copy is. A decision held for
/// it that a stopped run did not carry yet goes there.
#[derive(Debug, Clone)]
pub struct LandedFile {
    pub source: PathBuf,
    pub stamp: FileStamp,
    /// Its copy on the working drive, as recorded.
    pub copy: PathBuf,
}

/// One photo of the card.
#[derive(Debug, Clone)]
pub struct PlannedPhoto {
    /// Its primary file on the card (the RAW of a pair): where decisions made on the card are.
    pub source: PathBuf,
    /// Its place in shooting order, from 1: the `{seq}`, the same in every run.
    pub seq: u64,
    pub body: Option<String>,
    /// The body's clock correction, seconds.
    pub offset_s: f64,
    /// What is still to copy; empty when every file was ingested before.
    pub files: Vec<PlannedFile>,
    /// Its new path under each drive, without extension (the pattern's, or numbered).
    pub stem: PathBuf,
    /// The pattern's name was taken on a drive by another file.
    pub collided: bool,
    /// Left on the card ([`Collisions::Skip`]).
    pub skipped: bool,
    /// Its names come from the journal of a run that stopped before it was in.
    pub resumed: bool,
    /// Its files ingested before (a photo that is [`PlannedPhoto::already`] in, or part of
    /// one a stopped run left half in).
    pub landed: Vec<LandedFile>,
}

impl PlannedPhoto {
    pub fn already(&self) -> bool {
        self.files.is_empty()
    }

    /// The primary file's new path, relative to a drive.
    pub fn primary_rel(&self) -> Option<&Path> {
        let name = self.source.file_name()?.to_string_lossy().into_owned();
        self.files
            .iter()
            .find(|f| {
                f.source
                    .file_name()
                    .is_some_and(|n| *n.to_string_lossy() == name)
            })
            .map(|f| f.rel.as_path())
    }
}

#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub photos: Vec<PlannedPhoto>,
    /// Folders or files the scan could not read, each with its cause.
    pub unreadable: Vec<String>,
    /// The card's folder and each drive's (or the folder it is to be made in) as the plan saw
    /// them: a run refuses drives or a card that are not those any more (unmounted, or another
    /// in their place, between the plan and the run).
    pub(crate) seen: Vec<(PathBuf, ingest::Anchor)>,
}

impl Plan {
    pub(crate) fn to_copy(&self) -> impl Iterator<Item = &PlannedPhoto> {
        self.photos.iter().filter(|p| !p.already() && !p.skipped)
    }

    pub fn files(&self) -> usize {
        self.to_copy().map(|p| p.files.len()).sum()
    }

    pub fn bytes(&self) -> u64 {
        self.to_copy().flat_map(|p| &p.files).map(|f| f.size).sum()
    }

    pub fn new_photos(&self) -> usize {
        self.to_copy().count()
    }

    pub fn already(&self) -> usize {
        self.photos.iter().filter(|p| p.already()).count()
    }

    pub fn collisions(&self) -> usize {
        self.photos.iter().filter(|p| p.collided).count()
    }

    /// Photos an unfinished run named, which this one finishes under those names.
    pub fn resumed(&self) -> usize {
        self.photos.iter().filter(|p| p.resumed).count()
    }

    /// The same plan with collisions handled as `collisions` says (the window's answer).
    pub fn with_collisions(mut self, collisions: Collisions) -> Plan {
        for p in &mut self.photos {
            p.skipped = p.collided && collisions == Collisions::Skip;
        }
        self
    }
}

/// A file of a photo: where it is, and what follows the photo's stem in its name (".CR3",
/// ".JPG", ".CR3.xmp").
struct Member {
    path: PathBuf,
    suffix: String,
}

fn members(item: &Item) -> Vec<Member> {
    let stem = item
        .primary
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files: Vec<PathBuf> = item.files().map(Path::to_path_buf).collect();
    for f in item.files() {
        for s in sidecars::of(f) {
            if !files.contains(&s) {
                files.push(s);
            }
        }
    }
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let suffix = name
                .strip_prefix(&stem)
                .map(str::to_owned)
                .unwrap_or_else(|| format!(".{name}"));
            Member { path, suffix }
        })
        .collect()
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// `rel` without `suffix` at its end: the stem a journalled name was made on.
fn strip_suffix(rel: &Path, suffix: &str) -> Option<PathBuf> {
    let s = rel.to_str()?;
    s.strip_suffix(suffix).map(PathBuf::from)
}

/// Whether `path` holds exactly the bytes of `source` (sizes first: a hash only when they
/// agree).
fn holds_same_bytes(path: &Path, source: &Path, size: u64) -> bool {
    // A link there is not a copy (it may lead to the card's own file).
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() == size)
        && matches!(
            (ingest::copy::hash_of(path), ingest::copy::hash_of(source)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Every drive is its own folder, none inside another or on the card.
pub(crate) fn check_roots(options: &Options) -> Result<(), ingest::RootsError> {
    let roots: Vec<PathBuf> = options.roots().iter().map(|r| r.to_path_buf()).collect();
    ingest::roots::check(&options.source, &roots)
}

/// A photo of the card as the names are made from it, in shooting order.
#[derive(Debug, Clone)]
pub struct Surveyed {
    pub item: Item,
    /// What its name is made from (the job and sequence left to the plan).
    pub fields: Fields,
    pub body: Option<String>,
    pub offset_s: f64,
    /// Capture time on the shoot's clock, seconds since 1970.
    pub taken: Option<i64>,
}

/// The card's photos in shooting order on the shoot's one clock (each body's correction
/// applied), with what their names are made from; and what could not be read. Only reads.
pub fn survey(
    source: &Path,
    catalog: &Catalog,
    cancel: &AtomicBool,
) -> Result<(Vec<Surveyed>, Vec<String>), PlanError> {
    if !source.is_dir() {
        return Err(PlanError::NotAFolder(source.to_path_buf()));
    }
    let mut items = Vec::new();
    let mut unreadable = Vec::new();
    scan::scan(source, cancel, &mut |event| {
        match event {
            ScanEvent::Item(item) => items.push(item),
            ScanEvent::Error(e) => unreadable.push(e.cause()),
        }
        true
    });
    let mut photos = Vec::with_capacity(items.len());
    for item in items {
        let f = facts::read(&item.primary).unwrap_or_default();
        let body = f.body();
        let offset_s = match &body {
            Some(b) => catalog.clock_offset(b)?,
            None => 0.0,
        };
        let taken = f
            .taken
            .as_deref()
            .and_then(clock::seconds_of)
            .map(|t| t + offset_s.round() as i64);
        let fields = Fields {
            taken: taken.map(clock::fields_of),
            camera: f.camera.clone(),
            serial: f.serial.clone(),
            original: item
                .primary
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            job: String::new(),
            seq: 0,
        };
        photos.push(Surveyed {
            item,
            fields,
            body,
            offset_s,
            taken,
        });
    }
    photos.sort_by(|a, b| (a.taken, &a.item.primary).cmp(&(b.taken, &b.item.primary)));
    for (k, p) in photos.iter_mut().enumerate() {
        p.fields.seq = k as u64 + 1;
    }
    Ok((photos, unreadable))
}

/// The first `n` names the pattern gives the surveyed photos: the window's live preview.
pub fn preview(photos: &[Surveyed], pattern: &Pattern, job: &str, n: usize) -> Vec<PathBuf> {
    photos
        .iter()
        .take(n)
        .map(|p| {
            pattern.render(&Fields {
                job: job.to_owned(),
                ..p.fields.clone()
            })
        })
        .collect()
}

/// Scan the card and decide every photo's names; nothing is written. Destinations that are
/// not really different from each other and from the card are refused first.
pub fn plan(options: &Options, catalog: &Catalog, cancel: &AtomicBool) -> Result<Plan, PlanError> {
    check_roots(options)?;
    let card = ingest::Anchor::of(&options.source)
        .map_err(|_| PlanError::NotAFolder(options.source.clone()))?;
    let mut seen = vec![(options.source.clone(), card)];
    for root in options.roots() {
        seen.push((root.to_path_buf(), ingest::Anchor::nearest(root)?));
    }
    let (photos, unreadable) = survey(&options.source, catalog, cancel)?;
    let mut plan = name_all(photos, unreadable, options, catalog)?;
    plan.seen = seen;
    Ok(plan)
}

fn name_all(
    photos: Vec<Surveyed>,
    unreadable: Vec<String>,
    options: &Options,
    catalog: &Catalog,
) -> Result<Plan, PlanError> {
    let roots = options.roots();
    let roots_key = options.roots_key();
    let mut planned_names: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::with_capacity(photos.len());
    for surveyed in photos {
        let Surveyed {
            item,
            fields,
            body,
            offset_s,
            ..
        } = surveyed;
        let seq = fields.seq;
        // What of it was ingested before, by content: a size never seen needs no hash. A
        // sidecar is never judged alone — a template or a rating-only packet is byte for byte
        // another photo's — it goes wherever its photo's files go.
        let mut new = Vec::new();
        let mut sidecars_of = Vec::new();
        let mut landed = Vec::new();
        // Where a file of this photo already landed on this working drive: the rest of the
        // photo joins it there, on one stem.
        let mut landed_stem: Option<PathBuf> = None;
        for m in members(&item) {
            let stamp = std::fs::metadata(&m.path)
                .map(|meta| FileStamp::of_metadata(&meta))
                .map_err(|source| PlanError::Unreadable {
                    source,
                    path: m.path.clone(),
                })?;
            if sidecars::is_sidecar(&m.path) {
                sidecars_of.push((m, stamp));
                continue;
            }
            let size = stamp.size;
            let seen = if catalog.ingested_size(size)? {
                let sha = ingest::copy::hash_of(&m.path)?;
                catalog.ingested(&sha, size)?
            } else {
                None
            };
            match seen {
                Some(before) => {
                    if let Some(stem) = before
                        .dest
                        .strip_prefix(roots[0])
                        .ok()
                        .and_then(|rel| strip_suffix(rel, &m.suffix))
                    {
                        landed_stem.get_or_insert(stem);
                    }
                    landed.push(LandedFile {
                        source: m.path,
                        stamp,
                        copy: before.dest,
                    });
                }
                None => new.push((m, stamp)),
            }
        }
        if !new.is_empty() {
            new.extend(sidecars_of);
        }
        // A run to these drives that stopped named this photo already: those names stand.
        let mut journalled = None;
        for (m, stamp) in &new {
            if let Some(entry) = catalog.journal_entry(&roots_key, &m.path, *stamp)?
                && let Some(stem) = strip_suffix(&entry.rel, &m.suffix)
            {
                journalled = Some(stem);
                break;
            }
        }
        if journalled.is_none() && !new.is_empty() {
            journalled = landed_stem;
        }
        let fields = Fields {
            job: options.job.clone(),
            ..fields
        };
        let resumed = journalled.is_some();
        let wanted =
            journalled.unwrap_or_else(|| options.pattern.render(&fields).with_extension(""));
        let mut photo = PlannedPhoto {
            source: item.primary.clone(),
            seq,
            body,
            offset_s,
            files: Vec::new(),
            stem: wanted.clone(),
            collided: false,
            skipped: false,
            resumed,
            landed,
        };
        if new.is_empty() {
            out.push(photo);
            continue;
        }
        // The pattern's name, unless a drive holds another file there (the same bytes there
        // are a copy a stopped run made: the run confirms them as landed).
        for (m, stamp) in &new {
            let rel = with_suffix(&wanted, &m.suffix);
            let taken_by_another = roots.iter().any(|root| {
                let there = root.join(&rel);
                there.exists() && !holds_same_bytes(&there, &m.path, stamp.size)
            });
            if taken_by_another || planned_names.contains(&rel) {
                photo.collided = true;
            }
        }
        // A journalled name is kept even where another file took it meanwhile: the copy then
        // fails on that name, saying so, and nothing is overwritten.
        if resumed {
            photo.collided = false;
        }
        if photo.collided {
            let suffixes: Vec<String> = new
                .iter()
                .map(|(m, _)| m.suffix.trim_start_matches('.').to_owned())
                .collect();
            let taken =
                |p: &Path| planned_names.contains(p) || roots.iter().any(|r| r.join(p).exists());
            photo.stem = ingest::naming::resolve(&[(wanted, suffixes)], &taken)
                .into_iter()
                .next()
                .unwrap_or_default();
        }
        for (m, stamp) in new {
            let rel = with_suffix(&photo.stem, &m.suffix);
            planned_names.insert(rel.clone());
            photo.files.push(PlannedFile {
                source: m.path,
                size: stamp.size,
                stamp,
                rel,
            });
        }
        out.push(photo);
    }
    Ok(Plan {
        photos: out,
        unreadable,
        seen: Vec::new(),
    })
}
