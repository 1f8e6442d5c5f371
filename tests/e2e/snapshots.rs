//! Snapshots that explain themselves. A snapshot that differs on another machine (CI) leaves
//! only its text behind: egui_kittest's message says how many pixels differ, not where or why.
//! This one also says where they are, what they were and became, and what the window held
//! (each photo's pictures and errors), so a failure seen only in CI can be understood from its
//! log.

use std::fmt::Write;
use std::path::PathBuf;

use darkroom_app::gui::DarkRoom;
use darkroom_app::gui::pictures::{Faces, Pictures, Slot};
use egui_kittest::Harness;

pub(crate) trait Snap {
    /// As `snapshot`, failing at once with the explanation.
    fn snap(&mut self, name: &str);
}

impl Snap for Harness<'static, DarkRoom> {
    fn snap(&mut self, name: &str) {
        if let Err(e) = self.try_snapshot(name) {
            panic!(
                "{e}\n{}\nthe window held:\n{}",
                where_they_differ(name),
                what_the_window_held(self.state())
            );
        }
    }
}

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/snapshots")
}

/// Where the new picture differs from the committed one: how many pixels, their bounding box,
/// the count per 64 px block, and a few of them with both colours.
fn where_they_differ(name: &str) -> String {
    let dir = snapshot_dir();
    let open = |file: String| image::open(dir.join(file)).map(|i| i.into_rgba8());
    let (old, new) = match (open(format!("{name}.png")), open(format!("{name}.new.png"))) {
        (Ok(o), Ok(n)) => (o, n),
        (o, n) => return format!("(pictures not compared: {:?} {:?})", o.err(), n.err()),
    };
    if old.dimensions() != new.dimensions() {
        return format!(
            "sizes differ: {:?} → {:?}",
            old.dimensions(),
            new.dimensions()
        );
    }
    let mut out = String::new();
    let mut differing = Vec::new();
    for (x, y, a) in old.enumerate_pixels() {
        let b = new.get_pixel(x, y);
        let most =
            a.0.iter()
                .zip(b.0)
                .map(|(p, q)| p.abs_diff(q))
                .max()
                .unwrap_or(0);
        if most > 0 {
            differing.push((x, y, most, a.0, b.0));
        }
    }
    let Some(&(x0, y0, ..)) = differing.first() else {
        return "no pixel differs exactly (the comparison's own measure failed)".to_owned();
    };
    let (mut left, mut top, mut right, mut bottom) = (x0, y0, x0, y0);
    let mut blocks = std::collections::BTreeMap::<(u32, u32), usize>::new();
    for &(x, y, ..) in &differing {
        (left, top, right, bottom) = (left.min(x), top.min(y), right.max(x), bottom.max(y));
        *blocks.entry((x / 64 * 64, y / 64 * 64)).or_default() += 1;
    }
    let big = differing.iter().filter(|d| d.2 > 16).count();
    let _ = writeln!(
        out,
        "{} pixels differ ({big} by more than 16 levels), within x {left}..={right}, y {top}..={bottom}",
        differing.len()
    );
    let _ = writeln!(out, "per 64 px block (x, y): {blocks:?}");
    let step = (differing.len() / 12).max(1);
    for &(x, y, _, a, b) in differing.iter().step_by(step).take(12) {
        let _ = writeln!(out, "  ({x}, {y}): {a:?} → {b:?}");
    }
    out
}

/// Each photo's slots, its error, which one is selected and the view.
fn what_the_window_held(app: &DarkRoom) -> String {
    let mut out = format!("view {:?}, selected {}\n", app.cull.view, app.cull.selected);
    for v in 0.. {
        let Some(id) = app.cull.visible_id(v) else {
            break;
        };
        let (Some(photo), Some(p)) = (app.cull.get(id), app.gallery.get(id)) else {
            continue;
        };
        let _ = writeln!(
            out,
            "  {}: error {:?}; {}",
            photo.file_name(),
            photo.error,
            slots(p)
        );
    }
    out
}

fn slots(p: &Pictures) -> String {
    let picture = |s: &Slot<egui::TextureHandle>| match s {
        Slot::None => "none".to_owned(),
        Slot::Requested => "asked".to_owned(),
        Slot::Ready(t) => format!("{:?}", t.size()),
        Slot::Failed(e) => format!("failed: {e}"),
    };
    let full = match &p.full {
        Slot::None => "none".to_owned(),
        Slot::Requested => "asked".to_owned(),
        Slot::Ready(f) => format!("{:?} in {} tiles", f.size, f.tiles.len()),
        Slot::Failed(e) => format!("failed: {e}"),
    };
    let faces = match &p.faces {
        Faces::None => "none".to_owned(),
        Faces::Requested => "asked".to_owned(),
        Faces::NotIndexed => "not indexed".to_owned(),
        Faces::Ready(t) => format!("{} close-ups", t.len()),
        Faces::Failed(e) => format!("failed: {e}"),
    };
    format!(
        "thumb {}, loupe {}, full {full}, faces {faces}",
        picture(&p.thumb),
        picture(&p.loupe)
    )
}
