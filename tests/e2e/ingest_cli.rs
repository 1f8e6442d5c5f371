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
    camera_card(dir)
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

/// `sh -c SCRIPT` in a mount namespace of its own (`unshare -rm`: as any user, the machine's
/// mounts untouched) with darkroom's environment and `vars`; `$DR` is the binary. Its output.
fn with_own_mounts(data: &Path, script: &str, vars: &[(&str, &Path)]) -> std::process::Output {
    let dr = darkroom(data);
    let mut cmd = std::process::Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", script]);
    cmd.env("DR", dr.get_program());
    for (k, v) in dr.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("unshare (util-linux) runs");
    assert!(
        out.status.success(),
        "the script failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A working drive of 200 KiB (a tmpfs) takes the two small JPEGs and fills up on the CR3:
/// the ingest stops with the drive's error naming the file, leaves no file under a final name
/// and no temporary; made larger, the next ingest copies exactly what is missing.
#[test]
fn a_full_drive_stops_the_ingest_cleanly_and_the_next_run_completes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let (work, out) = (dir.path().join("work"), dir.path().join("out"));
    std::fs::create_dir_all(&work).expect("mkdir");
    std::fs::create_dir_all(&out).expect("mkdir");
    let catalog = dir.path().join("catalog.sqlite");
    let ingest = r#"
        "$DR" ingest "$CARD" --to "$WORK" --pattern '{camera}/{job}_{seq:3}' --job wedding \
            --json --catalog "$CATALOG""#
        .trim();
    let script = format!(
        r#"set -u
        mount -t tmpfs -o size=200k tmpfs "$WORK" || exit 1
        {ingest} > "$OUT/first.json" 2> "$OUT/first.err"; echo $? > "$OUT/first.rc"
        (cd "$WORK" && find . -type f | sort) > "$OUT/after-first.txt"
        mount -o remount,size=64m "$WORK"
        {ingest} > "$OUT/second.json" 2> "$OUT/second.err"; echo $? > "$OUT/second.rc"
        cp -a "$WORK/." "$OUT/drive/"
        "#
    );
    std::fs::create_dir_all(out.join("drive")).expect("mkdir");
    with_own_mounts(
        &dir.path().join("data"),
        &script,
        &[
            ("CARD", &card),
            ("WORK", &work),
            ("OUT", &out),
            ("CATALOG", &catalog),
        ],
    );
    let read = |name: &str| std::fs::read_to_string(out.join(name)).expect(name);
    assert_eq!(read("first.rc").trim(), "1", "{}", read("first.err"));
    let first: serde_json::Value = serde_json::from_str(&read("first.json")).expect("json");
    assert_eq!(first["copied_photos"], 2, "{first}");
    let stopped = first["stopped"].as_str().expect("it says why it stopped");
    assert!(
        stopped.starts_with("cannot write into the destination: No space left on device")
            && stopped.contains("wedding_003.CR3"),
        "{stopped}"
    );
    let err = read("first.err");
    assert!(err.contains("run it again to continue"), "{err}");
    assert_eq!(
        read("after-first.txt").lines().collect::<Vec<_>>(),
        [
            "./Canon EOS 300D DIGITAL/wedding_001.JPG",
            "./Canon PowerShot A520/wedding_002.JPG"
        ],
        "nothing half-written, under a final name or a temporary one"
    );

    assert_eq!(read("second.rc").trim(), "0", "{}", read("second.err"));
    let second: serde_json::Value = serde_json::from_str(&read("second.json")).expect("json");
    assert_eq!(second["already_ingested"], 2, "{second}");
    assert_eq!(
        second["copied_files"], 3,
        "the CR3, its JPEG and sidecar: {second}"
    );
    let drive = tree(&out.join("drive"));
    let names: Vec<String> = drive.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(
        names,
        [
            "Canon EOS 300D DIGITAL/wedding_001.JPG",
            "Canon EOS R6/wedding_003.CR3",
            "Canon EOS R6/wedding_003.CR3.xmp",
            "Canon EOS R6/wedding_003.JPG",
            "Canon PowerShot A520/wedding_002.JPG",
        ],
        "the same names as one uninterrupted run"
    );
    let cr3 = std::fs::read(card.join("DCIM/100CANON/IMG_0001.CR3")).expect("card");
    assert_eq!(drive[Path::new("Canon EOS R6/wedding_003.CR3")], cr3);
}

/// `darkroom ingest "$CARD" --to "$WORK" --backup "$BACKUP"…` in a mount-namespace script (no
/// backup where `backup` is false): its JSON to `$OUT/NAME.json`, what it says to
/// `$OUT/NAME.err`, its exit status to `$OUT/NAME.rc`; `&` runs it in the background.
fn ingest_line(name: &str, backup: bool, background: bool) -> String {
    format!(
        r#"("$DR" ingest "$CARD" --to "$WORK" {} --pattern '{{job}}_{{seq:3}}' --job shoot --json --catalog "$CATALOG" > "$OUT/{name}.json" 2> "$OUT/{name}.err"; echo $? > "$OUT/{name}.rc") {}"#,
        if backup { r#"--backup "$BACKUP""# } else { "" },
        if background { "& pid=$!" } else { "" }
    )
}

/// What a mount-namespace script left in `out`: a file's text, and a run's JSON.
struct Left<'a>(&'a Path);

impl Left<'_> {
    fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).expect(name)
    }

    /// Run `name`'s exit status, its JSON and what it said.
    fn run(&self, name: &str) -> (i32, serde_json::Value, String) {
        let rc = self.text(&format!("{name}.rc")).trim().parse().expect("rc");
        let err = self.text(&format!("{name}.err"));
        let json = serde_json::from_str(&self.text(&format!("{name}.json")))
            .unwrap_or_else(|e| panic!("{name}: {e}: {err}"));
        (rc, json, err)
    }
}

