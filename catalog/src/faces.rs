//! The face index in the catalog: per photo, the file and models it was indexed with, its
//! sharpness, perceptual hash and capture time, and its faces (box, score, landmarks,
//! embedding, sharpness, eye state, person); and the people, per embedder model_id.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use crate::db::{Catalog, now_s, path_from_key, path_key};
use crate::error::CatalogError;

/// Which file and which models a photo was indexed with: all must match to skip it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub detector: String,
    pub embedder: Option<String>,
    pub eyes: Option<String>,
    /// The segmenter(s) that looked for the subject, model_ids joined by '+' (the subject row
    /// says what they found); None when none looked: the index looks after every photo's
    /// faces, and only where the subject can change a decision.
    pub segmenter: Option<String>,
    /// The scene model's model_id; None when none ran.
    pub scene: Option<String>,
    /// The face mesh and iris models the expressions came from, model_ids joined by '+'; None
    /// when none ran.
    pub mesh: Option<String>,
    /// The version of the measures taken ([`MEASURES`] when written by this build).
    pub measures: u32,
}

/// The version of the measures the index takes beyond the face models' output: 1 before the
/// subject and eye-level focus, 2 with them, 3 with the subject only on a photo no face judges
/// (so a 2's subject on a portrait is dropped when it is measured again), 4 with the look and
/// the exposure, 5 with the camera body, 6 with each face's expression (the mesh) and the eyes
/// judged by the mesh where it is installed, 7 with the sharpness where the camera focused (its
/// AF area, from the maker notes). A row with the same file and face models but an older
/// version is measured again rather than indexed again.
pub const MEASURES: u32 = 7;

impl PhotoIndex {
    /// The capture time on the shoot's one clock: the body's correction applied. What bursts,
    /// scenes, sets and sorting use.
    pub fn capture_time(&self) -> Option<f64> {
        self.captured_at.map(|t| t + self.clock_offset_s)
    }
}

impl IndexStamp {
    /// The same file and the same face models: what was detected and embedded still stands,
    /// whatever else is measured. The eyes' judge is not among them: eyes are judged again on
    /// the stored faces.
    pub fn same_faces(&self, other: &IndexStamp) -> bool {
        (self.size, self.mtime_ns, &self.detector, &self.embedder)
            == (other.size, other.mtime_ns, &other.detector, &other.embedder)
    }
}

/// A photo's subject as one segmenter saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectRow {
    /// The model_id of the segmenter that found it.
    pub segmenter: String,
    /// The instance's class; None for a salient-object mask.
    pub class: Option<String>,
    pub score: f32,
    pub mask_width: u32,
    pub mask_height: u32,
    /// Bit-packed, least significant bit first, row after row.
    pub mask: Vec<u8>,
    /// Sharpness inside the subject, on the photo's scale ([`PhotoIndex::sharpness`]'s).
    pub sharpness: f32,
    /// Sharpness outside it; None when too little of the photo is outside to measure.
    pub background: Option<f32>,
}

/// A photo's look, as the index measured it (`darkroom_index::looks`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LookRow {
    /// 8×8 cells of mean CIELAB, 3 bytes a cell (L × 2.55, a + 128, b + 128), row after row.
    pub layout: Vec<u8>,
    /// 64×64 luma, the frame stretched to the square.
    pub thumb: Vec<u8>,
    /// Shares of the frame (0–1): luma black, luma white, a channel clipped.
    pub black: f32,
    pub white: f32,
    pub clipped: f32,
    /// The luma's standard deviation, as a share of its range.
    pub contrast: f32,
}

/// How the photo was exposed, from its EXIF.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ExposureRow {
    /// Exposure compensation, EV.
    pub bias: Option<f64>,
    /// The exposure value shot at (ISO 100 equivalent).
    pub ev: Option<f64>,
    /// The camera marked it as part of an automatic bracket.
    pub auto_bracket: bool,
}

/// Where the camera focused, from the file's maker notes (`darkroom_library::af`), and how
/// sharp the photo is there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AfRow {
    /// Left, top, right, bottom as fractions of the photo as shown.
    pub area: [f32; 4],
    /// The AF area mode in the camera's words.
    pub mode: Option<String>,
    /// Sharpness inside the area, on the photo's scale ([`PhotoIndex::sharpness`]'s); None
    /// when too little of the area is inside the photo to measure.
    pub sharpness: Option<f32>,
}

