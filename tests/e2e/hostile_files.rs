//! exiv2's test data (Debian's exiv2 0.27.6 source package, pinned by scripts/fetch-assets):
//! real camera files checked against exiftool, and every file of the set (camera files, other
//! projects' crash reproducers, malformed JPEG/TIFF/PNG/XMP) through the scan, the thumbnail
//! and loupe previews, the capture time and the XMP merge, each with its outcome recorded in
//! `tests/e2e/data/exiv2-outcomes.tsv` (`UPDATE_OUTCOMES=1` rewrites it, to be read in review).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use darkroom_catalog::{Decision, Flag, SidecarNaming, sidecar};
use darkroom_library::preview::{self, NoPreview};
use darkroom_library::thumbs::{self, Source};
use darkroom_library::{jpeg_dc, working};

use crate::exiv2::{set_dir, set_files};
use crate::support::darkroom;

const TABLE: &str = "tests/e2e/data/exiv2-outcomes.tsv";

/// `exiftool -b -TAG file`: the embedded image exiftool finds (empty when none).
fn exiftool_image(tag: &str, file: &Path) -> Vec<u8> {
    let out = Command::new("exiftool")
        .args(["-b", &format!("-{tag}")])
        .arg(file)
        .output()
        .expect("exiftool is installed (scripts/test installs libimage-exiftool-perl)");
    out.stdout
}

/// exiftool's EXIF capture time as seconds, as DarkRoom counts them (camera clock, no zone).
fn exiftool_time(v: &serde_json::Value) -> Option<f64> {
    let text = v.get("DateTimeOriginal")?.as_str()?;
    let b = text.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let n = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss) = (n(11..13)?, n(14..16)?, n(17..19)?);
    // "0000:00:00 00:00:00" is how cameras say "no clock": no time, as DarkRoom reads it.
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let mut t = (days * 86_400 + hh * 3_600 + mm * 60 + ss) as f64;
    if let Some(sub) = v.get("SubSecTimeOriginal") {
        let s = sub
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| sub.to_string());
        if let Ok(f) = format!("0.{}", s.trim()).parse::<f64>() {
            t += f;
        }
    }
    Some(t)
}

/// The previews exiftool extracts, by tag, with their pixel counts.
fn exiftool_previews(file: &Path) -> Vec<(&'static str, Vec<u8>, u64)> {
    ["PreviewImage", "JpgFromRaw", "ThumbnailImage", "OtherImage"]
        .into_iter()
        .filter_map(|tag| {
            let bytes = exiftool_image(tag, file);
            let (w, h) = image::ImageReader::new(std::io::Cursor::new(&bytes))
                .with_guessed_format()
                .ok()?
                .into_dimensions()
                .ok()?;
            Some((tag, bytes, u64::from(w) * u64::from(h)))
        })
        .collect()
}

