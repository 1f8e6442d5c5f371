//! Sharpness: the variance of the Laplacian of luma, measured at a fixed scale so a score means
//! the same on a 12 MP and a 45 MP photo (blur is a fraction of the frame, not a pixel count).
//! A face is measured on its box resized to a fixed side, for the same reason.

use darkroom_engine::subject::Mask;
use image::{GrayImage, RgbImage};

use crate::luma;

/// A photo's sharpness is measured with its long edge at this many pixels.
pub const PHOTO_SIDE: u32 = 1024;
/// A face's box is resized to this square before measuring.
pub const FACE_SIDE: u32 = 96;

/// Pixels this close (at [`PHOTO_SIDE`]) to the subject's outline count for neither side: the
/// outline is an edge between the two, sharp when either is.
pub const OUTLINE_PX: usize = 4;
/// A side covering less than this share of the photo is too small to measure.
pub const MIN_SIDE_SHARE: f32 = 0.005;
/// Each eye's square is this share of the distance between the eyes on a side (the eye
/// classifier's crop), at [`FACE_SIDE`].
pub const EYE_SQUARE_OF_DISTANCE: f32 = 0.5;

/// The area where the camera focused is measured at least this share of the photo's shorter
/// side across: a single AF point's box (a few pixels at [`PHOTO_SIDE`]) holds too few edges
/// to say anything.
pub const AF_MIN_SIDE_SHARE: f32 = 0.08;
/// Fewer pixels than this inside the area (one mostly outside the photo) is too few to measure.
pub const AF_MIN_PIXELS: usize = 256;

/// Variance of the 3×3 Laplacian (4-neighbour) over the image's interior.
pub fn laplacian_variance(luma: &GrayImage) -> f32 {
    laplacian_variance_where(luma, |_, _| true).unwrap_or(0.0)
}

/// As [`laplacian_variance`], over the interior pixels where `keep(x, y)`; None when none is.
pub fn laplacian_variance_where(
    luma: &GrayImage,
    keep: impl Fn(usize, usize) -> bool,
) -> Option<f32> {
    let (w, h) = (luma.width() as usize, luma.height() as usize);
    if w < 3 || h < 3 {
        return None;
    }
    let px = luma.as_raw();
    let (mut sum, mut sum2, mut n) = (0f64, 0f64, 0usize);
    for y in 1..h - 1 {
        let row = y * w;
        for x in 1..w - 1 {
            if !keep(x, y) {
                continue;
            }
            n += 1;
            let i = row + x;
            let l = 4 * i32::from(px[i])
                - i32::from(px[i - 1])
                - i32::from(px[i + 1])
                - i32::from(px[i - w])
                - i32::from(px[i + w]);
            let l = f64::from(l);
            sum += l;
            sum2 += l * l;
        }
    }
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let mean = sum / n;
    Some((sum2 / n - mean * mean) as f32)
}

/// The photo's sharpness at [`PHOTO_SIDE`] (smaller photos are measured as they are).
pub fn photo(rgb: &RgbImage) -> f32 {
    photo_luma(&luma::of(rgb))
}

/// As [`photo`], from the photo's luma (the index job computes it once for focus and hash).
pub fn photo_luma(g: &GrayImage) -> f32 {
    laplacian_variance(&at_photo_side(g))
}

/// The photo's luma with its long edge at [`PHOTO_SIDE`] (smaller photos as they are): the
/// scale every photo-level measure is taken at.
pub fn at_photo_side(g: &GrayImage) -> GrayImage {
    let long = g.width().max(g.height());
    if long <= PHOTO_SIDE {
        return g.clone();
    }
    let s = PHOTO_SIDE as f32 / long as f32;
    let (w, h) = (
        ((g.width() as f32 * s).round() as u32).max(1),
        ((g.height() as f32 * s).round() as u32).max(1),
    );
    luma::resize(g, w, h)
}

/// The sharpness where the camera focused: inside `area` (left, top, right, bottom as
/// fractions of the photo), widened about its middle to [`AF_MIN_SIDE_SHARE`] of the shorter
/// side, on `luma` at [`PHOTO_SIDE`]. None when too little of it is inside the photo.
pub fn af_area(luma: &GrayImage, area: [f32; 4]) -> Option<f32> {
    if !area.iter().all(|v| v.is_finite()) {
        return None;
    }
    let (w, h) = (luma.width() as f32, luma.height() as f32);
    let min_side = AF_MIN_SIDE_SHARE * w.min(h);
    let (cx, cy) = ((area[0] + area[2]) / 2.0 * w, (area[1] + area[3]) / 2.0 * h);
    let half_w = ((area[2] - area[0]) * w).max(min_side) / 2.0;
    let half_h = ((area[3] - area[1]) * h).max(min_side) / 2.0;
    let (x0, x1) = ((cx - half_w).max(0.0), (cx + half_w).min(w));
    let (y0, y1) = ((cy - half_h).max(0.0), (cy + half_h).min(h));
    if (x1 - x0) * (y1 - y0) < AF_MIN_PIXELS as f32 {
        return None;
    }
    let (x0, x1, y0, y1) = (x0 as usize, x1 as usize, y0 as usize, y1 as usize);
    laplacian_variance_where(luma, |x, y| x >= x0 && x < x1 && y >= y0 && y < y1)
}