/// What a face is doing, as the face mesh measured it (`darkroom_engine::face::Expression`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpressionRow {
    /// Each eye's lid gap over its width, the photo's left-hand eye first.
    pub eye_open: [f32; 2],
    pub smile: f32,
    /// Degrees from the camera: yaw (+ to the photo's right), pitch (+ down).
    pub gaze: [f32; 2],
    /// The head's turn in degrees, the same way.
    pub head: [f32; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct FaceRow {
    /// The row's id once stored (0 before).
    pub id: i64,
    /// [x0, y0, x1, y1] in the oriented photo's pixels.
    pub bbox: [f32; 4],
    pub score: f32,
    pub landmarks: [[f32; 2]; 5],
    pub embedding: Option<Vec<f32>>,
    pub sharpness: f32,
    /// The eyes' judge's verdict (the mesh where installed, else the eye-state model); None
    /// when none could judge them.
    pub eyes_closed: Option<bool>,
    pub person: Option<i64>,
    /// The sharper eye's sharpness on the face's scale ([`FaceRow::sharpness`]'s); None when
    /// the eyes are too close together to judge.
    pub eyes_sharpness: Option<f32>,
    /// None where no mesh ran, or it saw no face.
    pub expression: Option<ExpressionRow>,
    /// Its person is a key person (starred): read with the row, never stored with it.
    pub key: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PhotoIndex {
    pub stamp: IndexStamp,
    /// The job's backend line, as pinned when it started.
    pub backend: String,
    pub width: u32,
    pub height: u32,
    pub sharpness: f32,
    pub phash: u64,
    /// Seconds on the camera's clock (EXIF), if known.
    pub captured_at: Option<f64>,
    /// The body that took it (make and model, and its serial where the EXIF has one): whose
    /// clock `captured_at` is on. None in a row measured before version 5.
    pub body: Option<String>,
    /// What the photographer's correction of that body's clock adds to `captured_at`, less
    /// what the file's own metadata already carries; 0 when none. Read with the row, never
    /// stored with it: a correction changed later applies to every row at once.
    pub clock_offset_s: f64,
    pub faces: Vec<FaceRow>,
    pub subject: Option<SubjectRow>,
    /// None in a row measured before version 4.
    pub look: Option<LookRow>,
    pub exposure: ExposureRow,
    /// The share of the photo each class of the scene model covers, largest first; empty when
    /// no scene model ran.
    pub scene_classes: Vec<(String, f32)>,
    /// Where the camera focused, where its file records it (None too in a row measured before
    /// measures 7).
    pub af: Option<AfRow>,
}

/// What a second look at an indexed photo measured (the faces' rows stay as they are).
#[derive(Debug, Clone, PartialEq)]
pub struct Remeasured {
    pub stamp: IndexStamp,
    pub body: Option<String>,
    pub subject: Option<SubjectRow>,
    /// Each face row's id and its eyes' sharpness.
    pub eyes: Vec<(i64, Option<f32>)>,
    /// Each face's eyes judged again and its expression, where they were measured again (None:
    /// left as they are).
    pub judged: Option<Vec<JudgedFace>>,
    pub look: LookRow,
    pub exposure: ExposureRow,
    pub scene_classes: Vec<(String, f32)>,
    pub af: Option<AfRow>,
}

/// A person as `darkroom people` lists them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PersonListed {
    pub id: i64,
    pub embedder: String,
    pub name: Option<String>,
    pub faces: usize,
    /// A key person: their eyes and expression outweigh everyone else's.
    pub starred: bool,
}

/// One face's eyes and expression, measured again on its stored landmarks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgedFace {
    pub id: i64,
    pub eyes_closed: Option<bool>,
    pub expression: Option<ExpressionRow>,
}

