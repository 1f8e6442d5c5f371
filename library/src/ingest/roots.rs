//! The drives an ingest writes to, told apart by what they are on disk, never by how their
//! paths are spelled: "verified on 2 drives" must mean two copies. A folder given twice, a
//! symlink or bind mount of it, a case-only spelling on a case-insensitive volume, one
//! destination inside another, or a destination on the card itself is refused before anything
//! is copied. While a run writes into a root it holds that root's lock, so two ingests (two
//! card readers, the window and the command line) never write into one root at once.

use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Component, Path, PathBuf};

/// Where in a root the lock of a running ingest is held.
pub const LOCK_NAME: &str = ".darkroom-ingest.lock";

#[derive(Debug, thiserror::Error)]
pub enum RootsError {
    #[error("the same folder is given twice ({} and {}): one copy would be counted as two", first.display(), second.display())]
    Same { first: PathBuf, second: PathBuf },
    #[error("one destination is inside the other ({} inside {}): one copy would be counted as two", inner.display(), outer.display())]
    Nested { inner: PathBuf, outer: PathBuf },
    #[error("the destination is on the card ({}): a card is only read, and formatting it would lose the copy: {}", card.display(), dest.display())]
    OnCard { card: PathBuf, dest: PathBuf },
    #[error("the card is inside the destination, so the copies would land beside the originals: {}", dest.display())]
    CardInside { dest: PathBuf },
    #[error("cannot tell where the folder is on disk: {source}: {}", path.display())]
    Unreadable {
        #[source]
        source: std::io::Error,
        path: PathBuf,
    },
    #[error("another ingest is writing into this folder ({holder}); try again when it is done: {}", path.display())]
    Held { holder: String, path: PathBuf },
    #[error("cannot lock the folder for the ingest: {source}: {}", path.display())]
    Lock {
        #[source]
        source: std::io::Error,
        path: PathBuf,
    },
}

/// A file system object's identity: the device and inode (the volume serial number and file
/// index on Windows). Two paths with one identity are one folder however they are spelled.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity(u64, u128);

#[cfg(unix)]
fn identity(path: &Path) -> std::io::Result<Identity> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok(Identity(m.dev(), u128::from(m.ino())))
}

#[cfg(windows)]
fn identity(path: &Path) -> std::io::Result<Identity> {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_FLAG_BACKUP_SEMANTICS: a folder can be opened, for its identity only.
    const BACKUP_SEMANTICS: u32 = 0x0200_0000;
    let f = File::options()
        .read(true)
        .custom_flags(BACKUP_SEMANTICS)
        .open(path)?;
    let info = winapi_util::file::information(&f)?;
    Ok(Identity(
        info.volume_serial_number(),
        u128::from(info.file_index()),
    ))
}

/// Where a folder is: an existing folder by its identity, or one still to be made by the
/// nearest existing folder above it and the names below that (compared ignoring case: two
/// spellings the volume may take for one are never trusted to be two).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Exists(Identity),
    Below(Identity, Vec<String>),
}

/// A folder's place and every place above it, itself first.
fn places(path: &Path) -> Result<Vec<Place>, RootsError> {
    let unreadable = |source, path: &Path| RootsError::Unreadable {
        source,
        path: path.to_path_buf(),
    };
    let abs = std::path::absolute(path).map_err(|e| unreadable(e, path))?;
    let abs: PathBuf = abs
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    let mut missing: Vec<&Path> = Vec::new();
    let mut out = Vec::new();
    for level in abs.ancestors() {
        match identity(level) {
            Ok(id) => {
                // Every level still to be made lies below this one. A folder that does not
                // exist holds no symlink, so `..` below it is read as written.
                for m in &missing {
                    let mut names: Vec<String> = Vec::new();
                    for c in m.strip_prefix(level).unwrap_or(m).components() {
                        match c {
                            Component::ParentDir if names.pop().is_some() => {}
                            Component::ParentDir => {
                                return Err(unreadable(
                                    std::io::Error::other("it climbs above a folder to be made"),
                                    path,
                                ));
                            }
                            c => names.push(c.as_os_str().to_string_lossy().to_lowercase()),
                        }
                    }
                    out.push(if names.is_empty() {
                        Place::Exists(id.clone())
                    } else {
                        Place::Below(id.clone(), names)
                    });
                }
                missing.clear();
                out.push(Place::Exists(id));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing.push(level),
            Err(e) => return Err(unreadable(e, level)),
        }
    }
    if out.is_empty() {
        return Err(unreadable(
            std::io::Error::new(std::io::ErrorKind::NotFound, "no part of it exists"),
            path,
        ));
    }
    Ok(out)
}

/// The card's own root: the folder holding its `DCIM`, else the folder given.
fn card_root(card: &Path) -> PathBuf {
    let mut root = card.to_path_buf();
    for a in card.ancestors() {
        if a.file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("DCIM"))
        {
            root = a.parent().unwrap_or(a).to_path_buf();
        }
    }
    root
}

