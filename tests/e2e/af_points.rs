//! Where the camera focused, end to end: `darkroom facts` on real camera files of exiv2's test
//! data (what it says of where each focused, in pixels, and of a file without AF points; the
//! values themselves are held against exiftool in library/tests/af_points.rs), and a faceless
//! burst judged by the index and the proposal at its AF point.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::exiv2::set_dir;
use crate::support::{darkroom, json, run_ok};

#[test]
fn darkroom_facts_says_where_each_file_focused_and_which_has_no_af() {
    let dir = set_dir();
    let data = tempfile::tempdir().expect("tempdir");
    // A Sony α1's HEIF, a Canon R6's CR3 focused by hand, a Nikon D5300's WebP (its
    // phase-detect points have no position in the file), and a file that is not there.
    let sony = dir.join("Sony.HIF");
    let canon = dir.join("Canon-R6-pruned.CR3");
    let nikon = dir.join("exiv2-bug1199.webp");
    let missing = data.path().join("gone.jpg");
    let out = darkroom(data.path())
        .arg("facts")
        .arg("--json")
        .args([&sony, &canon, &nikon, &missing])
        .output()
        .expect("darkroom runs");
    // A file that cannot be read fails the command, after the others are said.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    // The α1 focused at the centre of its 8640 × 5760 frame, in its Center area mode.
    assert_eq!(lines[0]["camera"], "SONY ILCE-1");
    assert_eq!(lines[0]["af"]["mode"], "Center");
    assert_eq!(
        lines[0]["af"]["maker_notes"]["FocusLocation"],
        "8640 5760 4320 2880"
    );
    let px = &lines[0]["af"]["focus_area_pixels"];
    let centre = |p: &Value, i: usize| {
        let at = |k: usize| p[k].as_f64().expect("pixels are numbers");
        (at(i) + at(i + 2)) / 2.0
    };
    assert_eq!((centre(px, 0), centre(px, 1)), (4320.0, 2880.0), "{px}");
    assert_eq!(lines[0]["af"]["frame"], serde_json::json!([8640, 5760]));
    // The R6 was focused by hand: its AF record, from the CR3's CMT3 box, says so, and names
    // no point to be sharp at.
    assert_eq!(lines[1]["af"]["mode"], "Off (Manual Focus)", "{}", lines[1]);
    assert_eq!(lines[1]["af"]["maker_notes"]["NumAFPoints"], "1053");
    assert!(lines[1]["af"]["focus_area"].is_null(), "{}", lines[1]);
    // A Nikon DSLR's record and mode are said, no point drawn.
    assert_eq!(lines[2]["af"]["mode"], "Auto-area");
    assert!(lines[2]["af"]["focus_area"].is_null(), "{}", lines[2]);
    // Its eight points used (exiftool: B7,C1,C5,C6,C7,D6,D7,D10) of the 39-point grid are
    // counted.
    assert_eq!(
        lines[2]["af"]["unplaced"],
        serde_json::json!({"grid": 39, "used": 8, "in_focus": null}),
        "{}",
        lines[2]
    );
    assert!(
        lines[3]["error"]
            .as_str()
            .is_some_and(|e| e.contains("gone.jpg")),
        "{}",
        lines[3]
    );
    // In words: a file without maker-note AF says so.
    let plain = run_ok(
        darkroom(data.path())
            .arg("facts")
            .arg(dir.join("exiv2-empty.jpg")),
    );
    assert!(
        String::from_utf8_lossy(&plain.stdout).contains("AF: no AF points in its maker notes"),
        "{plain:?}"
    );
    let counted = run_ok(darkroom(data.path()).arg("facts").arg(&nikon));
    assert!(
        String::from_utf8_lossy(&counted.stdout)
            .contains("8 AF points of the 39-point grid used; the file does not say where"),
        "{counted:?}"
    );
}

