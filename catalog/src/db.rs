//! The catalog: one SQLite file in the app data dir, WAL with synchronous commits, so a
//! decision the UI acknowledged survives a crash or power cut. Each decision is committed with
//! a "sidecar pending" mark that is cleared once its sidecar is on disk; opening the catalog
//! rewrites any sidecar a crash left pending.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::decision::{Decision, Flag, Label};
use crate::error::CatalogError;
use crate::sidecar::{self, SidecarNaming};

const SCHEMA_VERSION: i32 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS photos (
    id INTEGER PRIMARY KEY,
    -- The path's bytes as the OS gives them: file names need not be UTF-8.
    path BLOB NOT NULL UNIQUE,
    flag INTEGER NOT NULL DEFAULT 0,
    stars INTEGER NOT NULL DEFAULT 0 CHECK (stars BETWEEN 0 AND 5),
    label TEXT,
    sidecar_pending INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS photos_pending ON photos(sidecar_pending) WHERE sidecar_pending = 1;
-- Version 2: the face index. A photo's row says which file (size, mtime) and which models
-- (model_ids) it was indexed with, so a re-run skips it only when all of them still match.
CREATE TABLE IF NOT EXISTS indexed (
    photo INTEGER PRIMARY KEY REFERENCES photos(id) ON DELETE CASCADE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    detector TEXT NOT NULL,
    embedder TEXT,
    eyes TEXT,
    backend TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    sharpness REAL NOT NULL,
    phash INTEGER NOT NULL,
    captured_at REAL,
    indexed_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS faces (
    id INTEGER PRIMARY KEY,
    photo INTEGER NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
    x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
    score REAL NOT NULL,
    -- 10 little-endian f32: (x, y) of left eye, right eye, nose, mouth left, mouth right.
    landmarks BLOB NOT NULL,
    -- Little-endian f32, unit length; NULL when no embedder ran.
    embedding BLOB,
    detector TEXT NOT NULL,
    embedder TEXT,
    sharpness REAL NOT NULL,
    -- 1 closed, 0 open, NULL when no eye-state model ran.
    eyes_closed INTEGER,
    person INTEGER
);
CREATE INDEX IF NOT EXISTS faces_photo ON faces(photo);
CREATE INDEX IF NOT EXISTS faces_person ON faces(person);
-- People are per embedder: embeddings of two models are never compared.
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY,
    embedder TEXT NOT NULL,
    name TEXT,
    sum BLOB NOT NULL,
    faces INTEGER NOT NULL
);
";

pub struct Catalog {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    naming: SidecarNaming,
    words: crate::xmp::SidecarWords,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog").field("path", &self.path).finish()
    }
}

/// What importing a photo found.
#[derive(Debug)]
pub struct ImportOutcome {
    pub decision: Decision,
    /// The decision came from a sidecar another tool (or an earlier catalog) wrote.
    pub from_sidecar: bool,
    /// The sidecar was there but could not be read; the photo is imported undecided.
    pub sidecar_error: Option<CatalogError>,
}

/// What recording a decision did.
#[derive(Debug)]
pub struct DecideOutcome {
    /// The decision before this one, for undo.
    pub previous: Decision,
    /// The decision is durable in the catalog, but its sidecar could not be written; it is
    /// retried on the next open.
    pub sidecar_error: Option<CatalogError>,
}

pub(crate) fn path_key(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(windows)]
    {
        use std::os::windows::ffi::OsStrExt;
        path.as_os_str()
            .encode_wide()
            .flat_map(u16::to_le_bytes)
            .collect()
    }
}

pub(crate) fn path_from_key(key: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(key))
    }
    #[cfg(windows)]
    {
        use std::os::windows::ffi::OsStringExt;
        let wide: Vec<u16> = key
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        PathBuf::from(std::ffi::OsString::from_wide(&wide))
    }
}

fn flag_code(flag: Flag) -> i64 {
    match flag {
        Flag::Unflagged => 0,
        Flag::Pick => 1,
        Flag::Reject => -1,
    }
}

fn flag_from(code: i64) -> Flag {
    match code {
        1 => Flag::Pick,
        -1 => Flag::Reject,
        _ => Flag::Unflagged,
    }
}

/// A row's decision from its `flag, stars, label` columns starting at `at`.
fn decision_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Decision> {
    Ok(Decision {
        flag: flag_from(r.get(at)?),
        stars: r.get::<_, i64>(at + 1)?.clamp(0, 5) as u8,
        label: r
            .get::<_, Option<String>>(at + 2)?
            .and_then(|l| Label::from_xmp(&l)),
    })
}