/// Refuse destinations that are not really different from each other and from the card:
/// the same folder twice (however spelled or linked), one inside another, one on the card
/// (inside its root, or on its volume when the card is a volume of its own), or the card
/// inside one. Only reads.
pub fn check(card: &Path, dests: &[PathBuf]) -> Result<(), RootsError> {
    let placed: Vec<Vec<Place>> = dests.iter().map(|d| places(d)).collect::<Result<_, _>>()?;
    for (i, a) in placed.iter().enumerate() {
        for (j, b) in placed.iter().enumerate().skip(i + 1) {
            if a[0] == b[0] {
                return Err(RootsError::Same {
                    first: dests[i].clone(),
                    second: dests[j].clone(),
                });
            }
            if a[1..].contains(&b[0]) {
                return Err(RootsError::Nested {
                    inner: dests[i].clone(),
                    outer: dests[j].clone(),
                });
            }
            if b[1..].contains(&a[0]) {
                return Err(RootsError::Nested {
                    inner: dests[j].clone(),
                    outer: dests[i].clone(),
                });
            }
        }
    }
    let root = card_root(card);
    let card_places = places(&root)?;
    let card_volume = volume_of(&root);
    for (dest, place) in dests.iter().zip(&placed) {
        if place.contains(&card_places[0]) {
            return Err(RootsError::OnCard {
                card: root.clone(),
                dest: dest.clone(),
            });
        }
        if card_places.contains(&place[0]) {
            return Err(RootsError::CardInside { dest: dest.clone() });
        }
        if let Some(volume) = card_volume
            && nearest_device(place) == Some(volume)
        {
            return Err(RootsError::OnCard {
                card: root.clone(),
                dest: dest.clone(),
            });
        }
    }
    Ok(())
}

/// The card's device when its root is a volume of its own (a mount point: its parent is on
/// another device); None for a card that is a folder on a disk with other things.
fn volume_of(root: &Path) -> Option<u64> {
    let here = identity(root).ok()?;
    let abs = std::path::absolute(root).ok()?;
    let parent = identity(abs.parent()?).ok()?;
    (parent.0 != here.0).then_some(here.0)
}

fn nearest_device(place: &[Place]) -> Option<u64> {
    match place.first()? {
        Place::Exists(id) | Place::Below(id, _) => Some(id.0),
    }
}

/// A folder a run reads from or writes to, as it was when the run began: a drive unmounted
/// mid-run leaves its path naming the bare mount point (or nothing), another drive mounted
/// there names another folder, and a card pulled out leaves no folder — each seen here before
/// a copy is written to or counted on the wrong disk.
#[derive(Debug, Clone)]
pub struct Anchor {
    path: PathBuf,
    identity: Identity,
}

impl Anchor {
    pub fn of(path: &Path) -> Result<Anchor, RootsError> {
        let identity = identity(path).map_err(|source| RootsError::Unreadable {
            source,
            path: path.to_path_buf(),
        })?;
        Ok(Anchor {
            path: path.to_path_buf(),
            identity,
        })
    }