/// Sharpness inside a subject and outside it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubjectFocus {
    /// None when the subject, less its outline, is too small a share of the photo.
    pub subject: Option<f32>,
    pub background: Option<f32>,
}

/// The sharpness inside `mask` and outside it, on `luma` at [`PHOTO_SIDE`] (the mask the same
/// size), leaving out a band of [`OUTLINE_PX`] along the outline.
pub fn subject(luma: &GrayImage, mask: &Mask) -> SubjectFocus {
    let (w, h) = (luma.width() as usize, luma.height() as usize);
    if (mask.width as usize, mask.height as usize) != (w, h) || w < 3 || h < 3 {
        return SubjectFocus {
            subject: None,
            background: None,
        };
    }
    // A summed-area table of the mask: a pixel is the subject's when its whole window is
    // inside, the background's when none of it is.
    let stride = w + 1;
    let mut table = vec![0u32; stride * (h + 1)];
    for y in 0..h {
        let mut row = 0u32;
        for x in 0..w {
            row += u32::from(mask.get(x as u32, y as u32));
            table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + row;
        }
    }
    let r = OUTLINE_PX;
    let window = |x: usize, y: usize| {
        let (x0, y0) = (x.saturating_sub(r), y.saturating_sub(r));
        let (x1, y1) = ((x + r + 1).min(w), (y + r + 1).min(h));
        let inside = table[y1 * stride + x1] + table[y0 * stride + x0]
            - table[y0 * stride + x1]
            - table[y1 * stride + x0];
        (inside as usize, (x1 - x0) * (y1 - y0))
    };
    let min_pixels = (MIN_SIDE_SHARE * (w * h) as f32) as usize;
    let count = |want_inside: bool| {
        let mut n = 0usize;
        for y in 1..h - 1 {
            for x in 1..w - 1 {
                let (inside, all) = window(x, y);
                n += usize::from(if want_inside {
                    inside == all
                } else {
                    inside == 0
                });
            }
        }
        n
    };
    let side = |want_inside: bool| {
        (count(want_inside) >= min_pixels.max(1)).then(|| {
            laplacian_variance_where(luma, |x, y| {
                let (inside, all) = window(x, y);
                if want_inside {
                    inside == all
                } else {
                    inside == 0
                }
            })
        })?
    };
    SubjectFocus {
        subject: side(true),
        background: side(false),
    }
}

/// The sharper eye's sharpness, on the face's scale ([`face`]'s: the box at [`FACE_SIDE`]²):
/// the variance of the Laplacian over a square around each eye landmark. None for a box too
/// small to measure.
pub fn eyes(rgb: &RgbImage, bbox: [f32; 4], landmarks: &[[f32; 2]; 5]) -> Option<f32> {
    let (g, [x0, y0, x1, y1]) = face_luma(rgb, bbox)?;
    let (sx, sy) = (
        FACE_SIDE as f32 / (x1 - x0) as f32,
        FACE_SIDE as f32 / (y1 - y0) as f32,
    );
    let at = |[x, y]: [f32; 2]| ((x - x0 as f32) * sx, (y - y0 as f32) * sy);
    let (l, r) = (at(landmarks[0]), at(landmarks[1]));
    let distance = (l.0 - r.0).hypot(l.1 - r.1);
    let half = (distance * EYE_SQUARE_OF_DISTANCE / 2.0).max(2.0);
    [l, r]
        .into_iter()
        .filter_map(|(ex, ey)| {
            laplacian_variance_where(&g, |x, y| {
                (x as f32 + 0.5 - ex).abs() <= half && (y as f32 + 0.5 - ey).abs() <= half
            })
        })
        .reduce(f32::max)
}

/// The face's box in `rgb`, clipped, as luma at [`FACE_SIDE`]², and the box used.
fn face_luma(rgb: &RgbImage, bbox: [f32; 4]) -> Option<(GrayImage, [u32; 4])> {
    let x0 = bbox[0].max(0.0) as u32;
    let y0 = bbox[1].max(0.0) as u32;
    let x1 = (bbox[2].max(0.0) as u32).min(rgb.width());
    let y1 = (bbox[3].max(0.0) as u32).min(rgb.height());
    if x1 <= x0 + 2 || y1 <= y0 + 2 {
        return None;
    }
    let crop = image::imageops::crop_imm(rgb, x0, y0, x1 - x0, y1 - y0).to_image();
    Some((
        luma::resize(&luma::of(&crop), FACE_SIDE, FACE_SIDE),
        [x0, y0, x1, y1],
    ))
}

