//! `darkroom ingest` (issue 27, begun) on a card built from real camera files (exiv2's test
//! data: a Canon EOS R6 CR3 with a JPEG twin and a sidecar, two more cameras' JPEGs, two DCIM
//! folders and a MISC folder): copied to a working drive and a backup byte for byte under the
//! pattern, the pair and its sidecar under one stem, the card untouched; a second ingest, and
//! one after a copy was renamed, copy nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::*;

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("under").to_path_buf();
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn card(dir: &Path) -> PathBuf {
    let exiv2 = assets().join("exiv2/test-data");
    let card = dir.join("card");
    let put = |from: &str, to: &str| {
        let to = card.join(to);
        std::fs::create_dir_all(to.parent().expect("a folder")).expect("mkdir");
        std::fs::copy(exiv2.join(from), &to).expect("copy");
    };
    put("Canon-R6-pruned.CR3", "DCIM/100CANON/IMG_0001.CR3");
    put("exiv2-canon-eos-20d.jpg", "DCIM/100CANON/IMG_0001.JPG");
    put("exiv2-canon-eos-300d.jpg", "DCIM/101CANON/IMG_0002.JPG");
    put(
        "exiv2-canon-powershot-a520.jpg",
        "DCIM/101CANON/IMG_0003.JPG",
    );
    std::fs::write(
        card.join("DCIM/100CANON/IMG_0001.CR3.xmp"),
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>\n",
    )
    .expect("sidecar");
    std::fs::create_dir_all(card.join("MISC")).expect("mkdir");
    std::fs::write(card.join("MISC/AUTPRINT.MRK"), "[HDR]\n").expect("misc");
    card
}

#[test]
fn a_card_reaches_two_drives_verified_and_a_second_ingest_copies_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let before = tree(&card);
    let (work, backup) = (dir.path().join("work"), dir.path().join("backup"));
    let ingest = || {
        json(&run_ok(
            darkroom(&dir.path().join("data"))
                .arg("ingest")
                .arg(&card)
                .arg("--to")
                .arg(&work)
                .arg("--backup")
                .arg(&backup)
                .args([
                    "--pattern",
                    "{camera}/{job}_{seq:3}",
                    "--job",
                    "wedding",
                    "--json",
                    "--catalog",
                ])
                .arg(dir.path().join("catalog.sqlite")),
        ))
    };
    let report = ingest();
    assert_eq!(report["photos"], 3, "{report}");
    assert_eq!(report["copied_photos"], 3, "{report}");
    assert_eq!(
        report["copied_files"], 5,
        "the pair, its sidecar and two JPEGs: {report}"
    );
    assert_eq!(report["failed"], 0);

    let (w, b) = (tree(&work), tree(&backup));
    assert_eq!(
        w, b,
        "the backup is the working drive's copy, name for name"
    );
    // Every file of the card but MISC's is on the drive byte for byte.
    let mut sources: Vec<&Vec<u8>> = before
        .iter()
        .filter(|(p, _)| p.starts_with("DCIM"))
        .map(|(_, bytes)| bytes)
        .collect();
    let mut copies: Vec<&Vec<u8>> = w.values().collect();
    sources.sort();
    copies.sort();
    assert_eq!(sources, copies);
    // The pair and its sidecar under one stem, each camera's folder, numbered in shooting
    // order (the 300D in 2003, the A520 in 2005, the R6 in 2020).
    let names: Vec<String> = w.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(
        names,
        [
            "Canon EOS 300D DIGITAL/wedding_001.JPG",
            "Canon EOS R6/wedding_003.CR3",
            "Canon EOS R6/wedding_003.CR3.xmp",
            "Canon EOS R6/wedding_003.JPG",
            "Canon PowerShot A520/wedding_002.JPG",
        ]
    );
    assert_eq!(tree(&card), before, "nothing written to the card");

    let again = ingest();
    assert_eq!(again["copied_files"], 0, "{again}");
    assert_eq!(again["already_ingested"], 3);

    // A copy renamed on the drive is still the same photo.
    let first = work.join("Canon EOS R6/wedding_003.CR3");
    std::fs::rename(&first, work.join("renamed.CR3")).expect("rename");
    let after_rename = ingest();
    assert_eq!(after_rename["copied_files"], 0, "{after_rename}");
}

#[test]
fn a_wrong_pattern_is_refused_before_anything_is_copied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let msg = run_err(
        darkroom(&dir.path().join("data"))
            .arg("ingest")
            .arg(&card)
            .arg("--to")
            .arg(dir.path().join("work"))
            .args(["--pattern", "{date}/{shutter}", "--catalog"])
            .arg(dir.path().join("catalog.sqlite")),
    );
    assert!(msg.contains("unknown token {shutter}"), "{msg}");
    assert!(!dir.path().join("work").exists());
}