    /// The folder at `path`, or where it is still to be made, the nearest folder above it
    /// that exists (a drive's root folder made by the run: the drive's folder it goes in).
    pub fn nearest(path: &Path) -> Result<Anchor, RootsError> {
        let abs = std::path::absolute(path).map_err(|source| RootsError::Unreadable {
            source,
            path: path.to_path_buf(),
        })?;
        let mut last = None;
        for level in abs.ancestors() {
            match Anchor::of(level) {
                Ok(anchor) => return Ok(anchor),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| RootsError::Unreadable {
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no part of it exists"),
            path: path.to_path_buf(),
        }))
    }

    /// Whether the path still names the folder it named when this was made.
    pub fn in_place(&self) -> bool {
        identity(&self.path).is_ok_and(|id| id == self.identity)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `folder` is the folder this was made of.
    fn holds(&self, folder: &super::held::HeldFolder) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            folder
                .file()
                .metadata()
                .is_ok_and(|m| Identity(m.dev(), u128::from(m.ino())) == self.identity)
        }
        #[cfg(not(unix))]
        {
            identity(folder.path()).is_ok_and(|id| id == self.identity)
        }
    }
}

/// A root held by this run: the lock file's advisory lock, let go when this is dropped (or
/// the process ends, however it ends). The file goes with it where the system lets a file in
/// use be removed, so nothing of the run is left among the photos.
#[derive(Debug)]
pub struct RootLock {
    file: File,
    path: PathBuf,
    root: Anchor,
    folder: super::held::HeldFolder,
}

impl RootLock {
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The root's folder as it was locked: a copy is counted only while it is still in place
    /// (its drive not unmounted or replaced since).
    pub fn anchor(&self) -> &Anchor {
        &self.root
    }

    /// The root's folder held open since it was locked: what the run makes on the drive is
    /// made through it.
    pub fn folder(&self) -> &super::held::HeldFolder {
        &self.folder
    }
}

