//! `darkroom facts` on real camera files of exiv2's test data: what it says of where each
//! focused, in pixels, and of a file without AF points (the values themselves are held
//! against exiftool in library/tests/af_points.rs).

use serde_json::Value;

use crate::hostile_files::set_dir;
use crate::support::{darkroom, run_ok};

#[test]
fn darkroom_facts_says_where_each_file_focused_and_which_has_no_af() {
    let dir = set_dir();
    let data = tempfile::tempdir().expect("tempdir");
    let sony = dir.join("exiv2-pr906.exv");
    let fuji = dir.join("exiv2-pr1409.exv");
    let none = dir.join("exiv2-bug1199.webp");
    let missing = data.path().join("gone.jpg");
    let out = darkroom(data.path())
        .arg("facts")
        .arg("--json")
        .args([&sony, &fuji, &none, &missing])
        .output()
        .expect("darkroom runs");
    // A file that cannot be read fails the command, after the others are said.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    // The ILCE-7M3 focused at the centre of its 6000 × 4000 frame.
    assert_eq!(lines[0]["camera"], "SONY ILCE-7M3");
    assert_eq!(lines[0]["af"]["mode"], "Expanded Flexible Spot");
    assert_eq!(
        lines[0]["af"]["maker_notes"]["FocusLocation"],
        "6000 4000 3000 2000"
    );
    let px = &lines[0]["af"]["focus_area_pixels"];
    let centre = |p: &Value, i: usize| {
        let at = |k: usize| p[k].as_f64().expect("pixels are numbers");
        (at(i) + at(i + 2)) / 2.0
    };
    assert_eq!((centre(px, 0), centre(px, 1)), (3000.0, 2000.0), "{px}");
    // The X-T3 at FocusPixel 3598, 2090 of 4416 × 2944, single point, in focus.
    assert_eq!(lines[1]["af"]["mode"], "Single Point");
    let px = &lines[1]["af"]["focus_area_pixels"];
    assert_eq!((centre(px, 0), centre(px, 1)), (3598.0, 2090.0), "{px}");
    assert_eq!(lines[1]["af"]["points"][0]["in_focus"], true);
    // A Nikon DSLR's phase-detect points have no position in the file: its record and mode
    // are said, no point drawn.
    assert_eq!(lines[2]["af"]["mode"], "Auto-area");
    assert!(lines[2]["af"]["focus_area"].is_null(), "{}", lines[2]);
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
}