/// A face's sharpness: its box (`[x0, y0, x1, y1]` in `rgb`'s pixels) at [`FACE_SIDE`]².
pub fn face(rgb: &RgbImage, bbox: [f32; 4]) -> f32 {
    face_luma(rgb, bbox).map_or(0.0, |(g, _)| laplacian_variance(&g))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkerboard of `cell`-pixel squares: sharp edges everywhere.
    fn checks(w: u32, h: u32, cell: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            image::Luma([if (x / cell + y / cell).is_multiple_of(2) {
                30
            } else {
                220
            }])
        })
    }

    #[test]
    fn the_af_area_is_measured_where_the_camera_focused() {
        let sharp = checks(400, 300, 4);
        let soft = image::imageops::blur(&sharp, 3.0);
        // Sharp in the top-left quarter only.
        let photo = GrayImage::from_fn(400, 300, |x, y| {
            if x < 200 && y < 150 {
                *sharp.get_pixel(x, y)
            } else {
                *soft.get_pixel(x, y)
            }
        });
        let there = af_area(&photo, [0.1, 0.1, 0.3, 0.3]).expect("inside");
        let elsewhere = af_area(&photo, [0.7, 0.7, 0.9, 0.9]).expect("inside");
        assert!(there > 20.0 * elsewhere, "{there} vs {elsewhere}");
        // A point with no size is widened to a measurable square; one outside is not measured.
        assert!(af_area(&photo, [0.2, 0.2, 0.2, 0.2]).is_some_and(|s| s > 20.0 * elsewhere));
        assert_eq!(af_area(&photo, [1.5, 1.5, 1.6, 1.6]), None);
    }

    #[test]
    fn the_subject_and_the_background_are_measured_apart() {
        let sharp = checks(200, 100, 4);
        let soft = image::imageops::blur(&sharp, 3.0);
        // The left half sharp, the right half soft; the subject is the right half.
        let photo = GrayImage::from_fn(200, 100, |x, y| {
            if x < 100 {
                *sharp.get_pixel(x, y)
            } else {
                *soft.get_pixel(x, y)
            }
        });
        let mask = Mask::from_fn(200, 100, |x, _| x >= 100);
        let f = subject(&photo, &mask);
        let (s, b) = (
            f.subject.expect("subject"),
            f.background.expect("background"),
        );
        assert!(
            s * 20.0 < b,
            "a soft subject before a sharp background: {s} vs {b}"
        );
        // The outline itself (a sharp/soft seam) is left out: the same with a sharp seam.
        let whole = subject(&sharp, &mask);
        let ratio = whole.subject.expect("s") / whole.background.expect("b");
        assert!(
            (0.8..1.25).contains(&ratio),
            "same texture both sides: {ratio}"
        );
        // A mask of another size, or a subject too small, is not measured.
        assert_eq!(subject(&photo, &Mask::empty(10, 10)).subject, None);
        let speck = Mask::from_fn(200, 100, |x, y| x == 50 && y == 50);
        assert_eq!(subject(&photo, &speck).subject, None);
    }

    #[test]
    fn eyes_are_measured_where_the_landmarks_say() {
        let sharp = image::DynamicImage::ImageLuma8(checks(200, 200, 3)).to_rgb8();
        let soft = image::imageops::blur(&sharp, 2.5);
        let bbox = [0.0, 0.0, 200.0, 200.0];
        let landmarks = [
            [70.0, 80.0],
            [130.0, 80.0],
            [100.0, 110.0],
            [80.0, 150.0],
            [120.0, 150.0],
        ];
        // Eyes soft, the rest of the face sharp: the ears-in-focus case.
        let mut ears = sharp.clone();
        for (x, y, p) in ears.enumerate_pixels_mut() {
            let near =
                |[ex, ey]: [f32; 2]| (x as f32 - ex).abs() < 25.0 && (y as f32 - ey).abs() < 25.0;
            if near(landmarks[0]) || near(landmarks[1]) {
                *p = *soft.get_pixel(x, y);
            }
        }
        let eyes_sharp = eyes(&sharp, bbox, &landmarks).expect("measured");
        let eyes_soft = eyes(&ears, bbox, &landmarks).expect("measured");
        assert!(eyes_soft * 5.0 < eyes_sharp, "{eyes_soft} vs {eyes_sharp}");
        assert!(
            face(&ears, bbox) > eyes_soft * 3.0,
            "the face still reads sharp"
        );
        assert_eq!(eyes(&sharp, [10.0, 10.0, 11.0, 11.0], &landmarks), None);
    }
}
