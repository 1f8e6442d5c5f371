//! Nikon: AFInfo2 (maker-note tag 0xb7), a byte record whose layout follows its version and
//! its AF systems. Where the camera focused by contrast detection (live view, the Z bodies)
//! the record holds the AF area as a box in an AF image of AFImageWidth × AFImageHeight; the
//! phase-detect points of a DSLR's viewfinder are named by bit masks over the body's grid,
//! with no position in the file, so DarkRoom reports their masks and mode but draws none.
//! Older bodies write AFInfo (0x88): the mode and the points of an 11-point grid. The Z 9
//! and the Z bodies after it write AFInfo2 version 04xx, a record of their own: the AF area's
//! box in its AF image and whether the camera found focus there.

use super::ifd::{Ifd, Order, order_mark};
use super::{Context, Found, Note, Unplaced, hex_bytes};

const AF_INFO: u16 = 0x88;
const AF_INFO2: u16 = 0xb7;

/// AFInfo2's AFAreaMode in exiftool's words, without contrast-detect AF.
const PHASE_MODES: &[(u8, &str)] = &[
    (0, "Single Area"),
    (1, "Dynamic Area"),
    (2, "Dynamic Area (closest subject)"),
    (3, "Group Dynamic"),
    (4, "Dynamic Area (9 points)"),
    (5, "Dynamic Area (21 points)"),
    (6, "Dynamic Area (51 points)"),
    (7, "Dynamic Area (51 points, 3D-tracking)"),
    (8, "Auto-area"),
    (9, "Dynamic Area (3D-tracking)"),
    (10, "Single Area (wide)"),
    (11, "Dynamic Area (wide)"),
    (12, "Dynamic Area (wide, 3D-tracking)"),
    (13, "Group Area"),
    (14, "Dynamic Area (25 points)"),
    (15, "Dynamic Area (72 points)"),
    (16, "Group Area (HL)"),
    (17, "Group Area (VL)"),
    (18, "Dynamic Area (49 points)"),
    (128, "Single"),
    (129, "Auto (41 points)"),
    (130, "Subject Tracking (41 points)"),
    (131, "Face Priority (41 points)"),
    (192, "Pinpoint"),
    (193, "Single"),
    (195, "Wide (S)"),
    (196, "Wide (L)"),
    (197, "Auto"),
];

/// AFInfo2's AFAreaMode in exiftool's words, with contrast-detect AF on.
const CONTRAST_MODES: &[(u8, &str)] = &[
    (0, "Contrast-detect"),
    (1, "Contrast-detect (normal area)"),
    (2, "Contrast-detect (wide area)"),
    (3, "Contrast-detect (face priority)"),
    (4, "Contrast-detect (subject tracking)"),
    (128, "Single"),
    (129, "Auto (41 points)"),
    (130, "Subject Tracking (41 points)"),
    (131, "Face Priority (41 points)"),
    (192, "Pinpoint"),
    (193, "Single"),
    (194, "Dynamic"),
    (195, "Wide (S)"),
    (196, "Wide (L)"),
    (197, "Auto"),
    (198, "Auto (People)"),
    (199, "Auto (Animal)"),
    (200, "Normal-area AF"),
    (201, "Wide-area AF"),
    (202, "Face-priority AF"),
    (203, "Subject-tracking AF"),
    (204, "Dynamic Area (S)"),
    (205, "Dynamic Area (M)"),
    (206, "Dynamic Area (L)"),
    (207, "3D-tracking"),
];

/// AFInfo2 version 0400's AFAreaMode (the Z 9), in exiftool's words.
const Z9_MODES: &[(u8, &str)] = &[
    (192, "Pinpoint"),
    (193, "Single"),
    (195, "Wide (S)"),
    (196, "Wide (L)"),
    (197, "Auto"),
    (204, "Dynamic Area (S)"),
    (205, "Dynamic Area (M)"),
    (206, "Dynamic Area (L)"),
    (207, "3D-tracking"),
    (208, "Wide (C1/C2)"),
];

/// AFInfo's AFAreaMode (older bodies).
const OLD_MODES: &[(u8, &str)] = &[
    (0, "Single Area"),
    (1, "Dynamic Area"),
    (2, "Dynamic Area (closest subject)"),
    (3, "Group Dynamic"),
    (4, "Single Area (wide)"),
    (5, "Dynamic Area (wide)"),
];

fn words(table: &[(u8, &str)], v: u8) -> Option<String> {
    table
        .iter()
        .find(|(k, _)| *k == v)
        .map(|(_, w)| (*w).to_owned())
}

