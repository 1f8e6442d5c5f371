//! `darkroom facts [--json] FILE…`: what DarkRoom reads from each file — camera, body serial,
//! lens, exposure, capture time, orientation, and where the camera focused (the AF mode, the
//! points in pixels of the photo as shown with what the camera said of each, and the maker
//! notes' values under exiftool's names) — so anyone can hold it against exiftool.

use std::path::PathBuf;
use std::process::ExitCode;

use darkroom_library::af::Af;
use darkroom_library::facts::{self, Facts};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The photos (JPEG, HEIF, PNG, WebP or a RAW).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    for file in &args.files {
        match facts::read(file) {
            Ok(f) if args.json => println!("{}", json(file, &f)),
            Ok(f) => print!("{}", words(file, &f)),
            Err(e) => {
                // The others are still read: one bad file costs its own line only.
                failed = true;
                if args.json {
                    println!(
                        "{}",
                        serde_json::json!({ "file": file, "error": e.to_string() })
                    );
                } else {
                    eprintln!("darkroom facts: {e}");
                }
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn json(file: &std::path::Path, f: &Facts) -> serde_json::Value {
    serde_json::json!({
        "file": file,
        "camera": f.camera,
        "serial": f.serial,
        "lens": f.lens,
        "focal_mm": f.focal_mm,
        "shutter_s": f.shutter.map(|(n, d)| f64::from(n) / f64::from(d.max(1))),
        "aperture": f.aperture,
        "iso": f.iso,
        "exposure_bias_ev": f.exposure_bias,
        "taken": f.taken,
        "orientation": f.orientation,
        "af": f.af.as_ref().map(af_json),
    })
}

/// The AF record as `index --json` carries it too.
pub fn af_json(af: &Af) -> serde_json::Value {
    let points: Vec<serde_json::Value> = af
        .points
        .iter()
        .map(|p| {
            serde_json::json!({
                "rect": p.rect,
                "pixels": af.pixels(p.rect),
                "sized_by_camera": p.sized,
                "in_focus": p.in_focus,
                "selected": p.selected,
            })
        })
        .collect();
    let fields: serde_json::Map<String, serde_json::Value> = af
        .fields
        .iter()
        .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(v.as_str())))
        .collect();
    serde_json::json!({
        "maker": af.maker.exiftool_group(),
        "mode": af.mode,
        "frame": af.frame,
        "focus_area": af.focus_area(),
        "focus_area_pixels": af.focus_area().and_then(|r| af.pixels(r)),
        "points": points,
        "unplaced": af.unplaced.map(|u| serde_json::json!({
            "grid": u.grid,
            "used": u.used,
            "in_focus": u.in_focus,
        })),
        "maker_notes": fields,
    })
}

fn words(file: &std::path::Path, f: &Facts) -> String {
    let mut out = format!("{}\n", file.display());
    let line = f.line();
    out.push_str(&format!(
        "  {}\n",
        if line.is_empty() { "no EXIF" } else { &line }
    ));
    if let Some(serial) = &f.serial {
        out.push_str(&format!("  body serial {serial}\n"));
    }
    if let Some(o) = f.orientation {
        out.push_str(&format!("  orientation {o}\n"));
    }
    match &f.af {
        None => out.push_str("  AF: no AF points in its maker notes\n"),
        Some(af) => {
            out.push_str(&format!(
                "  AF ({}): {}\n",
                af.maker.exiftool_group(),
                af.mode.as_deref().unwrap_or("mode not named")
            ));
            match af.focus_area() {
                Some(r) => out.push_str(&format!(
                    "  focused at {}\n",
                    af.pixels(r).map_or_else(
                        || format!(
                            "{:.3},{:.3}–{:.3},{:.3} of the frame",
                            r[0], r[1], r[2], r[3]
                        ),
                        |p| format!("pixels {},{}–{},{}", p[0], p[1], p[2], p[3]),
                    )
                )),
                None => match af.unplaced {
                    Some(u) => out.push_str(&format!("  {}\n", u.words())),
                    None => out.push_str("  no AF point with a position in the file\n"),
                },
            }
            let in_focus = af
                .points
                .iter()
                .filter(|p| p.in_focus == Some(true))
                .count();
            out.push_str(&format!(
                "  {} point{}, {} in focus\n",
                af.points.len(),
                if af.points.len() == 1 { "" } else { "s" },
                in_focus
            ));
            for (k, v) in &af.fields {
                out.push_str(&format!("    {k}: {v}\n"));
            }
        }
    }
    out
}
