//! The catalog: one SQLite file in the app data dir, WAL with synchronous commits, so a
//! decision the UI acknowledged survives a crash or power cut. Each decision is committed with
//! a "sidecar pending" mark that is cleared once its sidecar is on disk; opening the catalog
//! rewrites any sidecar a crash left pending.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::decision::{Change, Decision, Flag, Label};
use crate::error::CatalogError;
use crate::sidecar::{self, SidecarNaming};

const SCHEMA_VERSION: i32 = 10;

/// How long a connection waits for another's lock (the catalog thread's commit, an upgrade).
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS photos (
    id INTEGER PRIMARY KEY,
    -- The path's bytes as the OS gives them: file names need not be UTF-8.
    path BLOB NOT NULL UNIQUE,
    flag INTEGER NOT NULL DEFAULT 0,
    stars INTEGER NOT NULL DEFAULT 0 CHECK (stars BETWEEN 0 AND 5),
    label TEXT,
    sidecar_pending INTEGER NOT NULL DEFAULT 0,
    -- When a decision was last made here (seconds; 0: only ever read from the sidecar).
    updated_at INTEGER NOT NULL,
    -- Version 3: 0 while the row's decision was never read from the photo's sidecar (a row the
    -- index made): the next import or change reads the sidecar first, so what another tool
    -- wrote is never hidden by a blank row.
    imported INTEGER NOT NULL DEFAULT 1,
    -- Version 7: for a photo on a card, the file the row's decision was made on (its size and
    -- modification time): a card formatted and shot again puts another photo at the same
    -- path, which must never show or receive this one's decision.
    file_size INTEGER,
    file_mtime_ns INTEGER,
    -- Version 8: and its head (`held::Head`: SHA-256 of its first 64 KiB, the EXIF a camera
    -- writes first): with it, the same file is the same size and head, whatever its time says.
    file_head BLOB,
    -- Version 7: the identity of the sidecar as last read or written (`sidecar::stamp_of`; ''
    -- for none, NULL before version 7), and the fields changed here and not yet written there
    -- (`decision::FLAG | STARS | LABEL`). A sidecar another tool changed since is read again
    -- before anything is applied, and only the fields changed here are written over it.
    sidecar_stamp TEXT,
    pending_fields INTEGER NOT NULL DEFAULT 0
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
    indexed_at INTEGER NOT NULL,
    -- Version 4: the segmenter(s) that looked for the subject (model_ids joined by '+', NULL when
    -- none looked: the index looks after the faces, where the subject can decide) and the version of the measures taken (subject focus, eye-level focus): a row with
    -- the same file and face models but older measures is measured again, not indexed again.
    segmenter TEXT,
    measures INTEGER NOT NULL DEFAULT 1,
    -- Version 5: the photo's look (measures 4): its colour layout (8×8 CIELAB, 3 bytes a cell),
    -- a 64×64 luma thumbnail, the shares of it black, white and clipped, its contrast; and its
    -- exposure from EXIF: the bias (EV), the exposure value, whether the camera bracketed it.
    -- NULL (0 for the flag) in rows measured before.
    layout BLOB,
    thumb BLOB,
    black REAL,
    white REAL,
    clipped REAL,
    contrast REAL,
    bias REAL,
    ev REAL,
    auto_bracket INTEGER NOT NULL DEFAULT 0,
    -- Version 5: the scene model's model_id (NULL when none ran); its classes in scene_classes.
    scene TEXT
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
    person INTEGER,
    -- Version 4: the sharper eye's sharpness at the face's scale; NULL when the eyes are too
    -- close together to judge.
    eyes_sharpness REAL,
    -- Version 9: the face mesh's expression (NULL where no mesh ran or it saw no face): each
    -- eye's lid gap over its width (the photo's left-hand eye first), the smile (mouth widths),
    -- the gaze and the head's turn (degrees: yaw + to the photo's right, pitch + down).
    eye_open_l REAL,
    eye_open_r REAL,
    smile REAL,
    gaze_yaw REAL,
    gaze_pitch REAL,
    head_yaw REAL,
    head_pitch REAL
);
CREATE INDEX IF NOT EXISTS faces_photo ON faces(photo);
CREATE INDEX IF NOT EXISTS faces_person ON faces(person);
-- Version 4: the photo's subject per segmenter: its mask at 1/8 of the analysis's size,
-- bit-packed (least significant bit first, row after row), and the sharpness inside and outside.
CREATE TABLE IF NOT EXISTS subjects (
    photo INTEGER NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
    segmenter TEXT NOT NULL,
    class TEXT,
    score REAL NOT NULL,
    mask_width INTEGER NOT NULL,
    mask_height INTEGER NOT NULL,
    mask BLOB NOT NULL,
    sharpness REAL NOT NULL,
    background REAL,
    PRIMARY KEY (photo, segmenter)
);
-- Version 5: the share of the photo each class of the scene model covers (ADE20K's names).
CREATE TABLE IF NOT EXISTS scene_classes (
    photo INTEGER NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
    class TEXT NOT NULL,
    share REAL NOT NULL,
    PRIMARY KEY (photo, class)
);
-- Version 5: what was ingested, by content: a second ingest of a card copies nothing again.
CREATE TABLE IF NOT EXISTS ingested (
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    source BLOB NOT NULL,
    dest BLOB NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (sha256, size)
);
CREATE INDEX IF NOT EXISTS ingested_size ON ingested(size);
-- Version 6: each camera body's clock correction (seconds added to its capture times), set by
-- the photographer; and the files whose own metadata already carries a correction (a copy the
-- ingest wrote the corrected time into), so it is never added twice.
CREATE TABLE IF NOT EXISTS clocks (
    body TEXT PRIMARY KEY,
    offset_s REAL NOT NULL,
    at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS shifted (
    path BLOB PRIMARY KEY,
    offset_s REAL NOT NULL,
    -- Version 8: the copy's sha256 once the correction is in it (its bytes are no longer the
    -- card's, which `ingested` records); NULL while it is being written.
    sha256 TEXT
);
-- Version 7: decisions made on a card, held against the file they were made on (its path, size
-- and modification time) until the ingest carries them into the copy of that very file, and
-- retired then.
CREATE TABLE IF NOT EXISTS held (
    source BLOB NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    flag INTEGER NOT NULL,
    stars INTEGER NOT NULL,
    label TEXT,
    at INTEGER NOT NULL,
    -- Version 8: the file's head (`held::Head`), where it could be read when the decision was
    -- made: then only a file of this size and head receives it.
    head BLOB,
    PRIMARY KEY (source, size, mtime_ns)
);
-- Version 7: the ingest's journal (`journal`): each card file a run is about to copy, with its
-- final name under the drives (`roots`), marked done in the commit that records it ingested.
CREATE TABLE IF NOT EXISTS ingest_journal (
    roots BLOB NOT NULL,
    source BLOB NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    rel BLOB NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    at INTEGER NOT NULL,
    PRIMARY KEY (roots, source, size, mtime_ns)
);
-- People are per embedder: embeddings of two models are never compared.
CREATE TABLE IF NOT EXISTS people (
    id INTEGER PRIMARY KEY,
    embedder TEXT NOT NULL,
    name TEXT,
    sum BLOB NOT NULL,
    faces INTEGER NOT NULL
);
";

/// Whether a card photo's row was made for the file now at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileThere {
    /// The same file, or nothing to tell them apart by (not a card, or the file is gone).
    Same,
    /// Another file took the path.
    Other,
    /// The row predates the record of its file (schema 6): the file there is adopted.
    Unknown,
}

pub struct Catalog {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    naming: SidecarNaming,
    words: crate::xmp::SidecarWords,
    /// Sidecars of photos on a card (`library::card::on_card`) are written only when this
    /// says so; otherwise their decisions are held here, pending, until they are ingested.
    write_to_cards: bool,
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
    /// The photo was in the catalog and another tool changed its sidecar since it was last
    /// read or written here: `decision` is what that tool wrote (with any change made here and
    /// not yet written kept over it).
    pub outside: bool,
}

/// What a change did: the photo's decision before it (as the catalog or its sidecar had it)
/// and after.
#[derive(Debug)]
pub struct Changed {
    pub before: Decision,
    pub after: Decision,
    /// The photo was imported for this change and its sidecar could not be read (it is left
    /// as it was; the change is recorded in the catalog).
    pub import_error: Option<CatalogError>,
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

pub(crate) fn flag_code(flag: Flag) -> i64 {
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
pub(crate) fn decision_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Decision> {
    Ok(Decision {
        flag: flag_from(r.get(at)?),
        stars: r.get::<_, i64>(at + 1)?.clamp(0, 5) as u8,
        label: r
            .get::<_, Option<String>>(at + 2)?
            .and_then(|l| Label::from_xmp(&l)),
    })
}

/// How the catalog's commits are journalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Journal {
    /// The write-ahead log: readers never block the writer.
    Wal,
    /// The rollback journal, for a catalog on a network file system: WAL needs memory shared
    /// between the processes that open the file, which NFS and SMB cannot give (SQLite's own
    /// advice), and a catalog there would be corrupted or refuse to open.
    Rollback,
}

impl Journal {
    fn mode(self) -> &'static str {
        match self {
            Journal::Wal => "WAL",
            Journal::Rollback => "DELETE",
        }
    }
}

fn journal_for(path: &Path) -> Journal {
    match darkroom_library::volume::remote_kind(path) {
        Some(_) => Journal::Rollback,
        None => Journal::Wal,
    }
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
        Self::open_with(path, naming, journal_for(path))
    }

    fn open_with(
        path: &Path,
        naming: SidecarNaming,
        journal: Journal,
    ) -> Result<Self, CatalogError> {
        let db = |source| CatalogError::Db {
            source,
            path: path.to_path_buf(),
        };
        // Private from the start: people's names and faces are in it.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            darkroom_library::durable::create_private_dir_all(dir).map_err(|source| {
                CatalogError::Io {
                    what: "cannot create the catalog's directory",
                    source,
                    path: dir.to_path_buf(),
                }
            })?;
        }
        darkroom_library::durable::create_private_file(path).map_err(|source| {
            CatalogError::Io {
                what: "cannot create the catalog",
                source,
                path: path.to_path_buf(),
            }
        })?;
        let mut conn = Connection::open(path).map_err(db)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(db)?;
        // WAL + FULL: a commit that returned is on disk; readers never block the writer.
        conn.pragma_update(None, "journal_mode", journal.mode())
            .map_err(db)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db)?;
        // The schema, any upgrade and the version that says so in one transaction: a reader
        // opening the file meanwhile (the folder's analysis, at startup) sees no catalog yet
        // or the whole of it, never a half-made one.
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db)?;
        let version: i32 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(db)?;
        if version > SCHEMA_VERSION {
            return Err(CatalogError::Schema {
                found: version,
                reads: SCHEMA_VERSION,
                path: path.to_path_buf(),
            });
        }
        tx.execute_batch(SCHEMA).map_err(db)?;
        if version < 3 && tx.prepare("SELECT imported FROM photos LIMIT 0").is_err() {
            // Rows from before version 3 with a blank decision may be the index's: their
            // sidecars are read again (a blank the user made reads back blank).
            tx.execute_batch(
                "ALTER TABLE photos ADD COLUMN imported INTEGER NOT NULL DEFAULT 1;
                 UPDATE photos SET imported = 0
                 WHERE flag = 0 AND stars = 0 AND label IS NULL AND sidecar_pending = 0;",
            )
            .map_err(db)?;
        }
        if version < 4 && tx.prepare("SELECT measures FROM indexed LIMIT 0").is_err() {
            // Rows indexed before version 4 keep their faces and people; their measures (1)
            // say they lack the subject and eye-level focus, which the next index adds.
            tx.execute_batch(
                "ALTER TABLE indexed ADD COLUMN segmenter TEXT;
                 ALTER TABLE indexed ADD COLUMN measures INTEGER NOT NULL DEFAULT 1;
                 ALTER TABLE faces ADD COLUMN eyes_sharpness REAL;",
            )
            .map_err(db)?;
        }
        if version < 5 && tx.prepare("SELECT layout FROM indexed LIMIT 0").is_err() {
            // Rows measured before version 5 have no look; their measures version says so,
            // and the next index measures them again without detecting again.
            tx.execute_batch(
                "ALTER TABLE indexed ADD COLUMN layout BLOB;
                 ALTER TABLE indexed ADD COLUMN thumb BLOB;
                 ALTER TABLE indexed ADD COLUMN black REAL;
                 ALTER TABLE indexed ADD COLUMN white REAL;
                 ALTER TABLE indexed ADD COLUMN clipped REAL;
                 ALTER TABLE indexed ADD COLUMN contrast REAL;
                 ALTER TABLE indexed ADD COLUMN bias REAL;
                 ALTER TABLE indexed ADD COLUMN ev REAL;
                 ALTER TABLE indexed ADD COLUMN auto_bracket INTEGER NOT NULL DEFAULT 0;
                 ALTER TABLE indexed ADD COLUMN scene TEXT;",
            )
            .map_err(db)?;
        }
        if version < 6 && tx.prepare("SELECT body FROM indexed LIMIT 0").is_err() {
            // Rows measured before version 6 do not know their body; their measures version
            // says so, and the next index reads it without detecting again.
            tx.execute_batch("ALTER TABLE indexed ADD COLUMN body TEXT;")
                .map_err(db)?;
        }
        if version < 7 && tx.prepare("SELECT file_size FROM photos LIMIT 0").is_err() {
            // Decisions held by path before version 7 know no file: the first look at the card
            // (an import) adopts the file that is there ([`Catalog::import`]).
            tx.execute_batch(
                "ALTER TABLE photos ADD COLUMN file_size INTEGER;
                 ALTER TABLE photos ADD COLUMN file_mtime_ns INTEGER;
                 ALTER TABLE photos ADD COLUMN sidecar_stamp TEXT;
                 ALTER TABLE photos ADD COLUMN pending_fields INTEGER NOT NULL DEFAULT 0;
                 UPDATE photos SET pending_fields = 7 WHERE sidecar_pending = 1;",
            )
            .map_err(db)?;
        }
        // Copies corrected before version 8 have no recorded hash of their new bytes, and card
        // files no recorded head: they are told apart by size and time, as before. Each
        // column on its own: a table the schema just made (an older catalog) has it already.
        for (table, column, kind) in [
            ("shifted", "sha256", "TEXT"),
            ("photos", "file_head", "BLOB"),
            ("held", "head", "BLOB"),
        ] {
            if version < 8
                && tx
                    .prepare(&format!("SELECT {column} FROM {table} LIMIT 0"))
                    .is_err()
            {
                tx.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind};"))
                    .map_err(db)?;
            }
        }
        // Faces measured before version 9 have no expression and rows no mesh: the next index
        // measures them again (measures 6) without detecting again. No one is a key person yet.
        for (table, column, kind) in [
            ("people", "starred", "INTEGER NOT NULL DEFAULT 0"),
            ("indexed", "mesh", "TEXT"),
            ("faces", "eye_open_l", "REAL"),
            ("faces", "eye_open_r", "REAL"),
            ("faces", "smile", "REAL"),
            ("faces", "gaze_yaw", "REAL"),
            ("faces", "gaze_pitch", "REAL"),
            ("faces", "head_yaw", "REAL"),
            ("faces", "head_pitch", "REAL"),
        ] {
            if version < 9
                && tx
                    .prepare(&format!("SELECT {column} FROM {table} LIMIT 0"))
                    .is_err()
            {
                tx.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind};"))
                    .map_err(db)?;
            }
        }
        // Rows measured before version 10 have no AF area: the next index measures them again
        // (measures 7) without detecting again. The area is where the camera focused, as
        // fractions of the photo as shown; its sharpness on the photo's scale.
        for (table, column, kind) in [
            ("indexed", "af_x0", "REAL"),
            ("indexed", "af_y0", "REAL"),
            ("indexed", "af_x1", "REAL"),
            ("indexed", "af_y1", "REAL"),
            ("indexed", "af_sharpness", "REAL"),
            ("indexed", "af_mode", "TEXT"),
        ] {
            if version < 10
                && tx
                    .prepare(&format!("SELECT {column} FROM {table} LIMIT 0"))
                    .is_err()
            {
                tx.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {kind};"))
                    .map_err(db)?;
            }
        }
        if version != SCHEMA_VERSION {
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)
                .map_err(db)?;
        }
        tx.commit().map_err(db)?;
        Ok(Catalog {
            conn,
            path: path.to_path_buf(),
            naming,
            words: Default::default(),
            write_to_cards: false,
        })
    }

    /// Open an existing catalog for reading only: no schema statements, no write of any kind
    /// (the loupe's close-ups and the folder's analysis read it on every step). None when
    /// nothing was recorded yet: no file, or one the catalog thread is still making.
    pub fn open_read_only(path: &Path) -> Result<Option<Self>, CatalogError> {
        let db = |source| CatalogError::Db {
            source,
            path: path.to_path_buf(),
        };
        if !path.is_file() {
            // Nothing was ever recorded.
            return Ok(None);
        }
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(db)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(db)?;
        // The catalog thread makes or upgrades the schema in one transaction when it opens the
        // file; a reader that comes first waits out an upgrade and reads a catalog still being
        // made as what it is: empty.
        let waited = std::time::Instant::now();
        loop {
            let version: i32 = conn
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .map_err(db)?;
            match version {
                0 => return Ok(None),
                SCHEMA_VERSION => break,
                older if older < SCHEMA_VERSION && waited.elapsed() < BUSY_TIMEOUT => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                found => {
                    return Err(CatalogError::Schema {
                        found,
                        reads: SCHEMA_VERSION,
                        path: path.to_path_buf(),
                    });
                }
            }
        }
        Ok(Some(Catalog {
            conn,
            path: path.to_path_buf(),
            naming: SidecarNaming::default(),
            words: Default::default(),
            write_to_cards: false,
        }))
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

    /// Whether decisions on a card's photos go into sidecars on the card (default: never).
    pub fn set_write_to_cards(&mut self, write: bool) {
        self.write_to_cards = write;
    }

    /// The photo's sidecar stays unwritten: it is on a card, and cards are not written to (a
    /// read-only one never can be).
    pub fn holds(&self, photo: &Path) -> bool {
        use darkroom_library::card;
        (!self.write_to_cards && card::in_dcim(photo))
            || photo.parent().is_some_and(card::read_only_media)
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
                |r| decision_at(r, 0),
            )
            .optional()
            .map_err(self.db())
    }

    /// The recorded decision once the photo's sidecar was read into it (None: not in the
    /// catalog, or only the index's row, whose sidecar has not been read).
    pub fn imported_decision(&self, photo: &Path) -> Result<Option<Decision>, CatalogError> {
        Ok(self
            .row(photo)?
            .and_then(|(decision, imported)| imported.then_some(decision)))
    }

    /// Every photo in the catalog, with its decision.
    pub fn all(&self) -> Result<Vec<(PathBuf, Decision)>, CatalogError> {
        self.rows("SELECT path, flag, stars, label FROM photos ORDER BY id")
    }

    /// `(path, decision)` for every row `sql` selects as `path, flag, stars, label`.
    pub(crate) fn rows(&self, sql: &str) -> Result<Vec<(PathBuf, Decision)>, CatalogError> {
        let mut stmt = self.conn.prepare(sql).map_err(self.db())?;
        let rows = stmt
            .query_map([], |r| {
                Ok((path_from_key(&r.get::<_, Vec<u8>>(0)?), decision_at(r, 1)?))
            })
            .map_err(self.db())?;
        rows.collect::<Result<_, _>>().map_err(self.db())
    }

    /// The row's decision and whether its sidecar was read into it (None: no row).
    fn row(&self, photo: &Path) -> Result<Option<(Decision, bool)>, CatalogError> {
        self.conn
            .query_row(
                "SELECT flag, stars, label, imported FROM photos WHERE path = ?1",
                params![path_key(photo)],
                |r| Ok((decision_at(r, 0)?, r.get::<_, i64>(3)? != 0)),
            )
            .optional()
            .map_err(self.db())
    }

    /// Bring a photo into the catalog. A photo already imported keeps its recorded decision; a
    /// new one (or one only the index has seen) takes the rating and label from its sidecar.
    pub fn import(&mut self, photo: &Path) -> Result<ImportOutcome, CatalogError> {
        let mut replaced = false;
        if let Some((decision, true)) = self.row(photo)? {
            match self.file_there(photo)? {
                there @ (FileThere::Same | FileThere::Unknown) => {
                    if there == FileThere::Unknown {
                        self.adopt_file(photo, &decision)?;
                    }
                    // What another tool wrote since is what the photo has now.
                    let (decision, outside) = match self.refresh(photo) {
                        Ok(refreshed) => (refreshed.decision, refreshed.outside),
                        Err(_) => (decision, false),
                    };
                    return Ok(ImportOutcome {
                        decision,
                        from_sidecar: outside,
                        sidecar_error: None,
                        outside,
                    });
                }
                // A card shot again: the row's decision belongs to a file that is gone (its
                // held decision stays held against that file); this one starts from its own.
                FileThere::Other => replaced = true,
            }
        }
        let (decision, from_sidecar, sidecar_error, stamp) =
            match sidecar::read_stamped(photo, self.naming) {
                Ok(sidecar::Stamped {
                    decision: Some(d),
                    stamp,
                }) => (d, true, None, Some(stamp)),
                Ok(sidecar::Stamped { stamp, .. }) => {
                    (Decision::default(), false, None, Some(stamp))
                }
                Err(e) => (Decision::default(), false, Some(e), None),
            };
        self.conn
            .execute(
                "INSERT INTO photos (path, flag, stars, label, sidecar_pending, updated_at, imported,
                     sidecar_stamp, pending_fields)
                 VALUES (?1, ?2, ?3, ?4, 0, ?5, 1, ?7, 0)
                 ON CONFLICT(path) DO UPDATE SET flag = ?2, stars = ?3, label = ?4, imported = 1,
                     sidecar_pending = 0, sidecar_stamp = ?7, pending_fields = 0, updated_at = ?5
                     WHERE imported = 0 OR ?6",
                params![
                    path_key(photo),
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    // Read, not decided here: only a change dates a row (a carry compares).
                    0,
                    replaced,
                    stamp
                ],
            )
            .map_err(self.db())?;
        self.note_file(photo)?;
        Ok(ImportOutcome {
            decision,
            from_sidecar,
            sidecar_error,
            outside: false,
        })
    }

    /// Make `change` to what the photo really has: imported first if it never was (its sidecar
    /// read), then the one field changed. Durable when the enclosing transaction commits (at
    /// once outside [`Catalog::transaction`]); the sidecar is marked pending and written by
    /// [`Catalog::write_sidecars`].
    pub fn change(&mut self, photo: &Path, change: &Change) -> Result<Changed, CatalogError> {
        change.check()?;
        let imported = self.import(photo)?;
        let before = imported.decision;
        let after = change.applied_to(&before);
        if after != before {
            self.set(photo, &after, change.field())?;
        }
        Ok(Changed {
            before,
            after,
            import_error: imported.sidecar_error,
        })
    }

    /// The row's decision set, `fields` (`decision::FLAG | STARS | LABEL`) marked as changed
    /// here, to be written over what the sidecar has.
    fn set(&mut self, photo: &Path, decision: &Decision, fields: i64) -> Result<(), CatalogError> {
        self.write_row(photo, decision, fields)?;
        self.hold(photo, decision)
    }

    pub(crate) fn write_row(
        &mut self,
        photo: &Path,
        decision: &Decision,
        fields: i64,
    ) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "INSERT INTO photos (path, flag, stars, label, sidecar_pending, updated_at, imported,
                     pending_fields)
                 VALUES (?1, ?2, ?3, ?4, 1, ?5, 1, ?6)
                 ON CONFLICT(path) DO UPDATE SET flag = ?2, stars = ?3, label = ?4,
                     sidecar_pending = 1, updated_at = ?5, imported = 1,
                     pending_fields = pending_fields | ?6",
                params![
                    path_key(photo),
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    now_s(),
                    fields
                ],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// Run `work` in one transaction (one synchronous commit for all it does): a batch of
    /// imports and changes costs one flush, not one each. Err when the commit failed: then
    /// nothing `work` did is in the catalog.
    pub fn transaction<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> Result<R, CatalogError> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(self.db())?;
        let out = work(self);
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            let _ = self.conn.execute_batch("ROLLBACK");
            return Err(self.db()(e));
        }
        Ok(out)
    }

    /// A statement with no result (savepoints).
    pub(crate) fn execute(&self, sql: &str) -> Result<(), CatalogError> {
        self.conn.execute_batch(sql).map_err(self.db())
    }

    /// Record a whole decision (a script's `darkroom decide --stdin` line). When this returns
    /// Ok the decision is durable in the catalog; the sidecar follows, and a failure to write
    /// it is reported and retried on the next open.
    pub fn decide(
        &mut self,
        photo: &Path,
        decision: &Decision,
    ) -> Result<DecideOutcome, CatalogError> {
        decision.check()?;
        let previous = self.import(photo)?.decision;
        self.set(photo, decision, crate::decision::ALL)?;
        let sidecar_error = self
            .write_sidecars(&[photo.to_path_buf()])
            .into_iter()
            .next()
            .map(|(_, e)| e);
        Ok(DecideOutcome {
            previous,
            sidecar_error,
        })
    }

    /// Write the sidecars of `photos` from their catalog decisions, flush their folders once,
    /// then clear their pending marks in one transaction. Returns the photos that failed (they
    /// stay pending, retried on the next open). A photo on a card is held: not written, left
    /// pending, not a failure ([`Catalog::holds`]).
    pub fn write_sidecars(&mut self, photos: &[PathBuf]) -> Vec<(PathBuf, CatalogError)> {
        let mut dirs = sidecar::DirSync::default();
        let mut done = Vec::new();
        let mut failed = Vec::new();
        let mut stale = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for photo in photos {
            if !seen.insert(photo) {
                continue;
            }
            if self.holds(photo) {
                continue;
            }
            // Written to a card only where the file is the one decided on: a stale decision
            // never lands beside another photo that took its path.
            match self.file_there(photo) {
                Ok(FileThere::Same | FileThere::Unknown) => {}
                Ok(FileThere::Other) => {
                    stale.push(photo.clone());
                    continue;
                }
                Err(e) => {
                    failed.push((photo.clone(), e));
                    continue;
                }
            }
            // What another tool wrote since is read first: only the fields changed here go
            // over it.
            let result = self.refresh(photo).and_then(|r| {
                sidecar::write_stamped(photo, self.naming, self.words, &r.decision, &mut dirs)
            });
            match result {
                Ok((_, stamp)) => done.push((photo.clone(), stamp)),
                Err(e) => failed.push((photo.clone(), e)),
            }
        }
        if let Err(e) = dirs.finish() {
            // Not durable yet: they stay pending, and each says why.
            for (photo, _) in done.drain(..) {
                failed.push((photo, e.duplicate()));
            }
        }
        let cleared = self.transaction(|c| {
            for (photo, stamp) in &done {
                c.conn
                    .execute(
                        "UPDATE photos SET sidecar_pending = 0, pending_fields = 0,
                             sidecar_stamp = ?2
                         WHERE path = ?1",
                        params![path_key(photo), stamp],
                    )
                    .map_err(c.db())?;
            }
            for photo in &stale {
                c.conn
                    .execute(
                        "UPDATE photos SET sidecar_pending = 0 WHERE path = ?1",
                        params![path_key(photo)],
                    )
                    .map_err(c.db())?;
            }
            Ok::<(), CatalogError>(())
        });
        if let Err(e) = cleared.and_then(|r| r) {
            // The sidecars are written; only the marks stay, and the next open writes them
            // again (the same bytes).
            failed.extend(done.into_iter().map(|(p, _)| (p, e.duplicate())));
        }
        failed
    }

    /// Rewrite every sidecar a crash or an error left behind the catalog. Returns the ones that
    /// still fail (they stay pending).
    pub fn flush_pending(&mut self) -> Result<Vec<CatalogError>, CatalogError> {
        let pending: Vec<PathBuf> = self
            .rows("SELECT path, flag, stars, label FROM photos WHERE sidecar_pending = 1")?
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        Ok(self
            .write_sidecars(&pending)
            .into_iter()
            .map(|(_, e)| e)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// A catalog on a network file system journals without WAL, and works as on a local disk:
    /// a decision recorded, read back by a reader, no write-ahead log or shared memory made.
    #[test]
    fn a_catalog_journalled_for_a_network_file_system_has_no_wal_and_works() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("catalog.sqlite");
        let photo = dir.path().join("a.jpg");
        std::fs::write(&photo, b"not read").expect("photo");
        let mut catalog =
            Catalog::open_with(&path, SidecarNaming::default(), Journal::Rollback).expect("open");
        let pick = Decision {
            flag: crate::Flag::Pick,
            ..Decision::default()
        };
        catalog.decide(&photo, &pick).expect("decided");
        let reader = Catalog::open_read_only(&path).expect("read").expect("made");
        assert_eq!(reader.decision(&photo).expect("read"), Some(pick));
        for side in ["catalog.sqlite-wal", "catalog.sqlite-shm"] {
            assert!(!dir.path().join(side).exists(), "{side}");
        }
        let mode: String = catalog
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "delete");
        assert_eq!(
            journal_for(&path),
            Journal::Wal,
            "a temporary folder is local"
        );
    }

    /// People's names and faces are in the catalog: its file, its log and a folder made for
    /// it are this user's only.
    #[cfg(unix)]
    #[test]
    fn a_new_catalog_and_its_folder_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("data/catalog.sqlite");
        let catalog = Catalog::open(&path, SidecarNaming::default()).expect("open");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("data/catalog.sqlite-wal")), 0o600);
        assert_eq!(mode(&dir.path().join("data")), 0o700);
        drop(catalog);
    }

    #[test]
    fn a_reader_before_the_catalog_is_made_reads_nothing_recorded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("catalog.sqlite");
        assert!(Catalog::open_read_only(&path).expect("no file").is_none());
        // The catalog thread part-way through making it: WAL on, the schema's tables made in
        // a transaction not yet committed.
        let mut writer = Connection::open(&path).expect("open");
        writer
            .pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        let making = writer.transaction().expect("begin");
        making.execute_batch(SCHEMA).expect("the tables");
        // Before the fix this read failed with "no such table" (the folder's analysis then
        // showed "1 problems" on a first run whose catalog thread was slower than the scan).
        assert!(
            Catalog::open_read_only(&path)
                .expect("a catalog being made is not an error")
                .is_none()
        );
        drop(making);
        drop(writer);
        drop(Catalog::open(&path, SidecarNaming::default()).expect("made"));
        let reader = Catalog::open_read_only(&path)
            .expect("read")
            .expect("made now");
        assert!(
            reader
                .photo_index(&dir.path().join("a.jpg"))
                .expect("query")
                .is_none()
        );
    }

    #[test]
    fn a_reader_waits_out_an_upgrade_and_refuses_a_newer_schema() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("catalog.sqlite");
        drop(Catalog::open(&path, SidecarNaming::default()).expect("made"));
        let set_version = |v: i32| {
            let conn = Connection::open(&path).expect("open");
            conn.pragma_update(None, "user_version", v)
                .expect("version");
        };
        // An older catalog the catalog thread upgrades a moment after the reader came.
        set_version(2);
        let upgrade = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                drop(Catalog::open(&path, SidecarNaming::default()).expect("upgraded"));
            })
        };
        let asked = Instant::now();
        let reader = Catalog::open_read_only(&path).expect("read after the upgrade");
        assert!(reader.is_some());
        assert!(asked.elapsed() >= Duration::from_millis(250), "it waited");
        upgrade.join().expect("upgrade thread");
        set_version(SCHEMA_VERSION + 1);
        match Catalog::open_read_only(&path) {
            Err(CatalogError::Schema { found, .. }) => assert_eq!(found, SCHEMA_VERSION + 1),
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("a newer schema was read"),
        }
        assert!(matches!(
            Catalog::open(&path, SidecarNaming::default()),
            Err(CatalogError::Schema { .. })
        ));
    }
}