impl Drop for RootLock {
    fn drop(&mut self) {
        // Removed while still held: a run that opened it meanwhile finds, once it has the
        // lock, that the file it locked is no longer the one at the path, and starts again.
        // Only the file this run locked: with the drive unmounted the path names another.
        if still_there(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

/// Hold `root` (made if missing) for this run, or say who holds it.
pub fn lock(root: &Path, holder: &str) -> Result<RootLock, RootsError> {
    let err = |source, path: &Path| RootsError::Lock {
        source,
        path: path.to_path_buf(),
    };
    crate::durable::create_dir_all(root).map_err(|e| err(e, root))?;
    let path = root.join(LOCK_NAME);
    loop {
        let mut file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| err(e, &path))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let who = std::fs::read_to_string(&path).unwrap_or_default();
                let who = who.trim();
                return Err(RootsError::Held {
                    holder: if who.is_empty() {
                        "a run that is just starting".to_owned()
                    } else {
                        who.to_owned()
                    },
                    path: root.to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(err(e, &path)),
        }
        // The run that held it removed it before letting go: this lock is on a file no
        // longer there, and holds nothing.
        if !still_there(&file, &path) {
            continue;
        }
        // Who holds it, for the run that finds it held. Only a courtesy: the lock is the truth.
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(holder.as_bytes()));
        let anchor = Anchor::of(root)?;
        let folder = super::held::HeldFolder::open(root).map_err(|e| err(e, root))?;
        if !anchor.holds(&folder) {
            return Err(err(
                std::io::Error::other("another folder took its place while it was locked"),
                root,
            ));
        }
        return Ok(RootLock {
            file,
            path,
            root: anchor,
            folder,
        });
    }
}

/// Whether the open `file` is still the one named `path`.
#[cfg(unix)]
fn still_there(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(windows)]
fn still_there(file: &File, path: &Path) -> bool {
    match (winapi_util::file::information(file), identity(path)) {
        (Ok(a), Ok(b)) => Identity(a.volume_serial_number(), u128::from(a.file_index())) == b,
        _ => false,
    }
}

/// What a lock says of its holder: the program, its process and when it began (UTC).
pub fn holder_words(what: &str) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    format!(
        "{what}, process {}, since {} UTC",
        std::process::id(),
        crate::clock::exif_text(now)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(card: &Path, dests: &[PathBuf]) -> String {
        check(card, dests).expect_err("refused").to_string()
    }

    #[test]
    fn the_same_folder_however_named_is_refused() {
        let t = tempfile::tempdir().expect("tempdir");
        let card = t.path().join("card/DCIM/100CANON");
        std::fs::create_dir_all(&card).expect("card");
        let a = t.path().join("photos");
        std::fs::create_dir_all(&a).expect("a");
        let b = t.path().join("backup");
        check(&card, &[a.clone(), b.clone()]).expect("two folders");
        // Twice, by the same spelling and by another.
        assert!(refused(&card, &[a.clone(), a.clone()]).starts_with("the same folder"));
        assert!(refused(&card, &[a.clone(), a.join("x/..").join(".")]).starts_with("the same"));
        // Through a symlink.
        #[cfg(unix)]
        {
            let link = t.path().join("link");
            std::os::unix::fs::symlink(&a, &link).expect("symlink");
            assert!(refused(&card, &[a.clone(), link.clone()]).starts_with("the same folder"));
            // Not made yet, below one folder reached two ways.
            let msg = refused(&card, &[a.join("2026"), link.join("2026")]);
            assert!(msg.starts_with("the same folder"), "{msg}");
        }
        // Case only, where neither exists yet (never trusted to be two).
        let msg = refused(&card, &[t.path().join("New"), t.path().join("new")]);
        assert!(msg.starts_with("the same folder"), "{msg}");
    }

    #[test]
    fn nested_destinations_and_the_card_are_refused() {
        let t = tempfile::tempdir().expect("tempdir");
        let card = t.path().join("card/DCIM/100CANON");
        std::fs::create_dir_all(&card).expect("card");
        let a = t.path().join("photos");
        std::fs::create_dir_all(&a).expect("a");
        let msg = refused(&card, &[a.clone(), a.join("backup")]);
        assert!(
            msg.starts_with("one destination is inside the other"),
            "{msg}"
        );
        let msg = refused(&card, &[a.join("sub/deeper"), a.clone()]);
        assert!(
            msg.starts_with("one destination is inside the other"),
            "{msg}"
        );
        // On the card: beside its DCIM, or inside it.
        let msg = refused(&card, &[t.path().join("card/backup")]);
        assert!(msg.starts_with("the destination is on the card"), "{msg}");
        let msg = refused(&card, &[card.join("copies")]);
        assert!(msg.starts_with("the destination is on the card"), "{msg}");
        // The card inside a destination.
        let msg = refused(&card, &[t.path().to_path_buf()]);
        assert!(
            msg.starts_with("the card is inside the destination"),
            "{msg}"
        );
    }

    /// Unix only: Windows does not rename a folder with a file open in it.
    #[cfg(unix)]
    #[test]
    fn a_folder_replaced_under_its_path_is_no_longer_in_place() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().join("photos");
        let held = lock(&root, "a run").expect("held");
        let anchor = Anchor::of(&root).expect("anchor");
        assert!(held.anchor().in_place() && anchor.in_place());
        // What an unmount leaves: the path names another folder (the bare mount point).
        std::fs::rename(&root, t.path().join("elsewhere")).expect("rename");
        std::fs::create_dir(&root).expect("the bare mount point");
        assert!(
            !held.anchor().in_place(),
            "the drive's folder is not the one locked"
        );
        assert!(!anchor.in_place());
        std::fs::remove_dir(&root).expect("rm");
        assert!(!anchor.in_place(), "nothing there");
        drop(held);
        assert!(
            t.path().join("elsewhere").join(LOCK_NAME).exists(),
            "its lock is not removed through a path that names another folder"
        );
    }

    #[test]
    fn a_second_run_into_a_held_root_is_told_who_holds_it() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().join("photos");
        let held = lock(&root, "darkroom ingest, process 1").expect("first");
        match lock(&root, "the window") {
            Err(RootsError::Held { holder, path }) => {
                assert_eq!(holder, "darkroom ingest, process 1");
                assert_eq!(path, root);
            }
            other => panic!("expected Held, got {other:?}"),
        }
        drop(held);
        assert!(
            !root.join(LOCK_NAME).exists(),
            "nothing left among the photos"
        );
        lock(&root, "the window").expect("free again");
    }
}
