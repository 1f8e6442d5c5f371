//! Decisions made on a card, held against the file they were made on. A card's paths are
//! reused: format it, shoot again, and `DCIM/100CANON/IMG_0001.JPG` is another photo. So a
//! card photo's row remembers which file its decision belongs to (size and modification time,
//! which a camera sets to the moment of the shot), a held decision is keyed by that file, not
//! by its path, and the ingest carries it only into the copy of that very file, then retires
//! it. Another file at the path shows undecided and never receives it. (Not its sha256: that
//! would read a 25 MB RAW off the card at every key press; a camera never writes two files
//! of one size at one moment to one path.)

use std::path::Path;
use std::time::UNIX_EPOCH;

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
        let recorded: Option<(Option<i64>, Option<i64>)> = self
            .conn
            .query_row(
                "SELECT file_size, file_mtime_ns FROM photos WHERE path = ?1",
                params![path_key(photo)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(self.db())?;
        let Some((Some(size), Some(mtime_ns))) = recorded else {
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
        Ok(match FileStamp::of(photo)? {
            Some(now) if !recorded.same_file(&now) => FileThere::Other,
            _ => FileThere::Same,
        })
    }

    /// Record, for a card photo, that its row's decision belongs to the file there now.
    pub(crate) fn note_file(&mut self, photo: &Path) -> Result<(), CatalogError> {
        if !card::on_card(photo) {
            return Ok(());
        }
        let Some(stamp) = FileStamp::of(photo)? else {
            return Ok(());
        };
        self.conn
            .execute(
                "UPDATE photos SET file_size = ?2, file_mtime_ns = ?3 WHERE path = ?1",
                params![path_key(photo), stamp.size as i64, stamp.mtime_ns],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// A decision made on a card photo whose sidecar is not written there: held against the
    /// file until the ingest carries it (a decision back to nothing holds nothing).
    pub(crate) fn hold(&mut self, photo: &Path, decision: &Decision) -> Result<(), CatalogError> {
        if !card::on_card(photo) {
            return Ok(());
        }
        self.note_file(photo)?;
        let Some(stamp) = FileStamp::of(photo)? else {
            return Ok(());
        };
        if !self.holds(photo) {
            return Ok(());
        }
        let key = params![path_key(photo), stamp.size as i64, stamp.mtime_ns];
        if *decision == Decision::default() {
            self.conn
                .execute(
                    "DELETE FROM held WHERE source = ?1 AND size = ?2 AND mtime_ns = ?3",
                    key,
                )
                .map_err(self.db())?;
            return Ok(());
        }
        self.conn
            .execute(
                "INSERT INTO held (source, size, mtime_ns, flag, stars, label, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(source, size, mtime_ns) DO UPDATE SET
                     flag = ?4, stars = ?5, label = ?6, at = ?7",
                params![
                    path_key(photo),
                    stamp.size as i64,
                    stamp.mtime_ns,
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    now_s()
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

    /// The decision held for a file the ingest copied: made on that very file (the same
    /// path, and [`FileStamp::same_file`]), the latest if there are several, with the moment it
    /// was made (seconds) and the stamp it is held under.
    fn held_entry(
        &self,
        file: &CardFile<'_>,
    ) -> Result<Option<(Decision, i64, FileStamp)>, CatalogError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT flag, stars, label, at, mtime_ns FROM held
                 WHERE source = ?1 AND size = ?2 ORDER BY at DESC",
            )
            .map_err(self.db())?;
        let rows = stmt
            .query_map(
                params![path_key(file.source), file.stamp.size as i64],
                |r| {
                    Ok((
                        decision_at(r, 0)?,
                        r.get::<_, i64>(3)?,
                        FileStamp {
                            size: file.stamp.size,
                            mtime_ns: r.get(4)?,
                        },
                    ))
                },
            )
            .map_err(self.db())?;
        for row in rows {
            let row = row.map_err(self.db())?;
            if row.2.same_file(&file.stamp) {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }

    /// The decision held for a file the ingest copied (see [`Catalog::carry_held`]).
    pub fn held_for(&self, file: &CardFile<'_>) -> Result<Option<Decision>, CatalogError> {
        Ok(self.held_entry(file)?.map(|(d, _, _)| d))
    }

    /// The held decision is in the copy: it is retired, and the card's row no longer waits
    /// for a sidecar on the card.
    pub fn retire_held(&mut self, file: &CardFile<'_>) -> Result<(), CatalogError> {
        let Some((_, _, stamp)) = self.held_entry(file)? else {
            return Ok(());
        };
        let key = params![path_key(file.source), stamp.size as i64, stamp.mtime_ns];
        self.conn
            .execute(
                "DELETE FROM held WHERE source = ?1 AND size = ?2 AND mtime_ns = ?3",
                key,
            )
            .map_err(self.db())?;
        self.conn
            .execute(
                "UPDATE photos SET sidecar_pending = 0
                 WHERE path = ?1 AND file_size = ?2 AND file_mtime_ns = ?3",
                key,
            )
            .map_err(self.db())?;
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
        // The first file's decision is still held against it, and its copy gets it.
        assert_eq!(c.held_for(&first).expect("query"), Some(reject()));
        c.retire_held(&first).expect("retired");
        assert_eq!(c.held_count().expect("count"), 0);

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
}
