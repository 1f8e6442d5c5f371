//! Where to cut a photo: into tiles a GPU takes, and a square around a face. Pure arithmetic on
//! pixel sizes, so the window's workers only copy pixels.

/// `[left, top, width, height]` of the tiles, row by row, that cover a `width`×`height` photo
/// with squares of at most `side` pixels (the last row and column narrower).
pub fn tiles(width: u32, height: u32, side: u32) -> Vec<[u32; 4]> {
    let side = side.max(1);
    let mut out = Vec::new();
    for top in (0..height).step_by(side as usize) {
        for left in (0..width).step_by(side as usize) {
            out.push([left, top, side.min(width - left), side.min(height - top)]);
        }
    }
    out
}

/// `[left, top, side]` of a square around a face box (`[x0, y0, x1, y1]` in the photo's
/// pixels) with a margin, at least 32 and at most `max_side` pixels, inside a `width`×`height`
/// photo.
pub fn face_square(bbox: [f32; 4], width: u32, height: u32, max_side: f32) -> [u32; 3] {
    let [x0, y0, x1, y1] = bbox;
    let side = ((x1 - x0).max(y1 - y0) * 1.3)
        .clamp(32.0, max_side.max(32.0))
        .min(width.min(height) as f32)
        .max(0.0);
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let left = (cx - side / 2.0).clamp(0.0, (width as f32 - side).max(0.0)) as u32;
    let top = (cy - side / 2.0).clamp(0.0, (height as f32 - side).max(0.0)) as u32;
    [left, top, side as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_the_photo_once() {
        let t = tiles(5000, 2100, 2048);
        assert_eq!(t.len(), 6);
        assert_eq!(t[0], [0, 0, 2048, 2048]);
        assert_eq!(t[2], [4096, 0, 904, 2048]);
        assert_eq!(t[5], [4096, 2048, 904, 52]);
        let area: u64 = t.iter().map(|r| u64::from(r[2]) * u64::from(r[3])).sum();
        assert_eq!(area, 5000 * 2100);
        assert!(tiles(0, 10, 2048).is_empty());
    }

    #[test]
    fn a_face_square_has_a_margin_and_stays_inside() {
        assert_eq!(
            face_square([100.0, 100.0, 200.0, 180.0], 1000, 800, 256.0),
            [85, 75, 130]
        );
        // At the corner: pushed inside.
        assert_eq!(
            face_square([0.0, 0.0, 40.0, 40.0], 1000, 800, 256.0),
            [0, 0, 52]
        );
        // A huge face: at most max_side; a tiny photo: at most its short side.
        assert_eq!(
            face_square([0.0, 0.0, 900.0, 700.0], 1000, 800, 256.0)[2],
            256
        );
        assert_eq!(
            face_square([0.0, 0.0, 10.0, 10.0], 20, 16, 256.0),
            [0, 0, 16]
        );
    }
}