/// Where exiv2's Fujifilm X-T3 file says its camera focused (FocusPixel 3598, 2090 of
/// 4416 × 2944): the point the burst below is blurred around.
const FUJI: &str = "exiv2-pr1409.exv";
pub(crate) const FUJI_POINT: [f32; 2] = [3598.0 / 4416.0, 2090.0 / 2944.0];

/// A frame of a burst made from a real photo (scikit-image's coffee, no face in it, `scale`
/// times its 600 × 400): blurred inside a square around the AF point (`blur_inside`) or
/// everywhere but there, carrying the X-T3's maker notes (copied by exiftool, as a block,
/// offsets fixed) and a capture time `subsec` hundredths into one second.
pub(crate) fn af_frame(
    folder: &Path,
    name: &str,
    blur_inside: bool,
    subsec: u32,
    scale: u32,
) -> std::path::PathBuf {
    let img = image::open(crate::support::photo("coffee.png"))
        .expect("the coffee photo")
        .into_rgb8();
    let img = image::imageops::resize(
        &img,
        img.width() * scale,
        img.height() * scale,
        image::imageops::FilterType::Triangle,
    );
    let blurred = image::imageops::blur(&img, 4.0 * scale as f32);
    let (w, h) = img.dimensions();
    let half = 0.1 * h as f32;
    let (cx, cy) = (FUJI_POINT[0] * w as f32, FUJI_POINT[1] * h as f32);
    let near = |x: u32, y: u32| (x as f32 - cx).abs() < half && (y as f32 - cy).abs() < half;
    let frame = image::RgbImage::from_fn(w, h, |x, y| {
        if near(x, y) == blur_inside {
            *blurred.get_pixel(x, y)
        } else {
            *img.get_pixel(x, y)
        }
    });
    let plain = folder.join(format!("{name}.plain.jpg"));
    frame.save(&plain).expect("write the frame");
    let out = folder.join(format!("{name}.jpg"));
    let status = Command::new("exiftool")
        .args(["-q", "-q", "-m", "-TagsFromFile"])
        .arg(set_dir().join(FUJI))
        .args([
            "-all:all",
            "-DateTimeOriginal=2024:05:01 10:00:00",
            &format!("-SubSecTimeOriginal={subsec:02}"),
            "-o",
        ])
        .arg(&out)
        .arg(&plain)
        .status()
        .expect("exiftool is installed (scripts/test installs libimage-exiftool-perl)");
    assert!(status.success(), "exiftool wrote {}", out.display());
    std::fs::remove_file(&plain).expect("remove the plain frame");
    out
}

fn result<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["results"]
        .as_array()
        .and_then(|r| {
            r.iter().find(|p| {
                p["path"]
                    .as_str()
                    .is_some_and(|s| s.ends_with(&format!("{name}.jpg")))
            })
        })
        .unwrap_or_else(|| panic!("{name} in {report}"))
}