/// Every card file of photos `1..=n` (`IMG_NNNN.ext` → `shoot_NNN.ext`) is in `drive` byte
/// for byte, and nothing else is.
fn holds_the_card(drive: &Path, folder: &Path, n: usize, exts: &[&str]) {
    let d = tree(drive);
    let mut want: Vec<String> = Vec::new();
    for k in 1..=n {
        for ext in exts {
            let name = format!("shoot_{k:03}.{ext}");
            let card = std::fs::read(folder.join(format!("IMG_{k:04}.{ext}"))).expect("card");
            assert_eq!(
                d.get(Path::new(&name)),
                Some(&card),
                "{name} whole in {drive:?}"
            );
            want.push(name);
        }
    }
    want.sort();
    let names: Vec<String> = d.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(
        names, want,
        "each file once, nothing else left in {drive:?}"
    );
}

/// A backup of 384 KiB (a tmpfs) takes the first pair's RAW and fills up on its JPEG: the run
/// stops with the backup's error naming that JPEG, the RAW verified on both drives and nothing
/// half-written on either; made larger, the next run puts the JPEG beside its RAW under the
/// same stem and brings in the rest, each file once on each drive.
#[test]
fn a_backup_filling_up_on_the_jpeg_of_a_pair_stops_and_the_next_run_keeps_the_pair_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = noise_card(dir.path(), 0x5DEE_CE66_D1A4_F87B, 3, 256 << 10, 256 << 10);
    let folder = card.join("DCIM/100CANON");
    let (work, backup, out) = (
        dir.path().join("work"),
        dir.path().join("backup"),
        dir.path().join("out"),
    );
    for d in [&backup, &out.join("backup")] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let script = format!(
        r#"set -u
        mount -t tmpfs -o size=384k tmpfs "$BACKUP" || exit 1
        {first}
        (cd "$BACKUP" && find . | sort) > "$OUT/backup-after-first.txt"
        (cd "$WORK" && find . | sort) > "$OUT/work-after-first.txt"
        mount -o remount,size=64m "$BACKUP"
        {second}
        cp -a "$BACKUP/." "$OUT/backup/"
        "#,
        first = ingest_line("first", true, false),
        second = ingest_line("second", true, false),
    );
    with_own_mounts(
        &dir.path().join("data"),
        &script,
        &[
            ("CARD", &card),
            ("WORK", &work),
            ("BACKUP", &backup),
            ("OUT", &out),
            ("CATALOG", &dir.path().join("catalog.sqlite")),
        ],
    );
    let left = Left(&out);
    let (rc, first, err) = left.run("first");
    assert_eq!(rc, 1, "{err}");
    assert_eq!(first["copied_photos"], 0, "{first}");
    assert_eq!(first["copied_files"], 1, "the first RAW: {first}");
    let stopped = first["stopped"].as_str().expect("it says why it stopped");
    assert!(
        stopped.starts_with("cannot write into the destination: No space left on device")
            && stopped.contains(&backup.display().to_string())
            && stopped.contains("shoot_001.JPG"),
        "{stopped}"
    );
    for drive in ["backup", "work"] {
        assert_eq!(
            left.text(&format!("{drive}-after-first.txt"))
                .lines()
                .collect::<Vec<_>>(),
            [".", "./shoot_001.CR3"],
            "on the {drive}: the RAW, nothing half-written, no temporary, no lock"
        );
    }

    let (rc, second, err) = left.run("second");
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        second["resumed"], 3,
        "the first run named them all: {second}"
    );
    assert_eq!(second["copied_files"], 5, "{second}");
    assert_eq!(second["failed"], 0, "{second}");
    holds_the_card(&work, &folder, 3, &["CR3", "JPG"]);
    holds_the_card(&out.join("backup"), &folder, 3, &["CR3", "JPG"]);
}

/// What a test pulls out while the card is copied.
#[derive(Clone, Copy, PartialEq)]
enum Pulled {
    Drive,
    Card,
}

/// A run interrupted by [`pulled_mid_run`], and the one after it.
struct PulledRun {
    /// The card's photos.
    folder: PathBuf,
    /// What was pulled out, as the runs name it (the mount point).
    point: PathBuf,
    /// Where the working drive's copies really are.
    drive: PathBuf,
    out: PathBuf,
}

/// A card of 40 RAW-sized photos ingested to a working drive; once the first photo lands, the
/// drive (or the card) is unmounted under the run (`umount -l` of a bind mount, as a desktop
/// does when a drive or card with open files is ejected or pulled: its path then names the
/// bare mount point); the first run ends; put back, a second run follows. Both runs' results,
/// and what the bare mount point held during and after, are in `out`.
fn pulled_mid_run(dir: &Path, seed: u64, pulled: Pulled) -> PulledRun {
    let card = noise_card(dir, seed, 40, 4 << 20, 0);
    let (point, mounted) = match pulled {
        Pulled::Drive => (dir.join("work"), dir.join("disk")),
        Pulled::Card => (dir.join("reader"), card.clone()),
    };
    let run = PulledRun {
        folder: card.join("DCIM/100CANON"),
        drive: match pulled {
            Pulled::Drive => mounted.clone(),
            Pulled::Card => dir.join("work"),
        },
        point,
        out: dir.join("out"),
    };
    for d in [&run.point, &mounted, &run.drive, &run.out] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let script = format!(
        r#"set -u
        mount --bind "$MOUNTED" "$POINT" || exit 1
        {first}
        until ls "$WORK" | grep -q . || ! kill -0 $pid 2> /dev/null; do sleep 0.002; done
        umount -l "$POINT" || exit 1
        wait $pid
        (cd "$POINT" && find . | sort) > "$OUT/bare.txt"
        (cd "$DRIVE" && find . -type f ! -name '.*' | sort) > "$OUT/landed.txt"
        mount --bind "$MOUNTED" "$POINT" || exit 1
        {second}
        umount "$POINT" || exit 1
        (cd "$POINT" && find . | sort) >> "$OUT/bare.txt"
        "#,
        first = ingest_line("first", false, true),
        second = ingest_line("second", false, false),
    );
    let (card_path, work) = match pulled {
        Pulled::Drive => (card.clone(), run.point.clone()),
        Pulled::Card => (run.point.clone(), run.drive.clone()),
    };
    with_own_mounts(
        &dir.join("data"),
        &script,
        &[
            ("CARD", &card_path),
            ("WORK", &work),
            ("POINT", &run.point),
            ("MOUNTED", &mounted),
            ("DRIVE", &run.drive),
            ("OUT", &run.out),
            ("CATALOG", &dir.join("catalog.sqlite")),
        ],
    );
    run
}