/// One index job's hold on a catalog's people ([`Catalog::lock_people`]); let go on drop.
#[derive(Debug)]
pub struct PeopleLock {
    /// None: the file system could not lock.
    _file: Option<std::fs::File>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PersonRow {
    pub id: i64,
    pub embedder: String,
    pub name: Option<String>,
    /// Sum of the unit embeddings of its faces.
    pub sum: Vec<f32>,
    pub faces: usize,
}

fn f32s_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn blob_to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn face_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FaceRow> {
    let lm = blob_to_f32s(&r.get::<_, Vec<u8>>(6)?);
    let mut landmarks = [[0f32; 2]; 5];
    for (i, p) in landmarks.iter_mut().enumerate() {
        *p = [
            lm.get(2 * i).copied().unwrap_or(0.0),
            lm.get(2 * i + 1).copied().unwrap_or(0.0),
        ];
    }
    Ok(FaceRow {
        id: r.get(0)?,
        bbox: [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
        score: r.get(5)?,
        landmarks,
        embedding: r.get::<_, Option<Vec<u8>>>(7)?.map(|b| blob_to_f32s(&b)),
        sharpness: r.get(8)?,
        eyes_closed: r.get::<_, Option<i64>>(9)?.map(|v| v != 0),
        person: r.get(10)?,
        eyes_sharpness: r.get(11)?,
        expression: expression_from_row(r, 12)?,
        key: r.get::<_, Option<i64>>(19)?.unwrap_or(0) != 0,
    })
}

/// The seven expression columns from `first` on; None unless all are there.
fn expression_from_row(
    r: &rusqlite::Row<'_>,
    first: usize,
) -> rusqlite::Result<Option<ExpressionRow>> {
    let mut v = [0f32; 7];
    for (k, slot) in v.iter_mut().enumerate() {
        match r.get::<_, Option<f32>>(first + k)? {
            Some(x) => *slot = x,
            None => return Ok(None),
        }
    }
    Ok(Some(ExpressionRow {
        eye_open: [v[0], v[1]],
        smile: v[2],
        gaze: [v[3], v[4]],
        head: [v[5], v[6]],
    }))
}

/// The expression's seven columns' values, in the schema's order.
fn expression_values(e: Option<&ExpressionRow>) -> [Option<f32>; 7] {
    match e {
        Some(e) => [
            e.eye_open[0],
            e.eye_open[1],
            e.smile,
            e.gaze[0],
            e.gaze[1],
            e.head[0],
            e.head[1],
        ]
        .map(Some),
        None => [None; 7],
    }
}

const EXPRESSION_COLUMNS: &str =
    "eye_open_l, eye_open_r, smile, gaze_yaw, gaze_pitch, head_yaw, head_pitch";

/// A write transaction on `conn` and the photo id of `photo`'s index row (of the file of
/// `stamp`, size and mtime, where given); None when there is no such row. Immediate: a
/// deferred transaction that reads first could be refused its write at once by another writer
/// (the window's catalog thread, a look from the loupe, the index job).
fn indexed_row<'c>(
    conn: &'c mut rusqlite::Connection,
    photo: &Path,
    stamp: Option<(u64, i64)>,
) -> rusqlite::Result<(rusqlite::Transaction<'c>, Option<i64>)> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let key = path_key(photo);
    let id = match stamp {
        None => tx.query_row(
            "SELECT p.id FROM photos p JOIN indexed i ON i.photo = p.id WHERE p.path = ?1",
            params![key],
            |r| r.get(0),
        ),
        Some((size, mtime_ns)) => tx.query_row(
            "SELECT p.id FROM photos p JOIN indexed i ON i.photo = p.id
             WHERE p.path = ?1 AND i.size = ?2 AND i.mtime_ns = ?3",
            params![key, size as i64, mtime_ns],
            |r| r.get(0),
        ),
    }
    .optional()?;
    Ok((tx, id))
}

/// Replace the photo's subject for its segmenter (and any other segmenter's: a photo has the
/// subject its last index found).
fn put_subject(
    tx: &rusqlite::Transaction<'_>,
    photo: i64,
    subject: Option<&SubjectRow>,
) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM subjects WHERE photo = ?1", params![photo])?;
    if let Some(s) = subject {
        tx.execute(
            "INSERT INTO subjects (photo, segmenter, class, score, mask_width, mask_height, mask,
                 sharpness, background)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                photo,
                s.segmenter,
                s.class,
                s.score,
                s.mask_width,
                s.mask_height,
                s.mask,
                s.sharpness,
                s.background
            ],
        )?;
    }
    Ok(())
}

fn put_expression(
    tx: &rusqlite::Transaction<'_>,
    face: i64,
    expression: Option<&ExpressionRow>,
) -> rusqlite::Result<()> {
    let v = expression_values(expression);
    tx.execute(
        "UPDATE faces SET eye_open_l = ?2, eye_open_r = ?3, smile = ?4, gaze_yaw = ?5,
             gaze_pitch = ?6, head_yaw = ?7, head_pitch = ?8
         WHERE id = ?1",
        params![face, v[0], v[1], v[2], v[3], v[4], v[5], v[6]],
    )?;
    Ok(())
}

fn put_look(
    tx: &rusqlite::Transaction<'_>,
    photo: i64,
    look: Option<&LookRow>,
    exposure: &ExposureRow,
) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE indexed SET layout = ?2, thumb = ?3, black = ?4, white = ?5, clipped = ?6,
             contrast = ?7, bias = ?8, ev = ?9, auto_bracket = ?10
         WHERE photo = ?1",
        params![
            photo,
            look.map(|l| &l.layout),
            look.map(|l| &l.thumb),
            look.map(|l| l.black),
            look.map(|l| l.white),
            look.map(|l| l.clipped),
            look.map(|l| l.contrast),
            exposure.bias,
            exposure.ev,
            i64::from(exposure.auto_bracket)
        ],
    )?;
    Ok(())
}

fn put_af(tx: &rusqlite::Transaction<'_>, photo: i64, af: Option<&AfRow>) -> rusqlite::Result<()> {
    let area = |i: usize| af.map(|a| a.area[i]);
    tx.execute(
        "UPDATE indexed SET af_x0 = ?2, af_y0 = ?3, af_x1 = ?4, af_y1 = ?5, af_sharpness = ?6,
             af_mode = ?7
         WHERE photo = ?1",
        params![
            photo,
            area(0),
            area(1),
            area(2),
            area(3),
            af.and_then(|a| a.sharpness),
            af.and_then(|a| a.mode.as_deref())
        ],
    )?;
    Ok(())
}

fn put_scene_classes(
    tx: &rusqlite::Transaction<'_>,
    photo: i64,
    classes: &[(String, f32)],
) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM scene_classes WHERE photo = ?1", params![photo])?;
    for (class, share) in classes {
        tx.execute(
            "INSERT OR REPLACE INTO scene_classes (photo, class, share) VALUES (?1, ?2, ?3)",
            params![photo, class, share],
        )?;
    }
    Ok(())
}

