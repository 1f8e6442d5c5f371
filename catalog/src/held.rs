//! Decisions made on a card, held against the file they were made on. A card's paths are
//! reused: format it, shoot again, and `DCIM/100CANON/IMG_0001.JPG` is another photo. So a
//! card photo's row remembers which file its decision belongs to — its size and its head (the
//! SHA-256 of its first 64 KiB: the EXIF a camera writes first, with the capture time to the
//! second and below, which no two shots share), and its modification time for rows and held
//! decisions from before heads were recorded — a held decision is keyed by that file, not by
//! its path, and the ingest carries it only into the copy of that very file, then retires it.
//! Another file at the path shows undecided and never receives it. (Not the whole file's
//! SHA-256: that would read a 25 MB RAW off the card at every key press.)

use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use darkroom_library::card;
use rusqlite::{OptionalExtension, params};

use crate::db::{Catalog, FileThere, decision_at, flag_code, now_s, path_key};
use crate::decision::{Decision, Label};
use crate::error::CatalogError;

/// Which file a path holds: its size and modification time, nanoseconds since 1970.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: i64,
}

impl FileStamp {
    pub fn of_metadata(m: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64);
        FileStamp {
            size: m.len(),
            mtime_ns,
        }
    }

    /// Whether `other` is this stamp's file: the same size, and the same time — or one moved by
    /// whole half hours, up to 15 h: a FAT card stores local time, which a computer reads
    /// through its own time zone and daylight saving, so a card culled before a flight or the
    /// clock change reads shifted after it. A camera never writes another file of the very
    /// same size to the same path a whole number of half hours apart.
    pub fn same_file(&self, other: &FileStamp) -> bool {
        const HALF_HOUR_NS: i64 = 1_800_000_000_000;
        const MOST_NS: i64 = 15 * 2 * HALF_HOUR_NS;
        let apart = (self.mtime_ns - other.mtime_ns).abs();
        self.size == other.size && (apart == 0 || (apart % HALF_HOUR_NS == 0 && apart <= MOST_NS))
    }

    /// None when the file is gone.
    pub fn of(path: &Path) -> Result<Option<FileStamp>, CatalogError> {
        match std::fs::metadata(path) {
            Ok(m) => Ok(Some(FileStamp::of_metadata(&m))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(CatalogError::Io {
                what: "cannot read the photo",
                source,
                path: path.to_path_buf(),
            }),
        }
    }
}

/// What a camera wrote first, by SHA-256: a photo file's first 64 KiB (its EXIF: capture time
/// to the second and below, often the shutter count). With the size, which file a card path
/// holds, whatever a card's clock or a computer's time zone made of its modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head([u8; 32]);

impl Head {
    /// How much of a file its head covers.
    pub const BYTES: u64 = 64 << 10;

    /// None when the file is gone.
    pub fn of(path: &Path) -> Result<Option<Head>, CatalogError> {
        let read = |source| CatalogError::Io {
            what: "cannot read the photo",
            source,
            path: path.to_path_buf(),
        };
        // Only a regular file (a FIFO named like a photo on a card must not hang the catalog),
        // of any size: only its head is read.
        let file = match darkroom_library::regular::open_regular(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(read(e)),
        };
        let mut first = Vec::with_capacity(Self::BYTES as usize);
        file.take(Self::BYTES)
            .read_to_end(&mut first)
            .map_err(read)?;
        Ok(Some(Head(Sha256::digest(&first).into())))
    }

    fn from_blob(blob: Option<Vec<u8>>) -> Option<Head> {
        blob.and_then(|b| <[u8; 32]>::try_from(b.as_slice()).ok())
            .map(Head)
    }

    fn blob(&self) -> &[u8] {
        &self.0
    }
}

/// A card file's head, as a caller has it: read already (None: the file is gone), or not.
#[derive(Debug, Clone, Copy)]
enum HeadNow {
    ToRead,
    Read(Option<Head>),
}

/// Whether a file recorded as `was` (its stamp, and its head where one was read) is the file
/// `now`: by size and head where both heads are known, else by [`FileStamp::same_file`].
fn same_file(
    was: (FileStamp, Option<Head>),
    now: FileStamp,
    head_now: impl FnOnce() -> Result<Option<Head>, CatalogError>,
) -> Result<bool, CatalogError> {
    if was.0.size != now.size {
        return Ok(false);
    }
    match was.1 {
        Some(head) => Ok(match head_now()? {
            Some(h) => h == head,
            None => was.0.same_file(&now),
        }),
        None => Ok(was.0.same_file(&now)),
    }
}