impl PulledRun {
    /// The first run stopped mid-run saying `why`, wrote nothing onto the bare mount point,
    /// and the second brought in every photo, each once; the first run's report.
    fn stopped_then_finished(&self, why: &str) -> serde_json::Value {
        let left = Left(&self.out);
        let (rc, first, err) = left.run("first");
        assert_eq!(rc, 1, "stopped, not finished: {err}");
        assert_eq!(
            first["stopped"],
            format!("{why}: {}", self.point.display()),
            "{first}"
        );
        // The first copy named is what the script waits for, and it may still be uncounted
        // then: the drive gone before its folder is flushed and checked, it is not verified
        // (the next run finds it by its bytes). Some landed on the drive, and not all.
        let copied = first["copied_photos"].as_u64().expect("a count");
        let landed = left.text("landed.txt");
        let landed = landed.lines().count() as u64;
        assert!(
            landed >= 1 && landed >= copied && copied < 40,
            "stopped mid-run: {landed} landed, {first}"
        );
        assert!(landed < 40, "stopped mid-run: {landed} landed");
        assert!(err.contains("run it again to continue"), "{err}");
        assert_eq!(
            left.text("bare.txt").lines().collect::<Vec<_>>(),
            [".", "."],
            "nothing written onto the bare mount point, during the run or after"
        );
        let (rc, second, err) = left.run("second");
        assert_eq!(rc, 0, "{err}");
        assert_eq!(second["failed"], 0, "{second}");
        holds_the_card(&self.drive, &self.folder, 40, &["CR3"]);
        first
    }
}

/// The working drive unmounted while the card is copied: the run stops saying the drive is
/// gone, and writes nothing onto the bare mount point the path names now (a copy there would
/// be "verified" on the system disk, hidden once the drive is back). With the drive mounted
/// again the next run finishes every photo, each once.
#[test]
fn a_drive_unmounted_mid_run_stops_it_and_nothing_lands_on_the_bare_mount_point() {
    let dir = tempfile::tempdir().expect("tempdir");
    pulled_mid_run(dir.path(), 0x7F4A_7C15_9E37_79B9, Pulled::Drive).stopped_then_finished(
        "the drive is no longer there (unmounted, unplugged, or another in its place)",
    );
}

/// The card pulled out while it is copied (the path an empty folder now): the run stops at
/// once saying the card is gone, rather than failing each photo left, and nothing is written
/// into the reader; put back, the next run finishes every photo, each once.
#[test]
fn a_card_pulled_out_mid_run_stops_it_and_the_next_run_finishes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = pulled_mid_run(dir.path(), 0x4F6C_DD1D_2545_F491, Pulled::Card)
        .stopped_then_finished("the card is gone (pulled out or unmounted)");
    assert!(
        first["failed"].as_u64().expect("a count") <= 1,
        "one stop, not a failure a photo: {first}"
    );
}

/// A copy that landed under its final name before the run was killed (recorded nowhere) is
/// recognised as landed by its bytes, not copied again under another name.
#[test]
fn a_copy_that_landed_before_a_kill_is_not_copied_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let work = dir.path().join("work");
    let landed = work.join("Canon EOS 300D DIGITAL/wedding_001.JPG");
    std::fs::create_dir_all(landed.parent().expect("a folder")).expect("mkdir");
    std::fs::copy(card.join("DCIM/101CANON/IMG_0002.JPG"), &landed).expect("copy");
    let out = json(&run_ok(
        darkroom(&dir.path().join("data"))
            .arg("ingest")
            .arg(&card)
            .arg("--to")
            .arg(&work)
            .args([
                "--pattern",
                "{camera}/{job}_{seq:3}",
                "--job",
                "wedding",
                "--json",
                "--catalog",
            ])
            .arg(dir.path().join("catalog.sqlite")),
    ));
    assert_eq!(out["collisions"], 0, "{out}");
    let names: Vec<String> = tree(&work)
        .keys()
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(names.len(), 5, "no wedding_001-2.JPG: {names:?}");
}

/// Another file already under the pattern's name: the plan says so, `--on-collision number`
/// (the default) numbers the photo, `skip` leaves it on the card; the file there is kept.
#[test]
fn a_name_taken_by_another_file_is_numbered_or_left_as_asked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let work = dir.path().join("work");
    let theirs = work.join("Canon EOS 300D DIGITAL/wedding_001.JPG");
    std::fs::create_dir_all(theirs.parent().expect("a folder")).expect("mkdir");
    std::fs::write(&theirs, b"another shoot's frame").expect("write");
    let ingest = |extra: &[&str]| {
        json(&run_ok(
            darkroom(&dir.path().join("data"))
                .arg("ingest")
                .arg(&card)
                .arg("--to")
                .arg(&work)
                .args(["--pattern", "{camera}/{job}_{seq:3}", "--job", "wedding"])
                .args(extra)
                .args(["--json", "--catalog"])
                .arg(dir.path().join("catalog.sqlite")),
        ))
    };
    let plan = ingest(&["--plan"]);
    assert_eq!(plan["collisions"], 1, "{plan}");
    assert_eq!(plan["copied_files"], 0, "a plan copies nothing");
    let first = &plan["items"][0];
    assert_eq!(first["collided"], true);
    assert!(
        first["names"][0]
            .as_str()
            .expect("a name")
            .ends_with("Canon EOS 300D DIGITAL/wedding_001-2.JPG"),
        "{first}"
    );
    assert_eq!(tree(&work).len(), 1, "the plan wrote nothing");

    let skipped = ingest(&["--on-collision", "skip"]);
    assert_eq!(skipped["skipped"], 1, "{skipped}");
    assert_eq!(skipped["copied_photos"], 2);
    assert_eq!(
        std::fs::read(&theirs).expect("kept"),
        b"another shoot's frame"
    );
    let numbered = ingest(&[]);
    assert_eq!(numbered["copied_photos"], 1, "{numbered}");
    assert!(
        work.join("Canon EOS 300D DIGITAL/wedding_001-2.JPG")
            .is_file()
    );
    assert_eq!(
        std::fs::read(&theirs).expect("kept"),
        b"another shoot's frame"
    );
}