impl Catalog {
    /// What the photo was last indexed with, if it was.
    pub fn index_stamp(&self, photo: &Path) -> Result<Option<IndexStamp>, CatalogError> {
        self.conn
            .query_row(
                "SELECT i.size, i.mtime_ns, i.detector, i.embedder, i.eyes, i.segmenter, i.measures,
                        i.scene, i.mesh
                 FROM indexed i JOIN photos p ON p.id = i.photo WHERE p.path = ?1",
                params![path_key(photo)],
                |r| {
                    Ok(IndexStamp {
                        size: r.get::<_, i64>(0)? as u64,
                        mtime_ns: r.get(1)?,
                        detector: r.get(2)?,
                        embedder: r.get(3)?,
                        eyes: r.get(4)?,
                        segmenter: r.get(5)?,
                        measures: r.get::<_, i64>(6)?.max(0) as u32,
                        scene: r.get(7)?,
                        mesh: r.get(8)?,
                    })
                },
            )
            .optional()
            .map_err(self.db())
    }

    /// Record a photo's index (replacing any earlier one) and the people its faces changed,
    /// in one transaction. Returns the new face rows' ids, in order.
    pub fn store_index(
        &mut self,
        photo: &Path,
        index: &PhotoIndex,
        people: &[PersonRow],
    ) -> Result<Vec<i64>, CatalogError> {
        let path = self.path.clone();
        let db = |source| CatalogError::Db {
            source,
            path: path.clone(),
        };
        let tx = self.conn.transaction().map_err(db)?;
        let key = path_key(photo);
        tx.execute(
            "INSERT OR IGNORE INTO photos (path, updated_at, imported) VALUES (?1, ?2, 0)",
            params![key, now_s()],
        )
        .map_err(db)?;
        let id: i64 = tx
            .query_row("SELECT id FROM photos WHERE path = ?1", params![key], |r| {
                r.get(0)
            })
            .map_err(db)?;
        let s = &index.stamp;
        tx.execute(
            "INSERT OR REPLACE INTO indexed (photo, size, mtime_ns, detector, embedder, eyes,
                 backend, width, height, sharpness, phash, captured_at, indexed_at, segmenter,
                 measures)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                id,
                s.size as i64,
                s.mtime_ns,
                s.detector,
                s.embedder,
                s.eyes,
                index.backend,
                index.width,
                index.height,
                index.sharpness,
                index.phash as i64,
                index.captured_at,
                now_s(),
                s.segmenter,
                s.measures
            ],
        )
        .map_err(db)?;
        tx.execute("DELETE FROM faces WHERE photo = ?1", params![id])
            .map_err(db)?;
        let mut ids = Vec::with_capacity(index.faces.len());
        for f in &index.faces {
            let lm: Vec<f32> = f.landmarks.iter().flatten().copied().collect();
            tx.execute(
                "INSERT INTO faces (photo, x0, y0, x1, y1, score, landmarks, embedding, detector,
                     embedder, sharpness, eyes_closed, person, eyes_sharpness)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                params![
                    id,
                    f.bbox[0],
                    f.bbox[1],
                    f.bbox[2],
                    f.bbox[3],
                    f.score,
                    f32s_to_blob(&lm),
                    f.embedding.as_deref().map(f32s_to_blob),
                    s.detector,
                    f.embedding.as_ref().and(s.embedder.as_ref()),
                    f.sharpness,
                    f.eyes_closed.map(i64::from),
                    f.person,
                    f.eyes_sharpness
                ],
            )
            .map_err(db)?;
            let face = tx.last_insert_rowid();
            put_expression(&tx, face, f.expression.as_ref()).map_err(db)?;
            ids.push(face);
        }
        put_subject(&tx, id, index.subject.as_ref()).map_err(db)?;
        put_look(&tx, id, index.look.as_ref(), &index.exposure).map_err(db)?;
        put_af(&tx, id, index.af.as_ref()).map_err(db)?;
        tx.execute(
            "UPDATE indexed SET scene = ?2, body = ?3, mesh = ?4 WHERE photo = ?1",
            params![id, s.scene, index.body, s.mesh],
        )
        .map_err(db)?;
        put_scene_classes(&tx, id, &index.scene_classes).map_err(db)?;
        for p in people {
            // The name is the user's: an update from the index never touches it. A person of
            // another embedder is never overwritten: the transaction is dropped instead.
            let stored = tx
                .execute(
                    "INSERT INTO people (id, embedder, sum, faces) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(id) DO UPDATE SET sum = excluded.sum, faces = excluded.faces
                     WHERE people.embedder = excluded.embedder",
                    params![p.id, p.embedder, f32s_to_blob(&p.sum), p.faces as i64],
                )
                .map_err(db)?;
            if stored == 0 {
                let owner: String = tx
                    .query_row(
                        "SELECT embedder FROM people WHERE id = ?1",
                        params![p.id],
                        |r| r.get(0),
                    )
                    .map_err(db)?;
                return Err(CatalogError::PersonOfAnotherEmbedder {
                    id: p.id,
                    owner,
                    embedder: p.embedder.clone(),
                    path: photo.to_path_buf(),
                });
            }
        }
        tx.commit().map_err(db)?;
        Ok(ids)
    }

    /// Record a second look at an indexed photo: its new stamp, its subject and its faces'
    /// eye-level focus, in one transaction. Faces, people and decisions are left as they are.
    /// False when the photo has no index row (nothing is written).
    pub fn store_measures(
        &mut self,
        photo: &Path,
        measured: &Remeasured,
    ) -> Result<bool, CatalogError> {
        let path = self.path.clone();
        let db = |source| CatalogError::Db {
            source,
            path: path.clone(),
        };
        let (tx, id) = indexed_row(&mut self.conn, photo, None).map_err(db)?;
        let Some(id) = id else {
            return Ok(false);
        };
        let s = &measured.stamp;
        tx.execute(
            "UPDATE indexed SET segmenter = ?2, measures = ?3, scene = ?4, body = ?5, eyes = ?6,
                 mesh = ?7
             WHERE photo = ?1",
            params![
                id,
                s.segmenter,
                s.measures,
                s.scene,
                measured.body,
                s.eyes,
                s.mesh
            ],
        )
        .map_err(db)?;
        put_scene_classes(&tx, id, &measured.scene_classes).map_err(db)?;
        for (face, eyes) in &measured.eyes {
            tx.execute(
                "UPDATE faces SET eyes_sharpness = ?3 WHERE id = ?1 AND photo = ?2",
                params![face, id, eyes],
            )
            .map_err(db)?;
        }
        for f in measured.judged.iter().flatten() {
            let changed = tx
                .execute(
                    "UPDATE faces SET eyes_closed = ?3 WHERE id = ?1 AND photo = ?2",
                    params![f.id, id, f.eyes_closed.map(i64::from)],
                )
                .map_err(db)?;
            if changed > 0 {
                put_expression(&tx, f.id, f.expression.as_ref()).map_err(db)?;
            }
        }
        put_subject(&tx, id, measured.subject.as_ref()).map_err(db)?;
        put_look(&tx, id, Some(&measured.look), &measured.exposure).map_err(db)?;
        put_af(&tx, id, measured.af.as_ref()).map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(true)
    }

    /// Record the subject `segmenter` found in an indexed photo (None: it looked and found
    /// none), if the photo's index row is still of the file of `stamp` (size, mtime): false
    /// when it is not, and nothing is written. Faces, people and decisions are left as they
    /// are.
    pub fn store_subject(
        &mut self,
        photo: &Path,
        stamp: (u64, i64),
        subject: Option<&SubjectRow>,
        segmenter: &str,
    ) -> Result<bool, CatalogError> {
        let path = self.path.clone();
        let db = |source| CatalogError::Db {
            source,
            path: path.clone(),
        };
        let (tx, id) = indexed_row(&mut self.conn, photo, Some(stamp)).map_err(db)?;
        let Some(id) = id else {
            return Ok(false);
        };
        tx.execute(
            "UPDATE indexed SET segmenter = ?2 WHERE photo = ?1",
            params![id, segmenter],
        )
        .map_err(db)?;
        put_subject(&tx, id, subject).map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(true)
    }

    /// The photo's index, if it has one.
    pub fn photo_index(&self, photo: &Path) -> Result<Option<PhotoIndex>, CatalogError> {
        Ok(self
            .indexed_where("p.path = ?1", params![path_key(photo)])?
            .into_iter()
            .next()
            .map(|(_, i)| i))
    }

    /// The index rows of `photos` that have one, in their order: a folder's, without reading
    /// the rest of the catalog.
    pub fn indexed_of(
        &self,
        photos: &[PathBuf],
    ) -> Result<Vec<(PathBuf, PhotoIndex)>, CatalogError> {
        let mut out = Vec::new();
        for photo in photos {
            if let Some(index) = self.photo_index(photo)? {
                out.push((photo.clone(), index));
            }
        }
        Ok(out)
    }

    fn indexed_where(
        &self,
        condition: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<(PathBuf, PhotoIndex)>, CatalogError> {
        let sql = format!(
            "SELECT p.id, p.path, i.size, i.mtime_ns, i.detector, i.embedder, i.eyes, i.backend,
                    i.width, i.height, i.sharpness, i.phash, i.captured_at, i.segmenter,
                    i.measures, i.layout, i.thumb, i.black, i.white, i.clipped, i.contrast,
                    i.bias, i.ev, i.auto_bracket, i.scene, i.body, i.mesh,
                    COALESCE((SELECT c.offset_s FROM clocks c WHERE c.body = i.body), 0)
                      - COALESCE((SELECT s.offset_s FROM shifted s WHERE s.path = p.path), 0),
                    i.af_x0, i.af_y0, i.af_x1, i.af_y1, i.af_sharpness, i.af_mode
             FROM indexed i JOIN photos p ON p.id = i.photo WHERE {condition} ORDER BY p.path"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(self.db())?;
        let rows = stmt
            .query_map(args, |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    path_from_key(&r.get::<_, Vec<u8>>(1)?),
                    PhotoIndex {
                        stamp: IndexStamp {
                            size: r.get::<_, i64>(2)? as u64,
                            mtime_ns: r.get(3)?,
                            detector: r.get(4)?,
                            embedder: r.get(5)?,
                            eyes: r.get(6)?,
                            segmenter: r.get(13)?,
                            measures: r.get::<_, i64>(14)?.max(0) as u32,
                            scene: r.get(24)?,
                            mesh: r.get(26)?,
                        },
                        backend: r.get(7)?,
                        width: r.get(8)?,
                        height: r.get(9)?,
                        sharpness: r.get(10)?,
                        phash: r.get::<_, i64>(11)? as u64,
                        captured_at: r.get(12)?,
                        body: r.get(25)?,
                        clock_offset_s: r.get(27)?,
                        faces: Vec::new(),
                        subject: None,
                        look: match (
                            r.get::<_, Option<Vec<u8>>>(15)?,
                            r.get::<_, Option<Vec<u8>>>(16)?,
                        ) {
                            (Some(layout), Some(thumb)) => Some(LookRow {
                                layout,
                                thumb,
                                black: r.get::<_, Option<f32>>(17)?.unwrap_or(0.0),
                                white: r.get::<_, Option<f32>>(18)?.unwrap_or(0.0),
                                clipped: r.get::<_, Option<f32>>(19)?.unwrap_or(0.0),
                                contrast: r.get::<_, Option<f32>>(20)?.unwrap_or(0.0),
                            }),
                            _ => None,
                        },
                        exposure: ExposureRow {
                            bias: r.get(21)?,
                            ev: r.get(22)?,
                            auto_bracket: r.get::<_, i64>(23)? != 0,
                        },
                        scene_classes: Vec::new(),
                        af: match (
                            r.get::<_, Option<f32>>(28)?,
                            r.get::<_, Option<f32>>(29)?,
                            r.get::<_, Option<f32>>(30)?,
                            r.get::<_, Option<f32>>(31)?,
                        ) {
                            (Some(x0), Some(y0), Some(x1), Some(y1)) => Some(AfRow {
                                area: [x0, y0, x1, y1],
                                sharpness: r.get(32)?,
                                mode: r.get(33)?,
                            }),
                            _ => None,
                        },
                    },
                ))
            })
            .map_err(self.db())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.db())?;
        let mut faces = self
            .conn
            .prepare(&format!(
                "SELECT id, x0, y0, x1, y1, score, landmarks, embedding, sharpness, eyes_closed,
                        person, eyes_sharpness, {EXPRESSION_COLUMNS},
                        (SELECT starred FROM people WHERE people.id = faces.person)
                 FROM faces WHERE photo = ?1 ORDER BY id"
            ))
            .map_err(self.db())?;
        let mut subjects = self
            .conn
            .prepare(
                "SELECT segmenter, class, score, mask_width, mask_height, mask, sharpness,
                        background
                 FROM subjects WHERE photo = ?1",
            )
            .map_err(self.db())?;
        let mut scene = self
            .conn
            .prepare(
                "SELECT class, share FROM scene_classes WHERE photo = ?1
                 ORDER BY share DESC, class",
            )
            .map_err(self.db())?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, path, mut index) in rows {
            if index.stamp.scene.is_some() {
                index.scene_classes = scene
                    .query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(self.db())?
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(self.db())?;
            }
            index.faces = faces
                .query_map(params![id], face_from_row)
                .map_err(self.db())?
                .collect::<Result<Vec<_>, _>>()
                .map_err(self.db())?;
            if index.stamp.segmenter.is_some() {
                index.subject = subjects
                    .query_row(params![id], |r| {
                        Ok(SubjectRow {
                            segmenter: r.get(0)?,
                            class: r.get(1)?,
                            score: r.get(2)?,
                            mask_width: r.get(3)?,
                            mask_height: r.get(4)?,
                            mask: r.get(5)?,
                            sharpness: r.get(6)?,
                            background: r.get(7)?,
                        })
                    })
                    .optional()
                    .map_err(self.db())?;
            }
            out.push((path, index));
        }
        Ok(out)
    }

    /// Holds the catalog's people for one index job until the guard drops: a job reads every
    /// person's centre when it starts and writes them back as it goes, so a second job at once
    /// (the window and `darkroom index` on one catalog) would hand out the same new ids and
    /// overwrite the first's centres. An exclusive lock on `CATALOG.people-lock` (beside the
    /// catalog's real file, whatever link led to it), which the kernel lets go when the process
    /// ends, however it ends. Where the file system cannot lock (some network mounts) jobs go
    /// unguarded, as before there was a lock, rather than not at all.
    pub fn lock_people(&self) -> Result<PeopleLock, CatalogError> {
        let real = std::fs::canonicalize(self.path()).unwrap_or_else(|_| self.path().to_owned());
        let mut name = real.into_os_string();
        name.push(".people-lock");
        let path = PathBuf::from(name);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| CatalogError::Io {
                what: "cannot open the people lock",
                source,
                path: path.clone(),
            })?;
        match file.try_lock() {
            Ok(()) => Ok(PeopleLock { _file: Some(file) }),
            Err(std::fs::TryLockError::WouldBlock) => Err(CatalogError::PeopleBusy {
                path: self.path().to_path_buf(),
            }),
            Err(std::fs::TryLockError::Error(_)) => Ok(PeopleLock { _file: None }),
        }
    }

    /// The id a new person of any embedder may take: after every person's (ids are the
    /// catalog's, not an embedder's).
    pub fn next_person_id(&self) -> Result<i64, CatalogError> {
        self.conn
            .query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM people", [], |r| {
                r.get(0)
            })
            .map_err(self.db())
    }

    /// The people found with this embedder.
    pub fn people(&self, embedder: &str) -> Result<Vec<PersonRow>, CatalogError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, embedder, name, sum, faces FROM people WHERE embedder = ?1 ORDER BY id",
            )
            .map_err(self.db())?;
        stmt.query_map(params![embedder], |r| {
            Ok(PersonRow {
                id: r.get(0)?,
                embedder: r.get(1)?,
                name: r.get(2)?,
                sum: blob_to_f32s(&r.get::<_, Vec<u8>>(3)?),
                faces: r.get::<_, i64>(4)?.max(0) as usize,
            })
        })
        .map_err(self.db())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(self.db())
    }

    /// Make a person a key person, or not. False when there is no such person.
    pub fn star_person(&mut self, id: i64, starred: bool) -> Result<bool, CatalogError> {
        let changed = self
            .conn
            .execute(
                "UPDATE people SET starred = ?2 WHERE id = ?1",
                params![id, i64::from(starred)],
            )
            .map_err(self.db())?;
        Ok(changed > 0)
    }

    /// Every person of every embedder with their name, faces and whether they are starred, by
    /// id.
    pub fn people_all(&self) -> Result<Vec<PersonListed>, CatalogError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, embedder, name, faces, starred FROM people ORDER BY id")
            .map_err(self.db())?;
        stmt.query_map([], |r| {
            Ok(PersonListed {
                id: r.get(0)?,
                embedder: r.get(1)?,
                name: r.get(2)?,
                faces: r.get::<_, i64>(3)?.max(0) as usize,
                starred: r.get::<_, i64>(4)? != 0,
            })
        })
        .map_err(self.db())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(self.db())
    }

    /// Give a person a name (None: forget it).
    pub fn name_person(&mut self, id: i64, name: Option<&str>) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "UPDATE people SET name = ?2 WHERE id = ?1",
                params![id, name],
            )
            .map_err(self.db())?;
        Ok(())
    }
}

