//! Where the camera focused, as its maker notes record it: the AF points or areas, which of
//! them were in focus or chosen, and the camera's words for its AF area mode. Each maker keeps
//! this in its own shape (`canon`, `nikon`, `sony`, `fuji`, `olympus`, `panasonic`); this
//! module picks the reader by the maker and turns what it found into rectangles on the photo
//! as it is shown (the EXIF orientation applied), as fractions of its width and height.
//!
//! exiftool is the reference: every value read is also kept under exiftool's tag name, as
//! `exiftool -n` prints it (`Af::fields`), so the tests and `darkroom facts` can hold the two
//! side by side.

mod canon;
mod fuji;
mod ifd;
mod nikon;
mod olympus;
mod panasonic;
mod sony;

use image::metadata::Orientation;

/// The maker notes DarkRoom reads AF points from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maker {
    Canon,
    Nikon,
    Sony,
    Fujifilm,
    Olympus,
    Panasonic,
}

impl Maker {
    /// exiftool's group name for the maker's notes ("Canon", "FujiFilm").
    pub fn exiftool_group(self) -> &'static str {
        match self {
            Maker::Canon => "Canon",
            Maker::Nikon => "Nikon",
            Maker::Sony => "Sony",
            Maker::Fujifilm => "FujiFilm",
            Maker::Olympus => "Olympus",
            Maker::Panasonic => "Panasonic",
        }
    }

    fn of(make: &str) -> Option<Maker> {
        let make = make.trim().to_ascii_lowercase();
        [
            ("canon", Maker::Canon),
            ("nikon", Maker::Nikon),
            ("sony", Maker::Sony),
            ("fujifilm", Maker::Fujifilm),
            ("olympus", Maker::Olympus),
            ("om digital", Maker::Olympus),
            ("panasonic", Maker::Panasonic),
        ]
        .into_iter()
        .find_map(|(prefix, maker)| make.starts_with(prefix).then_some(maker))
    }
}

/// One AF point or area.
#[derive(Debug, Clone, PartialEq)]
pub struct AfPoint {
    /// Left, top, right, bottom as fractions of the photo as shown (orientation applied).
    pub rect: [f32; 4],
    /// The camera recorded the area's size; otherwise it is a point, drawn and measured as a
    /// square of `POINT_SIDE` of the shorter side around it.
    pub sized: bool,
    /// What the camera said of its focus there: Some(true) in focus, Some(false) not, None
    /// where the maker notes do not say.
    pub in_focus: Option<bool>,
    /// The point the photographer (or the camera's area mode) chose to focus with.
    pub selected: bool,
}

impl AfPoint {
    pub fn centre(&self) -> [f32; 2] {
        [
            (self.rect[0] + self.rect[2]) / 2.0,
            (self.rect[1] + self.rect[3]) / 2.0,
        ]
    }
}

/// Points kept at most: a mirrorless body's grid is about 1,053; a note listing more is
/// damaged or hostile.
pub const MAX_POINTS: usize = 4096;

/// A point's side where the camera gives none, as a fraction of the frame's shorter side:
/// about one AF point of a 9-point DSLR, the area a photographer reads as "there".
pub const POINT_SIDE: f32 = 0.06;

/// A phase-detect AF system whose points the file names by bit masks over its grid but does
/// not place on the frame (a Nikon DSLR's viewfinder AF): where they lie differs body by body
/// and is in no file, so they are counted, not drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unplaced {
    /// Points in the AF system's grid, where the maker note names the system.
    pub grid: Option<u16>,
    /// Points the camera used (or chose).
    pub used: u32,
    /// Points the camera found in focus, where the note records them apart.
    pub in_focus: Option<u32>,
}

impl Unplaced {
    /// In words, for the loupe and `darkroom facts`: "1 AF point of the 153-point grid in
    /// focus; the file does not say where".
    pub fn words(&self) -> String {
        let (n, what) = match self.in_focus {
            Some(n) => (n, "in focus"),
            None => (self.used, "used"),
        };
        let of = match self.grid {
            Some(g) => format!(" of the {g}-point grid"),
            None => String::new(),
        };
        format!(
            "{n} AF point{}{of} {what}; the file does not say where",
            if n == 1 { "" } else { "s" }
        )
    }
}