/// Two frames of one moment from one real photo: one blurred everywhere but where the camera
/// focused, one blurred only there. Over the whole frame the second is far the sharper; where
/// the camera focused it is soft, and that is what the index and the proposal judge it by:
/// it is rejected as soft at the AF point, the first kept, and the segmenter is not run on
/// either. The same frames without their maker notes are judged the old way.
#[test]
fn a_faceless_burst_is_judged_where_the_camera_focused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("burst");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let sharp_there = af_frame(&folder, "sharp_at_af", false, 10, 1);
    af_frame(&folder, "soft_at_af", true, 30, 1);
    // The maker notes came across: DarkRoom reads the X-T3's point from the frame.
    let facts = darkroom_library::facts::read(&sharp_there).expect("facts");
    let af = facts.af.expect("the copied maker notes' AF point");
    let area = af.focus_area().expect("a point");
    let centre = [(area[0] + area[2]) / 2.0, (area[1] + area[3]) / 2.0];
    assert!(
        (centre[0] - FUJI_POINT[0]).abs() < 1e-3 && (centre[1] - FUJI_POINT[1]).abs() < 1e-3,
        "{centre:?}"
    );

    let index = |catalog: &str, folder: &Path| {
        json(&run_ok(
            crate::support::darkroom_on(crate::support::Rt::Ort, dir.path())
                .env("DARKROOM_MODELS", crate::support::models())
                .args(["index", "--json", "--catalog"])
                .arg(dir.path().join(catalog))
                .arg(folder),
        ))
    };
    let report = index("catalog.sqlite", &folder);
    let (sharp, soft) = (
        result(&report, "sharp_at_af"),
        result(&report, "soft_at_af"),
    );
    let at = |p: &Value| {
        p["af"]["sharpness"]
            .as_f64()
            .expect("measured at the AF point")
    };
    let whole = |p: &Value| p["sharpness"].as_f64().expect("the frame's sharpness");
    assert!(whole(soft) > 2.0 * whole(sharp), "{report}");
    assert!(at(sharp) > 2.5 * at(soft), "{report}");
    assert_eq!(soft["af"]["soft"], true, "{report}");
    assert_eq!(sharp["af"]["soft"], false, "{report}");
    assert_eq!(soft["burst"], sharp["burst"], "one burst: {report}");
    assert_eq!(sharp["proposed"]["flag"], "pick", "{report}");
    assert_eq!(soft["proposed"]["flag"], "reject", "{report}");
    let words = soft["proposed"]["reasons"][0]["words"]
        .as_str()
        .expect("a reason in words");
    assert_eq!(
        words,
        format!(
            "soft at the AF point: {:.0} vs {:.0} for the best of the burst",
            at(soft),
            at(sharp)
        ),
        "{report}"
    );
    // Judged at the AF point, not by the segmenter (the shipped U²-Netp is installed).
    assert_eq!(report["stages"]["judged_at_af"], 2, "{report}");
    assert_eq!(report["stages"]["segmented"], 0, "{report}");
    assert!(sharp["af"]["area_pixels"].is_array(), "{report}");

    // A catalog from before the AF points (measures 6, no AF columns filled): measured again,
    // not indexed again, and judged at the AF point as before.
    rusqlite::Connection::open(dir.path().join("catalog.sqlite"))
        .expect("open")
        .execute_batch(
            "UPDATE indexed SET measures = 6, af_x0 = NULL, af_y0 = NULL, af_x1 = NULL,
                 af_y1 = NULL, af_sharpness = NULL, af_mode = NULL;",
        )
        .expect("measures 6");
    let again = index("catalog.sqlite", &folder);
    assert_eq!(
        (&again["indexed"], &again["remeasured"]),
        (&0.into(), &2.into()),
        "{again}"
    );
    assert_eq!(result(&again, "soft_at_af")["af"]["soft"], true, "{again}");
    assert_eq!(
        result(&again, "soft_at_af")["proposed"]["reasons"][0]["words"],
        soft["proposed"]["reasons"][0]["words"],
        "{again}"
    );

    // The same frames with their maker notes stripped: no AF point, the segmenter judges.
    let stripped = dir.path().join("stripped");
    std::fs::create_dir_all(&stripped).expect("mkdir");
    for name in ["sharp_at_af", "soft_at_af"] {
        let status = Command::new("exiftool")
            .args(["-q", "-q", "-m", "-MakerNotes:all=", "-o"])
            .arg(stripped.join(format!("{name}.jpg")))
            .arg(folder.join(format!("{name}.jpg")))
            .status()
            .expect("exiftool");
        assert!(status.success());
    }
    let plain = index("stripped.sqlite", &stripped);
    assert!(result(&plain, "soft_at_af")["af"].is_null(), "{plain}");
    assert_eq!(plain["stages"]["judged_at_af"], 0, "{plain}");
    assert_eq!(plain["stages"]["segmented"], 2, "{plain}");
}
