//! Where the camera focused, read from the maker notes of every real camera file in exiv2's
//! test data, held against exiftool on the same files: each value DarkRoom reads equals
//! exiftool's (`exiftool -n`), the AF mode reads in exiftool's words, every file exiftool
//! finds an AF position in has one in DarkRoom too, and the point lands where exiftool's
//! numbers put it on the photo as shown (orientation applied). The counts per maker are
//! printed and held to a floor, so a reader that stops finding anything fails.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use darkroom_library::af::{Af, Maker};
use darkroom_library::facts;
use serde_json::Value;

#[path = "support/exiv2.rs"]
mod exiv2;
use exiv2::{set_dir, set_files};

/// Per maker: the tag that says the file records where the camera focused, and the tag whose
/// printed value is the AF mode in the camera's words.
const MAKERS: [(Maker, &str, &str); 6] = [
    (Maker::Canon, "AFAreaXPositions", "AFAreaMode"),
    (Maker::Nikon, "AFAreaXPosition", "AFAreaMode"),
    (Maker::Sony, "FocusLocation", "AFAreaModeSetting"),
    (Maker::Fujifilm, "FocusPixel", "AFMode"),
    (Maker::Olympus, "AFPointSelected", "FocusMode"),
    (Maker::Panasonic, "AFPointPosition", "AFAreaMode"),
];

/// Per maker, the files exiv2's set holds today whose AF record is compared, and of them those
/// with an AF position (the rest: manual focus, a DSLR's phase-detect points, which have no
/// position in the file, a stripped file's 2×2 frame): a reader that silently stops finding
/// them fails.
const FLOORS: [(Maker, usize, usize); 6] = [
    (Maker::Canon, 37, 30),
    (Maker::Nikon, 31, 1),
    (Maker::Sony, 26, 2),
    (Maker::Fujifilm, 19, 6),
    (Maker::Olympus, 2, 1),
    (Maker::Panasonic, 3, 2),
];

/// `exiftool -j -G1 [-n] TAGS… FILES…` in `dir`: each file's tags by "Group:Name".
fn exiftool(dir: &Path, files: &[String], numeric: bool, tags: &[&str]) -> BTreeMap<String, Value> {
    let mut cmd = Command::new("exiftool");
    cmd.current_dir(dir).args(["-j", "-G1", "-q", "-q", "-m"]);
    if numeric {
        cmd.arg("-n");
    }
    cmd.args(tags.iter().map(|t| format!("-{t}"))).args(files);
    let out = cmd
        .output()
        .expect("exiftool is installed (scripts/test installs libimage-exiftool-perl)");
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).expect("exiftool's JSON");
    all.into_iter()
        .filter_map(|v| Some((v.get("SourceFile")?.as_str()?.to_owned(), v)))
        .collect()
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Two values as `exiftool -n` lists them: equal word for word, numbers to 1e-6.
fn same(ours: &str, theirs: &str) -> bool {
    let a: Vec<&str> = ours.split_whitespace().collect();
    let b: Vec<&str> = theirs.split_whitespace().collect();
    a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x == y
                || matches!((x.parse::<f64>(), y.parse::<f64>()),
                    (Ok(p), Ok(q)) if (p - q).abs() <= 1e-6 * q.abs().max(1.0))
        })
}

