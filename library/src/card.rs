//! Whether a photo is on a camera's card, where DarkRoom never writes unless told to: a path
//! inside a `DCIM` folder (the layout every camera makes, DCF), or on media mounted read-only
//! (a card in a locked reader, a write-protected mount). Decisions made there are held in the
//! catalog and written into the copies' sidecars when the photos are ingested.

use std::path::Path;

/// The folder every camera puts its photos in (DCF), matched case-insensitively.
const CARD_FOLDER: &str = "DCIM";

/// The photo lies in a card's `DCIM` tree.
pub fn in_dcim(photo: &Path) -> bool {
    photo
        .ancestors()
        .skip(1)
        .filter_map(Path::file_name)
        .any(|n| n.eq_ignore_ascii_case(CARD_FOLDER))
}

/// The folder is on a file system mounted read-only. False when it cannot be told (it is
/// gone, or the platform does not say): a write there then fails and says why.
pub fn read_only_media(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        rustix::fs::statvfs(dir)
            .is_ok_and(|s| s.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}

/// The photo is on a card: in a DCIM tree, or on read-only media.
pub fn on_card(photo: &Path) -> bool {
    in_dcim(photo) || photo.parent().is_some_and(read_only_media)
}

/// A folder opened for culling is a card: a DCIM root (it holds a `DCIM` folder), inside one,
/// or on read-only media.
pub fn is_card_folder(dir: &Path) -> bool {
    let holds_dcim = std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().eq_ignore_ascii_case(CARD_FOLDER) && e.path().is_dir())
    });
    holds_dcim
        || dir
            .ancestors()
            .filter_map(Path::file_name)
            .any(|n| n.eq_ignore_ascii_case(CARD_FOLDER))
        || read_only_media(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dcim_tree_is_a_card_and_a_folder_of_photos_is_not() {
        let t = tempfile::tempdir().expect("tempdir");
        let card = t.path().join("card");
        std::fs::create_dir_all(card.join("DCIM/100CANON")).expect("mkdir");
        std::fs::create_dir_all(t.path().join("photos/2026")).expect("mkdir");
        assert!(is_card_folder(&card));
        assert!(is_card_folder(&card.join("DCIM/100CANON")));
        assert!(in_dcim(&card.join("DCIM/100CANON/IMG_0001.CR3")));
        assert!(in_dcim(&card.join("dcim/100CANON/IMG_0001.CR3")));
        assert!(!is_card_folder(&t.path().join("photos/2026")));
        assert!(!on_card(&t.path().join("photos/2026/IMG_0001.CR3")));
        // A photo merely named so is not in a card's tree.
        assert!(!in_dcim(&t.path().join("photos/DCIM")));
    }

    #[test]
    fn a_writable_folder_and_a_missing_one_are_not_read_only_media() {
        // A read-only mount itself is tried in tests/e2e/ingest_cli.rs (a bind mount in a
        // user namespace).
        let t = tempfile::tempdir().expect("tempdir");
        assert!(!read_only_media(t.path()));
        assert!(!read_only_media(&t.path().join("gone")));
    }
}