#[test]
fn real_camera_raws_match_exiftool_through_scan_thumbnail_loupe_and_capture_time() {
    let dir = set_dir();
    let work = tempfile::tempdir().expect("tempdir");
    struct Case {
        name: &'static str,
        /// The exiftool tag of the preview DarkRoom must choose; None when all are stripped.
        tag: Option<&'static str>,
        grid: (u32, u32),
        loupe: (u32, u32),
    }
    let cases = [
        Case {
            name: "Canon-R6-pruned.CR3",
            tag: Some("PreviewImage"),
            grid: (256, 171),
            loupe: (1620, 1080),
        },
        Case {
            name: "IMG_1361.dng",
            tag: None,
            grid: (0, 0),
            loupe: (0, 0),
        },
        Case {
            name: "exiv2-canon-powershot-s40.crw",
            tag: Some("ThumbnailImage"),
            grid: (160, 120),
            loupe: (160, 120),
        },
    ];
    for Case {
        name,
        tag,
        grid,
        loupe,
    } in cases
    {
        let file = dir.join(name);
        let data = std::fs::read(&file).expect("read");
        let theirs = exiftool_previews(&file);
        match (preview::largest(&data), tag) {
            (Ok(p), Some(tag)) => {
                let (_, bytes, pixels) = theirs
                    .iter()
                    .find(|(t, ..)| *t == tag)
                    .unwrap_or_else(|| panic!("{name}: exiftool has no {tag}"));
                assert!(
                    data[p.range.clone()] == bytes[..],
                    "{name}: DarkRoom's preview ({} bytes at {:?}) is not exiftool's {tag} ({} bytes)",
                    p.range.len(),
                    p.range,
                    bytes.len()
                );
                assert_eq!(u64::from(p.width) * u64::from(p.height), *pixels, "{name}");
                let most = theirs.iter().map(|(.., n)| *n).max().unwrap_or(0);
                assert_eq!(*pixels, most, "{name}: exiftool has a larger preview");
            }
            (Err(why), None) => {
                assert!(theirs.is_empty(), "{name}: exiftool extracts a preview");
                assert!(
                    matches!(why, NoPreview::OutsideFile { .. }),
                    "{name}: {why}"
                );
                assert!(
                    why.to_string()
                        .starts_with("no embedded preview large enough")
                );
            }
            (got, want) => panic!("{name}: DarkRoom {got:?}, expected exiftool's {want:?}"),
        }
        let meta = crate::support::exiftool(
            &[
                "-n",
                "-DateTimeOriginal",
                "-SubSecTimeOriginal",
                "-Orientation",
            ],
            &file,
        );
        let theirs_time = exiftool_time(&meta).expect("exiftool reads a capture time");
        let ours_time = preview::capture_time(&data).expect("DarkRoom reads a capture time");
        assert!(
            (ours_time - theirs_time).abs() < 1e-6,
            "{name}: capture time {ours_time} vs exiftool's {theirs_time}"
        );
        let theirs_o = meta["Orientation"].as_u64().map(|o| o as u8);
        let ours_o = preview::orientation(&data).map(|o| o.to_exif());
        assert_eq!(ours_o, theirs_o, "{name}: orientation");

        // The path a user takes: the scan finds it, the grid and the loupe show its preview.
        let copy = work.path().join(name);
        std::fs::copy(&file, &copy).expect("copy");
        let mut found = Vec::new();
        darkroom_library::scan::scan(
            work.path(),
            &std::sync::atomic::AtomicBool::new(false),
            &mut |e| {
                if let darkroom_library::ScanEvent::Item(i) = e {
                    found.push(i);
                }
                true
            },
        );
        assert!(
            found
                .iter()
                .any(|i| i.primary == copy && i.kind == darkroom_library::ItemKind::Raw),
            "{name}: scanned as a RAW"
        );
        for (side, size) in [(256, grid), (2048, loupe)] {
            match thumbs::make(&copy, side) {
                Ok(t) => {
                    assert_eq!(t.source, Source::EmbeddedPreview, "{name}");
                    assert_eq!(t.image.dimensions(), size, "{name} at {side}");
                }
                Err(e) => {
                    assert_eq!(size, (0, 0), "{name} at {side}: {e}");
                    assert!(
                        e.to_string().contains("no embedded preview large enough")
                            && e.to_string().contains(name),
                        "{e}"
                    );
                }
            }
        }
        let analysed = working::load(&copy, 1440);
        if tag.is_some() {
            let w = analysed.expect("working decode");
            assert_eq!(w.captured_at, Some(ours_time), "{name}");
        } else {
            assert!(analysed.is_err(), "{name}");
        }
    }
}

