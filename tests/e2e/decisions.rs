//! Decisions never lost: `darkroom decide` against a real SQLite catalog and real sidecars,
//! read back by exiftool (a reader nobody here wrote), merged into sidecars exiftool wrote,
//! and a writer killed with SIGKILL mid-stream.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::*;
use darkroom_catalog::{Catalog, Decision, Flag, SidecarNaming};
use serde_json::Value;

/// A folder of real photos to decide on.
fn photos(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let p = dir.join(format!("IMG_{i:04}.jpg"));
            std::fs::copy(photo("grace_hopper.jpg"), &p).expect("copy photo");
            p
        })
        .collect()
}

fn decide(data: &Path, args: &[&str], photos: &[&Path]) -> std::process::Output {
    darkroom(data)
        .arg("decide")
        .args(args)
        .args(photos)
        .output()
        .expect("darkroom runs")
}

/// `decide`, which must succeed: its JSON report.
fn decided(data: &Path, args: &[&str], photos: &[&Path]) -> Value {
    let out = decide(data, args, photos);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn exiftool_reads_our_rating_and_label() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 2);
    let out = decide(data.path(), &["--stars", "3", "--label", "red"], &[&p[0]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tags = exiftool(
        &["-XMP:Rating", "-XMP:Label"],
        &data.path().join("IMG_0000.jpg.xmp"),
    );
    assert_eq!(tags["Rating"], 3, "{tags:#}");
    assert_eq!(tags["Label"], "Red");

    let out = decide(
        data.path(),
        &["--reject", "--sidecar", "replace-extension"],
        &[&p[1]],
    );
    assert!(out.status.success());
    let tags = exiftool(&["-XMP:Rating"], &data.path().join("IMG_0001.xmp"));
    assert_eq!(tags["Rating"], -1, "a reject is rating -1: {tags:#}");
}

#[test]
fn a_sidecar_exiftool_wrote_keeps_its_tags_and_lends_its_rating() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 1);
    let sidecar = data.path().join("IMG_0000.jpg.xmp");
    let made = Command::new("exiftool")
        .args([
            "-q",
            "-XMP-dc:Title=Grace Hopper at the console",
            "-XMP-dc:Subject=computing",
            "-XMP-dc:Subject=history",
            "-XMP-photoshop:Credit=U.S. Navy",
            "-XMP:Rating=4",
            "-XMP:Label=Blue",
        ])
        .arg(&sidecar)
        .status()
        .expect("exiftool");
    assert!(made.success());
    let before = exiftool(&["-XMP:all"], &sidecar);

    // Import reads the 4 stars and the blue label; the pick is added to them.
    let report = decided(data.path(), &["--pick"], &[&p[0]]);
    assert_eq!(report["decision"]["stars"], 4, "{report:#}");
    assert_eq!(report["decision"]["flag"], "pick");

    let out = decide(data.path(), &["--stars", "2", "--label", "none"], &[&p[0]]);
    assert!(out.status.success());
    let after = exiftool(&["-XMP:all"], &sidecar);
    assert_eq!(after["Rating"], 2, "{after:#}");
    assert_eq!(after.get("Label"), None, "{after:#}");
    for tag in ["Title", "Subject", "Credit"] {
        assert_eq!(after[tag], before[tag], "{tag} changed: {after:#}");
    }
}

