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

/// Per maker, the files exiv2's set holds today whose AF record is compared, of them those
/// with an AF position (the rest: manual focus, a DSLR's phase-detect points, which have no
/// position in the file, a stripped file's 2×2 frame), and those whose phase-detect points
/// are counted (held to exiftool's names): a reader that silently stops finding them fails.
const FLOORS: [(Maker, usize, usize, usize); 6] = [
    (Maker::Canon, 37, 30, 0),
    (Maker::Nikon, 31, 1, 11),
    (Maker::Sony, 26, 2, 0),
    (Maker::Fujifilm, 19, 6, 0),
    (Maker::Olympus, 2, 1, 0),
    (Maker::Panasonic, 3, 2, 0),
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

/// A point of the AF frame (`af` pixels) on the photo (ExifImageWidth × ExifImageHeight in
/// `t`) where the two differ in shape: the photo a centred crop of the frame at one scale.
fn on_photo([x, y]: [f64; 2], (aw, ah): (f64, f64), t: &Value) -> [f64; 2] {
    let pw = numbers(t.get("ExifIFD:ExifImageWidth")).first().copied();
    let ph = numbers(t.get("ExifIFD:ExifImageHeight")).first().copied();
    match (pw, ph) {
        (Some(pw), Some(ph))
            if pw > 0.0 && ph > 0.0 && ((aw / ah) / (pw / ph) - 1.0).abs() >= 0.01 =>
        {
            let k = (pw / aw).max(ph / ah);
            [
                ((x - 0.5) * aw * k + pw / 2.0) / pw,
                ((y - 0.5) * ah * k + ph / 2.0) / ph,
            ]
        }
        _ => [x, y],
    }
}

/// Where exiftool's numbers put the focus on the sensor's frame, as fractions of the photo:
/// the centre of the box around the points in focus (Canon: else the selected ones), or the
/// one point.
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
            Some(on_photo(
                [(b[0] + b[2]) / 2.0 / w, (b[1] + b[3]) / 2.0 / h],
                (w, h),
                t,
            ))
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
            Some(on_photo([x / w, y / h], (w, h), t))
        }
        Maker::Sony => match numbers(g("FocusLocation"))[..] {
            [w, h, x, y] if w > 0.0 && h > 0.0 => Some(on_photo([x / w, y / h], (w, h), t)),
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
    /// Files whose phase-detect points are counted, not placed.
    unplaced: usize,
}

/// What holding DarkRoom's reading of some files against exiftool's found.
#[derive(Default)]
struct Compared {
    /// Per maker group: files, values, positions.
    tally: BTreeMap<&'static str, Tally>,
    /// Every difference, in words.
    wrong: Vec<String>,
    /// Files whose maker notes exiftool reads none of.
    unread: Vec<String>,
    /// The files whose focus DarkRoom placed where exiftool's numbers put it.
    placed: Vec<String>,
}

