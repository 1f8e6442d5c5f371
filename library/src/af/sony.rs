//! Sony: FocusLocation (maker-note tag 0x2027), the frame's width and height and the point
//! the camera focused at, in pixels; on newer bodies FocusFrameSize (0x2037), the focus
//! frame's width and height about that point, and a flag that it holds one; the AF area mode
//! setting (0x201c) in exiftool's words.
//! The directory follows "SONY DSC \0\0\0" (or CAM, MOBILE) in JPEGs and HEIFs, and starts
//! the note in ARWs; its offsets count from the EXIF block's TIFF header.

use super::ifd::{Ifd, Order};
use super::{Context, Found, Note, joined};

const AF_AREA_MODE_SETTING: u16 = 0x201c;
const FOCUS_LOCATION: u16 = 0x2027;
const FOCUS_FRAME_SIZE: u16 = 0x2037;

/// AFAreaModeSetting of NEX, ILCE and ILME bodies, in exiftool's words.
const ILCE_MODES: &[(u32, &str)] = &[
    (0, "Wide"),
    (1, "Center"),
    (3, "Flexible Spot"),
    (4, "Flexible Spot (LA-EA4)"),
    (9, "Center (LA-EA4)"),
    (11, "Zone"),
    (12, "Expanded Flexible Spot"),
];

/// The same for ILCA (A-mount) bodies.
const ILCA_MODES: &[(u32, &str)] = &[
    (0, "Wide"),
    (4, "Flexible Spot"),
    (8, "Zone"),
    (9, "Center"),
    (12, "Expanded Flexible Spot"),
];

pub(super) fn read(note: &Note<'_>, ctx: &Context<'_>) -> Option<Found> {
    let body = note.tiff.get(note.start..note.start + note.len)?;
    let skip = if [&b"SONY DSC"[..], b"SONY CAM", b"SONY MOBILE"]
        .iter()
        .any(|h| body.starts_with(h))
    {
        12
    } else {
        0
    };
    let ifd = Ifd::new(
        note.tiff,
        note.start + skip,
        0,
        Order {
            little: note.little,
        },
    );
    let mut found = Found::default();
    let table = if ["NEX-", "ILCE-", "ILME-"]
        .iter()
        .any(|p| ctx.model.starts_with(p))
    {
        Some(ILCE_MODES)
    } else if ctx.model.starts_with("ILCA-") {
        Some(ILCA_MODES)
    } else {
        None
    };
    if let (Some(table), Some(mode)) = (
        table,
        ifd.get(AF_AREA_MODE_SETTING)
            .and_then(|e| e.uints().first().copied()),
    ) {
        found.mode = table
            .iter()
            .find(|(v, _)| *v == mode)
            .map(|(_, w)| (*w).to_owned());
        found.field("AFAreaModeSetting", mode.to_string());
    }
    // The frame's size, where its flag says it holds one.
    // exiftool reads it as three 16-bit words whatever type the entry names (bodies write
    // it as bytes).
    let frame_size = ifd.get(FOCUS_FRAME_SIZE).and_then(|e| {
        let v: Vec<u32> = e
            .order
            .u16s(e.bytes)
            .into_iter()
            .take(3)
            .map(u32::from)
            .collect();
        found.field("FocusFrameSize", joined(&v));
        match v[..] {
            [fw, fh, flag] if flag != 0 && fw > 0 && fh > 0 => Some((fw, fh)),
            _ => None,
        }
    });
    if let Some(e) = ifd.get(FOCUS_LOCATION) {
        let v = e.uints();
        found.field("FocusLocation", joined(&v));
        if let [w, h, x, y] = v[..]
            && w > 0
            && h > 0
        {
            found.frame = Some((w, h));
            let (x, y, w, h) = (x as f32, y as f32, w as f32, h as f32);
            match frame_size {
                Some((fw, fh)) => {
                    found.area_at([x, y], [fw as f32, fh as f32], (w, h), (None, true));
                }
                None => found.point_at(x / w, y / h, None),
            }
        }
    }
    Some(found)
}