/// What the maker notes say of where the camera focused.
#[derive(Debug, Clone, PartialEq)]
pub struct Af {
    pub maker: Maker,
    /// The AF area mode in the camera's (exiftool's) words: "Single-point AF", "Zone".
    pub mode: Option<String>,
    /// The pixel size of the frame the maker note measures in (the photo's own, where the photo
    /// is a crop of that frame), as shown (orientation applied): `rect × frame` is a point in
    /// pixels. None where the note measures in fractions only.
    pub frame: Option<(u32, u32)>,
    pub points: Vec<AfPoint>,
    /// Points named but not placed (a DSLR's phase-detect grid), where the note has them.
    pub unplaced: Option<Unplaced>,
    /// Every value read, under exiftool's tag name, as `exiftool -n` prints it.
    pub fields: Vec<(&'static str, String)>,
}

impl Af {
    /// Where the frame should be sharp: the points in focus, else the chosen ones, as one
    /// rectangle around them (fractions of the photo as shown). None where the camera names
    /// no such point (manual focus, an AF system whose points have no position in the file).
    pub fn focus_area(&self) -> Option<[f32; 4]> {
        let in_focus: Vec<&AfPoint> = self
            .points
            .iter()
            .filter(|p| p.in_focus == Some(true))
            .collect();
        let chosen = if in_focus.is_empty() {
            self.points.iter().filter(|p| p.selected).collect()
        } else {
            in_focus
        };
        chosen.into_iter().map(|p| p.rect).reduce(|a, b| {
            [
                a[0].min(b[0]),
                a[1].min(b[1]),
                a[2].max(b[2]),
                a[3].max(b[3]),
            ]
        })
    }

    /// One rectangle in pixels of the frame the maker note measures in.
    pub fn pixels(&self, rect: [f32; 4]) -> Option<[u32; 4]> {
        let (w, h) = self.frame?;
        let px = |f: f32, side: u32| (f * side as f32).round().clamp(0.0, side as f32) as u32;
        Some([
            px(rect[0], w),
            px(rect[1], h),
            px(rect[2], w),
            px(rect[3], h),
        ])
    }
}

/// The maker note as found in an EXIF block: the block's TIFF bytes, their byte order, and
/// where in them the note is.
pub struct Note<'a> {
    pub tiff: &'a [u8],
    pub little: bool,
    pub start: usize,
    pub len: usize,
    /// The note is a TIFF block of its own whose IFD0 is the maker's directory (a CR3's
    /// CMT3 box).
    pub own_tiff: bool,
}

/// What else the maker note's reader needs from the file's EXIF.
pub struct Context<'a> {
    pub make: &'a str,
    pub model: &'a str,
    /// ExifImageWidth × ExifImageHeight: the frame Fujifilm's FocusPixel counts in.
    pub exif_size: Option<(u32, u32)>,
    pub orientation: Orientation,
}

/// What one maker's reader found, on the sensor's frame (before orientation).
#[derive(Default)]
struct Found {
    mode: Option<String>,
    frame: Option<(u32, u32)>,
    points: Vec<AfPoint>,
    unplaced: Option<Unplaced>,
    fields: Vec<(&'static str, String)>,
}

impl Found {
    fn field(&mut self, name: &'static str, value: impl Into<String>) {
        self.fields.push((name, value.into()));
    }

    /// An area the camera sized: `size` about `centre`, in pixels of a `frame` pixels across;
    /// `in_focus` and `selected` as the camera recorded them.
    fn area_at(
        &mut self,
        [x, y]: [f32; 2],
        [w, h]: [f32; 2],
        (fw, fh): (f32, f32),
        (in_focus, selected): (Option<bool>, bool),
    ) {
        self.points.push(AfPoint {
            rect: [
                (x - w / 2.0) / fw,
                (y - h / 2.0) / fh,
                (x + w / 2.0) / fw,
                (y + h / 2.0) / fh,
            ],
            sized: true,
            in_focus,
            selected,
        });
    }

