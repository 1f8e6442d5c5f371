//! Reading a small map at a point between its pixels.

/// `map` (`w`×`h`, row by row) at (`u`, `v`) in its pixel units, pixel centres at +0.5,
/// interpolated linearly between the four nearest centres; edges extend.
pub fn bilinear(map: &[f32], w: usize, h: usize, u: f32, v: f32) -> f32 {
    let x = (u - 0.5).clamp(0.0, (w - 1) as f32);
    let y = (v - 0.5).clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let at = |xx: usize, yy: usize| map[yy * w + xx];
    let top = at(x0, y0) * (1.0 - fx) + at(x1, y0) * fx;
    let bottom = at(x0, y1) * (1.0 - fx) + at(x1, y1) * fx;
    top * (1.0 - fy) + bottom * fy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centres_are_exact_and_between_is_linear() {
        let map = [0.0, 10.0, 20.0, 30.0];
        assert_eq!(bilinear(&map, 2, 2, 0.5, 0.5), 0.0);
        assert_eq!(bilinear(&map, 2, 2, 1.5, 1.5), 30.0);
        assert_eq!(bilinear(&map, 2, 2, 1.0, 0.5), 5.0);
        assert_eq!(bilinear(&map, 2, 2, 0.0, 0.0), 0.0, "edges extend");
    }
}
