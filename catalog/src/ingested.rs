//! What was ingested: every file copied from a card, by its content (sha256 and size), with
//! where it came from and where it went. A second ingest of the same card recognises its files
//! by content, whatever they or their copies are called now.

use std::path::PathBuf;

use rusqlite::{OptionalExtension, params};

use crate::db::{Catalog, now_s, path_from_key, path_key};
use crate::error::CatalogError;

/// One ingested file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestedFile {
    pub sha256: String,
    pub size: u64,
    pub source: PathBuf,
    /// Where its primary copy was written.
    pub dest: PathBuf,
}

impl Catalog {
    /// Whether any file of this size was ingested: without one, a file is new and its hash
    /// need not be read before it is copied.
    pub fn ingested_size(&self, size: u64) -> Result<bool, CatalogError> {
        self.conn
            .query_row(
                "SELECT 1 FROM ingested WHERE size = ?1 LIMIT 1",
                params![size as i64],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(self.db())
    }

    /// The ingested file with this content, if any.
    pub fn ingested(&self, sha256: &str, size: u64) -> Result<Option<IngestedFile>, CatalogError> {
        self.conn
            .query_row(
                "SELECT sha256, size, source, dest FROM ingested WHERE sha256 = ?1 AND size = ?2",
                params![sha256, size as i64],
                |r| {
                    Ok(IngestedFile {
                        sha256: r.get(0)?,
                        size: r.get::<_, i64>(1)?.max(0) as u64,
                        source: path_from_key(&r.get::<_, Vec<u8>>(2)?),
                        dest: path_from_key(&r.get::<_, Vec<u8>>(3)?),
                    })
                },
            )
            .optional()
            .map_err(self.db())
    }

    /// Record a file as ingested once its copies are verified.
    pub fn record_ingested(&mut self, file: &IngestedFile) -> Result<(), CatalogError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO ingested (sha256, size, source, dest, at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    file.sha256,
                    file.size as i64,
                    path_key(&file.source),
                    path_key(&file.dest),
                    now_s()
                ],
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
    fn a_file_is_recognised_by_its_content_not_its_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c =
            Catalog::open(&dir.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        assert!(!c.ingested_size(10).expect("query"));
        let f = IngestedFile {
            sha256: "ab".repeat(32),
            size: 10,
            source: PathBuf::from("/media/card/DCIM/100CANON/IMG_0001.CR3"),
            dest: PathBuf::from("/photos/2026/a.CR3"),
        };
        c.record_ingested(&f).expect("record");
        assert!(c.ingested_size(10).expect("query"));
        assert_eq!(c.ingested(&f.sha256, 10).expect("query"), Some(f.clone()));
        assert_eq!(c.ingested(&f.sha256, 11).expect("query"), None);
        assert_eq!(c.ingested(&"cd".repeat(32), 10).expect("query"), None);
    }
}