/// One cull, read by each tool's own words (docs/XMP-INTEROP.md) through exiftool: digiKam's
/// pick label and colour label, Photo Mechanic's tag, the rating and label Lightroom, Capture
/// One and darktable read.
#[test]
fn each_culling_tools_encoding_round_trips_through_exiftool() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 3);
    for (args, photo) in [
        (&["--pick", "--stars", "3", "--label", "purple"][..], &p[0]),
        (&["--reject"][..], &p[1]),
        (&["--stars", "4", "--label", "green"][..], &p[2]),
    ] {
        let out = decide(data.path(), args, &[photo]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tags = |i: usize| {
        exiftool(
            &[
                "-n",
                "-XMP-xmp:Rating",
                "-XMP-xmp:Label",
                "-XMP-digiKam:PickLabel",
                "-XMP-digiKam:ColorLabel",
                "-XMP-photomech:Tagged",
            ],
            &data.path().join(format!("IMG_{i:04}.jpg.xmp")),
        )
    };
    let pick = tags(0);
    assert_eq!(pick["Rating"], 3, "{pick:#}");
    assert_eq!(pick["Label"], "Purple");
    assert_eq!(pick["PickLabel"], 3, "digiKam: accepted");
    assert_eq!(pick["ColorLabel"], 6, "digiKam: magenta, its purple");
    assert_eq!(pick["Tagged"], true, "Photo Mechanic: tagged");
    let reject = tags(1);
    assert_eq!(reject["Rating"], -1, "{reject:#}");
    assert_eq!(reject["PickLabel"], 1, "digiKam: rejected");
    assert_eq!(reject.get("Tagged"), None);
    let stars = tags(2);
    assert_eq!(stars["Rating"], 4, "{stars:#}");
    assert_eq!(stars["ColorLabel"], 4, "digiKam: green");
    assert_eq!(stars.get("PickLabel"), None, "{stars:#}");

    // Taking the pick back takes digiKam's word for it away, and Photo Mechanic's tag says no.
    let out = decide(data.path(), &["--unflag"], &[&p[0]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unpicked = tags(0);
    assert_eq!(unpicked.get("PickLabel"), None, "{unpicked:#}");
    assert_eq!(unpicked["Tagged"], false, "{unpicked:#}");
    assert_eq!(unpicked["ColorLabel"], 6);
}

/// Sidecars written (by exiftool) in each tool's words are read on import.
#[test]
fn a_sidecar_in_another_tools_words_is_read_on_import() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 3);
    let cases: [(&[&str], Flag, u8, Option<&str>); 3] = [
        // digiKam: rejected, blue.
        (
            &["-XMP-digiKam:PickLabel=1", "-XMP-digiKam:ColorLabel=5"],
            Flag::Reject,
            0,
            Some("Blue"),
        ),
        // Photo Mechanic: tagged, 2 stars in the XMP rating it keeps in step.
        (
            &["-XMP-photomech:Tagged#=True", "-XMP-xmp:Rating=2"],
            Flag::Pick,
            2,
            None,
        ),
        // Capture One (and Lightroom): the rating and the label's name.
        (
            &["-XMP-xmp:Rating=5", "-XMP-xmp:Label=Yellow"],
            Flag::Unflagged,
            5,
            Some("Yellow"),
        ),
    ];
    for ((tags, flag, stars, label), photo) in cases.iter().zip(&p) {
        let sidecar = data.path().join(format!(
            "{}.xmp",
            photo.file_name().expect("name").to_string_lossy()
        ));
        let made = Command::new("exiftool")
            .arg("-q")
            .args(*tags)
            .arg("-o")
            .arg(&sidecar)
            .status()
            .expect("exiftool");
        assert!(made.success(), "{tags:?}");
        let mut catalog = Catalog::open(
            &data.path().join("catalog.sqlite"),
            SidecarNaming::WithExtension,
        )
        .expect("catalog");
        let got = catalog.import(photo).expect("import").decision;
        assert_eq!(got.flag, *flag, "{tags:?}: {got:?}");
        assert_eq!(got.stars, *stars, "{tags:?}: {got:?}");
        assert_eq!(
            got.label
                .as_ref()
                .map(|l| l.xmp_value().to_owned())
                .as_deref(),
            *label,
            "{tags:?}: {got:?}"
        );
    }
}

#[test]
fn a_malformed_sidecar_is_reported_and_left_alone_while_the_catalog_keeps_the_decision() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 1);
    let sidecar = data.path().join("IMG_0000.jpg.xmp");
    let garbage = b"<x:xmpmeta><rdf:RDF><unclosed>\xff\xfe";
    std::fs::write(&sidecar, garbage).expect("write");
    let out = decide(data.path(), &["--stars", "5"], &[&p[0]]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let err = report["sidecar_error"].as_str().expect("error");
    assert!(
        err.starts_with("malformed XMP sidecar") && err.ends_with("IMG_0000.jpg.xmp"),
        "{err}"
    );
    assert_eq!(std::fs::read(&sidecar).expect("read"), garbage, "untouched");
    let catalog = Catalog::open(
        &data.path().join("catalog.sqlite"),
        SidecarNaming::default(),
    )
    .expect("catalog");
    assert_eq!(
        catalog.decision(&p[0]).expect("query").map(|d| d.stars),
        Some(5)
    );
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_round_trips() {
    use std::os::unix::ffi::OsStrExt;
    let data = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9 \xff.jpg");
    let p = data.path().join(name);
    std::fs::copy(photo("grace_hopper.jpg"), &p).expect("copy");
    let out = decide(data.path(), &["--stars", "1"], &[&p]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let catalog = Catalog::open(
        &data.path().join("catalog.sqlite"),
        SidecarNaming::default(),
    )
    .expect("catalog");
    let all = catalog.all().expect("all");
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].0, p, "the exact bytes come back");
    assert!(
        data.path()
            .join(std::ffi::OsStr::from_bytes(b"caf\xe9 \xff.jpg.xmp"))
            .is_file()
    );
}

