//! `darkroom export --picks DEST FOLDER`: the picks of a real shoot (a real Canon R6 CR3 with
//! its JPEG twin, sidecars written by DarkRoom and by exiftool) handed to another folder, byte
//! for byte, with a list; nothing overwritten unasked; a missing destination said plainly.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::*;

/// IMG_0001.CR3 + IMG_0001.JPG (one item), IMG_0002.jpg, IMG_0003.jpg.
fn shoot(dir: &Path) -> PathBuf {
    let folder = dir.join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let cr3 = assets().join("exiv2/test-data/Canon-R6-pruned.CR3");
    assert!(cr3.is_file(), "run scripts/fetch-assets: {}", cr3.display());
    std::fs::copy(&cr3, folder.join("IMG_0001.CR3")).expect("copy");
    std::fs::copy(photo("grace_hopper.jpg"), folder.join("IMG_0001.JPG")).expect("copy");
    std::fs::copy(photo("rocket.jpg"), folder.join("IMG_0002.jpg")).expect("copy");
    std::fs::copy(photo("grace_hopper.jpg"), folder.join("IMG_0003.jpg")).expect("copy");
    folder
}

fn export(data: &Path, args: &[&str], dest: &Path, folder: &Path) -> std::process::Output {
    darkroom(data)
        .arg("export")
        .args(args)
        .arg(dest)
        .arg(folder)
        .output()
        .expect("darkroom runs")
}

#[test]
fn the_picks_with_their_twin_and_sidecars_are_copied_byte_for_byte_and_never_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let folder = shoot(dir.path());
    // The pair is picked as the window picks it (both files' sidecars); IMG_0003's sidecar
    // was made by another tool (exiftool) before DarkRoom picked it: its tags travel too.
    run_ok(
        darkroom(&data)
            .args(["decide", "--pick"])
            .arg(folder.join("IMG_0001.CR3"))
            .arg(folder.join("IMG_0001.JPG")),
    );
    let made = Command::new("exiftool")
        .args(["-q", "-XMP:Rating=5", "-XMP-dc:Title=Keeper"])
        .arg("-o")
        .arg(folder.join("IMG_0003.jpg.xmp"))
        .arg(folder.join("IMG_0003.jpg"))
        .status()
        .expect("exiftool");
    assert!(made.success());
    run_ok(
        darkroom(&data)
            .args(["decide", "--pick"])
            .arg(folder.join("IMG_0003.jpg")),
    );

    let dest = dir.path().join("to-darktable");
    let out = export(&data, &["--picks"], &dest, &folder);
    assert!(!out.status.success(), "no such folder yet");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the destination folder does not exist") && err.contains("to-darktable"),
        "{err}"
    );

    std::fs::create_dir(&dest).expect("mkdir");
    let out = run_ok(
        darkroom(&data)
            .arg("export")
            .arg("--picks")
            .arg(&dest)
            .arg(&folder),
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("2 picks: 6 files copied"), "{said}");
    for name in [
        "IMG_0001.CR3",
        "IMG_0001.CR3.xmp",
        "IMG_0001.JPG",
        "IMG_0001.JPG.xmp",
        "IMG_0003.jpg",
        "IMG_0003.jpg.xmp",
    ] {
        assert_eq!(
            std::fs::read(dest.join(name)).expect("copied"),
            std::fs::read(folder.join(name)).expect("original"),
            "{name}"
        );
    }
    assert!(!dest.join("IMG_0002.jpg").exists(), "not a pick");
    let tags = exiftool(
        &["-XMP:Rating", "-XMP:Title"],
        &dest.join("IMG_0003.jpg.xmp"),
    );
    assert_eq!(
        tags["Title"], "Keeper",
        "the other tool's tags travel: {tags:#}"
    );
    let list = std::fs::read_to_string(dest.join("darkroom-export.txt")).expect("list");
    assert!(list.contains("IMG_0001.CR3\tIMG_0001.CR3"), "{list}");

    // Again: every file is there; refused, and nothing is touched.
    std::fs::write(dest.join("IMG_0003.jpg"), b"edited in darktable").expect("write");
    let out = export(&data, &["--picks"], &dest, &folder);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already exist in the destination"), "{err}");
    assert_eq!(
        std::fs::read(dest.join("IMG_0003.jpg")).expect("read"),
        b"edited in darktable"
    );
    assert!(!dest.join("darkroom-export-2.txt").exists());
    let out = run_ok(
        darkroom(&data)
            .args(["export", "--picks", "--skip-existing"])
            .arg(&dest)
            .arg(&folder),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("0 files copied, 6 already there"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        std::fs::read(dest.join("IMG_0003.jpg")).expect("read"),
        b"edited in darktable"
    );
}