#[test]
fn camera_jpegs_capture_time_and_orientation_match_exiftool() {
    let dir = set_dir();
    let jpegs: Vec<PathBuf> = set_files()
        .into_iter()
        .map(|f| dir.join(f))
        .filter(|p| {
            std::fs::read(p)
                .map(|b| b.starts_with(&[0xFF, 0xD8]))
                .unwrap_or(false)
        })
        .collect();
    let out = Command::new("exiftool")
        .args([
            "-j",
            "-n",
            "-q",
            "-m",
            "-EXIF:DateTimeOriginal",
            "-EXIF:SubSecTimeOriginal",
            "-IFD0:Orientation",
        ])
        .args(&jpegs)
        .output()
        .expect("exiftool");
    let all: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("exiftool JSON");
    let mut checked = (0, 0);
    let mut wrong = Vec::new();
    for v in &all {
        let file = PathBuf::from(v["SourceFile"].as_str().expect("SourceFile"));
        let data = std::fs::read(&file).expect("read");
        let ours_t = preview::capture_time(&data);
        let theirs_t = exiftool_time(v);
        if let Some(t) = theirs_t {
            checked.0 += 1;
            if ours_t.is_none_or(|o| (o - t).abs() > 1e-6) {
                wrong.push(format!("{}: taken {ours_t:?} vs {t}", file.display()));
            }
        }
        let theirs_o = v.get("Orientation").and_then(serde_json::Value::as_u64);
        if let Some(o) = theirs_o.filter(|o| (1..=8).contains(o)) {
            checked.1 += 1;
            let ours_o = preview::orientation(&data).map(|x| u64::from(x.to_exif()));
            if ours_o != Some(o) {
                wrong.push(format!("{}: orientation {ours_o:?} vs {o}", file.display()));
            }
        }
    }
    println!(
        "capture times checked: {}, orientations: {}",
        checked.0, checked.1
    );
    assert!(
        wrong.is_empty(),
        "differs from exiftool:\n{}",
        wrong.join("\n")
    );
    assert!(
        checked.0 >= 50 && checked.1 >= 50,
        "too few camera JPEGs checked: {checked:?}"
    );
}

/// How `child` ended; a hang (past `limit_s`, far beyond what the command takes) is killed
/// and fails the test naming `what`. For tests whose outcome under test is a hang.
fn ended_or_hung(
    child: &mut std::process::Child,
    limit_s: u64,
    what: &str,
) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(limit_s);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `cmd` run to its end, all it printed read meanwhile (so a long report never fills a pipe);
/// a hang (past `limit_s`) is killed and fails the test naming `what`.
fn output_or_hung(cmd: &mut Command, limit_s: u64, what: &str) -> std::process::Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("darkroom starts");
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    );
    let status = ended_or_hung(&mut child, limit_s, what);
    std::process::Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}