    /// A point without a size at fractions (x, y) of the frame.
    fn point_at(&mut self, x: f32, y: f32, in_focus: Option<bool>) {
        let (half_w, half_h) = match self.frame {
            Some((w, h)) if w > 0 && h > 0 => {
                let side = POINT_SIDE * w.min(h) as f32;
                (side / w as f32 / 2.0, side / h as f32 / 2.0)
            }
            _ => (POINT_SIDE / 2.0, POINT_SIDE / 2.0),
        };
        self.points.push(AfPoint {
            rect: [x - half_w, y - half_h, x + half_w, y + half_h],
            sized: false,
            in_focus,
            selected: true,
        });
    }
}

/// The AF information in `note`, or None where the maker is not one DarkRoom reads or its
/// notes hold no AF record.
pub fn read(note: &Note<'_>, ctx: &Context<'_>) -> Option<Af> {
    let maker = Maker::of(ctx.make)?;
    let end = note.start.checked_add(note.len)?;
    note.tiff.get(note.start..end)?;
    let found = match maker {
        Maker::Canon => canon::read(note, ctx),
        Maker::Nikon => nikon::read(note, ctx),
        Maker::Sony => sony::read(note, ctx),
        Maker::Fujifilm => fuji::read(note, ctx),
        Maker::Olympus => olympus::read(note, ctx),
        Maker::Panasonic => panasonic::read(note, ctx),
    }?;
    if found.fields.is_empty() {
        return None;
    }
    let (points, frame) = match (found.frame, ctx.exif_size) {
        (Some(af), Some(photo)) => match cropped(af, photo) {
            Some(crop) => (
                found
                    .points
                    .into_iter()
                    .map(|p| AfPoint {
                        rect: crop(p.rect),
                        ..p
                    })
                    .collect(),
                Some(photo),
            ),
            None => (found.points, found.frame),
        },
        _ => (found.points, found.frame),
    };
    let points = placed(points, ctx.orientation);
    let frame = frame.map(|(w, h)| {
        if swaps(ctx.orientation) {
            (h, w)
        } else {
            (w, h)
        }
    });
    Some(Af {
        maker,
        mode: found.mode,
        frame,
        points,
        unplaced: found.unplaced,
        fields: found.fields,
    })
}

/// How a point of the AF frame (`af` pixels, fractions of it) lands on the photo (`photo`
/// pixels, ExifImageWidth × ExifImageHeight) where the two differ in shape: the photo is the
/// camera's centred crop of the frame it focused in (1:1 or 16:9 of a 3:2 sensor), at one
/// scale, which keeps the frame's whole width or height. None where they have one shape (the
/// photo the whole frame, perhaps smaller: fractions carry over) or a size is 0.
fn cropped(af: (u32, u32), photo: (u32, u32)) -> Option<impl Fn([f32; 4]) -> [f32; 4]> {
    let (aw, ah) = (af.0 as f32, af.1 as f32);
    let (pw, ph) = (photo.0 as f32, photo.1 as f32);
    if aw <= 0.0 || ah <= 0.0 || pw <= 0.0 || ph <= 0.0 {
        return None;
    }
    if ((aw / ah) / (pw / ph) - 1.0).abs() < CROP_TOLERANCE {
        return None;
    }
    // Photo pixels per AF-frame pixel.
    let k = (pw / aw).max(ph / ah);
    let x = move |f: f32| ((f - 0.5) * aw * k + pw / 2.0) / pw;
    let y = move |f: f32| ((f - 0.5) * ah * k + ph / 2.0) / ph;
    Some(move |r: [f32; 4]| [x(r[0]), y(r[1]), x(r[2]), y(r[3])])
}

/// Shapes closer than this (as a ratio of aspect ratios) are one shape: sensors and the files
/// made from them differ by a few pixels of margin (5494 × 3666 of a 5472 × 3648 AF frame).
const CROP_TOLERANCE: f32 = 0.01;

/// The points on the photo as shown. Points wholly outside the frame (a stripped file's 2×2
/// pixels) or not numbers are no points; the rest are held to it. A note listing more than
/// any camera has gives no more.
fn placed(points: Vec<AfPoint>, orientation: Orientation) -> Vec<AfPoint> {
    points
        .into_iter()
        .filter(|p| p.rect.iter().all(|v| v.is_finite()))
        .filter(|p| p.rect[2] > 0.0 && p.rect[3] > 0.0 && p.rect[0] < 1.0 && p.rect[1] < 1.0)
        .take(MAX_POINTS)
        .map(|p| AfPoint {
            rect: oriented(p.rect.map(|v| v.clamp(0.0, 1.0)), orientation),
            ..p
        })
        .collect()
}

fn swaps(o: Orientation) -> bool {
    matches!(
        o,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// A point of the sensor's frame on the photo as shown: the orientation's turn and flip.
fn turned([x, y]: [f32; 2], o: Orientation) -> [f32; 2] {
    match o {
        Orientation::NoTransforms => [x, y],
        Orientation::Rotate90 => [1.0 - y, x],
        Orientation::Rotate180 => [1.0 - x, 1.0 - y],
        Orientation::Rotate270 => [y, 1.0 - x],
        Orientation::FlipHorizontal => [1.0 - x, y],
        Orientation::FlipVertical => [x, 1.0 - y],
        Orientation::Rotate90FlipH => [y, x],
        Orientation::Rotate270FlipH => [1.0 - y, 1.0 - x],
    }
}

fn oriented(r: [f32; 4], o: Orientation) -> [f32; 4] {
    let a = turned([r[0], r[1]], o);
    let b = turned([r[2], r[3]], o);
    [
        a[0].min(b[0]),
        a[1].min(b[1]),
        a[0].max(b[0]),
        a[1].max(b[1]),
    ]
}

/// Numbers as `exiftool -n` lists them: space-separated.
fn joined<T: ToString>(values: impl IntoIterator<Item = T>) -> String {
    values
        .into_iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A rational as `exiftool -n` prints it: "undef" for 0/0, "inf" for n/0, else the quotient.
fn quotient((n, d): (i64, i64)) -> String {
    match (n, d) {
        (0, 0) => "undef".to_owned(),
        (_, 0) => if n < 0 { "-inf" } else { "inf" }.to_owned(),
        _ => {
            let q = n as f64 / d as f64;
            // exiftool prints 10 significant digits; the tests compare numerically.
            let s = format!("{q:.10}");
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        }
    }
}

/// Bytes as exiftool's Nikon point masks print them: "69 05 80 00 10".
fn hex_bytes(bytes: &[u8]) -> String {
    joined(bytes.iter().map(|b| format!("{b:02x}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_turn_with_the_orientation() {
        // A point near the top-left of the sensor, photo turned 90° clockwise for showing:
        // it lands near the top-right.
        let p = [0.1, 0.2];
        assert_eq!(turned(p, Orientation::Rotate90), [0.8, 0.1]);
        assert_eq!(turned(p, Orientation::Rotate270), [0.2, 0.9]);
        assert_eq!(turned(p, Orientation::Rotate180), [0.9, 0.8]);
        // EXIF 5 (transpose) and 7 (transverse), and the flips.
        assert_eq!(turned(p, Orientation::from_exif(5).expect("5")), [0.2, 0.1]);
        assert_eq!(turned(p, Orientation::from_exif(7).expect("7")), [0.8, 0.9]);
        assert_eq!(turned(p, Orientation::from_exif(2).expect("2")), [0.9, 0.2]);
        assert_eq!(turned(p, Orientation::from_exif(4).expect("4")), [0.1, 0.8]);
        let r = oriented([0.1, 0.2, 0.3, 0.4], Orientation::Rotate90);
        assert!(
            (r[0] - 0.6).abs() < 1e-6 && (r[1] - 0.1).abs() < 1e-6,
            "{r:?}"
        );
        assert!(
            (r[2] - 0.8).abs() < 1e-6 && (r[3] - 0.3).abs() < 1e-6,
            "{r:?}"
        );
        assert_eq!(quotient((0, 0)), "undef");
        assert_eq!(quotient((67, 128)), "0.5234375");
        assert_eq!(quotient((1, 2)), "0.5");
        assert_eq!(hex_bytes(&[0x69, 5, 0x80]), "69 05 80");
    }

    #[test]
    fn the_focus_area_is_the_points_in_focus_else_the_chosen_ones() {
        let point = |x: f32, in_focus, selected| AfPoint {
            rect: [x, 0.4, x + 0.1, 0.5],
            sized: true,
            in_focus,
            selected,
        };
        let mut af = Af {
            maker: Maker::Canon,
            mode: None,
            frame: Some((1000, 500)),
            unplaced: None,
            points: vec![
                point(0.1, Some(false), true),
                point(0.5, Some(true), false),
                point(0.7, Some(true), false),
            ],
            fields: Vec::new(),
        };
        assert_eq!(af.focus_area(), Some([0.5, 0.4, 0.8, 0.5]));
        assert_eq!(af.pixels([0.5, 0.4, 0.8, 0.5]), Some([500, 200, 800, 250]));
        af.points.retain(|p| p.in_focus == Some(false));
        assert_eq!(af.focus_area(), Some([0.1, 0.4, 0.2, 0.5]));
        af.points[0].selected = false;
        assert_eq!(af.focus_area(), None);
    }

    #[test]
    fn points_outside_the_frame_or_not_numbers_are_dropped_and_a_flood_is_capped() {
        let at = |rect| AfPoint {
            rect,
            sized: true,
            in_focus: None,
            selected: false,
        };
        let mut points = vec![
            at([f32::NAN, 0.1, 0.2, 0.2]),
            at([0.1, 0.1, f32::INFINITY, 0.2]),
            // A 2×2 frame's point at (1500, 1000): wholly outside.
            at([740.0, 490.0, 760.0, 510.0]),
            // Half outside: held to the frame.
            at([0.9, -0.1, 1.2, 0.1]),
        ];
        points.extend((0..MAX_POINTS + 10).map(|_| at([0.4, 0.4, 0.5, 0.5])));
        let kept = placed(points, Orientation::NoTransforms);
        assert_eq!(kept.len(), MAX_POINTS, "capped");
        assert_eq!(kept[0].rect, [0.9, 0.0, 1.0, 0.1], "held to the frame");
        assert!(
            kept.iter()
                .all(|p| p.rect.iter().all(|v| (0.0..=1.0).contains(v)))
        );
        // Turned with the photo.
        let turned = placed(vec![at([0.1, 0.2, 0.3, 0.4])], Orientation::Rotate90);
        assert!(
            (turned[0].rect[0] - 0.6).abs() < 1e-6,
            "{:?}",
            turned[0].rect
        );
    }

    #[test]
    fn a_cropped_photo_takes_the_points_of_its_centre() {
        // 1:1 of a 6000 × 4000 frame, at full size and at half: the square's left edge is the
        // frame's x = 1000.
        for photo in [(4000, 4000), (2000, 2000)] {
            let crop = cropped((6000, 4000), photo).expect("another shape");
            let r = crop([1000.0 / 6000.0, 0.25, 0.5, 0.75]);
            let want = [0.0, 0.25, 0.5, 0.75];
            assert!(
                r.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
                "{photo:?}: {r:?}"
            );
        }
        // 16:9 of 3:2: the full width, the middle rows.
        let crop = cropped((6000, 4000), (6000, 3375)).expect("another shape");
        let r = crop([0.1, 312.5 / 4000.0, 0.2, 0.5]);
        assert!((r[0] - 0.1).abs() < 1e-6 && r[1].abs() < 1e-6 && (r[3] - 0.5).abs() < 1e-6);
        // One shape, smaller or with a margin: the fractions carry over.
        assert!(cropped((6000, 4000), (3000, 2000)).is_none());
        assert!(cropped((5472, 3648), (5494, 3666)).is_none());
        assert!(cropped((0, 4000), (100, 100)).is_none());
    }

    #[test]
    fn unplaced_points_are_counted_in_words() {
        let grid = Unplaced {
            grid: Some(153),
            used: 9,
            in_focus: Some(1),
        };
        assert_eq!(
            grid.words(),
            "1 AF point of the 153-point grid in focus; the file does not say where"
        );
        let used = Unplaced {
            grid: None,
            used: 3,
            in_focus: None,
        };
        assert_eq!(
            used.words(),
            "3 AF points used; the file does not say where"
        );
    }
}
