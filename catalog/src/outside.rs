//! Edits other tools make to the sidecars DarkRoom writes. Lightroom, darktable, digiKam or
//! exiftool may change a photo's rating or label at any moment; DarkRoom must neither hide
//! that edit nor write over it. Each row remembers the identity of its sidecar as last read or
//! written, and which fields were changed here and not yet written there. Before a change is
//! applied, and again before the sidecar is written, a sidecar whose identity moved is read
//! again: its values become the row's, except the fields changed here, which go over it.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use crate::db::{Catalog, decision_at, flag_code, path_key};
use crate::decision::ALL;
use crate::decision::{Decision, FLAG, LABEL, Label, STARS};
use crate::error::CatalogError;
use crate::sidecar;

/// `ours`' fields in `fields`, `theirs`' in the rest.
pub fn merged(theirs: &Decision, ours: &Decision, fields: i64) -> Decision {
    Decision {
        flag: if fields & FLAG != 0 {
            ours.flag
        } else {
            theirs.flag
        },
        stars: if fields & STARS != 0 {
            ours.stars
        } else {
            theirs.stars
        },
        label: if fields & LABEL != 0 {
            ours.label.clone()
        } else {
            theirs.label.clone()
        },
    }
}

/// A row brought up to date with its sidecar.
#[derive(Debug)]
pub struct Refreshed {
    pub decision: Decision,
    /// Another tool changed the sidecar since it was last read or written here.
    pub outside: bool,
}

impl Catalog {
    /// The photo's decision as it really is: the row's, with what another tool wrote into its
    /// sidecar since it was last read or written here taken in (the fields changed here and not
    /// yet written stay ours). A sidecar another tool removed is written again from the row.
    /// A photo on a card whose sidecar is held, and a row not yet imported, are as recorded.
    pub(crate) fn refresh(&mut self, photo: &Path) -> Result<Refreshed, CatalogError> {
        let row: Option<(Decision, Option<String>, i64, bool)> = self
            .conn
            .query_row(
                "SELECT flag, stars, label, sidecar_stamp, pending_fields, imported
                 FROM photos WHERE path = ?1",
                params![path_key(photo)],
                |r| {
                    Ok((
                        decision_at(r, 0)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get::<_, i64>(5)? != 0,
                    ))
                },
            )
            .optional()
            .map_err(self.db())?;
        let Some((ours, recorded, pending, true)) = row else {
            let decision = row.map(|r| r.0).unwrap_or_default();
            return Ok(Refreshed {
                decision,
                outside: false,
            });
        };
        let unchanged = Refreshed {
            decision: ours.clone(),
            outside: false,
        };
        if self.holds(photo) {
            return Ok(unchanged);
        }
        let on_disk = sidecar::read_stamped(photo, self.naming())?;
        if recorded.as_deref() == Some(on_disk.stamp.as_str()) {
            return Ok(unchanged);
        }
        let (decision, pending, outside) = match &on_disk.decision {
            Some(theirs) => (merged(theirs, &ours, pending), pending, recorded.is_some()),
            // Gone: the row is the record; every field of it is written again.
            None if recorded.as_deref().is_some_and(|r| !r.is_empty()) => {
                (ours.clone(), ALL, false)
            }
            None => (ours.clone(), pending, false),
        };
        self.conn
            .execute(
                "UPDATE photos SET flag = ?2, stars = ?3, label = ?4, sidecar_stamp = ?5,
                     pending_fields = ?6,
                     sidecar_pending = CASE WHEN ?6 != 0 THEN 1 ELSE sidecar_pending END
                 WHERE path = ?1",
                params![
                    path_key(photo),
                    flag_code(decision.flag),
                    decision.stars,
                    decision.label.as_ref().map(Label::xmp_value),
                    on_disk.stamp,
                    pending
                ],
            )
            .map_err(self.db())?;
        Ok(Refreshed {
            outside: outside && decision != ours,
            decision,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Change, ColourLabel, Flag, SidecarNaming, xmp};

    fn their_edit(photo: &Path, stars: u8, label: Option<Label>) {
        // Another tool rewrites the whole packet, as exiftool does.
        let sidecar = SidecarNaming::WithExtension.path_for(photo);
        let text = std::fs::read_to_string(&sidecar).expect("sidecar");
        let theirs = Decision {
            stars,
            label,
            ..xmp::read(&text).expect("reads").decision()
        };
        std::fs::write(&sidecar, xmp::new_packet(&theirs, Default::default())).expect("write");
    }

    #[test]
    fn another_tools_edit_is_kept_and_only_our_field_goes_over_it() {
        let t = tempfile::tempdir().expect("tempdir");
        let photo = t.path().join("a.jpg");
        std::fs::write(&photo, b"jpeg").expect("photo");
        let mut c =
            Catalog::open(&t.path().join("c.sqlite"), SidecarNaming::default()).expect("open");
        c.change(&photo, &Change::Stars(3)).expect("3 stars");
        assert!(c.write_sidecars(std::slice::from_ref(&photo)).is_empty());
        // Another tool: 4 stars and Red.
        let red = Some(Label::Colour(ColourLabel::Red));
        their_edit(&photo, 4, red.clone());
        // A pick here: their stars and label stay, in the row and in the sidecar.
        let changed = c.change(&photo, &Change::Flag(Flag::Pick)).expect("pick");
        let want = Decision {
            flag: Flag::Pick,
            stars: 4,
            label: red.clone(),
        };
        assert_eq!(changed.before.stars, 4, "the change saw their edit");
        assert_eq!(changed.after, want);
        assert!(c.write_sidecars(std::slice::from_ref(&photo)).is_empty());
        assert_eq!(
            sidecar::read(&photo, SidecarNaming::default()).expect("read"),
            Some(want.clone())
        );

        // Their edit between our change and our write: the write keeps it, ours goes over.
        c.change(&photo, &Change::Stars(1)).expect("1 star");
        their_edit(&photo, 5, None);
        assert!(c.write_sidecars(std::slice::from_ref(&photo)).is_empty());
        let now = Decision {
            flag: Flag::Pick,
            stars: 1,
            label: None,
        };
        assert_eq!(
            sidecar::read(&photo, SidecarNaming::default()).expect("read"),
            Some(now.clone())
        );
        assert_eq!(c.decision(&photo).expect("row"), Some(now.clone()));

        // Seen on the next import, without any change here.
        their_edit(&photo, 2, red.clone());
        let imported = c.import(&photo).expect("import");
        assert!(imported.from_sidecar, "told it came from the sidecar");
        assert_eq!(imported.decision.stars, 2);
        assert_eq!(imported.decision.label, red);
    }
}