/// An index row of a file of `size` bytes modified at `mtime_ns`, no faces or measures: what the
/// catalog's tests store.
#[cfg(test)]
pub(crate) fn test_row(size: u64, mtime_ns: i64) -> PhotoIndex {
    PhotoIndex {
        stamp: IndexStamp {
            size,
            mtime_ns,
            detector: "d".into(),
            embedder: None,
            eyes: None,
            segmenter: None,
            scene: None,
            mesh: None,
            measures: MEASURES,
        },
        backend: "tract".into(),
        width: 8,
        height: 8,
        sharpness: 1.0,
        phash: 0,
        captured_at: None,
        body: None,
        clock_offset_s: 0.0,
        faces: Vec::new(),
        subject: None,
        look: None,
        exposure: ExposureRow::default(),
        scene_classes: Vec::new(),
        af: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SidecarNaming;

    fn subject(sharpness: f32) -> SubjectRow {
        SubjectRow {
            segmenter: "u2netp".into(),
            class: None,
            score: 0.9,
            mask_width: 8,
            mask_height: 1,
            mask: vec![0b1111_0000],
            sharpness,
            background: Some(10.0),
        }
    }

    /// Where the camera focused is kept with the row, measured again with it, and gone when a
    /// new look finds none.
    #[test]
    fn the_af_area_is_stored_and_measured_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c =
            Catalog::open(&dir.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        let a = dir.path().join("a.jpg");
        let af = AfRow {
            area: [0.25, 0.5, 0.375, 0.625],
            mode: Some("Single Point".into()),
            sharpness: Some(123.5),
        };
        let row = PhotoIndex {
            af: Some(af.clone()),
            ..test_row(100, 7)
        };
        c.store_index(&a, &row, &[]).expect("store");
        let read = |c: &Catalog| c.photo_index(&a).expect("read").expect("indexed");
        assert_eq!(read(&c).af, Some(af.clone()));
        let again = |af: Option<AfRow>| Remeasured {
            stamp: row.stamp.clone(),
            body: None,
            subject: None,
            eyes: Vec::new(),
            judged: None,
            look: LookRow::default(),
            exposure: ExposureRow::default(),
            scene_classes: Vec::new(),
            af,
        };
        let sharper = AfRow {
            sharpness: Some(200.0),
            mode: None,
            ..af
        };
        assert!(
            c.store_measures(&a, &again(Some(sharper.clone())))
                .expect("store")
        );
        assert_eq!(read(&c).af, Some(sharper));
        assert!(c.store_measures(&a, &again(None)).expect("store"));
        assert_eq!(read(&c).af, None);
    }

    /// The second pass's subject lands on the row of the file it decoded, with the segmenter
    /// that looked, and nowhere else: a file indexed again meanwhile (another size or mtime)
    /// or a photo never indexed is refused, nothing written.
    #[test]
    fn a_subject_lands_only_on_the_file_it_was_found_in() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c =
            Catalog::open(&dir.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        let (a, b) = (dir.path().join("a.jpg"), dir.path().join("b.jpg"));
        c.store_index(&a, &test_row(100, 7), &[]).expect("store");
        c.store_index(&b, &test_row(200, 7), &[]).expect("store");
        let read = |c: &Catalog, p: &Path| c.photo_index(p).expect("read").expect("indexed");
        assert!(read(&c, &a).stamp.segmenter.is_none(), "not looked in yet");

        assert!(
            !c.store_subject(&a, (100, 8), Some(&subject(50.0)), "u2netp")
                .expect("store"),
            "a file changed since"
        );
        assert!(
            !c.store_subject(&dir.path().join("c.jpg"), (100, 7), None, "u2netp")
                .expect("store"),
            "never indexed"
        );
        let untouched = read(&c, &a);
        assert!(untouched.stamp.segmenter.is_none() && untouched.subject.is_none());

        assert!(
            c.store_subject(&a, (100, 7), Some(&subject(50.0)), "u2netp")
                .expect("store")
        );
        // Looked in and nothing found: the segmenter is recorded all the same.
        assert!(
            c.store_subject(&b, (200, 7), None, "u2netp")
                .expect("store")
        );
        let (a_row, b_row) = (read(&c, &a), read(&c, &b));
        assert_eq!(a_row.stamp.segmenter.as_deref(), Some("u2netp"));
        assert_eq!(a_row.subject, Some(subject(50.0)));
        assert_eq!(b_row.stamp.segmenter.as_deref(), Some("u2netp"));
        assert_eq!(b_row.subject, None);
        // Looked in again: replaced, never two.
        assert!(
            c.store_subject(&a, (100, 7), Some(&subject(80.0)), "u2netp")
                .expect("store")
        );
        assert_eq!(read(&c, &a).subject, Some(subject(80.0)));
    }

    /// People's ids are the catalog's: a second embedder's people start after the first's,
    /// and a person of another embedder is never overwritten (the photo's row is not stored).
    #[test]
    fn a_second_embedders_people_never_take_the_firsts_ids() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c =
            Catalog::open(&dir.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        let person = |id: i64, embedder: &str| PersonRow {
            id,
            embedder: embedder.into(),
            name: None,
            sum: vec![1.0, 0.0],
            faces: 1,
        };
        let (a, b) = (dir.path().join("a.jpg"), dir.path().join("b.jpg"));
        assert_eq!(c.next_person_id().expect("id"), 1);
        c.store_index(&a, &test_row(100, 7), &[person(1, "fr_feature")])
            .expect("store");
        c.name_person(1, Some("Anna")).expect("name");
        assert_eq!(c.next_person_id().expect("id"), 2);
        assert!(c.people("dlib_resnet").expect("people").is_empty());

        let err = c
            .store_index(&b, &test_row(200, 7), &[person(1, "dlib_resnet")])
            .expect_err("another embedder's person");
        assert!(
            matches!(err, CatalogError::PersonOfAnotherEmbedder { id: 1, .. }),
            "{err}"
        );
        assert!(c.photo_index(&b).expect("read").is_none(), "nothing stored");
        let anna = c.people("fr_feature").expect("people");
        assert_eq!(anna.len(), 1);
        assert_eq!(anna[0].name.as_deref(), Some("Anna"));
        assert_eq!(anna[0].sum, vec![1.0, 0.0]);

        c.store_index(&b, &test_row(200, 7), &[person(2, "dlib_resnet")])
            .expect("store");
        assert_eq!(c.people("dlib_resnet").expect("people").len(), 1);
        assert_eq!(c.next_person_id().expect("id"), 3);
    }

    #[test]
    fn one_index_job_at_a_time_holds_a_catalogs_people() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("catalog.sqlite");
        let window = Catalog::open(&path, SidecarNaming::WithExtension).expect("open");
        let cli = Catalog::open(&path, SidecarNaming::WithExtension).expect("open");
        let held = window.lock_people().expect("the first job");
        let err = cli.lock_people().expect_err("a second job at once");
        assert!(matches!(err, CatalogError::PeopleBusy { .. }), "{err}");
        assert!(err.to_string().contains("catalog.sqlite"), "{err}");
        drop(held);
        cli.lock_people().expect("once the first is done");
    }
}
