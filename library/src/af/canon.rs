//! Canon: AFInfo2 (maker-note tag 0x26, or 0x3c) on bodies since about 2007, AFInfo (0x12)
//! before. Both are lists of 16-bit words: the points' sizes and centres in an "AF image" of
//! AFImageWidth × AFImageHeight whose origin is its centre, Y up on EOS bodies and down on
//! PowerShots, then bit masks of the points in focus and (EOS) selected.

use super::ifd::{Ifd, Order, order_mark};
use super::{Context, Found, Note, joined};

const AF_INFO: u16 = 0x12;
const AF_INFO2: u16 = 0x26;
const AF_INFO3: u16 = 0x3c;

/// AFInfo2's AFAreaMode for a lens focused by hand.
const MANUAL_FOCUS: u16 = 0;

/// AFInfo2's AFAreaMode, in exiftool's words.
const AREA_MODES: &[(u16, &str)] = &[
    (0, "Off (Manual Focus)"),
    (1, "AF Point Expansion (surround)"),
    (2, "Single-point AF"),
    (4, "Auto"),
    (5, "Face Detect AF"),
    (6, "Face + Tracking"),
    (7, "Zone AF"),
    (8, "AF Point Expansion (4 point)"),
    (9, "Spot AF"),
    (10, "AF Point Expansion (8 point)"),
    (11, "Flexizone Multi (49 point)"),
    (12, "Flexizone Multi (9 point)"),
    (13, "Flexizone Single"),
    (14, "Large Zone AF"),
];

pub(super) fn read(note: &Note<'_>, ctx: &Context<'_>) -> Option<Found> {
    let ifd = if note.own_tiff {
        let block = note.tiff.get(note.start..note.start + note.len)?;
        let order = order_mark(block, 0)?;
        let first = usize::try_from(order.u32(block, 4)?).ok()?;
        Ifd::new(block, first, 0, order)
    } else {
        Ifd::new(
            note.tiff,
            note.start,
            0,
            Order {
                little: note.little,
            },
        )
    };
    let eos = ctx.model.contains("EOS");
    if let Some(e) = ifd.get(AF_INFO2).or_else(|| ifd.get(AF_INFO3)) {
        return Some(af_info2(&e.order.u16s(e.bytes), eos));
    }
    let e = ifd.get(AF_INFO)?;
    Some(af_info(&e.order.u16s(e.bytes), eos))
}

/// The words `w[at..at + n]` as exiftool's int16s list them.
fn signed(w: &[u16], at: usize, n: usize) -> Option<Vec<i16>> {
    Some(
        w.get(at..at.checked_add(n)?)?
            .iter()
            .map(|&v| v as i16)
            .collect(),
    )
}

fn bit(mask: &[i16], i: usize) -> bool {
    mask.get(i / 16)
        .is_some_and(|&word| (word as u16) >> (i % 16) & 1 == 1)
}

struct Layout<'a> {
    valid: usize,
    af_w: u16,
    af_h: u16,
    widths: &'a [i16],
    heights: &'a [i16],
    xs: &'a [i16],
    ys: &'a [i16],
    in_focus: &'a [i16],
    selected: Option<&'a [i16]>,
    eos: bool,
}

fn points(found: &mut Found, l: &Layout<'_>) {
    if l.af_w == 0 || l.af_h == 0 {
        return;
    }
    found.frame = Some((u32::from(l.af_w), u32::from(l.af_h)));
    let (fw, fh) = (f32::from(l.af_w), f32::from(l.af_h));
    for i in 0..l.valid.min(l.xs.len()) {
        let w = f32::from(*l.widths.get(i).or(l.widths.first()).unwrap_or(&0));
        let h = f32::from(*l.heights.get(i).or(l.heights.first()).unwrap_or(&0));
        if w <= 0.0 || h <= 0.0 {
            continue;
        }
        let x = fw / 2.0 + f32::from(l.xs[i]);
        let dy = f32::from(*l.ys.get(i).unwrap_or(&0));
        let y = fh / 2.0 + if l.eos { -dy } else { dy };
        found.area_at(
            [x, y],
            [w, h],
            (fw, fh),
            (
                Some(bit(l.in_focus, i)),
                l.selected.is_some_and(|s| bit(s, i)),
            ),
        );
    }
}