/// The maker's directory: after "Nikon\0" and a TIFF header of its own (type 3, every body
/// since the D100), after "Nikon\0\x01\0" (type 1, early Coolpix), or at the note's start.
fn directory<'a>(note: &Note<'a>) -> Option<Ifd<'a>> {
    let tiff = note.tiff;
    let at = note.start;
    let body = tiff.get(at..at + note.len)?;
    if body.starts_with(b"Nikon\0\x02") {
        let header = at + 10;
        let order = order_mark(tiff, header)?;
        let first = usize::try_from(order.u32(tiff, header + 4)?).ok()?;
        return Some(Ifd::new(tiff, header.checked_add(first)?, header, order));
    }
    let order = Order {
        little: note.little,
    };
    if body.starts_with(b"Nikon\0\x01") {
        return Some(Ifd::new(tiff, at + 8, 0, order));
    }
    Some(Ifd::new(tiff, at, 0, order))
}

pub(super) fn read(note: &Note<'_>, _ctx: &Context<'_>) -> Option<Found> {
    let ifd = directory(note)?;
    if let Some(e) = ifd.get(AF_INFO2) {
        return Some(af_info2(e.bytes, e.order));
    }
    let e = ifd.get(AF_INFO)?;
    let mut found = Found::default();
    let b = e.bytes;
    let (Some(&mode), Some(&point), Some(in_focus)) = (b.first(), b.get(1), e.order.u16(b, 2))
    else {
        return Some(found);
    };
    found.mode = words(OLD_MODES, mode);
    found.field("AFAreaMode", mode.to_string());
    found.field("AFPoint", point.to_string());
    found.field("AFPointsInFocus", in_focus.to_string());
    Some(found)
}

/// How many bytes AFPointsUsed spans for each PhaseDetectAF value (its AF system's grid).
fn mask_len(phase_detect: u8) -> usize {
    match phase_detect {
        3 => 5,
        4 => 17,
        5 => 21,
        6 => 29,
        7 => 20,
        _ => 7,
    }
}

/// The points of the AF system PhaseDetectAF names (exiftool's "On (51-point)"…).
fn grid_points(phase_detect: u8) -> Option<u16> {
    match phase_detect {
        1 => Some(51),
        2 => Some(11),
        3 => Some(39),
        4 => Some(73),
        6 | 9 => Some(105),
        7 => Some(153),
        8 => Some(81),
        _ => None,
    }
}

/// The points a mask names.
fn ones(mask: &[u8]) -> u32 {
    mask.iter().map(|b| b.count_ones()).sum()
}