/// Culling on the card: the card is mounted read-only, a decision made there is held in the
/// catalog (nothing written to the card), and lands in the working copy's sidecar at ingest,
/// merged with the sidecar that travelled from the card (another tool's words kept).
#[test]
fn decisions_on_a_read_only_card_land_in_the_copies_sidecars() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    std::fs::write(
        card.join("DCIM/100CANON/IMG_0001.CR3.xmp"),
        r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">First kiss</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
"#,
    )
    .expect("sidecar");
    let before = tree(&card);
    let (work, out) = (dir.path().join("work"), dir.path().join("out"));
    std::fs::create_dir_all(&out).expect("mkdir");
    let catalog = dir.path().join("catalog.sqlite");
    let script = r#"set -eu
        mount --bind "$CARD" "$CARD"
        mount -o remount,bind,ro "$CARD"
        if touch "$CARD/DCIM/probe" 2>/dev/null; then echo "the card is writable"; exit 1; fi
        "$DR" decide --pick --stars 4 --label green --catalog "$CATALOG" \
            "$CARD/DCIM/100CANON/IMG_0001.CR3" > "$OUT/decide.json"
        "$DR" decide --reject --catalog "$CATALOG" \
            "$CARD/DCIM/101CANON/IMG_0003.JPG" >> "$OUT/decide.json"
        "$DR" ingest "$CARD" --to "$WORK" --pattern '{job}_{seq:3}' --job wedding \
            --json --catalog "$CATALOG" > "$OUT/ingest.json"
    "#;
    with_own_mounts(
        &dir.path().join("data"),
        script,
        &[
            ("CARD", &card),
            ("WORK", &work),
            ("OUT", &out),
            ("CATALOG", &catalog),
        ],
    );
    let decided = std::fs::read_to_string(out.join("decide.json")).expect("decide");
    for line in decided.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        assert_eq!(v["held"], true, "{v}");
        assert!(v.get("sidecar_error").is_none(), "{v}");
    }
    assert_eq!(tree(&card), before, "nothing written to the card");
    let ingest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("ingest.json")).expect("read"))
            .expect("json");
    assert_eq!(ingest["decisions_carried"], 2, "{ingest}");

    // The R6 (2020) is third in shooting order, the A520 (2005) second.
    let pick = exiftool(
        &["-XMP:Rating", "-XMP:Label", "-XMP:Title"],
        &work.join("wedding_003.CR3.xmp"),
    );
    assert_eq!(pick["Rating"], 4, "{pick}");
    assert_eq!(pick["Label"], "Green", "{pick}");
    assert_eq!(
        pick["Title"], "First kiss",
        "another tool's words kept: {pick}"
    );
    let reject = exiftool(&["-XMP:Rating"], &work.join("wedding_002.JPG.xmp"));
    assert_eq!(reject["Rating"], -1, "{reject}");
}

/// Write a camera's EXIF into a copy of a sample photo, as exiftool does for anyone.
fn frame(to: &Path, model: &str, serial: &str, taken: &str) {
    std::fs::copy(photo("rocket.jpg"), to).expect("copy");
    let made = std::process::Command::new("exiftool")
        .args(["-q", "-overwrite_original"])
        .arg("-Make=Canon")
        .arg(format!("-Model={model}"))
        .arg(format!("-SerialNumber={serial}"))
        .arg(format!("-DateTimeOriginal={taken}"))
        .arg(to)
        .status()
        .expect("exiftool");
    assert!(made.success());
}