fn af_info2(w: &[u16], eos: bool) -> Found {
    let mut found = Found::default();
    let (Some(&mode), Some(&n), Some(&valid)) = (w.get(1), w.get(2), w.get(3)) else {
        return found;
    };
    let n = usize::from(n);
    let masks = n.div_ceil(16);
    found.mode = AREA_MODES
        .iter()
        .find(|(v, _)| *v == mode)
        .map(|(_, words)| (*words).to_owned());
    found.field("AFAreaMode", mode.to_string());
    found.field("NumAFPoints", n.to_string());
    found.field("ValidAFPoints", valid.to_string());
    let sizes: Vec<u16> = w.get(4..8).map(<[u16]>::to_vec).unwrap_or_default();
    for (name, v) in [
        "CanonImageWidth",
        "CanonImageHeight",
        "AFImageWidth",
        "AFImageHeight",
    ]
    .into_iter()
    .zip(&sizes)
    {
        found.field(name, v.to_string());
    }
    let (Some(widths), Some(heights), Some(xs), Some(ys), Some(in_focus)) = (
        signed(w, 8, n),
        signed(w, 8 + n, n),
        signed(w, 8 + 2 * n, n),
        signed(w, 8 + 3 * n, n),
        signed(w, 8 + 4 * n, masks),
    ) else {
        return found;
    };
    let selected = if eos {
        signed(w, 8 + 4 * n + masks, masks)
    } else {
        None
    };
    // Focused by hand: the point still selected on the body is not where the focus is.
    let chosen = selected.as_deref().filter(|_| mode != MANUAL_FOCUS);
    found.field("AFAreaWidths", joined(&widths));
    found.field("AFAreaHeights", joined(&heights));
    found.field("AFAreaXPositions", joined(&xs));
    found.field("AFAreaYPositions", joined(&ys));
    found.field("AFPointsInFocus", joined(&in_focus));
    if let Some(s) = &selected {
        found.field("AFPointsSelected", joined(s));
    }
    if sizes.len() == 4 {
        points(
            &mut found,
            &Layout {
                valid: usize::from(valid),
                af_w: sizes[2],
                af_h: sizes[3],
                widths: &widths,
                heights: &heights,
                xs: &xs,
                ys: &ys,
                in_focus: &in_focus,
                selected: chosen,
                eos,
            },
        );
    }
    found
}

fn af_info(w: &[u16], eos: bool) -> Found {
    let mut found = Found::default();
    let (Some(&n), Some(&valid)) = (w.first(), w.get(1)) else {
        return found;
    };
    let n = usize::from(n);
    found.field("NumAFPoints", n.to_string());
    found.field("ValidAFPoints", valid.to_string());
    let Some(sizes) = w.get(2..8) else {
        return found;
    };
    for (name, v) in [
        "CanonImageWidth",
        "CanonImageHeight",
        "AFImageWidth",
        "AFImageHeight",
        "AFAreaWidth",
        "AFAreaHeight",
    ]
    .into_iter()
    .zip(sizes)
    {
        found.field(name, v.to_string());
    }
    let (Some(xs), Some(ys), Some(in_focus)) = (
        signed(w, 8, n),
        signed(w, 8 + n, n),
        signed(w, 8 + 2 * n, n.div_ceil(16)),
    ) else {
        return found;
    };
    found.field("AFAreaXPositions", joined(&xs));
    found.field("AFAreaYPositions", joined(&ys));
    found.field("AFPointsInFocus", joined(&in_focus));
    let (area_w, area_h) = (sizes[4] as i16, sizes[5] as i16);
    points(
        &mut found,
        &Layout {
            valid: usize::from(valid),
            af_w: sizes[2],
            af_h: sizes[3],
            widths: &[area_w],
            heights: &[area_h],
            xs: &xs,
            ys: &ys,
            in_focus: &in_focus,
            selected: None,
            eos,
        },
    );
    found
}
