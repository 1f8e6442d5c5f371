//! The ingest's journal: before a run copies anything it records each card file it will copy
//! (which file it is: path, size, modification time) with its final name under the drives;
//! each is marked done in the very commit that records it ingested. A run stopped anywhere — a
//! kill, a full drive, a pulled card, a closed window — is finished by the next one from here,
//! never from a guess at what lies on the drives: the same names, a RAW and its JPEG on one
//! stem, a `-2` still `-2`. Entries belong to one set of drives (`roots`): a card brought in
//! to other drives is planned afresh.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use crate::db::{Catalog, now_s, path_from_key, path_key};
use crate::error::CatalogError;
use crate::held::FileStamp;

/// One card file as the journal has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// Its final name, relative to each drive.
    pub rel: PathBuf,
    /// Verified on every drive and recorded ingested.
    pub done: bool,
}

/// The key of a set of drives: their folders, in order (working drive first).
pub fn roots_key(roots: &[&Path]) -> Vec<u8> {
    let mut key = Vec::new();
    for r in roots {
        let abs = std::path::absolute(r).unwrap_or_else(|_| r.to_path_buf());
        key.extend(path_key(&abs));
        key.push(0);
    }
    key
}

impl Catalog {
    /// What the journal says of a card file for these drives.
    pub fn journal_entry(
        &self,
        roots: &[u8],
        source: &Path,
        stamp: FileStamp,
    ) -> Result<Option<JournalEntry>, CatalogError> {
        self.conn
            .query_row(
                "SELECT rel, done FROM ingest_journal
                 WHERE roots = ?1 AND source = ?2 AND size = ?3 AND mtime_ns = ?4",
                params![roots, path_key(source), stamp.size as i64, stamp.mtime_ns],
                |r| {
                    Ok(JournalEntry {
                        rel: path_from_key(&r.get::<_, Vec<u8>>(0)?),
                        done: r.get::<_, i64>(1)? != 0,
                    })
                },
            )
            .optional()
            .map_err(self.db())
    }

    /// Record the names a run is about to give, in one commit, before anything is copied. A
    /// file the journal already names keeps that name.
    pub fn journal_plan(
        &mut self,
        roots: &[u8],
        files: &[(&Path, FileStamp, &Path)],
    ) -> Result<(), CatalogError> {
        self.transaction(|c| {
            for (source, stamp, rel) in files {
                c.conn
                    .execute(
                        "INSERT OR IGNORE INTO ingest_journal
                             (roots, source, size, mtime_ns, rel, done, at)
                         VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)",
                        params![
                            roots,
                            path_key(source),
                            stamp.size as i64,
                            stamp.mtime_ns,
                            path_key(rel),
                            now_s()
                        ],
                    )
                    .map_err(c.db())?;
            }
            Ok::<(), CatalogError>(())
        })?
    }

    /// The file is verified on every drive: to be called in the transaction that records it
    /// ingested, so the two are one fact.
    pub fn journal_done(
        &mut self,
        roots: &[u8],
        source: &Path,
        stamp: FileStamp,
    ) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "UPDATE ingest_journal SET done = 1
                 WHERE roots = ?1 AND source = ?2 AND size = ?3 AND mtime_ns = ?4",
                params![roots, path_key(source), stamp.size as i64, stamp.mtime_ns],
            )
            .map_err(self.db())?;
        Ok(())
    }

    /// A run that brought in everything it planned: its finished entries go (what failed
    /// stays, for the next run to name the same).
    pub fn journal_close(&mut self, roots: &[u8]) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "DELETE FROM ingest_journal WHERE roots = ?1 AND done = 1",
                params![roots],
            )
            .map_err(self.db())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SidecarNaming;

    #[test]
    fn a_name_once_planned_is_kept_until_its_file_is_in() {
        let t = tempfile::tempdir().expect("tempdir");
        let mut c =
            Catalog::open(&t.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        let (work, backup) = (t.path().join("work"), t.path().join("backup"));
        let roots = roots_key(&[&work, &backup]);
        let other = roots_key(&[&work]);
        let raw = Path::new("/card/DCIM/100CANON/IMG_0001.CR3");
        let stamp = FileStamp {
            size: 10,
            mtime_ns: 5,
        };
        c.journal_plan(&roots, &[(raw, stamp, Path::new("2026/a-2.CR3"))])
            .expect("planned");
        // Planned again (another run, other names free now): the first name stands.
        c.journal_plan(&roots, &[(raw, stamp, Path::new("2026/a.CR3"))])
            .expect("planned");
        let entry = c.journal_entry(&roots, raw, stamp).expect("query");
        assert_eq!(
            entry,
            Some(JournalEntry {
                rel: PathBuf::from("2026/a-2.CR3"),
                done: false
            })
        );
        assert_eq!(c.journal_entry(&other, raw, stamp).expect("query"), None);
        let changed = FileStamp { size: 11, ..stamp };
        assert_eq!(c.journal_entry(&roots, raw, changed).expect("query"), None);
        c.journal_done(&roots, raw, stamp).expect("done");
        assert!(
            c.journal_entry(&roots, raw, stamp)
                .expect("query")
                .expect("there")
                .done
        );
        c.journal_close(&roots).expect("closed");
        assert_eq!(c.journal_entry(&roots, raw, stamp).expect("query"), None);
    }
}