/// Two bodies whose clocks are 1 h 3 min apart shoot one moment: two bursts until the second
/// body's clock is corrected from a pair of frames, then one; the correction says so in
/// `clock list`; the copies can carry the corrected time, which exiftool reads, and the index
/// of such a copy does not add the correction twice.
#[test]
fn two_bodies_an_hour_apart_are_one_burst_once_the_clock_is_set_from_a_pair() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = dir.path().join("card/DCIM/100CANON");
    std::fs::create_dir_all(&card).expect("mkdir");
    frame(
        &card.join("A_0001.JPG"),
        "Canon EOS R6",
        "111",
        "2026:06:13 14:00:00",
    );
    frame(
        &card.join("A_0002.JPG"),
        "Canon EOS R6",
        "111",
        "2026:06:13 14:00:01",
    );
    frame(
        &card.join("B_0001.JPG"),
        "Canon EOS R6",
        "222",
        "2026:06:13 12:57:00",
    );
    frame(
        &card.join("B_0002.JPG"),
        "Canon EOS R6",
        "222",
        "2026:06:13 12:57:01",
    );
    let data = dir.path().join("data");
    let catalog = dir.path().join("catalog.sqlite");
    let index = |folder: &Path| {
        run_ok(
            darkroom_on(Rt::Ort, &data)
                .env("DARKROOM_MODELS", models())
                .args(["index", "--json", "--catalog"])
                .arg(&catalog)
                .arg(folder),
        )
    };
    let bursts = || {
        let report = json(&run_ok(
            darkroom_on(Rt::Ort, &data)
                .args(["propose", "--json", "--catalog"])
                .arg(&catalog)
                .arg(&card),
        ));
        let mut by_burst: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in report["results"].as_array().expect("results") {
            let name = Path::new(r["path"].as_str().expect("path"))
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            by_burst
                .entry(r["burst"].to_string())
                .or_default()
                .push(name);
        }
        let mut bursts: Vec<Vec<String>> = by_burst.into_values().collect();
        bursts.sort();
        bursts
    };
    index(&card);
    assert_eq!(
        bursts(),
        [["A_0001.JPG", "A_0002.JPG"], ["B_0001.JPG", "B_0002.JPG"]],
        "an hour apart on their clocks"
    );
    let set = json(&run_ok(
        darkroom(&data)
            .args(["clock", "match", "--json", "--catalog"])
            .arg(&catalog)
            .arg(card.join("A_0001.JPG"))
            .arg(card.join("B_0001.JPG")),
    ));
    assert_eq!(set["body"], "Canon EOS R6 #222", "{set}");
    assert_eq!(set["offset_s"], 3780.0, "{set}");
    assert_eq!(
        bursts(),
        [vec!["A_0001.JPG", "A_0002.JPG", "B_0001.JPG", "B_0002.JPG"]],
        "one moment, one burst"
    );
    let listed = json(&run_ok(
        darkroom(&data)
            .args(["clock", "list", "--json", "--catalog"])
            .arg(&catalog),
    ));
    assert_eq!(
        listed,
        serde_json::json!([
            {"body": "Canon EOS R6 #111", "offset_s": 0.0, "photos": 2},
            {"body": "Canon EOS R6 #222", "offset_s": 3780.0, "photos": 2}
        ])
    );

    // Ingested with the corrected times written into the copies (and named by them).
    let work = dir.path().join("work");
    let ingest = json(&run_ok(
        darkroom(&data)
            .arg("ingest")
            .arg(dir.path().join("card"))
            .arg("--to")
            .arg(&work)
            .args([
                "--pattern",
                "{time}_{name}",
                "--write-times",
                "--json",
                "--catalog",
            ])
            .arg(&catalog),
    ));
    assert_eq!(ingest["times_written"], 2, "{ingest}");
    let copy = work.join("140000_B_0001.JPG");
    assert!(copy.is_file(), "named by the corrected time: {ingest}");
    let read = exiftool(&["-DateTimeOriginal"], &copy);
    assert_eq!(read["DateTimeOriginal"], "2026:06:13 14:00:00", "{read}");
    let source = exiftool(&["-DateTimeOriginal"], &card.join("B_0001.JPG"));
    assert_eq!(
        source["DateTimeOriginal"], "2026:06:13 12:57:00",
        "the card untouched"
    );
    // The corrected copy's new bytes are recorded by their hash.
    let c = darkroom_catalog::Catalog::open(&catalog, darkroom_catalog::SidecarNaming::default())
        .expect("catalog");
    assert_eq!(
        c.shifted_copy(&copy).expect("query"),
        Some(darkroom_library::ingest::copy::hash_of(&copy).expect("hash")),
        "the corrected copy's hash"
    );
    drop(c);
    // Indexed, the corrected copy is not corrected again: the four copies are one burst.
    index(&work);
    let report = json(&run_ok(
        darkroom_on(Rt::Ort, &data)
            .args(["propose", "--json", "--catalog"])
            .arg(&catalog)
            .arg(&work),
    ));
    let bursts: std::collections::BTreeSet<String> = report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["burst"].to_string())
        .collect();
    assert_eq!(bursts.len(), 1, "{report}");
    assert!(!bursts.contains("null"), "{report}");
}

/// Killed with SIGKILL mid-copy (a crash, a pulled plug): nothing half-written under a final
/// name, and the next ingest finishes with the names an uninterrupted run gives, byte for
/// byte, leaving no temporary behind.
#[test]
fn an_ingest_killed_mid_copy_is_finished_by_the_next_one() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().expect("tempdir");
    // Enough bytes that the copy is still going when it is killed: 60 RAW-sized files.
    let card = noise_card(dir.path(), 0x9E37_79B9_7F4A_7C15, 60, 4 << 20, 0);
    let folder = card.join("DCIM/100CANON");
    let (work, backup) = (dir.path().join("work"), dir.path().join("backup"));
    let ingest = || ingest_cmd(dir.path(), &card, &work, &[&backup]);
    let mut first = ingest()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("darkroom starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let landed_names = || {
        std::fs::read_dir(&work).map_or(0, |d| {
            d.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .count()
        })
    };
    // The first photo lands alone (the first batch is one file); the rest come in batches.
    while landed_names() < 1 {
        assert!(std::time::Instant::now() < deadline, "nothing landed");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    first.kill().expect("kill");
    let status = first.wait().expect("wait");
    assert_eq!(
        status.signal(),
        Some(9),
        "killed mid-copy, not finished: {status}"
    );
    let landed = tree(&work);
    assert!(landed_names() < 60, "killed before the end");
    for (name, bytes) in &landed {
        let n = name.to_string_lossy();
        if let Some(seq) = n
            .strip_prefix("shoot_")
            .and_then(|s| s.strip_suffix(".CR3"))
        {
            let k: usize = seq.parse().expect("a number");
            assert_eq!(
                bytes,
                &std::fs::read(folder.join(format!("IMG_{k:04}.CR3"))).expect("card"),
                "{n} is whole"
            );
        }
    }

    let second = json(&run_ok(&mut ingest()));
    assert_eq!(second["failed"], 0, "{second}");
    let (w, b) = (tree(&work), tree(&backup));
    let want: Vec<String> = (1..=60).map(|k| format!("shoot_{k:03}.CR3")).collect();
    let names: Vec<String> = w.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(names, want, "every photo once, no temporary left");
    assert_eq!(w, b, "the backup too");
    for k in 1..=60 {
        assert_eq!(
            w[Path::new(&format!("shoot_{k:03}.CR3"))],
            std::fs::read(folder.join(format!("IMG_{k:04}.CR3"))).expect("card")
        );
    }
}

