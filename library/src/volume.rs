//! What kind of file system a path is on, where that changes how a file may be used: SQLite's
//! write-ahead log needs memory shared between every process that opens the database, which a
//! network file system (NFS, SMB) cannot give, so a catalog there must not use it; a FUSE file
//! system may be anything, a network one included.

use std::path::Path;

/// The kind of network (or possibly network) file system `path` is on, by name; None on a
/// local disk, or where it cannot be told.
pub fn remote_kind(path: &Path) -> Option<&'static str> {
    #[cfg(target_os = "linux")]
    {
        // The nearest folder that exists: a catalog about to be made is on its folder's.
        let existing = path.ancestors().find(|a| a.exists())?;
        let fs = rustix::fs::statfs(existing).ok()?;
        // Its type differs between architectures (i64 here, u32 or i32 elsewhere).
        #[allow(clippy::useless_conversion)]
        kind_of_magic(i64::from(fs.f_type))
    }
    #[cfg(windows)]
    {
        // A share named by its UNC path (\\server\share, \\?\UNC\server\share). A share
        // mapped to a drive letter is not told apart without the Windows API.
        let s = path.as_os_str().to_string_lossy();
        (s.starts_with(r"\\?\UNC\") || (s.starts_with(r"\\") && !s.starts_with(r"\\?\")))
            .then_some("a Windows share (SMB)")
    }
    #[cfg(not(any(target_os = "linux", windows)))]
    {
        let _ = path;
        None
    }
}

/// Linux's file system magic numbers (`statfs(2)`) of the network and FUSE file systems.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn kind_of_magic(magic: i64) -> Option<&'static str> {
    // Compared as unsigned 32-bit: f_type is signed on some architectures.
    Some(match magic as u32 {
        0x6969 => "NFS",
        0x517B => "SMB",
        0xFF53_4D42 => "SMB (CIFS)",
        0xFE53_4D42 => "SMB 2",
        0x0102_1997 => "9P",
        0x00C3_6400 => "Ceph",
        0x6B41_4653 => "AFS",
        0x5346_414F => "OpenAFS",
        0x0BD0_0BD0 => "Lustre",
        0x4750_4653 => "GPFS",
        0x6573_5546 => "FUSE (which may be a network file system)",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_and_fuse_magics_are_named_and_local_ones_are_not() {
        assert_eq!(kind_of_magic(0x6969), Some("NFS"));
        assert_eq!(
            kind_of_magic(0xFF53_4D42u32 as i32 as i64),
            Some("SMB (CIFS)")
        );
        assert!(kind_of_magic(0x6573_5546).is_some_and(|k| k.starts_with("FUSE")));
        // ext4, tmpfs, btrfs, xfs.
        for local in [0xEF53, 0x0102_1994, 0x9123_683E, 0x5846_5342] {
            assert_eq!(kind_of_magic(local), None, "{local:#x}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_temporary_folder_is_local() {
        let t = tempfile::tempdir().expect("tempdir");
        assert_eq!(remote_kind(&t.path().join("not/yet/catalog.sqlite")), None);
    }
}
