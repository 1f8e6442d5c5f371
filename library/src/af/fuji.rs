//! Fujifilm: FocusPixel (maker-note tag 0x1023), the point the camera focused at in pixels of
//! the frame EXIF's ExifImageWidth × ExifImageHeight give; AFMode (0x1022) in exiftool's
//! words; FocusWarning (0x1301), the camera's own "out of focus". The note starts with
//! "FUJIFILM" and the directory's offset; it is always little-endian and its offsets count
//! from the note's start.

use super::ifd::{Ifd, Order};
use super::{Context, Found, Note, joined};

const FOCUS_MODE: u16 = 0x1021;
const AF_MODE: u16 = 0x1022;
const FOCUS_PIXEL: u16 = 0x1023;
const FOCUS_WARNING: u16 = 0x1301;

const AF_MODES: &[(u32, &str)] = &[
    (0, "No"),
    (1, "Single Point"),
    (256, "Zone"),
    (512, "Wide/Tracking"),
];

pub(super) fn read(note: &Note<'_>, ctx: &Context<'_>) -> Option<Found> {
    let body = note.tiff.get(note.start..note.start + note.len)?;
    if !body.starts_with(b"FUJIFILM") {
        return None;
    }
    let order = Order { little: true };
    let first = usize::try_from(order.u32(body, 8)?).ok()?;
    let ifd = Ifd::new(body, first, 0, order);
    let first_uint = |tag| ifd.get(tag).and_then(|e| e.uints().first().copied());
    let mut found = Found::default();
    let manual = first_uint(FOCUS_MODE) == Some(1);
    if let Some(mode) = first_uint(AF_MODE) {
        found.field("AFMode", mode.to_string());
        found.mode = AF_MODES
            .iter()
            .find(|(v, _)| *v == mode)
            .map(|(_, w)| (*w).to_owned());
    }
    if manual {
        found.mode = Some("Manual".to_owned());
    }
    let warning = first_uint(FOCUS_WARNING);
    if let Some(w) = warning {
        found.field("FocusWarning", w.to_string());
    }
    if let Some(e) = ifd.get(FOCUS_PIXEL) {
        let v = e.uints();
        found.field("FocusPixel", joined(&v));
        if let (&[x, y], Some((w, h))) = (&v[..], ctx.exif_size)
            && w > 0
            && h > 0
            && !manual
        {
            found.frame = Some((w, h));
            found.point_at(
                x as f32 / w as f32,
                y as f32 / h as f32,
                warning.map(|w| w == 0),
            );
        }
    }
    Some(found)
}
