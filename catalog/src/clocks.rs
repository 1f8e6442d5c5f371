//! Several cameras, one shoot: each body's clock correction, the seconds added to every
//! capture time it wrote, so frames of one moment from two bodies sort, burst and group
//! together. Corrections are the photographer's (entered, or worked out from two frames of the
//! same moment); a file whose own metadata already carries one (a copy the ingest wrote the
//! corrected time into) is recorded, so the correction is never added twice.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use crate::db::{Catalog, now_s, path_key};
use crate::error::CatalogError;

/// A body the catalog knows: from the index's rows, or a correction set before any was
/// indexed.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyClock {
    pub body: String,
    /// Seconds added to its capture times (0: its clock is trusted).
    pub offset_s: f64,
    /// Its indexed photos.
    pub photos: usize,
}

impl Catalog {
    /// Set a body's correction; 0 removes it.
    pub fn set_clock_offset(&mut self, body: &str, offset_s: f64) -> Result<(), CatalogError> {
        if offset_s == 0.0 {
            self.conn
                .execute("DELETE FROM clocks WHERE body = ?1", params![body])
                .map_err(self.db())?;
        } else {
            self.conn
                .execute(
                    "INSERT OR REPLACE INTO clocks (body, offset_s, at) VALUES (?1, ?2, ?3)",
                    params![body, offset_s, now_s()],
                )
                .map_err(self.db())?;
        }
        Ok(())
    }

    /// A body's correction, 0 when none.
    pub fn clock_offset(&self, body: &str) -> Result<f64, CatalogError> {
        Ok(self
            .conn
            .query_row(
                "SELECT offset_s FROM clocks WHERE body = ?1",
                params![body],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.db())?
            .unwrap_or(0.0))
    }

    /// Every body indexed or corrected, by name.
    pub fn bodies(&self) -> Result<Vec<BodyClock>, CatalogError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT b.body, COALESCE(c.offset_s, 0),
                        (SELECT COUNT(*) FROM indexed i WHERE i.body = b.body)
                 FROM (SELECT body FROM indexed WHERE body IS NOT NULL
                       UNION SELECT body FROM clocks) b
                 LEFT JOIN clocks c ON c.body = b.body
                 ORDER BY b.body",
            )
            .map_err(self.db())?;
        stmt.query_map([], |r| {
            Ok(BodyClock {
                body: r.get(0)?,
                offset_s: r.get(1)?,
                photos: r.get::<_, i64>(2)?.max(0) as usize,
            })
        })
        .map_err(self.db())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(self.db())
    }

    /// Record that the file's own capture time was written `offset_s` later than its body's
    /// clock said: the body's correction, less this, still applies to it.
    pub fn record_shifted(&mut self, file: &Path, offset_s: f64) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO shifted (path, offset_s) VALUES (?1, ?2)",
                params![path_key(file), offset_s],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// The correction the file's own capture time was recorded as carrying, if any.
    pub fn shifted_offset(&self, file: &Path) -> Result<Option<f64>, CatalogError> {
        self.conn
            .query_row(
                "SELECT offset_s FROM shifted WHERE path = ?1",
                params![path_key(file)],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.db())
    }

    /// The corrected copy's bytes, by their sha256: what it holds now that it is no longer the
    /// card's file byte for byte (`ingested` keeps the card's, which the backups still are).
    pub fn record_shifted_copy(&mut self, file: &Path, sha256: &str) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "UPDATE shifted SET sha256 = ?2 WHERE path = ?1",
                params![path_key(file), sha256],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// The corrected copy's sha256, once its correction is written.
    pub fn shifted_copy(&self, file: &Path) -> Result<Option<String>, CatalogError> {
        self.conn
            .query_row(
                "SELECT sha256 FROM shifted WHERE path = ?1",
                params![path_key(file)],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(self.db())
    }

    /// The file's own capture time carries no correction after all (writing it failed).
    pub fn forget_shifted(&mut self, file: &Path) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "DELETE FROM shifted WHERE path = ?1",
                params![path_key(file)],
            )
            .map_err(self.db())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PhotoIndex, SidecarNaming};

    fn row(body: &str, at: f64) -> PhotoIndex {
        PhotoIndex {
            captured_at: Some(at),
            body: Some(body.into()),
            ..crate::faces::test_row(1, 0)
        }
    }

    #[test]
    fn a_correction_applies_to_every_row_of_its_body_and_never_twice() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c =
            Catalog::open(&dir.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        let (a, b, shifted) = (
            dir.path().join("a.jpg"),
            dir.path().join("b.jpg"),
            dir.path().join("c.jpg"),
        );
        c.store_index(&a, &row("Canon EOS R6 #1", 1000.0), &[])
            .expect("store");
        c.store_index(&b, &row("NIKON Z 6 #2", 1000.0), &[])
            .expect("store");
        c.store_index(&shifted, &row("NIKON Z 6 #2", 4780.0), &[])
            .expect("store");
        c.set_clock_offset("NIKON Z 6 #2", 3780.0).expect("set");
        c.record_shifted(&shifted, 3780.0).expect("shifted");
        let times: Vec<Option<f64>> = c
            .indexed_of(&[a.clone(), b.clone(), shifted.clone()])
            .expect("rows")
            .iter()
            .map(|(_, i)| i.capture_time())
            .collect();
        assert_eq!(times, [Some(1000.0), Some(4780.0), Some(4780.0)]);
        let bodies = c.bodies().expect("bodies");
        assert_eq!(
            bodies,
            [
                BodyClock {
                    body: "Canon EOS R6 #1".into(),
                    offset_s: 0.0,
                    photos: 1
                },
                BodyClock {
                    body: "NIKON Z 6 #2".into(),
                    offset_s: 3780.0,
                    photos: 2
                }
            ]
        );
        c.set_clock_offset("NIKON Z 6 #2", 0.0).expect("cleared");
        assert_eq!(c.clock_offset("NIKON Z 6 #2").expect("read"), 0.0);
        assert_eq!(
            c.photo_index(&b)
                .expect("row")
                .and_then(|i| i.capture_time()),
            Some(1000.0)
        );
    }
}