/// DarkRoom's AF reading of `files` in `dir` held against exiftool's, value by value, mode
/// by mode and position by position.
fn compare(dir: &Path, files: &[String]) -> Compared {
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
    let numeric = exiftool(dir, files, true, &tags);
    let mut mode_tags: Vec<String> = MAKERS
        .iter()
        .flat_map(|(m, _, mode)| {
            [
                format!("{}:{mode}", m.exiftool_group()),
                format!("{}:FocusMode", m.exiftool_group()),
            ]
        })
        .collect();
    mode_tags
        .extend(["PhaseDetectAF", "AFPointsUsed", "AFPointsInFocus"].map(|t| format!("Nikon:{t}")));
    let printed = exiftool(
        dir,
        files,
        false,
        &mode_tags.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut wrong: Vec<String> = Vec::new();
    let mut unread: Vec<String> = Vec::new();
    let mut placed: Vec<String> = Vec::new();
    let null = Value::Null;
    for file in files {
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
        if let Some(u) = af.unplaced {
            let named = |tag: &str| {
                their_printed.get(format!("Nikon:{tag}")).map(|v| {
                    let v = text(v);
                    if v == "(none)" {
                        0
                    } else if let Some(all) = v
                        .strip_prefix("All ")
                        .and_then(|a| a.strip_suffix(" Points"))
                    {
                        all.parse().unwrap_or(0)
                    } else {
                        v.split(',').count() as u32
                    }
                })
            };
            let grid = their_printed
                .get("Nikon:PhaseDetectAF")
                .map(text)
                .and_then(|p| {
                    p.strip_prefix("On (")?
                        .strip_suffix("-point)")?
                        .parse::<u16>()
                        .ok()
                });
            let theirs_counted = (grid, named("AFPointsUsed"), named("AFPointsInFocus"));
            if (u.grid, Some(u.used), u.in_focus) != theirs_counted {
                wrong.push(format!(
                    "{file}: unplaced points {u:?}, exiftool names (grid, used, in focus) \
                     {theirs_counted:?}"
                ));
            }
            t.unplaced += 1;
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
                placed.push(file.clone());
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
    Compared {
        tally,
        wrong,
        unread,
        placed,
    }
}

#[test]
fn af_points_from_real_camera_files_read_equal_to_exiftool() {
    let Compared {
        tally,
        wrong,
        unread,
        ..
    } = compare(&set_dir(), &set_files());
    eprintln!("AF points against exiftool, per maker (files · values compared · positions):");
    for (group, t) in &tally {
        eprintln!(
            "  {group:<10} {:>3} files · {:>4} values · {:>3} positions · {:>3} counted, not placed",
            t.files, t.values, t.positions, t.unplaced
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
    for (maker, files, positions, counted) in FLOORS {
        let t = tally.get(maker.exiftool_group());
        let (f, p, c) = t.map_or((0, 0, 0), |t| (t.files, t.positions, t.unplaced));
        assert!(
            f >= files && p >= positions && c >= counted,
            "{maker:?}: {f} files compared, {p} with an AF position, {c} counted; exiv2's set \
             has {files}, {positions}, {counted}"
        );
    }
}

/// A TIFF directory at `at` (counted from the header its offsets count from): each entry's
/// tag, type (1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 7 UNDEFINED) and value bytes, the values of
/// over four bytes laid out after it.
fn directory(entries: &[(u16, u16, Vec<u8>)], at: usize, big: bool) -> Vec<u8> {
    let u16b = |v: u16| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u32b = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut head = u16b(entries.len() as u16).to_vec();
    let mut tail: Vec<u8> = Vec::new();
    let data_at = at + 2 + 12 * entries.len() + 4;
    for (tag, kind, value) in entries {
        let unit = match kind {
            3 => 2,
            4 => 4,
            _ => 1,
        };
        head.extend(u16b(*tag));
        head.extend(u16b(*kind));
        head.extend(u32b((value.len() / unit) as u32));
        if value.len() <= 4 {
            let mut v = value.clone();
            v.resize(4, 0);
            head.extend(v);
        } else {
            head.extend(u32b((data_at + tail.len()) as u32));
            tail.extend(value);
            if tail.len() % 2 == 1 {
                tail.push(0);
            }
        }
    }
    head.extend([0; 4]);
    head.extend(tail);
    head
}

fn shorts(values: &[u16], big: bool) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        })
        .collect()
}

/// A real JPEG (a grey 96×64 frame) carrying an EXIF block with `make`, `model`,
/// `orientation` and a maker note made by `note` from the note's offset in the EXIF block.
fn jpeg_with_maker_note(
    make: &str,
    model: &str,
    orientation: u16,
    big: bool,
    photo: Option<(u32, u32)>,
    note: &dyn Fn(usize) -> Vec<u8>,
) -> Vec<u8> {
    let ascii = |s: &str| {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        b
    };
    let long = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
        .to_vec()
    };
    // IFD0: Make, Model, Orientation, the EXIF IFD's pointer; its size does not depend on
    // the pointer's value, so lay it out once to learn where the EXIF IFD goes.
    let ifd0 = |exif_at: u32| {
        directory(
            &[
                (0x010f, 2, ascii(make)),
                (0x0110, 2, ascii(model)),
                (0x0112, 3, shorts(&[orientation], big)),
                (0x8769, 4, long(exif_at)),
            ],
            8,
            big,
        )
    };
    let exif_at = 8 + ifd0(0).len();
    // The EXIF IFD: the maker note, whose bytes follow the IFD (2 + 12 an entry + 4), and the
    // photo's size where one is given.
    let sizes: Vec<(u16, u16, Vec<u8>)> = photo
        .map(|(w, h)| vec![(0xa002, 4, long(w)), (0xa003, 4, long(h))])
        .unwrap_or_default();
    let note_at = exif_at + 2 + 12 * (1 + sizes.len()) + 4;
    let mut entries = vec![(0x927c, 7, note(note_at))];
    entries.extend(sizes);
    let exif = directory(&entries, exif_at, big);
    let mut tiff: Vec<u8> = if big { b"MM\0\x2a" } else { b"II\x2a\0" }.to_vec();
    tiff.extend(long(8));
    tiff.extend(ifd0(exif_at as u32));
    tiff.extend(exif);
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend(tiff);
    let mut pixels = Vec::new();
    image::DynamicImage::ImageLuma8(image::GrayImage::from_pixel(96, 64, image::Luma([128])))
        .write_to(
            &mut std::io::Cursor::new(&mut pixels),
            image::ImageFormat::Jpeg,
        )
        .expect("a JPEG in memory");
    let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe1];
    jpeg.extend(((app1.len() + 2) as u16).to_be_bytes());
    jpeg.extend(app1);
    jpeg.extend(&pixels[2..]);
    jpeg
}