fn af_info2(b: &[u8], order: Order) -> Found {
    let mut found = Found::default();
    let (Some(version), Some(&contrast), Some(&mode), Some(&phase)) =
        (b.get(0..4), b.get(4), b.get(5), b.get(6))
    else {
        return found;
    };
    let version = String::from_utf8_lossy(version).into_owned();
    // The Z 9's record (0400), and the later Z bodies' (0401, 0402) that exiftool reads with
    // the same table.
    if version.starts_with("04") {
        return af_info2_v04(b, order, version);
    }
    let v03 = version.starts_with("03");
    found.mode = if contrast == 0 {
        words(PHASE_MODES, mode)
    } else {
        words(CONTRAST_MODES, mode)
    };
    found.field("AFInfo2Version", version.clone());
    found.field("ContrastDetectAF", contrast.to_string());
    found.field("AFAreaMode", mode.to_string());
    found.field("PhaseDetectAF", phase.to_string());
    // Where exiftool's conditions put PrimaryAFPoint and AFPointsUsed for this version.
    if !v03
        && (phase < 7 || version == "0100")
        && let Some(p) = b.get(7)
    {
        found.field("PrimaryAFPoint", p.to_string());
    }
    if v03
        && matches!(phase, 1 | 8)
        && let Some(p) = b.get(7)
    {
        found.field("PrimaryAFPoint", p.to_string());
    }
    let mut used = None;
    // Version 03 (the D780, the D6, the Z bodies' phase detection) keeps its mask at 0x0a.
    let v03_mask = match phase {
        1 => Some(7),
        8 => Some(11),
        9 => Some(14),
        _ => None,
    };
    if v03
        && let Some(len) = v03_mask
        && let Some(mask) = b.get(0x0a..0x0a + len)
    {
        found.field("AFPointsUsed", hex_bytes(mask));
        used = Some(ones(mask));
    }
    if !v03 {
        if phase == 2 {
            if let Some(mask) = b.get(8..10) {
                let bits = u16::from_le_bytes([mask[0], mask[1]]);
                found.field("AFPointsUsed", bits.to_string());
                used = Some(bits.count_ones());
            }
        } else if let Some(mask) = b.get(8..8 + mask_len(phase)) {
            found.field("AFPointsUsed", hex_bytes(mask));
            used = Some(ones(mask));
        }
    }
    // The 153-point bodies (D5, D500, D850) add the chosen and in-focus points' masks.
    let mut in_focus = None;
    if version == "0101" && phase == 7 {
        for (name, at) in [("AFPointsSelected", 0x1c), ("AFPointsInFocus", 0x30)] {
            if let Some(mask) = b.get(at..at + 20) {
                found.field(name, hex_bytes(mask));
                if name == "AFPointsInFocus" {
                    in_focus = Some(ones(mask));
                }
            }
        }
        if let Some(p) = b.get(0x44) {
            found.field("PrimaryAFPoint", p.to_string());
        }
    }
    // Phase-detect points named over the grid, with no place on the frame: counted, never
    // more than the grid has (a mask's spare bits name no point).
    if phase != 0
        && let Some(used) = used.filter(|&n| n > 0 || in_focus.is_some_and(|f| f > 0))
    {
        let grid = grid_points(phase);
        let at_most = |n: u32| grid.map_or(n, |g| n.min(u32::from(g)));
        found.unplaced = Some(Unplaced {
            grid,
            used: at_most(used),
            in_focus: in_focus.map(at_most),
        });
    }
    // The contrast-detect box: centre and size in the AF image, and whether it was in focus.
    let (box_at, in_focus_at) = match version.as_str() {
        "0100" => (Some(0x10), Some(0x1c)),
        "0101" if contrast == 1 => (Some(0x46), Some(0x52)),
        _ => (None, None),
    };
    let u16_at = |at: usize| order.u16(b, at).filter(|&v| v != 0);
    if let Some(at) = box_at {
        let vals: Vec<Option<u16>> = (0..6).map(|i| u16_at(at + 2 * i)).collect();
        for (name, v) in [
            "AFImageWidth",
            "AFImageHeight",
            "AFAreaXPosition",
            "AFAreaYPosition",
            "AFAreaWidth",
            "AFAreaHeight",
        ]
        .into_iter()
        .zip(&vals)
        {
            if let Some(v) = v {
                found.field(name, v.to_string());
            }
        }
        let in_focus = in_focus_at.and_then(|i| b.get(i)).copied();
        if let Some(f) = in_focus {
            found.field("ContrastDetectAFInFocus", f.to_string());
        }
        // (Only a sized area: this record's position without a size is not one.)
        if let [Some(w), Some(h), Some(x), Some(y), Some(aw), Some(ah)] = vals[..] {
            place(
                &mut found,
                [w, h, x, y, aw, ah].map(Some),
                in_focus.map(|f| f == 1),
            );
        }
    } else if v03 {
        let w = u16_at(0x2a);
        let h = u16_at(0x2c);
        let positioned = contrast == 2 || contrast == 1 && version.starts_with("0301");
        let (x, y) = if positioned {
            (u16_at(0x2e), u16_at(0x30))
        } else {
            (None, None)
        };
        let (aw, ah) = (u16_at(0x32), u16_at(0x34));
        for (name, v) in [
            ("AFImageWidth", w),
            ("AFImageHeight", h),
            ("AFAreaXPosition", x),
            ("AFAreaYPosition", y),
            ("AFAreaWidth", aw),
            ("AFAreaHeight", ah),
        ] {
            if let Some(v) = v {
                found.field(name, v.to_string());
            }
        }
        place(&mut found, [w, h, x, y, aw, ah], None);
    }
    found
}

/// The Z 9's record (and the later Z bodies'): the mode at byte 5; byte 7 says whether the AF
/// area has coordinates; from 0x3e the AF image's size, the area's centre (two bytes each) and
/// size, and whether the camera found focus there. The fields are named as Debian's exiftool
/// (12.57) prints them, the reference the tests hold them to; exiftool 13.20 and later print
/// some of them otherwise (the positions only where byte 7 says so, FocusPositionHorizontal
/// as a grid column), not where they lie.
fn af_info2_v04(b: &[u8], order: Order, version: String) -> Found {
    let mut found = Found::default();
    found.field("AFInfo2Version", version);
    if let Some(&mode) = b.get(5) {
        found.mode = words(Z9_MODES, mode);
        found.field("AFAreaMode", mode.to_string());
    }
    let u16_at = |at: usize| order.u16(b, at).filter(|&v| v != 0);
    // exiftool 12.57 names the AF image's size even where it is 0, the area's only where it
    // is not.
    let (w, h) = (u16_at(0x3e), u16_at(0x40));
    let (x, y) = (u16_at(0x42), u16_at(0x44));
    let (aw, ah) = (u16_at(0x46), u16_at(0x48));
    let result = b.get(0x4a).copied();
    for (name, v) in [
        ("AFImageWidth", order.u16(b, 0x3e)),
        ("AFImageHeight", order.u16(b, 0x40)),
        ("AFAreaXPosition", x),
        (
            "FocusPositionHorizontal",
            b.get(0x43).copied().map(u16::from),
        ),
        ("AFAreaYPosition", y),
        ("FocusPositionVertical", b.get(0x45).copied().map(u16::from)),
        ("AFAreaWidth", aw),
        ("AFAreaHeight", ah),
        ("FocusResult", result.map(u16::from)),
    ] {
        if let Some(v) = v {
            found.field(name, v.to_string());
        }
    }
    if b.get(7).is_none_or(|&available| available == 0) {
        return found;
    }
    place(&mut found, [w, h, x, y, aw, ah], result.map(|r| r == 1));
    found
}