/// A file on a card, as the ingest saw it when it planned the copy: where it was, and which
/// file it was there.
#[derive(Debug, Clone)]
pub struct CardFile<'a> {
    pub source: &'a Path,
    pub stamp: FileStamp,
}

/// A held decision carried into a copy.
#[derive(Debug)]
pub struct Carried {
    pub decision: Decision,
    /// The copy's sidecar could not be written (the catalog has the decision; the next open
    /// writes it again).
    pub sidecar_error: Option<CatalogError>,
}

impl Catalog {
    pub(crate) fn file_there(&self, photo: &Path) -> Result<FileThere, CatalogError> {
        if !card::on_card(photo) {
            return Ok(FileThere::Same);
        }
        type Recorded = (Option<i64>, Option<i64>, Option<Vec<u8>>);
        let recorded: Option<Recorded> = self
            .conn
            .query_row(
                "SELECT file_size, file_mtime_ns, file_head FROM photos WHERE path = ?1",
                params![path_key(photo)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(self.db())?;
        let Some((Some(size), Some(mtime_ns), head)) = recorded else {
            return Ok(if recorded.is_some() {
                FileThere::Unknown
            } else {
                FileThere::Same
            });
        };
        let recorded = FileStamp {
            size: size as u64,
            mtime_ns,
        };
        let Some(now) = FileStamp::of(photo)? else {
            return Ok(FileThere::Same);
        };
        Ok(
            if same_file((recorded, Head::from_blob(head)), now, || Head::of(photo))? {
                FileThere::Same
            } else {
                FileThere::Other
            },
        )
    }

    /// Record, for a card photo, that its row's decision belongs to the file there now.
    /// Returns the file's stamp and head as read (None: not a card photo, or gone).
    pub(crate) fn note_file(
        &mut self,
        photo: &Path,
    ) -> Result<Option<(FileStamp, Option<Head>)>, CatalogError> {
        if !card::on_card(photo) {
            return Ok(None);
        }
        let Some(stamp) = FileStamp::of(photo)? else {
            return Ok(None);
        };
        let head = Head::of(photo)?;
        self.conn
            .execute(
                "UPDATE photos SET file_size = ?2, file_mtime_ns = ?3, file_head = ?4
                 WHERE path = ?1",
                params![
                    path_key(photo),
                    stamp.size as i64,
                    stamp.mtime_ns,
                    head.as_ref().map(Head::blob)
                ],
            )
            .map_err(self.db())?;
        Ok(Some((stamp, head)))
    }

    /// A decision made on a card photo whose sidecar is not written there: held against the
    /// file until the ingest carries it (a decision back to nothing holds nothing).
    pub(crate) fn hold(&mut self, photo: &Path, decision: &Decision) -> Result<(), CatalogError> {
        if !card::on_card(photo) {
            return Ok(());
        }
        // The file's head is read once, here, for all that follows.
        let Some((stamp, head)) = self.note_file(photo)? else {
            return Ok(());
        };
        // What is held for this very file goes, under whatever time it was held (a card read
        // through another time zone since): the decision made now replaces it, clears it, or
        // (written to the card, as Settings may say) is in the card's sidecar instead.
        let file = CardFile {
            source: photo,
            stamp,
        };
        for (_, _, was) in self.held_entries(&file, HeadNow::Read(head))? {
            self.delete_held(photo, &was)?;
        }
        if !self.holds(photo) {
            return Ok(());
        }
        if *decision == Decision::default() {
            return Ok(());
        }
        self.conn
            .execute(
                "INSERT INTO held (source, size, mtime_ns, flag, stars, label, at, head)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(source, size, mtime_ns) DO UPDATE SET
                     flag = ?4, stars = ?5, label = ?6, at = ?7, head = ?8",
                params![
                    path_key(photo),
                    stamp.size as i64,
                    stamp.mtime_ns,
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    now_s(),
                    head.as_ref().map(Head::blob)
                ],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// A row from before files were recorded: the file at its path now is taken as the one
    /// decided on, and a decision still pending there is held against it.
    pub(crate) fn adopt_file(
        &mut self,
        photo: &Path,
        decision: &Decision,
    ) -> Result<(), CatalogError> {
        let pending: bool = self
            .conn
            .query_row(
                "SELECT sidecar_pending FROM photos WHERE path = ?1",
                params![path_key(photo)],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map_err(self.db())?
            .is_some_and(|p| p != 0);
        self.note_file(photo)?;
        if pending {
            self.hold(photo, decision)?;
        }
        Ok(())
    }

    fn delete_held(&mut self, source: &Path, stamp: &FileStamp) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "DELETE FROM held WHERE source = ?1 AND size = ?2 AND mtime_ns = ?3",
                params![path_key(source), stamp.size as i64, stamp.mtime_ns],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// The decision held for a file the ingest copied: the latest of [`Self::held_entries`].
    fn held_entry(
        &self,
        file: &CardFile<'_>,
    ) -> Result<Option<(Decision, i64, FileStamp)>, CatalogError> {
        Ok(self.held_entries(file, HeadNow::ToRead)?.into_iter().next())
    }

    /// The decisions held for a file: made on that very file (the same path, size and head —
    /// or, held before heads were recorded, [`FileStamp::same_file`]), the latest first, each
    /// with the moment it was made (seconds) and the stamp it is held under. The card file's
    /// head (`head`, where the caller read it already) is read only when a held decision has one.
    fn held_entries(
        &self,
        file: &CardFile<'_>,
        head: HeadNow,
    ) -> Result<Vec<(Decision, i64, FileStamp)>, CatalogError> {
        type Row = (Decision, i64, FileStamp, Option<Head>);
        let rows: Vec<Row> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT flag, stars, label, at, mtime_ns, head FROM held
                     WHERE source = ?1 AND size = ?2 ORDER BY at DESC",
                )
                .map_err(self.db())?;
            stmt.query_map(
                params![path_key(file.source), file.stamp.size as i64],
                |r| {
                    Ok((
                        decision_at(r, 0)?,
                        r.get::<_, i64>(3)?,
                        FileStamp {
                            size: file.stamp.size,
                            mtime_ns: r.get(4)?,
                        },
                        Head::from_blob(r.get(5)?),
                    ))
                },
            )
            .map_err(self.db())?
            .collect::<Result<_, _>>()
            .map_err(self.db())?
        };
        let mut head_now = match head {
            HeadNow::Read(h) => Some(h),
            HeadNow::ToRead => None,
        };
        let mut out = Vec::new();
        for (decision, at, stamp, head) in rows {
            let now = || match head_now {
                Some(h) => Ok(h),
                None => Head::of(file.source).inspect(|h| head_now = Some(*h)),
            };
            if same_file((stamp, head), file.stamp, now)? {
                out.push((decision, at, stamp));
            }
        }
        Ok(out)
    }

    /// The decision held for a file the ingest copied (see [`Catalog::carry_held`]).
    pub fn held_for(&self, file: &CardFile<'_>) -> Result<Option<Decision>, CatalogError> {
        Ok(self.held_entry(file)?.map(|(d, _, _)| d))
    }

    /// The held decision is in the copy: it is retired, and the card's row no longer waits
    /// for a sidecar on the card.
    pub fn retire_held(&mut self, file: &CardFile<'_>) -> Result<(), CatalogError> {
        for (_, _, stamp) in self.held_entries(file, HeadNow::ToRead)? {
            self.delete_held(file.source, &stamp)?;
            self.conn
                .execute(
                    "UPDATE photos SET sidecar_pending = 0
                     WHERE path = ?1 AND file_size = ?2 AND file_mtime_ns IN (?3, ?4)",
                    params![
                        path_key(file.source),
                        stamp.size as i64,
                        stamp.mtime_ns,
                        file.stamp.mtime_ns
                    ],
                )
                .map_err(self.db())?;
        }
        Ok(())
    }

    /// The decision held for `file` into its copy's row and retired, in one commit (so it is
    /// carried exactly once whatever stops the run); then the copy's sidecar is written, which
    /// a failure leaves pending for the next open, as any sidecar. None: nothing was held.
    pub fn carry_held(
        &mut self,
        file: &CardFile<'_>,
        copy: &Path,
    ) -> Result<Option<Carried>, CatalogError> {
        let Some((decision, held_at, _)) = self.held_entry(file)? else {
            return Ok(None);
        };
        // A decision made on the copy after this one was made on the card is the newer one:
        // it stands, and what was held is retired unused.
        let on_copy: Option<(Decision, i64)> = self
            .conn
            .query_row(
                "SELECT flag, stars, label, updated_at FROM photos
                 WHERE path = ?1 AND imported = 1 AND (flag != 0 OR stars != 0 OR label IS NOT NULL)",
                params![path_key(copy)],
                |r| Ok((decision_at(r, 0)?, r.get(3)?)),
            )
            .optional()
            .map_err(self.db())?;
        if on_copy.is_some_and(|(_, at)| at > held_at) {
            self.transaction(|c| c.retire_held(file))??;
            return Ok(None);
        }
        self.transaction(|c| {
            c.import(copy)?;
            c.write_row(copy, &decision, crate::decision::ALL)?;
            c.retire_held(file)
        })??;
        let sidecar_error = self
            .write_sidecars(&[copy.to_path_buf()])
            .into_iter()
            .next()
            .map(|(_, e)| e);
        Ok(Some(Carried {
            decision,
            sidecar_error,
        }))
    }

    /// A card photo's row from before files were recorded (schema 6) whose decision waits to
    /// be carried: the file at its path now is taken as the one decided on, and the decision
    /// is held against it. The ingest asks this of every card file it plans, so an upgrade
    /// never drops a decision held before it.
    pub fn adopt_held(&mut self, photo: &Path) -> Result<(), CatalogError> {
        if !card::on_card(photo) || self.file_there(photo)? != FileThere::Unknown {
            return Ok(());
        }
        let decision: Option<Decision> = self
            .conn
            .query_row(
                "SELECT flag, stars, label FROM photos WHERE path = ?1 AND imported = 1",
                params![path_key(photo)],
                |r| decision_at(r, 0),
            )
            .optional()
            .map_err(self.db())?;
        match decision {
            Some(d) => self.adopt_file(photo, &d),
            None => Ok(()),
        }
    }

    /// How many decisions are held, waiting for an ingest.
    pub fn held_count(&self) -> Result<usize, CatalogError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM held", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as usize)
            .map_err(self.db())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Flag, SidecarNaming};

    fn reject() -> Decision {
        Decision {
            flag: Flag::Reject,
            ..Decision::default()
        }
    }

    /// Rewrite a card file as a camera would after a format: new bytes, a new time.
    fn shoot_again(path: &Path, bytes: &[u8], secs: u64) {
        std::fs::write(path, bytes).expect("write");
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .expect("open");
        f.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(secs))
            .expect("mtime");
    }

    #[test]
    fn a_held_decision_stays_with_its_file_not_its_path() {
        let t = tempfile::tempdir().expect("tempdir");
        let photo = t.path().join("card/DCIM/100CANON/IMG_0001.JPG");
        std::fs::create_dir_all(photo.parent().expect("dir")).expect("mkdir");
        shoot_again(&photo, b"the first frame", 1_700_000_000);
        let mut c =
            Catalog::open(&t.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        assert!(c.holds(&photo));
        c.decide(&photo, &reject()).expect("decided");
        assert_eq!(c.held_count().expect("count"), 1);
        assert!(
            !t.path()
                .join("card/DCIM/100CANON/IMG_0001.JPG.xmp")
                .exists()
        );
        let first = CardFile {
            source: &photo,
            stamp: FileStamp::of(&photo).expect("stat").expect("there"),
        };
        assert_eq!(c.held_for(&first).expect("query"), Some(reject()));

        // Formatted and shot again: the same path, another photo.
        shoot_again(&photo, b"another frame, later", 1_700_086_400);
        assert_eq!(
            c.import(&photo).expect("import").decision,
            Decision::default()
        );
        assert_eq!(c.decision(&photo).expect("row"), Some(Decision::default()));
        let second = CardFile {
            source: &photo,
            stamp: FileStamp::of(&photo).expect("stat").expect("there"),
        };
        assert_eq!(
            c.held_for(&second).expect("query"),
            None,
            "never the first's"
        );
        // The first file's decision is still held against it (for a copy of it an ingest
        // brings in from elsewhere), and nothing retires it through the second file.
        c.retire_held(&first).expect("nothing to retire");
        assert_eq!(c.held_count().expect("count"), 1);

        // Written to the card only where the file is the one decided on.
        c.decide(&photo, &reject()).expect("decided on the second");
        shoot_again(&photo, b"a third frame", 1_700_172_800);
        c.set_write_to_cards(true);
        assert!(c.flush_pending().expect("flushed").is_empty());
        assert!(
            !t.path()
                .join("card/DCIM/100CANON/IMG_0001.JPG.xmp")
                .exists(),
            "the stale decision is not written beside the third frame"
        );
    }

    #[test]
    fn a_cards_times_read_through_another_time_zone_are_the_same_file() {
        let hour = 3_600_000_000_000i64;
        let a = FileStamp {
            size: 100,
            mtime_ns: 1_700_000_000 * 1_000_000_000,
        };
        let moved = |by: i64| FileStamp {
            mtime_ns: a.mtime_ns + by,
            ..a
        };
        assert!(a.same_file(&a));
        assert!(a.same_file(&moved(hour)), "daylight saving");
        assert!(
            a.same_file(&moved(-9 * hour - hour / 2)),
            "a flight to Adelaide"
        );
        assert!(
            !a.same_file(&moved(2_000_000_000)),
            "two seconds later: another shot"
        );
        assert!(!a.same_file(&moved(24 * hour)), "a day later");
        assert!(!a.same_file(&FileStamp { size: 101, ..a }));
    }

    /// With Settings' "Camera cards" on, a decision goes into the card's sidecar: what was held
    /// for the file before goes, so the ingest never carries the older decision over it.
    #[test]
    fn a_decision_written_to_the_card_replaces_what_was_held() {
        let t = tempfile::tempdir().expect("tempdir");
        let photo = t.path().join("card/DCIM/100CANON/IMG_0001.JPG");
        std::fs::create_dir_all(photo.parent().expect("dir")).expect("mkdir");
        shoot_again(&photo, b"the frame", 1_700_000_000);
        let mut c =
            Catalog::open(&t.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        c.decide(&photo, &reject()).expect("held");
        assert_eq!(c.held_count().expect("count"), 1);
        c.set_write_to_cards(true);
        let pick = Decision {
            flag: crate::Flag::Pick,
            ..Decision::default()
        };
        c.decide(&photo, &pick).expect("written to the card");
        assert_eq!(
            crate::sidecar::read(&photo, SidecarNaming::default()).expect("read"),
            Some(pick)
        );
        assert_eq!(
            c.held_count().expect("count"),
            0,
            "the reject is not held any more"
        );
    }

    /// A camera whose RAWs are all one size (uncompressed), formatted and shot again exactly an
    /// hour later: size and time alone would take the new frame for the old one read through
    /// daylight saving. Its head (the EXIF it wrote first) differs, so it is another photo;
    /// and the very file, whatever its time reads as, is the same by its head.
    #[test]
    fn a_frame_of_the_same_size_an_hour_later_is_told_apart_by_its_head() {
        let t = tempfile::tempdir().expect("tempdir");
        let photo = t.path().join("card/DCIM/100NIKON/DSC_0001.NEF");
        std::fs::create_dir_all(photo.parent().expect("dir")).expect("mkdir");
        let frame = |taken: &str| {
            let mut bytes = format!("II*\0 DateTimeOriginal {taken}").into_bytes();
            bytes.resize(200 << 10, 0x5A);
            bytes
        };
        shoot_again(&photo, &frame("2026:06:13 10:00:00"), 1_700_000_000);
        let mut c =
            Catalog::open(&t.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        c.decide(&photo, &reject()).expect("decided");
        let first = CardFile {
            source: &photo,
            stamp: FileStamp::of(&photo).expect("stat").expect("there"),
        };
        assert_eq!(c.held_for(&first).expect("query"), Some(reject()));

        shoot_again(&photo, &frame("2026:06:13 11:00:00"), 1_700_003_600);
        let second = CardFile {
            source: &photo,
            stamp: FileStamp::of(&photo).expect("stat").expect("there"),
        };
        assert!(first.stamp.same_file(&second.stamp), "size and time alone");
        assert_eq!(
            c.held_for(&second).expect("query"),
            None,
            "never the first frame's decision"
        );
        assert_eq!(
            c.import(&photo).expect("import").decision,
            Decision::default(),
            "shown undecided"
        );

        // The first frame again (the same bytes), its time read 3 h 17 min off: the same file.
        shoot_again(&photo, &frame("2026:06:13 10:00:00"), 1_700_011_820);
        let again = CardFile {
            source: &photo,
            stamp: FileStamp::of(&photo).expect("stat").expect("there"),
        };
        assert!(!first.stamp.same_file(&again.stamp), "not by its time");
        assert_eq!(c.held_for(&again).expect("query"), Some(reject()));
        // Changed, then cleared, under the time it reads now: what was held under the first
        // time goes too, and nothing is left to carry.
        c.decide(
            &photo,
            &Decision {
                stars: 3,
                ..Decision::default()
            },
        )
        .expect("three stars");
        assert_eq!(
            c.held_count().expect("count"),
            1,
            "one decision for one file"
        );
        assert_eq!(c.held_for(&again).expect("query").map(|d| d.stars), Some(3));
        c.decide(&photo, &Decision::default()).expect("cleared");
        assert_eq!(
            c.held_for(&again).expect("query"),
            None,
            "cleared stays cleared"
        );
        assert_eq!(c.held_count().expect("count"), 0);
    }
}
