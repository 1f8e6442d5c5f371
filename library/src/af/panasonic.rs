//! Panasonic: AFPointPosition (maker-note tag 0x4d), the centre of the primary AF area as
//! fractions of the frame; AFAreaMode (0x0f, two bytes) in exiftool's words. The directory
//! follows "Panasonic\0\0\0"; its offsets count from the EXIF block's TIFF header.

use super::ifd::{Ifd, Order};
use super::{Context, Found, Note, joined, quotient};

const AF_AREA_MODE: u16 = 0x0f;
const AF_POINT_POSITION: u16 = 0x4d;

const AREA_MODES: &[(&str, &str)] = &[
    ("0 1", "9-area"),
    ("0 16", "3-area (high speed)"),
    ("0 23", "23-area"),
    ("0 49", "49-area"),
    ("0 225", "225-area"),
    ("1 0", "Spot Focusing"),
    ("1 1", "5-area"),
    ("16", "Normal?"),
    ("16 0", "1-area"),
    ("16 16", "1-area (high speed)"),
    ("32 0", "Tracking"),
    ("32 1", "3-area (left)?"),
    ("32 2", "3-area (center)?"),
    ("32 3", "3-area (right)?"),
    ("64 0", "Face Detect"),
    ("64 1", "Face Detect (animal detect on)"),
    ("64 2", "Face Detect (animal detect off)"),
    ("128 0", "Pinpoint focus"),
    ("240 0", "Tracking"),
];

pub(super) fn read(note: &Note<'_>, ctx: &Context<'_>) -> Option<Found> {
    let body = note.tiff.get(note.start..note.start + note.len)?;
    if !body.starts_with(b"Panasonic\0") {
        return None;
    }
    let ifd = Ifd::new(
        note.tiff,
        note.start + 12,
        0,
        Order {
            little: note.little,
        },
    );
    let mut found = Found::default();
    if let Some(e) = ifd.get(AF_AREA_MODE) {
        let v = joined(e.uints());
        // The DMC-FZ10 names its two values otherwise; exiftool's words for it are not ours.
        if !ctx.model.contains("DMC-FZ10") {
            found.mode = AREA_MODES
                .iter()
                .find(|(k, _)| *k == v)
                .map(|(_, w)| (*w).to_owned());
        }
        found.field("AFAreaMode", v);
    }
    if let Some(e) = ifd.get(AF_POINT_POSITION) {
        let r = e.rationals();
        found.field("AFPointPosition", joined(r.iter().map(|&q| quotient(q))));
        // exiftool's "none" is 16777216 twice: anything outside 0..1 is no point.
        if let [(xn, xd), (yn, yd)] = r[..]
            && xd > 0
            && yd > 0
        {
            let (x, y) = (xn as f32 / xd as f32, yn as f32 / yd as f32);
            if (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y) {
                found.point_at(x, y, None);
            }
        }
    }
    Some(found)
}