/// A Z 9's maker note: "Nikon\0", version 2.10, a TIFF header of its own, and an IFD with
/// AFInfo2 version 0400 holding `mode`, whether the area has coordinates (byte 7), the AF
/// image's size, the area's centre and size, and `result` (FocusResult).
fn z9_note(mode: u8, [w, h, x, y, aw, ah]: [u16; 6], result: u8, big: bool) -> Vec<u8> {
    let mut record = vec![0u8; 0x50];
    record[..4].copy_from_slice(b"0400");
    record[5] = mode;
    record[7] = u8::from(x != 0 && y != 0);
    for (i, v) in [w, h, x, y, aw, ah].into_iter().enumerate() {
        let at = 0x3e + 2 * i;
        record[at..at + 2].copy_from_slice(&shorts(&[v], big));
    }
    record[0x4a] = result;
    let mut note = b"Nikon\0\x02\x10\0\0".to_vec();
    note.extend(if big { b"MM\0\x2a" } else { b"II\x2a\0" });
    note.extend(if big {
        8u32.to_be_bytes()
    } else {
        8u32.to_le_bytes()
    });
    note.extend(directory(
        &[(0x0001, 7, b"0210".to_vec()), (0x00b7, 7, record)],
        8,
        big,
    ));
    note
}

/// A Sony body's maker note: "SONY DSC \0\0\0" then an IFD whose offsets count from the EXIF
/// block's header, with FocusLocation and FocusFrameSize.
fn sony_note(at: usize, location: [u16; 4], frame: [u16; 3], big: bool) -> Vec<u8> {
    let mut note = b"SONY DSC \0\0\0".to_vec();
    note.extend(directory(
        &[
            (0x201c, 1, vec![3]),
            (0x2027, 3, shorts(&location, big)),
            (0x2037, 3, shorts(&frame, big)),
        ],
        at + 12,
        big,
    ));
    note
}

