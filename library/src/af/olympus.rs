//! Olympus and OM System: in the CameraSettings directory (maker-note tag 0x2020), AFAreas
//! (0x304: up to 64 boxes, each four bytes of 0–255 coordinates) and AFPointSelected (0x305:
//! the chosen point as fractions of the frame, drawn where there is one), and FocusMode (0x301) in exiftool's words.
//! New notes start "OLYMPUS\0II\x03\0" (or "OM SYSTEM\0\0\0II\x04\0") and count offsets from
//! the note's start; old ones start "OLYMP\0" and count from the EXIF block's TIFF header.

use super::ifd::{Ifd, Order, order_mark};
use super::{AfPoint, Context, Found, Note, joined, quotient};

const CAMERA_SETTINGS: u16 = 0x2020;
const FOCUS_MODE: u16 = 0x301;
const AF_AREAS: u16 = 0x304;
const AF_POINT_SELECTED: u16 = 0x305;

const FOCUS_MODES: &[(u32, &str)] = &[
    (0, "Single AF"),
    (1, "Sequential shooting AF"),
    (2, "Continuous AF"),
    (3, "Multi AF"),
    (4, "Face Detect"),
    (10, "MF"),
];

fn directory<'a>(note: &Note<'a>) -> Option<Ifd<'a>> {
    let at = note.start;
    let body = note.tiff.get(at..at + note.len)?;
    let own = |skip: usize| {
        let order = order_mark(note.tiff, at + skip - 4)?;
        Some(Ifd::new(note.tiff, at + skip, at, order))
    };
    if body.starts_with(b"OLYMPUS\0") {
        own(12)
    } else if body.starts_with(b"OM SYSTEM\0") {
        own(16)
    } else if body.starts_with(b"OLYMP\0") {
        Some(Ifd::new(
            note.tiff,
            at + 8,
            0,
            Order {
                little: note.little,
            },
        ))
    } else {
        None
    }
}

pub(super) fn read(note: &Note<'_>, _ctx: &Context<'_>) -> Option<Found> {
    let main = directory(note)?;
    let e = main.get(CAMERA_SETTINGS)?;
    // CameraSettings is a sub-directory: its offset (IFD or LONG), or its bytes in place.
    let settings = match e.kind {
        4 | 13 => {
            let offset = usize::try_from(*e.uints().first()?).ok()?;
            Ifd::new(
                main.data(),
                main.base().checked_add(offset)?,
                main.base(),
                main.order,
            )
        }
        _ => Ifd::new(main.data(), e.at, main.base(), main.order),
    };
    let mut found = Found::default();
    if let Some(mode) = settings
        .get(FOCUS_MODE)
        .and_then(|e| e.uints().first().copied())
    {
        found.mode = FOCUS_MODES
            .iter()
            .find(|(v, _)| *v == mode)
            .map(|(_, w)| (*w).to_owned());
    }
    // The chosen point is where the Lightroom and digiKam focus-point tools draw; AFAreas'
    // boxes (0–255 of the frame) stand in only where no point was chosen.
    let mut chosen = None;
    if let Some(e) = settings.get(AF_POINT_SELECTED) {
        // exiftool leaves out the first of the five values (always undefined).
        let r = e.rationals();
        found.field(
            "AFPointSelected",
            joined(r.iter().skip(1).map(|&q| quotient(q))),
        );
        if let Some(&[(xn, xd), (yn, yd)]) = r.get(1..3)
            && xd > 0
            && yd > 0
        {
            chosen = Some((xn as f32 / xd as f32, yn as f32 / yd as f32));
        }
    }
    if let Some(e) = settings.get(AF_AREAS) {
        let boxes = e.uints();
        found.field("AFAreas", joined(&boxes));
        if chosen.is_none() {
            // The tag holds 64 boxes; a note claiming more gives no more.
            for b in boxes.into_iter().take(64).filter(|&b| b != 0) {
                let [x0, y0, x1, y1] = b.to_be_bytes().map(|v| f32::from(v) / 255.0);
                found.points.push(AfPoint {
                    rect: [x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1)],
                    sized: true,
                    in_focus: None,
                    selected: true,
                });
            }
        }
    }
    if let Some((x, y)) = chosen {
        found.point_at(x, y, None);
    }
    Some(found)
}
