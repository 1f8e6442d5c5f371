//! A drive's folder held open while a run writes into it. Every folder and temporary the run
//! makes on the drive is made through the open folder, never by its path: a drive unmounted
//! mid-run (`umount -l`, a desktop's eject with files open) leaves its path naming the bare
//! mount point on the system disk, and a copy made by path would land there, "verified", to be
//! hidden once the drive is back. Through the open folder it lands on the drive or nowhere.
//! Windows has no such lazy unmount (a volume with open files is not let go), so there the
//! folder is only its path.

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

#[derive(Debug)]
pub struct HeldFolder {
    path: PathBuf,
    #[cfg(unix)]
    dir: File,
}

impl HeldFolder {
    /// Open the folder at `path` (which must exist) and hold it.
    pub fn open(path: &Path) -> io::Result<HeldFolder> {
        #[cfg(unix)]
        {
            use rustix::fs::{CWD, Mode, OFlags, openat};
            let dir = openat(
                CWD,
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(HeldFolder {
                path: path.to_path_buf(),
                dir: File::from(dir),
            })
        }
        #[cfg(not(unix))]
        {
            if !path.is_dir() {
                return Err(io::Error::new(io::ErrorKind::NotFound, "no folder there"));
            }
            Ok(HeldFolder {
                path: path.to_path_buf(),
            })
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open folder itself (its identity is checked against its path's when locked).
    #[cfg(unix)]
    pub(super) fn file(&self) -> &File {
        &self.dir
    }

    /// Create the file at `path`, below this folder, for writing and reading back: never an
    /// existing file or link, and the folders on the way made where missing, each flushed into
    /// its parent. A folder on the way that is a link is refused, not followed: a link planted
    /// in a drive must not send a copy anywhere else.
    pub fn create_new(&self, path: &Path) -> io::Result<File> {
        let rel = path.strip_prefix(&self.path).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is not inside the drive's folder",
            )
        })?;
        let mut names = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(name) => names.push(name),
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "its name leaves the drive's folder",
                    ));
                }
            }
        }
        let Some(name) = names.pop() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "it names the drive's folder itself",
            ));
        };
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags, mkdirat, openat};
            use rustix::io::Errno;
            let mut here: Option<File> = None;
            for folder in names {
                let at = here.as_ref().unwrap_or(&self.dir);
                match mkdirat(at, folder, Mode::RWXU | Mode::RWXG | Mode::RWXO) {
                    Ok(()) => at.sync_all()?,
                    Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                let next = openat(
                    at,
                    folder,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| match e {
                    Errno::LOOP | Errno::NOTDIR => io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "{} is a link or a file, not a folder",
                            Path::new(folder).display()
                        ),
                    ),
                    e => e.into(),
                })?;
                here = Some(File::from(next));
            }
            let at = here.as_ref().unwrap_or(&self.dir);
            let file = openat(
                at,
                name,
                OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::RUSR | Mode::WUSR | Mode::RGRP | Mode::WGRP | Mode::ROTH | Mode::WOTH,
            )?;
            Ok(File::from(file))
        }
        #[cfg(not(unix))]
        {
            let _ = name;
            crate::durable::create_new_with_folders(path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_is_made_below_with_its_folders_and_never_twice() {
        let t = tempfile::tempdir().expect("tempdir");
        let held = HeldFolder::open(t.path()).expect("held");
        let path = t.path().join("a/b/c.jpg");
        held.create_new(&path)
            .and_then(|mut f| f.write_all(b"photo"))
            .expect("made");
        assert_eq!(std::fs::read(&path).expect("read"), b"photo");
        assert_eq!(
            held.create_new(&path).expect_err("taken").kind(),
            io::ErrorKind::AlreadyExists
        );
        for outside in [
            t.path().join("../x.jpg"),
            std::env::temp_dir().join("x.jpg"),
        ] {
            assert_eq!(
                held.create_new(&outside).expect_err("outside").kind(),
                io::ErrorKind::InvalidInput,
                "{}",
                outside.display()
            );
        }
    }

    /// The folder's path renamed away and another folder put in its place (a drive unmounted
    /// and the bare mount point left): what is made lands in the folder held, not the new one.
    #[cfg(unix)]
    #[test]
    fn what_is_made_lands_in_the_folder_held_not_in_what_its_path_names_now() {
        let t = tempfile::tempdir().expect("tempdir");
        let drive = t.path().join("drive");
        std::fs::create_dir(&drive).expect("mkdir");
        let held = HeldFolder::open(&drive).expect("held");
        let away = t.path().join("away");
        std::fs::rename(&drive, &away).expect("renamed");
        std::fs::create_dir(&drive).expect("the bare mount point");
        held.create_new(&drive.join("Canon/IMG_1.CR3"))
            .expect("made");
        assert!(away.join("Canon/IMG_1.CR3").is_file());
        assert_eq!(std::fs::read_dir(&drive).expect("read").count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_as_a_folder_is_refused_not_followed() {
        let t = tempfile::tempdir().expect("tempdir");
        let drive = t.path().join("drive");
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir(&drive).expect("mkdir");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::os::unix::fs::symlink(&elsewhere, drive.join("Canon")).expect("link");
        let held = HeldFolder::open(&drive).expect("held");
        let e = held
            .create_new(&drive.join("Canon/IMG_1.CR3"))
            .expect_err("refused");
        assert!(e.to_string().contains("is a link or a file"), "{e}");
        assert_eq!(std::fs::read_dir(&elsewhere).expect("read").count(), 0);
        std::os::unix::fs::symlink(elsewhere.join("planted"), drive.join("IMG_2.CR3"))
            .expect("link");
        assert_eq!(
            held.create_new(&drive.join("IMG_2.CR3"))
                .expect_err("a link's name is taken")
                .kind(),
            io::ErrorKind::AlreadyExists
        );
        assert!(!elsewhere.join("planted").exists());
    }
}