fn numbers(v: Option<&Value>) -> Vec<f64> {
    v.map(text)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// A point of the sensor's frame (fractions) on the photo as shown, by EXIF orientation.
fn shown([x, y]: [f64; 2], orientation: u64) -> [f64; 2] {
    match orientation {
        2 => [1.0 - x, y],
        3 => [1.0 - x, 1.0 - y],
        4 => [x, 1.0 - y],
        5 => [y, x],
        6 => [1.0 - y, x],
        7 => [1.0 - y, 1.0 - x],
        8 => [y, 1.0 - x],
        _ => [x, y],
    }
}

/// Where exiftool's numbers put the focus on the sensor's frame, as fractions: the centre of
/// the box around the points in focus (Canon: else the selected ones), or the one point.
fn expected(maker: Maker, t: &Value, model: &str) -> Option<[f64; 2]> {
    let g = |name: &str| t.get(format!("{}:{name}", maker.exiftool_group()));
    match maker {
        Maker::Canon => {
            let (w, h) = (
                *numbers(g("AFImageWidth")).first()?,
                *numbers(g("AFImageHeight")).first()?,
            );
            let n = *numbers(g("ValidAFPoints")).first()? as usize;
            let xs = numbers(g("AFAreaXPositions"));
            let ys = numbers(g("AFAreaYPositions"));
            let ws = numbers(g("AFAreaWidths").or(g("AFAreaWidth")));
            let hs = numbers(g("AFAreaHeights").or(g("AFAreaHeight")));
            let bit = |mask: &[f64], i: usize| {
                mask.get(i / 16)
                    .is_some_and(|&m| (m as i64 as u16) >> (i % 16) & 1 == 1)
            };
            let focus = numbers(g("AFPointsInFocus"));
            let selected = numbers(g("AFPointsSelected"));
            let pick = |mask: &[f64]| -> Vec<usize> {
                (0..n.min(xs.len()))
                    .filter(|&i| bit(mask, i))
                    .filter(|&i| {
                        ws.get(i).or(ws.first()).is_some_and(|&w| w > 0.0)
                            && hs.get(i).or(hs.first()).is_some_and(|&h| h > 0.0)
                    })
                    .collect()
            };
            let mut chosen = pick(&focus);
            // Focused by hand (AFAreaMode 0), the selected point is not where the focus is.
            let manual = numbers(g("AFAreaMode")).first() == Some(&0.0);
            if chosen.is_empty() && !manual {
                chosen = pick(&selected);
            }
            let up = if model.contains("EOS") { -1.0 } else { 1.0 };
            let boxes: Vec<[f64; 4]> = chosen
                .iter()
                .map(|&i| {
                    let (bw, bh) = (*ws.get(i).or(ws.first())?, *hs.get(i).or(hs.first())?);
                    let (x, y) = (w / 2.0 + xs[i], h / 2.0 + up * ys.get(i)?);
                    Some([x - bw / 2.0, y - bh / 2.0, x + bw / 2.0, y + bh / 2.0])
                })
                .collect::<Option<_>>()?;
            let b = boxes.into_iter().reduce(|a, b| {
                [
                    a[0].min(b[0]),
                    a[1].min(b[1]),
                    a[2].max(b[2]),
                    a[3].max(b[3]),
                ]
            })?;
            Some([(b[0] + b[2]) / 2.0 / w, (b[1] + b[3]) / 2.0 / h])
        }
        Maker::Nikon => {
            let v = [
                "AFImageWidth",
                "AFImageHeight",
                "AFAreaXPosition",
                "AFAreaYPosition",
            ]
            .map(|n| numbers(g(n)).first().copied());
            let [Some(w), Some(h), Some(x), Some(y)] = v else {
                return None;
            };
            Some([x / w, y / h])
        }
        Maker::Sony => match numbers(g("FocusLocation"))[..] {
            [w, h, x, y] if w > 0.0 && h > 0.0 => Some([x / w, y / h]),
            _ => None,
        },
        Maker::Fujifilm => {
            let p = numbers(g("FocusPixel"));
            let w = *numbers(t.get("ExifIFD:ExifImageWidth")).first()?;
            let h = *numbers(t.get("ExifIFD:ExifImageHeight")).first()?;
            let manual = g("FocusMode").map(text).as_deref() == Some("1");
            (p.len() == 2 && !manual).then(|| [p[0] / w, p[1] / h])
        }
        Maker::Olympus => match numbers(g("AFPointSelected"))[..] {
            [x, y, ..] => Some([x, y]),
            _ => None,
        },
        Maker::Panasonic => match numbers(g("AFPointPosition"))[..] {
            [x, y] => Some([x, y]),
            _ => None,
        },
    }
}

/// The mode as exiftool prints it, as DarkRoom names it: Olympus's FocusMode up to its
/// first ";", Fujifilm's "Manual" where its FocusMode says so.
fn their_mode(maker: Maker, printed: &Value, mode_tag: &str) -> Option<String> {
    let g = |name: &str| {
        printed
            .get(format!("{}:{name}", maker.exiftool_group()))
            .map(text)
    };
    if maker == Maker::Fujifilm && g("FocusMode").as_deref() == Some("Manual") {
        return Some("Manual".to_owned());
    }
    let words = g(mode_tag)?;
    let words = match maker {
        Maker::Olympus => words.split(';').next()?.trim().to_owned(),
        _ => words,
    };
    (!words.starts_with("Unknown")).then_some(words)
}

/// The facts DarkRoom reads from a file. exiv2's metadata files (.exv: "\xff\x01Exiv2",
/// then a JPEG's segments, no image) hold real cameras' EXIF and maker notes: read as the
/// JPEG they would be with a start-of-image marker.
fn facts_of(path: &Path) -> Option<facts::Facts> {
    if path.extension().is_some_and(|e| e == "exv") {
        let bytes = std::fs::read(path).ok()?;
        let segments = bytes.strip_prefix(b"\xff\x01Exiv2")?;
        let mut jpeg = vec![0xff, 0xd8];
        jpeg.extend_from_slice(segments);
        return Some(facts::from_bytes(&jpeg, false));
    }
    facts::read(path).ok()
}

#[derive(Default)]
struct Tally {
    files: usize,
    values: usize,
    positions: usize,
}

#[test]
fn af_points_from_real_camera_files_read_equal_to_exiftool() {
    let dir = set_dir();
    let files = set_files();
    let groups: Vec<String> = MAKERS
        .iter()
        .map(|(m, ..)| format!("{}:all", m.exiftool_group()))
        .collect();
    let mut tags: Vec<&str> = groups.iter().map(String::as_str).collect();
    tags.extend([
        "IFD0:Model",
        "IFD0:Orientation",
        "ExifIFD:ExifImageWidth",
        "ExifIFD:ExifImageHeight",
    ]);
    let numeric = exiftool(&dir, &files, true, &tags);
    let mode_tags: Vec<String> = MAKERS
        .iter()
        .flat_map(|(m, _, mode)| {
            [
                format!("{}:{mode}", m.exiftool_group()),
                format!("{}:FocusMode", m.exiftool_group()),
            ]
        })
        .collect();
    let printed = exiftool(
        &dir,
        &files,
        false,
        &mode_tags.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut tally: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut wrong: Vec<String> = Vec::new();
    let mut unread: Vec<String> = Vec::new();
    let null = Value::Null;
    for file in &files {
        let Some(ours) = facts_of(&dir.join(file)) else {
            continue;
        };
        let theirs = numeric.get(file).unwrap_or(&null);
        let their_printed = printed.get(file).unwrap_or(&null);
        // Which maker's AF exiftool finds here, if any.
        let theirs_af = MAKERS.iter().find(|(m, key, _)| {
            theirs
                .get(format!("{}:{key}", m.exiftool_group()))
                .is_some()
        });
        let af: Option<&Af> = ours.af.as_ref();
        // A crash reproducer whose maker notes exiftool will not read is not compared.
        let group_read = |m: Maker| {
            theirs.as_object().is_some_and(|o| {
                o.keys()
                    .any(|k| k.starts_with(&format!("{}:", m.exiftool_group())))
            })
        };
        if af.is_some_and(|af| !group_read(af.maker)) {
            unread.push(file.clone());
            continue;
        }
        match (af, theirs_af) {
            (None, Some((m, key, _))) => {
                wrong.push(format!(
                    "{file}: exiftool reads {m:?} {key}, DarkRoom no AF"
                ));
                continue;
            }
            (None, None) => continue,
            _ => {}
        }
        let Some(af) = af else { continue };
        let group = af.maker.exiftool_group();
        let t = tally.entry(group).or_default();
        t.files += 1;
        for (name, value) in &af.fields {
            t.values += 1;
            match theirs.get(format!("{group}:{name}")) {
                Some(v) if same(value, &text(v)) => {}
                other => wrong.push(format!(
                    "{file}: {group}:{name} is {value:?}, exiftool {:?}",
                    other.map(text)
                )),
            }
        }
        let (_, _, mode_tag) = MAKERS
            .iter()
            .find(|(m, ..)| *m == af.maker)
            .expect("every maker is listed");
        let their_words = their_mode(af.maker, their_printed, mode_tag);
        if af.mode != their_words {
            wrong.push(format!(
                "{file}: AF mode {:?}, exiftool {their_words:?}",
                af.mode
            ));
        }
        let model = theirs.get("IFD0:Model").map(text).unwrap_or_default();
        let model = if model.is_empty() {
            ours.camera.clone().unwrap_or_default()
        } else {
            model
        };
        let orientation = theirs
            .get("IFD0:Orientation")
            .and_then(Value::as_u64)
            .unwrap_or(1);
        let want = expected(af.maker, theirs, &model).map(|p| shown(p, orientation));
        let got = af
            .focus_area()
            .map(|r| [f64::from(r[0] + r[2]) / 2.0, f64::from(r[1] + r[3]) / 2.0]);
        match (got, want) {
            (Some(g), Some(w)) if (g[0] - w[0]).abs() < 1e-3 && (g[1] - w[1]).abs() < 1e-3 => {
                t.positions += 1;
            }
            // A point outside the frame it is counted in (a stripped file's 2×2 pixels) is
            // no point, for DarkRoom as for the test.
            (None, Some(w)) if !(0.0..=1.0).contains(&w[0]) || !(0.0..=1.0).contains(&w[1]) => {}
            (None, None) => {}
            (g, w) => wrong.push(format!(
                "{file}: focused at {g:?} of the photo as shown, exiftool's numbers {w:?}"
            )),
        }
    }
    eprintln!("AF points against exiftool, per maker (files · values compared · positions):");
    for (group, t) in &tally {
        eprintln!(
            "  {group:<10} {:>3} files · {:>4} values · {:>3} positions",
            t.files, t.values, t.positions
        );
    }
    eprintln!(
        "  not compared (exiftool reads none of their maker notes): {}",
        unread.join(", ")
    );
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    for (maker, files, positions) in FLOORS {
        let t = tally.get(maker.exiftool_group());
        let (f, p) = t.map_or((0, 0), |t| (t.files, t.positions));
        assert!(
            f >= files && p >= positions,
            "{maker:?}: {f} files compared, {p} with an AF position; exiv2's set has {files}, \
             {positions}"
        );
    }
}