pub(crate) fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Catalog {
    /// Open (creating if needed) the catalog at `path`.
    pub fn open(path: &Path, naming: SidecarNaming) -> Result<Self, CatalogError> {
        let db = |source| CatalogError::Db {
            source,
            path: path.to_path_buf(),
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| CatalogError::Io {
                what: "cannot create the catalog's directory",
                source,
                path: dir.to_path_buf(),
            })?;
        }
        let conn = Connection::open(path).map_err(db)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(db)?;
        // WAL + FULL: a commit that returned is on disk; readers never block the writer.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db)?;
        let version: i32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(db)?;
        if version > SCHEMA_VERSION {
            return Err(db(rusqlite::Error::InvalidParameterName(format!(
                "catalog schema {version} is newer than this DarkRoom understands ({SCHEMA_VERSION})"
            ))));
        }
        conn.execute_batch(SCHEMA).map_err(db)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(db)?;
        Ok(Catalog {
            conn,
            path: path.to_path_buf(),
            naming,
            words: Default::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn naming(&self) -> SidecarNaming {
        self.naming
    }

    /// Which other tools' words sidecars carry from now on.
    pub fn set_words(&mut self, words: crate::xmp::SidecarWords) {
        self.words = words;
    }

    pub fn set_naming(&mut self, naming: SidecarNaming) {
        self.naming = naming;
    }

    pub(crate) fn db(&self) -> impl Fn(rusqlite::Error) -> CatalogError + '_ {
        |source| CatalogError::Db {
            source,
            path: self.path.clone(),
        }
    }

    /// The recorded decision, if the photo is in the catalog.
    pub fn decision(&self, photo: &Path) -> Result<Option<Decision>, CatalogError> {
        self.conn
            .query_row(
                "SELECT flag, stars, label FROM photos WHERE path = ?1",
                params![path_key(photo)],
                |r| {
                    Ok(Decision {
                        flag: flag_from(r.get(0)?),
                        stars: r.get::<_, i64>(1)?.clamp(0, 5) as u8,
                        label: r
                            .get::<_, Option<String>>(2)?
                            .and_then(|l| Label::from_xmp(&l)),
                    })
                },
            )
            .optional()
            .map_err(self.db())
    }

    /// Every photo in the catalog, with its decision.
    pub fn all(&self) -> Result<Vec<(PathBuf, Decision)>, CatalogError> {
        self.rows("SELECT path, flag, stars, label FROM photos ORDER BY id")
    }

    /// `(path, decision)` for every row `sql` selects as `path, flag, stars, label`.
    fn rows(&self, sql: &str) -> Result<Vec<(PathBuf, Decision)>, CatalogError> {
        let mut stmt = self.conn.prepare(sql).map_err(self.db())?;
        let rows = stmt
            .query_map([], |r| {
                Ok((path_from_key(&r.get::<_, Vec<u8>>(0)?), decision_at(r, 1)?))
            })
            .map_err(self.db())?;
        rows.collect::<Result<_, _>>().map_err(self.db())
    }

    /// Bring a photo into the catalog. A photo already there keeps its recorded decision; a new
    /// one takes the rating and label from an existing sidecar.
    pub fn import(&mut self, photo: &Path) -> Result<ImportOutcome, CatalogError> {
        if let Some(decision) = self.decision(photo)? {
            return Ok(ImportOutcome {
                decision,
                from_sidecar: false,
                sidecar_error: None,
            });
        }
        let (decision, from_sidecar, sidecar_error) = match sidecar::read(photo, self.naming) {
            Ok(Some(d)) => (d, true, None),
            Ok(None) => (Decision::default(), false, None),
            Err(e) => (Decision::default(), false, Some(e)),
        };
        self.conn
            .execute(
                "INSERT OR IGNORE INTO photos (path, flag, stars, label, sidecar_pending, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 0, ?5)",
                params![
                    path_key(photo),
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    now_s()
                ],
            )
            .map_err(self.db())?;
        Ok(ImportOutcome {
            decision,
            from_sidecar,
            sidecar_error,
        })
    }

    /// Record a decision. When this returns Ok the decision is durable in the catalog; the
    /// sidecar follows, and a failure to write it is reported and retried on the next open.
    pub fn decide(
        &mut self,
        photo: &Path,
        decision: &Decision,
    ) -> Result<DecideOutcome, CatalogError> {
        decision.check()?;
        let key = path_key(photo);
        let previous = self.decision(photo)?.unwrap_or_default();
        self.conn
            .execute(
                "INSERT INTO photos (path, flag, stars, label, sidecar_pending, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5)
                 ON CONFLICT(path) DO UPDATE SET flag = ?2, stars = ?3, label = ?4,
                     sidecar_pending = 1, updated_at = ?5",
                params![
                    key,
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    now_s()
                ],
            )
            .map_err(self.db())?;
        let sidecar_error = self.write_sidecar(photo, decision).err();
        Ok(DecideOutcome {
            previous,
            sidecar_error,
        })
    }

    fn write_sidecar(&self, photo: &Path, decision: &Decision) -> Result<(), CatalogError> {
        sidecar::write(photo, self.naming, self.words, decision)?;
        self.conn
            .execute(
                "UPDATE photos SET sidecar_pending = 0 WHERE path = ?1",
                params![path_key(photo)],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// Rewrite every sidecar a crash or an error left behind the catalog. Returns the ones that
    /// still fail (they stay pending).
    pub fn flush_pending(&mut self) -> Result<Vec<CatalogError>, CatalogError> {
        let pending =
            self.rows("SELECT path, flag, stars, label FROM photos WHERE sidecar_pending = 1")?;
        Ok(pending
            .into_iter()
            .filter_map(|(photo, d)| self.write_sidecar(&photo, &d).err())
            .collect())
    }
}