/// `darkroom … | head`: the reader gone before the command writes. The command ends as any
/// Unix tool does (SIGPIPE), never with a panic about a broken pipe.
#[cfg(unix)]
#[test]
fn a_command_piped_into_a_reader_that_left_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;

    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let mut child = darkroom(&dir.path().join("data"))
        .arg("ingest")
        .arg(&card)
        .arg("--to")
        .arg(dir.path().join("work"))
        .arg("--plan")
        .arg("--catalog")
        .arg(dir.path().join("catalog.sqlite"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn darkroom");
    // The pipe's only reader closes before the plan is printed.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // SIGPIPE's number on Linux (and every Unix DarkRoom is built for).
    const SIGPIPE: i32 = 13;
    assert_eq!(
        out.status.signal(),
        Some(SIGPIPE),
        "{:?}: {stderr}",
        out.status
    );
}

/// `darkroom ingest CARD --to TO [--backup B]…` with its own data dir and catalog.
fn ingest_cmd(dir: &Path, card: &Path, to: &Path, backups: &[&Path]) -> std::process::Command {
    let mut cmd = darkroom(&dir.join("data"));
    cmd.arg("ingest").arg(card).arg("--to").arg(to);
    for b in backups {
        cmd.arg("--backup").arg(b);
    }
    cmd.args([
        "--pattern",
        "{job}_{seq:3}",
        "--job",
        "shoot",
        "--json",
        "--catalog",
    ])
    .arg(dir.join("catalog.sqlite"));
    cmd
}

#[test]
fn one_folder_given_as_two_drives_or_a_drive_on_the_card_is_refused_before_a_byte_is_copied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).expect("mkdir");
    let link = dir.path().join("work-link");
    std::os::unix::fs::symlink(&work, &link).expect("symlink");
    let refused = |to: &Path, backups: &[&Path], says: &str| {
        let msg = run_err(&mut ingest_cmd(dir.path(), &card, to, backups));
        assert!(msg.contains(says), "{msg}");
    };
    // The same folder twice: before, the second run said "verified on 2 drive(s)".
    refused(&work, &[&work], "the same folder is given twice");
    refused(&work, &[&link], "the same folder is given twice");
    refused(
        &work,
        &[&work.join("backup")],
        "one destination is inside the other",
    );
    refused(&card.join("copies"), &[], "the destination is on the card");
    refused(dir.path(), &[], "the card is inside the destination");
    assert!(tree(&work).is_empty(), "nothing copied");
    assert!(!card.join("copies").exists(), "nothing made on the card");
}

#[test]
fn a_second_ingest_into_a_drive_being_written_is_told_who_is_writing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let (work, backup) = (dir.path().join("work"), dir.path().join("backup"));
    // Another ingest (the window, another card reader) holds the backup drive.
    let held = darkroom_library::ingest::roots::lock(&backup, "the window's ingest").expect("held");
    let out = ingest_cmd(dir.path(), &card, &work, &[&backup])
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("another ingest is writing into this folder (the window's ingest)"),
        "{stderr}"
    );
    let lock = Path::new(darkroom_library::ingest::roots::LOCK_NAME);
    assert!(tree(&work).is_empty(), "nothing copied");
    assert!(tree(&backup).keys().all(|k| k == lock), "nothing copied");
    drop(held);
    let done = json(&run_ok(&mut ingest_cmd(
        dir.path(),
        &card,
        &work,
        &[&backup],
    )));
    assert_eq!(done["copied_photos"], 3, "{done}");
    assert_eq!(
        tree(&work),
        tree(&backup),
        "no lock file left among the photos"
    );
}

#[test]
fn two_ingests_of_one_card_into_one_drive_at_once_end_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = card(dir.path());
    let work = dir.path().join("work");
    // Both started together: one writes, the other is refused (or, started after the first
    // ended, finds everything ingested). Never a false drive error, never a half copy.
    let runs: Vec<std::process::Child> = (0..2)
        .map(|_| {
            ingest_cmd(dir.path(), &card, &work, &[])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outs: Vec<std::process::Output> = runs
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    for out in &outs {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() || stderr.contains("another ingest is writing into this folder"),
            "{stderr}"
        );
        assert!(!stderr.contains("cannot name the copy"), "{stderr}");
        assert!(!stderr.contains("cannot read the copy back"), "{stderr}");
    }
    let copies = tree(&work);
    assert_eq!(copies.len(), 5, "each file once: {:?}", copies.keys());
    let again = json(&run_ok(&mut ingest_cmd(dir.path(), &card, &work, &[])));
    assert_eq!(again["copied_files"], 0, "{again}");
}