/// What `darkroom thumbnails` said of each item, by file name.
fn thumbnails_cli(dir: &Path, data: &Path) -> BTreeMap<String, String> {
    let cache = data.join("thumbs");
    // A hang is an outcome too: the whole set takes seconds, so minutes is one.
    let out = output_or_hung(
        darkroom(data)
            .args(["thumbnails", "--json", "--cache"])
            .arg(&cache)
            .arg(dir),
        300,
        &format!("darkroom thumbnails over {}", dir.display()),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Exit 1: some items failed (expected here); a panic is 101, a signal none at all.
    assert_eq!(
        out.status.code(),
        Some(1),
        "darkroom thumbnails over the exiv2 set: {}\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let mut by_file = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let file = PathBuf::from(v["file"].as_str().expect("file"));
        let name = file
            .strip_prefix(dir)
            .expect("inside the set")
            .to_string_lossy()
            .into_owned();
        let show = |key: &str| match &v[key] {
            serde_json::Value::Object(o) => match (o.get("Ok"), o.get("Err")) {
                (Some(ok), _) => ok.as_str().unwrap_or("").to_owned(),
                (_, Some(err)) => format!("error: {}", err.as_str().unwrap_or("")),
                _ => String::new(),
            },
            _ => String::new(),
        };
        let outcome = match v["scan_error"].as_str() {
            Some(e) => format!("scan error: {e}"),
            None => format!(
                "thumbnail {} | loupe {} | taken {}",
                show("thumbnail"),
                show("loupe"),
                v["captured_at"].as_str().unwrap_or("none")
            ),
        };
        if let Some(also) = v["also"].as_str() {
            let other = Path::new(also)
                .strip_prefix(dir)
                .expect("inside the set")
                .to_string_lossy()
                .into_owned();
            by_file.insert(other, format!("shown through its twin {name}: {outcome}"));
        }
        by_file.insert(name, outcome);
    }
    by_file
}

/// A sidecar for a photo of the set: the set's own XMP file as what another tool left there,
/// our decision merged in. The photo's folder holds nothing else afterwards, and a sidecar we
/// refuse is left byte for byte.
fn xmp_merge(file: &Path) -> String {
    let work = tempfile::tempdir().expect("tempdir");
    let photo = work.path().join("photo.jpg");
    std::fs::write(&photo, b"").expect("photo");
    let side = SidecarNaming::WithExtension.path_for(&photo);
    let before = std::fs::read(file).expect("read");
    std::fs::write(&side, &before).expect("sidecar");
    let decision = Decision {
        flag: Flag::Pick,
        stars: 3,
        label: None,
    };
    let outcome = match sidecar::write(
        &photo,
        SidecarNaming::WithExtension,
        Default::default(),
        &decision,
        &mut sidecar::DirSync::default(),
    ) {
        Ok(written) => {
            assert_eq!(written, vec![side.clone()]);
            let back = sidecar::read(&photo, SidecarNaming::WithExtension)
                .expect("reads back")
                .expect("a decision");
            assert_eq!(back, decision, "{}", file.display());
            "merged".to_owned()
        }
        Err(e) => {
            assert_eq!(std::fs::read(&side).expect("sidecar"), before, "left alone");
            let text = e.to_string();
            let cause = text.rsplit_once(": ").map_or(text.as_str(), |(c, _)| c);
            format!("refused: {cause}")
        }
    };
    let mut left: Vec<String> = std::fs::read_dir(work.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["photo.jpg", "photo.jpg.xmp"], "{}", file.display());
    outcome
}

#[test]
fn every_file_of_the_set_has_its_recorded_outcome_and_none_panics() {
    let dir = set_dir();
    let data = tempfile::tempdir().expect("tempdir");
    let listing = |d: &Path| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = walk(d)
            .into_iter()
            .map(|p| {
                let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                (p.to_string_lossy().into_owned(), len)
            })
            .collect();
        v.sort();
        v
    };
    let before = listing(&dir);
    // In a child process: a panic, an abort or a hang there cannot take this test with it.
    let thumbs = thumbnails_cli(&dir, data.path());
    assert_eq!(
        listing(&dir),
        before,
        "the scan wrote into the photos' folder"
    );

    // The files the scan passes over by name, under each kind of name it takes: as a JPEG
    // (the DC decoder, jpeg-decoder, the general decoder), as a RAW (the preview parser) and
    // as a TIFF (the general decoders by content). Each gets its line, none a panic.
    let renamed = tempfile::tempdir().expect("tempdir");
    let mut copies = 0;
    for name in set_files().iter().filter(|n| !thumbs.contains_key(*n)) {
        for ext in ["jpg", "dng", "tif"] {
            let flat = name.replace('/', "_");
            std::fs::copy(
                dir.join(name),
                renamed.path().join(format!("{flat}-as-{ext}.{ext}")),
            )
            .expect("copy");
            copies += 1;
        }
    }
    let lines = thumbnails_cli(renamed.path(), data.path());
    assert_eq!(lines.len(), copies, "one line for each file, as each kind");

    let mut table = Vec::new();
    for name in set_files() {
        let file = dir.join(&name);
        let bytes = std::fs::read(&file).expect("read");
        // Every parser on every file, whatever its name says: none may panic.
        let _ = preview::largest(&bytes);
        let _ = preview::capture_time(&bytes);
        let _ = preview::orientation(&bytes);
        let _ = jpeg_dc::decode(&bytes, 1, &darkroom_library::Budget::start());
        let mut outcome = thumbs
            .get(&name)
            .cloned()
            .unwrap_or_else(|| "not a photo by its name: not scanned".to_owned());
        if name.to_ascii_lowercase().ends_with(".xmp") {
            outcome = format!("{outcome} | xmp {}", xmp_merge(&file));
        }
        table.push(format!("{name}\t{outcome}"));
    }
    let text = format!(
        "# file\toutcome (tests/e2e/hostile_files.rs; UPDATE_OUTCOMES=1 rewrites)\n{}\n",
        table.join("\n")
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(TABLE);
    if std::env::var_os("UPDATE_OUTCOMES").is_some() {
        std::fs::write(&path, &text).expect("write the table");
        return;
    }
    let recorded = std::fs::read_to_string(&path).expect("the outcome table");
    let diff: Vec<String> = recorded
        .lines()
        .zip(text.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("recorded: {a}\n     now: {b}"))
        .collect();
    assert!(
        diff.is_empty() && recorded.lines().count() == text.lines().count(),
        "outcomes changed ({} lines recorded, {} now):\n{}",
        recorded.lines().count(),
        text.lines().count(),
        diff.join("\n")
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("list").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The facts beside the photo (camera, lens, focal length, shutter, aperture, ISO, capture time)
/// against exiftool's reading of the same tags, over the whole set: never a different value;
/// every fact of the real camera RAWs; and, of the files DarkRoom opens as photos, nearly
/// every fact exiftool finds. (What is left: PNGs whose EXIF ImageMagick wrote as a hex text
/// chunk, which is no EXIF container, and one crash reproducer.)
#[test]
fn the_facts_beside_the_photo_match_exiftool() {
    use darkroom_library::facts;
    let dir = set_dir();
    let files: Vec<PathBuf> = set_files().into_iter().map(|f| dir.join(f)).collect();
    let out = Command::new("exiftool")
        .args([
            "-j",
            "-n",
            "-q",
            "-m",
            "-EXIF:Model",
            "-EXIF:LensModel",
            "-EXIF:FocalLength",
            "-EXIF:ExposureTime",
            "-EXIF:FNumber",
            "-EXIF:ISO",
            "-EXIF:DateTimeOriginal",
        ])
        .args(&files)
        .output()
        .expect("exiftool");
    let all: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("exiftool JSON");
    let (mut agreed, mut missing, mut wrong) = (0, Vec::new(), Vec::new());
    for v in &all {
        let file = PathBuf::from(v["SourceFile"].as_str().expect("SourceFile"));
        let name = file
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let photo =
            darkroom_library::formats::is_raster(&file) || darkroom_library::formats::is_raw(&file);
        let ours = match facts::read(&file) {
            Ok(f) => f,
            Err(e) => panic!("{name}: {e}"),
        };
        let number = |k: &str| v[k].as_f64();
        let text = |k: &str| {
            v[k].as_str()
                .map(|s| s.trim().to_owned())
                .or_else(|| v[k].as_f64().map(|n| n.to_string()))
                .filter(|s| !s.is_empty())
        };
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1.0);
        let mut check =
            |what: &str, theirs: Option<String>, ours: Option<String>, same: bool| match (
                theirs, ours,
            ) {
                (Some(_), Some(_)) if same => agreed += usize::from(photo),
                (Some(t), Some(o)) => wrong.push(format!("{name}: {what} {o:?}, exiftool {t:?}")),
                (Some(t), None) if photo => {
                    missing.push(format!("{name}: {what} (exiftool {t:?})"));
                }
                _ => {}
            };
        let model = text("Model");
        check(
            "camera",
            model.clone(),
            ours.camera.clone(),
            match (&model, &ours.camera) {
                (Some(m), Some(c)) => c.ends_with(m.as_str()),
                _ => false,
            },
        );
        check(
            "lens",
            text("LensModel"),
            ours.lens.clone(),
            text("LensModel") == ours.lens,
        );
        for (what, key, o) in [
            ("focal length", "FocalLength", ours.focal_mm),
            (
                "shutter",
                "ExposureTime",
                ours.shutter.map(|(n, d)| f64::from(n) / f64::from(d)),
            ),
            ("aperture", "FNumber", ours.aperture),
            ("ISO", "ISO", ours.iso.map(f64::from)),
        ] {
            // exiftool reports a zero the file holds; DarkRoom leaves out what means nothing.
            let t = number(key).filter(|t| *t > 0.0);
            check(
                what,
                t.map(|t| t.to_string()),
                o.map(|o| o.to_string()),
                t.zip(o).is_some_and(|(t, o)| close(o, t)),
            );
        }
        let theirs_date = text("DateTimeOriginal")
            .filter(|d| d.len() >= 19 && d.as_bytes()[0].is_ascii_digit())
            .map(|d| format!("{}-{}-{}", &d[0..4], &d[5..7], &d[8..19]));
        check(
            "taken",
            theirs_date.clone(),
            ours.taken.clone(),
            theirs_date == ours.taken,
        );
    }
    assert!(
        wrong.is_empty(),
        "facts that differ from exiftool's:\n{}",
        wrong.join("\n")
    );
    let raws: Vec<_> = missing
        .iter()
        .filter(|m| m.starts_with("Canon-R6-pruned.CR3") || m.starts_with("IMG_1361.dng"))
        .collect();
    assert!(raws.is_empty(), "facts of the real RAWs not read: {raws:?}");
    eprintln!(
        "{agreed} facts of photos agree with exiftool's, {} not read",
        missing.len()
    );
    assert!(
        agreed >= 10 * missing.len() && agreed >= 300,
        "{agreed} facts agree, {} not read:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// A pipe and a device named like photos (`mkfifo fifo.jpg`, `ln -s /dev/zero zero.jpg`)
/// beside a real one: `darkroom thumbnails` ends, makes the real one's thumbnail, and says of
/// each of the others that it is not a regular file — it never opens them. (Before, the scan's
/// workers waited on the pipe for ever.)
#[cfg(unix)]
#[test]
fn a_pipe_or_a_device_named_like_a_photo_is_said_and_never_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::copy(crate::support::photo("rocket.jpg"), folder.join("real.jpg")).expect("copy");
    let made = std::process::Command::new("mkfifo")
        .arg(folder.join("fifo.jpg"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", folder.join("zero.jpg")).expect("link");
    let said = thumbnails_cli(&folder, &dir.path().join("data"));
    assert!(said["real.jpg"].starts_with("thumbnail "), "{said:#?}");
    assert!(!said["real.jpg"].contains("error"), "{said:#?}");
    for odd in ["fifo.jpg", "zero.jpg"] {
        assert!(
            said[odd].starts_with("scan error: ")
                && said[odd].contains("not a regular file (a pipe, a socket or a device)"),
            "{odd}: {said:#?}"
        );
    }
}

/// A sidecar that is a FIFO (`mkfifo IMG_0001.jpg.xmp`): `darkroom decide --pick` says it
/// cannot read it and returns; a decision on another photo with the same catalog (which writes
/// the pending sidecar again first) returns too. (Before, both waited for ever.)
#[cfg(unix)]
#[test]
fn a_sidecar_that_is_a_pipe_fails_its_photo_and_hangs_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for name in ["IMG_0001.jpg", "IMG_0002.jpg"] {
        std::fs::copy(crate::support::photo("rocket.jpg"), folder.join(name)).expect("copy");
    }
    let made = std::process::Command::new("mkfifo")
        .arg(folder.join("IMG_0001.jpg.xmp"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let data = dir.path().join("data");
    // A hang is the outcome under test: a decision takes well under a second.
    let decide = |photo: &str, flag: &str| {
        said_within(
            &data,
            &[
                "decide".as_ref(),
                flag.as_ref(),
                folder.join(photo).as_os_str(),
            ],
            120,
        )
    };
    let (_, said) = decide("IMG_0001.jpg", "--pick");
    assert!(
        said.contains("not a regular file (a pipe, a socket or a device)"),
        "{said}"
    );
    let (ok, said) = decide("IMG_0002.jpg", "--reject");
    assert!(ok, "{said}");
    assert!(folder.join("IMG_0002.jpg.xmp").is_file(), "{said}");
}

/// `darkroom` with `args`, its exit status and all it said; a hang (past `limit_s`) fails the
/// test naming the command.
fn said_within(data: &Path, args: &[&std::ffi::OsStr], limit_s: u64) -> (bool, String) {
    let what = format!("darkroom {args:?}");
    let out = output_or_hung(
        crate::support::darkroom_on(crate::support::Rt::Ort, data)
            .env("DARKROOM_CACHE_DIR", data.join("cache"))
            .env("DARKROOM_MODELS", crate::support::models())
            .args(args),
        limit_s,
        &what,
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!said.contains("panicked"), "{what}: {said}");
    (out.status.success(), said)
}

/// A folder handed over with every odd thing in it beside real photos: a FIFO, a link to
/// `/dev/zero`, a sparse 12 GiB RAW and a symlink loop, each named like a photo, and as the
/// sidecars of three real photos a link to `/dev/zero`, a sparse 20 MB file and a symlink
/// loop. The thumbnails, the index and each decision end (a hang fails the test), the real
/// photos are done, each odd file is said with its cause and left as it was, and a later
/// decision is not held up by them.
#[cfg(unix)]
#[test]
fn a_folder_of_hostile_files_hangs_nothing_and_each_is_said() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for n in 1..=4 {
        std::fs::copy(
            crate::support::photo("grace_hopper.jpg"),
            folder.join(format!("real{n}.jpg")),
        )
        .expect("copy");
    }
    let made = Command::new("mkfifo")
        .arg(folder.join("fifo.jpg"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    symlink("/dev/zero", folder.join("zero.jpg")).expect("link");
    std::fs::File::create(folder.join("huge.cr3"))
        .and_then(|f| f.set_len(12 << 30))
        .expect("sparse");
    symlink("loop.jpg", folder.join("loop.jpg")).expect("loop");
    symlink("/dev/zero", folder.join("real2.jpg.xmp")).expect("link");
    std::fs::File::create(folder.join("real3.jpg.xmp"))
        .and_then(|f| f.set_len(20_000_000))
        .expect("sparse");
    symlink("real4.jpg.xmp", folder.join("real4.jpg.xmp")).expect("loop");
    let data = dir.path().join("data");

    let said = thumbnails_cli(&folder, &data);
    for n in 1..=4 {
        assert!(
            said[&format!("real{n}.jpg")].starts_with("thumbnail ")
                && !said[&format!("real{n}.jpg")].contains("error"),
            "{said:#?}"
        );
    }
    for (odd, cause) in [
        (
            "fifo.jpg",
            "not a regular file (a pipe, a socket or a device)",
        ),
        (
            "zero.jpg",
            "not a regular file (a pipe, a socket or a device)",
        ),
        ("loop.jpg", "Too many levels of symbolic links"),
        (
            "huge.cr3",
            "12.0 GiB, more than the 3.0 GiB a photo may have",
        ),
    ] {
        assert!(said[odd].contains(cause), "{odd}: {said:#?}");
    }
    // The looping sidecar is said by the scan too, once, as the folder's problem.
    assert!(
        said["real4.jpg.xmp"].contains("Too many levels of symbolic links"),
        "{said:#?}"
    );
    assert_eq!(said.len(), 9, "each file said once: {said:#?}");

    let catalog = dir.path().join("catalog.sqlite");
    let (_, index) = said_within(
        &data,
        &[
            "index".as_ref(),
            "--json".as_ref(),
            "--catalog".as_ref(),
            catalog.as_os_str(),
            folder.as_os_str(),
        ],
        600,
    );
    // The report comes first, what stderr said after it.
    let report: serde_json::Value = serde_json::Deserializer::from_str(&index)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("a JSON report: {index}"))
        .unwrap_or_else(|e| panic!("{e}: {index}"));
    assert_eq!(report["indexed"], 4, "{report}");

    for (photo, cause) in [
        (
            "real2.jpg",
            "not a regular file (a pipe, a socket or a device)",
        ),
        (
            "real3.jpg",
            "19.1 MiB, more than the 16.0 MiB a sidecar may have",
        ),
        ("real4.jpg", "Too many levels of symbolic links"),
    ] {
        let (_, said) = said_within(
            &data,
            &[
                "decide".as_ref(),
                "--pick".as_ref(),
                folder.join(photo).as_os_str(),
            ],
            120,
        );
        assert!(said.contains(cause), "{photo}: {said}");
    }
    let (ok, said) = said_within(
        &data,
        &[
            "decide".as_ref(),
            "--pick".as_ref(),
            folder.join("real1.jpg").as_os_str(),
        ],
        120,
    );
    assert!(ok, "{said}");
    assert!(folder.join("real1.jpg.xmp").is_file(), "{said}");
    // Each odd sidecar is as it was.
    assert_eq!(
        std::fs::read_link(folder.join("real2.jpg.xmp")).expect("link"),
        Path::new("/dev/zero")
    );
    assert_eq!(
        std::fs::metadata(folder.join("real3.jpg.xmp"))
            .expect("meta")
            .len(),
        20_000_000
    );
    assert_eq!(
        std::fs::read_link(folder.join("real4.jpg.xmp")).expect("link"),
        Path::new("real4.jpg.xmp")
    );
}

/// A sidecar that is a link to another file of the photographer's: a decision refuses to
/// write through it or replace it, and the file it points at is untouched. (Before, the link
/// was replaced; a temporary at a predictable name could have been planted as a link too.)
#[cfg(unix)]
#[test]
fn a_sidecar_that_is_a_link_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::copy(crate::support::photo("rocket.jpg"), folder.join("a.jpg")).expect("copy");
    // A sidecar kept elsewhere and linked in: read, but never written through or replaced.
    let precious = dir.path().join("precious.xmp");
    let own = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF \
               xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\
               <rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:Rating=\"1\"/>\
               </rdf:RDF></x:xmpmeta>";
    std::fs::write(&precious, own).expect("write");
    std::os::unix::fs::symlink(&precious, folder.join("a.jpg.xmp")).expect("link");
    let data = dir.path().join("data");
    let (_, said) = said_within(
        &data,
        &[
            "decide".as_ref(),
            "--stars".as_ref(),
            "3".as_ref(),
            folder.join("a.jpg").as_os_str(),
        ],
        120,
    );
    assert!(
        said.contains("it is a link: not written through it, nor replaced"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&precious).expect("read"), own);
    assert!(
        std::fs::symlink_metadata(folder.join("a.jpg.xmp"))
            .expect("meta")
            .is_symlink()
    );
    let left: Vec<_> = std::fs::read_dir(&folder)
        .expect("list")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 2, "no temporary left: {left:?}");
}

/// After a first run, the data and cache folders DarkRoom made are this user's only, and so
/// is the catalog (people's names and faces are in it).
#[cfg(unix)]
#[test]
fn a_first_run_makes_its_folders_and_catalog_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let photo = dir.path().join("a.jpg");
    std::fs::copy(crate::support::photo("rocket.jpg"), &photo).expect("copy");
    let data = dir.path().join("data");
    let (ok, said) = said_within(
        &data,
        &["decide".as_ref(), "--pick".as_ref(), photo.as_os_str()],
        120,
    );
    assert!(ok, "{said}");
    let mode = |p: &Path| std::fs::metadata(p).expect("made").permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join("cache")), 0o700);
    assert_eq!(mode(&data.join("catalog.sqlite")), 0o600);
}