/// The AF area in an AF image of w × h: its centre (x, y) and its size, or without a size a
/// point; nothing without a centre.
fn place(found: &mut Found, v: [Option<u16>; 6], in_focus: Option<bool>) {
    let [Some(w), Some(h), Some(x), Some(y), aw, ah] = v.map(|o| o.map(f32::from)) else {
        return;
    };
    found.frame = Some((w as u32, h as u32));
    match (aw, ah) {
        (Some(aw), Some(ah)) => found.area_at([x, y], [aw, ah], (w, h), (in_focus, true)),
        _ => found.point_at(x / w, y / h, in_focus),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Z body's AFInfo2 version 0300 record, big-endian: contrast-detect `contrast`, the AF
    /// image `w` × `h`, the area's centre and size.
    fn v0300(contrast: u8, [w, h, x, y, aw, ah]: [u16; 6]) -> Vec<u8> {
        let mut b = vec![0u8; 0x40];
        b[..4].copy_from_slice(b"0300");
        b[4] = contrast;
        b[5] = 193;
        for (i, v) in [w, h, x, y, aw, ah].into_iter().enumerate() {
            b[0x2a + 2 * i..0x2c + 2 * i].copy_from_slice(&v.to_be_bytes());
        }
        b
    }

    #[test]
    fn a_z_bodys_area_without_a_size_is_a_point_and_with_one_a_box() {
        let big = Order { little: false };
        let found = af_info2(&v0300(2, [6048, 4032, 1512, 1008, 0, 0]), big);
        assert_eq!(found.frame, Some((6048, 4032)));
        let [p] = &found.points[..] else {
            panic!("one point: {:?}", found.points)
        };
        assert!(!p.sized, "no size in the record: a point");
        let c = p.centre();
        assert!(
            (c[0] - 0.25).abs() < 1e-6 && (c[1] - 0.25).abs() < 1e-6,
            "{c:?}"
        );
        let found = af_info2(&v0300(2, [6048, 4032, 1512, 1008, 604, 403]), big);
        assert!(found.points[0].sized);
        assert!((found.points[0].rect[2] - found.points[0].rect[0] - 0.1).abs() < 1e-3);
        // Contrast-detect 1 on version 0300: exiftool reads no position, nor does DarkRoom.
        let found = af_info2(&v0300(1, [6048, 4032, 1512, 1008, 604, 403]), big);
        assert!(found.points.is_empty());
    }

    #[test]
    fn phase_detect_masks_are_counted_not_placed() {
        // A D850's record (0101, 153-point): 3 points used, 1 in focus.
        let mut b = vec![0u8; 0x50];
        b[..4].copy_from_slice(b"0101");
        b[6] = 7;
        b[8] = 0b0000_0111;
        b[0x30 + 4] = 0b0001_0000;
        let found = af_info2(&b, Order { little: false });
        assert!(found.points.is_empty());
        assert_eq!(
            found.unplaced,
            Some(Unplaced {
                grid: Some(153),
                used: 3,
                in_focus: Some(1)
            })
        );
        // Phase detection off: nothing to count.
        b[6] = 0;
        assert_eq!(af_info2(&b, Order { little: false }).unplaced, None);
        // A D780's record (0300, 51-point): its mask at 0x0a; spare bits set by a damaged
        // file count no more points than the grid has.
        let mut b = vec![0u8; 0x40];
        b[..4].copy_from_slice(b"0300");
        b[6] = 1;
        b[0x0a..0x0a + 7].fill(0xff);
        let found = af_info2(&b, Order { little: false });
        assert_eq!(
            found.unplaced,
            Some(Unplaced {
                grid: Some(51),
                used: 51,
                in_focus: None
            })
        );
    }
}