#[test]
fn a_card_shot_again_never_takes_the_decision_held_for_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = dir.path().join("card");
    let frame = card.join("DCIM/100CANON/IMG_0001.JPG");
    std::fs::create_dir_all(frame.parent().expect("a folder")).expect("mkdir");
    std::fs::copy(photo("rocket.jpg"), &frame).expect("the first shot");
    let catalog = dir.path().join("catalog.sqlite");
    let decide = |args: &[&str]| {
        json(&run_ok(
            darkroom(&dir.path().join("data"))
                .arg("decide")
                .args(args)
                .arg("--catalog")
                .arg(&catalog)
                .arg(&frame),
        ))
    };
    let held = decide(&["--reject"]);
    assert_eq!(held["held"], true, "{held}");
    // Formatted and shot again before any ingest: another photo at the same path.
    std::fs::remove_file(&frame).expect("format");
    std::fs::copy(photo("grace_hopper.jpg"), &frame).expect("the next shoot");
    let touched = std::fs::File::options()
        .write(true)
        .open(&frame)
        .expect("open");
    touched
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .expect("a later time");
    drop(touched);
    // Writing the held decisions to the card puts none beside the new photo.
    let flushed = decide(&["--write-to-card", "--stars", "0"]);
    assert_eq!(flushed["decision"]["flag"], "unflagged", "{flushed}");
    assert!(
        darkroom_library::sidecars::of(&frame).is_empty()
            || exiftool(&["-XMP:Rating"], &frame.with_extension("JPG.xmp"))["Rating"] != -1,
        "no stale reject beside the new photo"
    );
    let work = dir.path().join("work");
    let out = json(&run_ok(&mut ingest_cmd(dir.path(), &card, &work, &[])));
    assert_eq!(out["copied_photos"], 1, "{out}");
    assert_eq!(
        out["decisions_carried"], 0,
        "the first shot's reject stays with it: {out}"
    );
    let copy = work.join("shoot_001.JPG.xmp");
    assert!(
        !copy.exists() || exiftool(&["-XMP:Rating"], &copy)["Rating"] != -1,
        "the new photo's copy is not rejected"
    );
}

#[test]
fn a_run_killed_between_a_raw_and_its_jpeg_is_finished_under_the_names_it_gave() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().expect("tempdir");
    // 30 RAW+JPEG pairs, the RAWs big enough that the run is still going when it is killed.
    let card = noise_card(dir.path(), 0x2545_F491_4F6C_DD1D, 30, 4 << 20, 4096);
    let folder = card.join("DCIM/100CANON");
    // Another program's files hold every JPEG name the pattern gives: every pair is `-2`.
    let (work, backup) = (dir.path().join("work"), dir.path().join("backup"));
    std::fs::create_dir_all(&work).expect("mkdir");
    for k in 1..=30 {
        std::fs::write(work.join(format!("shoot_{k:03}.JPG")), b"not ours").expect("theirs");
    }
    let ingest = || ingest_cmd(dir.path(), &card, &work, &[&backup]);
    let mut first = ingest()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("darkroom starts");
    let ours = || {
        std::fs::read_dir(&work).map_or(0, |d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().contains("-2."))
                .count()
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while ours() < 1 {
        assert!(std::time::Instant::now() < deadline, "nothing landed");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    first.kill().expect("kill");
    let status = first.wait().expect("wait");
    assert_eq!(status.signal(), Some(9), "killed mid-run: {status}");
    assert!(ours() < 60, "killed before the end");
    // The other program's files go: the pattern's own names are free now, and a guess from
    // what lies on the drive would give them. The journal keeps the names given.
    for k in 1..=30 {
        std::fs::remove_file(work.join(format!("shoot_{k:03}.JPG"))).expect("rm");
    }
    let second = json(&run_ok(&mut ingest()));
    assert_eq!(second["failed"], 0, "{second}");
    assert!(
        second["resumed"].as_u64().is_some_and(|n| n > 0),
        "it says what it resumed: {second}"
    );
    let (w, b) = (tree(&work), tree(&backup));
    let mut want: Vec<String> = Vec::new();
    for k in 1..=30 {
        want.push(format!("shoot_{k:03}-2.CR3"));
        want.push(format!("shoot_{k:03}-2.JPG"));
    }
    want.sort();
    let names: Vec<String> = w.keys().map(|p| p.display().to_string()).collect();
    assert_eq!(names, want, "each pair on its one stem, each file once");
    assert_eq!(w, b, "the backup too");
    for k in 1..=30 {
        for ext in ["CR3", "JPG"] {
            assert_eq!(
                w[Path::new(&format!("shoot_{k:03}-2.{ext}"))],
                std::fs::read(folder.join(format!("IMG_{k:04}.{ext}"))).expect("card"),
                "shoot_{k:03}-2.{ext} is whole"
            );
        }
    }
}

#[test]
fn ctrl_c_stops_the_ingest_at_a_files_end_and_the_next_finishes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let card = noise_card(dir.path(), 0x9E37_79B9_7F4A_7C15, 40, 4 << 20, 0);
    let folder = card.join("DCIM/100CANON");
    let work = dir.path().join("work");
    let ingest = || {
        let mut cmd = ingest_cmd(dir.path(), &card, &work, &[]);
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd
    };
    let first = ingest().spawn().expect("darkroom starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let landed = || {
        std::fs::read_dir(&work).map_or(0, |d| {
            d.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .count()
        })
    };
    while landed() < 1 {
        assert!(std::time::Instant::now() < deadline, "nothing landed");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &first.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let out = first.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Either it stopped at a file's end, or the copy had just finished when it was asked.
    if out.status.code() == Some(130) {
        assert!(
            stderr.contains("the next ingest will finish them"),
            "{stderr}"
        );
    } else {
        assert!(out.status.success(), "{stderr}");
    }
    let names: Vec<String> = tree(&work)
        .keys()
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("shoot_") && n.ends_with(".CR3")),
        "no temporary and no lock left behind: {names:?}"
    );
    let second = json(&run_ok(&mut ingest()));
    assert_eq!(second["failed"], 0, "{second}");
    let w = tree(&work);
    assert_eq!(w.len(), 40, "every photo once");
    for k in 1..=40 {
        assert_eq!(
            w[Path::new(&format!("shoot_{k:03}.CR3"))],
            std::fs::read(folder.join(format!("IMG_{k:04}.CR3"))).expect("card"),
            "shoot_{k:03}.CR3 whole"
        );
    }
}