#[test]
fn a_sidecar_that_could_not_be_written_is_written_on_the_next_open() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 1);
    // A directory where the sidecar should go: the rename onto it fails.
    let blocker = data.path().join("IMG_0000.jpg.xmp");
    std::fs::create_dir(&blocker).expect("mkdir");
    std::fs::write(blocker.join("keep"), b"x").expect("write");
    let out = decide(data.path(), &["--stars", "4"], &[&p[0]]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::remove_dir_all(&blocker).expect("rm");

    let mut catalog = Catalog::open(
        &data.path().join("catalog.sqlite"),
        SidecarNaming::default(),
    )
    .expect("catalog");
    assert!(catalog.flush_pending().expect("flush").is_empty());
    let d = darkroom_catalog::sidecar::read(&p[0], SidecarNaming::default())
        .expect("parses")
        .expect("exists");
    assert_eq!(d.stars, 4);
}

/// xorshift: the test's randomness, with the seed in every failure message.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[cfg(unix)]
#[test]
fn acknowledged_decisions_survive_sigkill() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64 | 1)
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed);
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 20);
    let decisions: Vec<(usize, Decision)> = (0..1000)
        .map(|_| {
            let photo = (rng.next() % 20) as usize;
            let flag = [Flag::Unflagged, Flag::Pick, Flag::Reject][(rng.next() % 3) as usize];
            let stars = (rng.next() % 6) as u8;
            (
                photo,
                Decision {
                    flag,
                    stars,
                    label: None,
                },
            )
        })
        .collect();
    let kill_after = 50 + (rng.next() % 900) as usize;

    let mut child = darkroom(data.path())
        .args(["decide", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines: Vec<String> = decisions
        .iter()
        .map(|(i, d)| {
            serde_json::json!({"path": p[*i], "flag": d.flag, "stars": d.stars}).to_string()
        })
        .collect();
    let writer = std::thread::spawn(move || {
        for l in lines {
            if writeln!(stdin, "{l}").is_err() {
                break;
            }
        }
    });
    let mut acked = 0usize;
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("ack line");
        let ack: Value = serde_json::from_str(&line).expect("ack json");
        assert_eq!(ack.get("sidecar_error"), None, "{line}");
        acked = ack["ack"].as_u64().expect("n") as usize;
        if acked >= kill_after {
            break;
        }
    }
    let killed = Command::new("kill")
        .args(["-s", "KILL", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let _ = child.wait();
    let _ = writer.join();

    // Restart: open the catalog as the app would (which repairs pending sidecars).
    let mut catalog = Catalog::open(
        &data.path().join("catalog.sqlite"),
        SidecarNaming::default(),
    )
    .expect("catalog opens after SIGKILL");
    assert!(catalog.flush_pending().expect("flush").is_empty());
    for (i, photo) in p.iter().enumerate() {
        let last_acked = decisions[..acked].iter().rposition(|(j, _)| *j == i);
        let Some(last) = last_acked else { continue };
        // Decisions sent after the last ack may also have landed before the kill.
        let allowed: Vec<&Decision> = std::iter::once(&decisions[last].1)
            .chain(
                decisions[acked..]
                    .iter()
                    .filter(|(j, _)| *j == i)
                    .map(|(_, d)| d),
            )
            .collect();
        let stored = catalog.decision(photo).expect("query").unwrap_or_else(|| {
            panic!(
                "seed {seed}: acknowledged decision for {} lost",
                photo.display()
            )
        });
        assert!(
            allowed.contains(&&stored),
            "seed {seed}: {} holds {stored:?}, acknowledged {:?}",
            photo.display(),
            decisions[last].1
        );
        let sidecar = darkroom_catalog::sidecar::read(photo, SidecarNaming::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"))
            .expect("sidecar exists");
        assert_eq!(
            sidecar.xmp_rating(),
            stored.xmp_rating(),
            "seed {seed}: {}",
            photo.display()
        );
    }
}

/// Sidecars exiftool wrote in digiKam's words (every colour 0–9 and every pick value 0–3) and
/// Photo Mechanic's (a colour class each), under Lightroom's naming (`IMG_0000.xmp`), and one
/// darktable wrote with two labels: after each kind of decision, every value DarkRoom does not
/// own reads back the same, the decision lands in the sidecar that was there, and no second
/// sidecar appears.
#[test]
fn every_value_another_tool_owns_survives_each_kind_of_decision() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 11);
    let lightroom = |i: usize| data.path().join(format!("IMG_{i:04}.xmp"));
    for i in 0..10 {
        let made = Command::new("exiftool")
            .args(["-q", "-o"])
            .arg(lightroom(i))
            .args([
                format!("-XMP-digiKam:ColorLabel={i}"),
                format!("-XMP-digiKam:PickLabel={}", i % 4),
                format!("-XMP-photomech:ColorClass={}", i % 9),
                format!("-XMP-dc:Title=frame {i}"),
            ])
            .status()
            .expect("exiftool");
        assert!(made.success());
    }
    // darktable's own layout (exiftool has no darktable tags): yellow and blue, 2 stars.
    let darktable = data.path().join("IMG_0010.jpg.xmp");
    std::fs::write(
        &darktable,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:darktable="http://darktable.sf.net/" xmp:Rating="2" darktable:xmp_version="5">
   <darktable:colorlabels>
    <rdf:Seq>
     <rdf:li>1</rdf:li>
     <rdf:li>3</rdf:li>
    </rdf:Seq>
   </darktable:colorlabels>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
"#,
    )
    .expect("darktable sidecar");
    let read_all = || -> Vec<serde_json::Value> {
        (0..10)
            .map(|i| {
                exiftool(
                    &[
                        "-n",
                        "-XMP-xmp:Rating",
                        "-XMP-digiKam:ColorLabel",
                        "-XMP-digiKam:PickLabel",
                        "-XMP-photomech:ColorClass",
                        "-XMP-dc:Title",
                    ],
                    &lightroom(i),
                )
            })
            .collect()
    };
    let refs: Vec<&Path> = p.iter().map(PathBuf::as_path).collect();
    let step = |args: &[&str]| {
        let out = decide(data.path(), args, &refs);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (i, photo) in p.iter().enumerate().take(10) {
            let mut second = photo.as_os_str().to_owned();
            second.push(".xmp");
            assert!(
                !Path::new(&second).exists(),
                "{args:?}: a second sidecar beside IMG_{i:04}.xmp"
            );
        }
        read_all()
    };
    // digiKam's numbers for DarkRoom's five colours; the rest (0 none, 2 orange, 7 gray,
    // 8 black, 9 white) it does not map.
    let mapped = |i: usize| [1, 3, 4, 5, 6].contains(&i);
    let kept_always = |t: &serde_json::Value, i: usize, what: &str| {
        assert_eq!(t["ColorClass"], i % 9, "{what}: {t:#}");
        assert_eq!(t["Title"], format!("frame {i}"), "{what}: {t:#}");
    };

    for (i, t) in step(&["--stars", "3"]).iter().enumerate() {
        // digiKam's pick label 1 made it a reject, whose rating every tool reads as −1.
        let rating = if i % 4 == 1 { -1 } else { 3 };
        assert_eq!(t["Rating"], rating, "{t:#}");
        assert_eq!(t["ColorLabel"], i, "stars leave the label: {t:#}");
        assert_eq!(t["PickLabel"], i % 4, "stars leave the pick label: {t:#}");
        kept_always(t, i, "stars");
    }
    for (i, t) in step(&["--label", "none"]).iter().enumerate() {
        if mapped(i) {
            assert_eq!(
                t.get("ColorLabel"),
                None,
                "the label DarkRoom read, taken: {t:#}"
            );
        } else {
            assert_eq!(
                t["ColorLabel"], i,
                "a colour DarkRoom does not map stays: {t:#}"
            );
        }
        assert_eq!(t["PickLabel"], i % 4, "{t:#}");
        kept_always(t, i, "no label");
    }
    for (i, t) in step(&["--pick"]).iter().enumerate() {
        assert_eq!(t["PickLabel"], 3, "{t:#}");
        if !mapped(i) {
            assert_eq!(t["ColorLabel"], i, "{t:#}");
        }
        kept_always(t, i, "pick");
    }
    for (i, t) in step(&["--reject"]).iter().enumerate() {
        assert_eq!(
            (t["Rating"].clone(), t["PickLabel"].clone()),
            ((-1).into(), 1.into()),
            "{t:#}"
        );
        kept_always(t, i, "reject");
    }
    for (i, t) in step(&["--unflag"]).iter().enumerate() {
        assert_eq!(t.get("PickLabel"), None, "{t:#}");
        kept_always(t, i, "unflag");
    }
    for (i, t) in step(&["--label", "green"]).iter().enumerate() {
        assert_eq!(t["ColorLabel"], 4, "digiKam has one label: replaced: {t:#}");
        kept_always(t, i, "green");
    }
    // darktable's second label survived all of it; the first it read, yellow, went with
    // "--label none", and green came in with "--label green".
    let text = std::fs::read_to_string(&darktable).expect("darktable sidecar");
    assert!(text.contains("<rdf:li>3</rdf:li>"), "blue kept: {text}");
    assert!(text.contains("<rdf:li>2</rdf:li>"), "green added: {text}");
    assert!(!text.contains("<rdf:li>1</rdf:li>"), "yellow taken: {text}");
    assert!(text.contains(r#"darktable:xmp_version="5""#), "{text}");
}

/// The darktable complaint (#19728, #17512, #12322): a change made here after another tool
/// edited the sidecar must not put back what the catalog had before that edit.
#[test]
fn a_pick_after_another_tools_edit_keeps_that_edit() {
    let data = tempfile::tempdir().expect("tempdir");
    let p = photos(data.path(), 1);
    let out = decide(data.path(), &["--stars", "3"], &[&p[0]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sidecar = data.path().join("IMG_0000.jpg.xmp");
    // Lightroom, darktable or a script: 4 stars and Red, written by exiftool.
    let edited = Command::new("exiftool")
        .args([
            "-overwrite_original",
            "-XMP-xmp:Rating=4",
            "-XMP-xmp:Label=Red",
        ])
        .arg(&sidecar)
        .output()
        .expect("exiftool runs");
    assert!(
        edited.status.success(),
        "{}",
        String::from_utf8_lossy(&edited.stderr)
    );
    let report = decided(data.path(), &["--pick"], &[&p[0]]);
    assert_eq!(report["decision"]["stars"], 4, "{report}");
    let tags = exiftool(&["-XMP:Rating", "-XMP:Label"], &sidecar);
    assert_eq!(tags["Rating"], 4, "their stars kept: {tags:#}");
    assert_eq!(tags["Label"], "Red", "their label kept: {tags:#}");
    let catalog = Catalog::open(
        &data.path().join("catalog.sqlite"),
        SidecarNaming::default(),
    )
    .expect("catalog");
    let row = catalog.decision(&p[0]).expect("query").expect("a row");
    assert_eq!(row.flag, Flag::Pick);
    assert_eq!(
        (row.stars, row.label.is_some()),
        (4, true),
        "the catalog agrees"
    );
}