/// The records no file in the registries carries — the Z 9's AFInfo2 version 0400, Sony's
/// focus frame — written into real JPEGs here and read equal to exiftool, the point where
/// exiftool's numbers put it, turned with the orientation.
#[test]
fn newer_bodies_af_areas_read_equal_to_exiftool() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    // (file, make, model, orientation, big-endian, note, the focus is placed)
    type Note = Box<dyn Fn(usize) -> Vec<u8>>;
    let cases: Vec<(&str, &str, &str, u16, bool, Note, bool)> = vec![
        (
            "z9-single-in-focus.jpg",
            "NIKON CORPORATION",
            "NIKON Z 9",
            1,
            false,
            Box::new(|_| z9_note(193, [8256, 5504, 6000, 1500, 400, 300], 1, false)),
            true,
        ),
        (
            "z9-dynamic-missed-turned.jpg",
            "NIKON CORPORATION",
            "NIKON Z 9",
            6,
            true,
            Box::new(|_| z9_note(205, [8256, 5504, 1000, 4500, 600, 600], 0, true)),
            true,
        ),
        (
            "z9-no-area.jpg",
            "NIKON CORPORATION",
            "NIKON Z 9",
            1,
            false,
            Box::new(|_| z9_note(197, [8256, 5504, 0, 0, 0, 0], 0, false)),
            false,
        ),
        (
            "a1-focus-frame.jpg",
            "SONY",
            "ILCE-1",
            8,
            false,
            Box::new(|at| sony_note(at, [8640, 5760, 2000, 1200], [480, 320, 257], false)),
            true,
        ),
        (
            "a1-no-frame.jpg",
            "SONY",
            "ILCE-1",
            1,
            true,
            Box::new(|at| sony_note(at, [8640, 5760, 7000, 5000], [0, 0, 0], true)),
            true,
        ),
    ];
    for (name, make, model, orientation, big, note, _) in &cases {
        let jpeg = jpeg_with_maker_note(make, model, *orientation, *big, None, note.as_ref());
        std::fs::write(dir.path().join(name), jpeg).expect("write a test file");
    }
    // The same Z 9 frame saved 1:1: the photo the AF image's middle 5504 × 5504.
    let square = jpeg_with_maker_note(
        "NIKON CORPORATION",
        "NIKON Z 9",
        1,
        false,
        Some((5504, 5504)),
        &|_| z9_note(193, [8256, 5504, 6000, 1500, 400, 300], 1, false),
    );
    std::fs::write(dir.path().join("z9-square.jpg"), square).expect("write a test file");
    let mut files: Vec<String> = cases.iter().map(|c| c.0.to_owned()).collect();
    files.push("z9-square.jpg".to_owned());
    let compared = compare(dir.path(), &files);
    assert!(
        compared.wrong.is_empty(),
        "{} differences:\n{}",
        compared.wrong.len(),
        compared.wrong.join("\n")
    );
    for (name, .., placed) in &cases {
        assert_eq!(
            compared.placed.contains(&name.to_string()),
            *placed,
            "{name}: placed where exiftool's numbers put the focus"
        );
    }
    let nikon = &compared.tally["Nikon"];
    let sony = &compared.tally["Sony"];
    assert_eq!((nikon.files, sony.files), (4, 2), "every file read");
    assert!(compared.placed.contains(&"z9-square.jpg".to_owned()));
    // What exiftool prints of them, so a reader and a test agreeing on nothing cannot pass.
    let z9 = facts::read(&dir.path().join("z9-dynamic-missed-turned.jpg")).expect("facts");
    let af = z9.af.expect("the Z 9's AF record");
    assert_eq!(af.mode.as_deref(), Some("Dynamic Area (M)"));
    assert_eq!(af.frame, Some((5504, 8256)), "the AF image turned upright");
    assert_eq!(af.points.len(), 1);
    assert_eq!(
        af.points[0].in_focus,
        Some(false),
        "FocusResult 0: not in focus"
    );
    let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
    // 600 × 600 of 8256 × 5504, turned: 600 of the shown 5504 across, of 8256 down.
    let r = af.points[0].rect;
    assert!(
        af.points[0].sized
            && close(r[2] - r[0], 600.0 / 5504.0)
            && close(r[3] - r[1], 600.0 / 8256.0),
        "{r:?}"
    );
    let z9 = facts::read(&dir.path().join("z9-single-in-focus.jpg")).expect("facts");
    let af = z9.af.expect("the Z 9's AF record");
    assert_eq!(af.points[0].in_focus, Some(true), "FocusResult 1: in focus");
    let r = af.points[0].rect;
    assert!(
        close(r[2] - r[0], 400.0 / 8256.0) && close(r[3] - r[1], 300.0 / 5504.0),
        "400 × 300 of 8256 × 5504: {r:?}"
    );
    // x 6000 of 8256 is 6000 − 1376 = 4624 of the square's 5504; the rows are the frame's.
    let af = facts::read(&dir.path().join("z9-square.jpg"))
        .expect("facts")
        .af
        .expect("the Z 9's AF record");
    let c = af.points[0].centre();
    assert!(
        close(c[0], 4624.0 / 5504.0) && close(c[1], 1500.0 / 5504.0),
        "{c:?}"
    );
    assert_eq!(af.frame, Some((5504, 5504)), "measured on the photo");
    let a1 = facts::read(&dir.path().join("a1-focus-frame.jpg")).expect("facts");
    let af = a1.af.expect("the A1's focus location");
    let r = af.points[0].rect;
    // 480 × 320 about (2000, 1200) of 8640 × 5760, turned by orientation 8 (270° clockwise):
    // 320 of the shown width of 5760 across.
    assert!(
        ((r[2] - r[0]) - 320.0 / 5760.0).abs() < 1e-4 && af.points[0].sized,
        "{r:?}"
    );
}