/// The crash sweep: a 300-photo card (RAW+JPEG pairs, some with sidecars, one name taken on
/// the working drive so its pair is `-2`, decisions held for ten photos) to two drives, killed
/// with SIGKILL at up to 20 points spread over the run and resumed each time. At the end every
/// card file is on both drives exactly once, byte for byte, under its planned name; no
/// temporary or lock is left; the catalog records every file where it is; every held decision
/// is in its copy's sidecar, and none is held any more.
#[test]
fn killed_twenty_times_and_resumed_each_card_file_lands_once_where_planned() {
    use std::os::unix::process::ExitStatusExt;
    const PHOTOS: usize = 300;
    let dir = tempfile::tempdir().expect("tempdir");
    let card = dir.path().join("card");
    let folder = card.join("DCIM/100CANON");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let mut noise = Noise::new(0x1234_5678_9ABC_DEF1);
    let mut noise = |n: usize| noise.bytes(n);
    let titled = |k: usize| k.is_multiple_of(7);
    for k in 1..=PHOTOS {
        std::fs::write(folder.join(format!("IMG_{k:04}.CR3")), noise(256 << 10)).expect("raw");
        std::fs::write(folder.join(format!("IMG_{k:04}.JPG")), noise(32 << 10)).expect("jpeg");
        if titled(k) {
            std::fs::write(
                folder.join(format!("IMG_{k:04}.CR3.xmp")),
                format!(
                    r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Frame {k}</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>
"#
                ),
            )
            .expect("sidecar");
        }
    }
    let (work, backup) = (dir.path().join("work"), dir.path().join("backup"));
    std::fs::create_dir_all(&work).expect("mkdir");
    std::fs::write(work.join("shoot_005.JPG"), b"another program's file").expect("theirs");
    let catalog = dir.path().join("catalog.sqlite");
    // Ten photos rejected on the card: held in the catalog, for their copies.
    let held: Vec<usize> = (1..=10).map(|i| i * 29).collect();
    let mut decide = darkroom(&dir.path().join("data"))
        .args(["decide", "--stdin", "--catalog"])
        .arg(&catalog)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("decide");
    {
        let mut stdin = decide.stdin.take().expect("stdin");
        for k in &held {
            let line = serde_json::json!({
                "path": folder.join(format!("IMG_{k:04}.CR3")),
                "flag": "reject",
            });
            std::io::Write::write_all(&mut stdin, format!("{line}\n").as_bytes()).expect("line");
        }
    }
    assert!(decide.wait().expect("decide").success());

    let ingest = || ingest_cmd(dir.path(), &card, &work, &[&backup]);
    let ours = |d: &Path| {
        std::fs::read_dir(d).map_or(0, |e| {
            e.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("shoot_"))
                .count()
        })
    };
    let total = 2 * PHOTOS + (1..=PHOTOS).filter(|&k| titled(k)).count();
    let mut kills = 0;
    for point in 1..=20 {
        let target = 1 + total * point / 21;
        let mut run = ingest()
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("darkroom starts");
        let finished = loop {
            if let Some(status) = run.try_wait().expect("wait") {
                break Some(status);
            }
            if ours(&work) >= target {
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        match finished {
            Some(status) => assert!(status.success(), "a run ended on its own: {status}"),
            None => {
                run.kill().expect("kill");
                let status = run.wait().expect("wait");
                if status.signal() == Some(9) {
                    kills += 1;
                }
            }
        }
        if finished.is_some() {
            break;
        }
    }
    assert!(
        kills >= 5,
        "killed mid-run at several points, not only at the end: {kills}"
    );
    let last = json(&run_ok(&mut ingest()));
    assert_eq!(last["failed"], 0, "{last}");

    let (w, b) = (tree(&work), tree(&backup));
    for (name, _) in w.iter().chain(&b) {
        let n = name.to_string_lossy();
        assert!(!n.starts_with('.'), "nothing but photos left: {n}");
    }
    let c = darkroom_catalog::Catalog::open(&catalog, darkroom_catalog::SidecarNaming::default())
        .expect("catalog");
    for k in 1..=PHOTOS {
        let stem = if k == 5 {
            "shoot_005-2".to_owned()
        } else {
            format!("shoot_{k:03}")
        };
        let mut members = vec!["CR3", "JPG"];
        if titled(k) {
            members.push("CR3.xmp");
        }
        for ext in members {
            let from_card = std::fs::read(folder.join(format!("IMG_{k:04}.{ext}"))).expect("card");
            let name = PathBuf::from(format!("{stem}.{ext}"));
            assert_eq!(b.get(&name), Some(&from_card), "backup {}", name.display());
            if ext != "CR3.xmp" || !held.contains(&k) {
                assert_eq!(w.get(&name), Some(&from_card), "work {}", name.display());
            }
            if ext != "CR3.xmp" {
                let sha = darkroom_library::ingest::copy::hash_of(
                    &folder.join(format!("IMG_{k:04}.{ext}")),
                )
                .expect("hash");
                let recorded = c
                    .ingested(&sha, from_card.len() as u64)
                    .expect("query")
                    .expect("recorded");
                assert_eq!(
                    recorded.dest,
                    work.join(&name),
                    "the catalog says where it is"
                );
            }
        }
    }
    // Each file once: the card's files, the other program's, and the carried decisions'
    // sidecars, nothing more.
    let carried_new = held.iter().filter(|&&k| !titled(k)).count();
    assert_eq!(w.len(), total + 1 + carried_new, "{:?}", w.keys());
    assert_eq!(b.len(), total);
    for k in &held {
        let tags = exiftool(
            &["-XMP:Rating", "-XMP:Title"],
            &work.join(format!("shoot_{k:03}.CR3.xmp")),
        );
        assert_eq!(tags["Rating"], -1, "shoot_{k:03}: {tags}");
        if titled(*k) {
            assert_eq!(tags["Title"], format!("Frame {k}"), "{tags}");
        }
    }
    assert_eq!(
        c.held_count().expect("count"),
        0,
        "every held decision carried"
    );
}
