//! How the loupe shows its photo: fit to the pane, or at a scale of the photo's own pixels
//! (100 %: one photo pixel per physical screen pixel) around a point of it. Pure geometry, so
//! it is unit-tested: the view records where it drew ([`Placed`]), and the keys and clicks of
//! the next frame are read against that.

use egui::{Pos2, Rect, Vec2, pos2, vec2};

/// The scales the zoom keys reach (Z, Shift+Z), as screen pixels per photo pixel.
pub const FULL: f32 = 1.0;
pub const DOUBLE: f32 = 2.0;
/// One pan key moves the view by this share of the pane.
pub const PAN_STEP: f32 = 0.25;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zoom {
    /// None: the whole photo fits the pane. Some(s): s screen pixels per photo pixel.
    pub scale: Option<f32>,
    /// The photo's point at the pane's centre, as fractions of its width and height. Kept when
    /// the photo changes, so a burst is looked at in the same place frame after frame.
    pub center: Pos2,
}

impl Default for Zoom {
    fn default() -> Self {
        Zoom {
            scale: None,
            center: pos2(0.5, 0.5),
        }
    }
}

/// Where a photo was drawn: the pane, and the whole photo's rectangle (it may reach far
/// outside the pane when zoomed), in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    pub pane: Rect,
    pub photo: Rect,
}

impl Placed {
    /// The photo's point under `pos` (fractions of its size), where `pos` is over the photo.
    pub fn point_at(&self, pos: Pos2) -> Option<Pos2> {
        (self.pane.contains(pos) && self.photo.contains(pos)).then(|| {
            let v = (pos - self.photo.min) / self.photo.size();
            pos2(v.x, v.y)
        })
    }

    /// The part of the photo the pane shows, as fractions of its size.
    pub fn visible(&self) -> Rect {
        let shown = self.pane.intersect(self.photo);
        let size = self.photo.size();
        Rect::from_min_max(
            pos2(0.0, 0.0) + (shown.min - self.photo.min) / size,
            pos2(0.0, 0.0) + (shown.max - self.photo.min) / size,
        )
    }
}

impl Zoom {
    pub fn is_fit(&self) -> bool {
        self.scale.is_none()
    }

    /// A zoom key: to `scale` with `at` (the point under the pointer, or a face) in the middle,
    /// or back to fit when already there.
    pub fn toggle(&mut self, scale: f32, at: Option<Pos2>) {
        if self.scale == Some(scale) {
            self.scale = None;
        } else {
            self.zoom_to(scale, at);
        }
    }

    /// To `scale` around `at`, or around the point already in the middle.
    pub fn zoom_to(&mut self, scale: f32, at: Option<Pos2>) {
        self.scale = Some(scale);
        if let Some(p) = at {
            self.center = pos2(p.x.clamp(0.0, 1.0), p.y.clamp(0.0, 1.0));
        }
    }

    /// Move the view by `delta` points, as a drag does (the photo follows the pointer), held
    /// where the photo still covers the pane. Nothing to move at fit.
    pub fn pan(&mut self, delta: Vec2, placed: &Placed) {
        if self.is_fit() {
            return;
        }
        let size = placed.photo.size();
        let from = held(self.center, placed.pane.size(), size);
        self.center = held(from - delta / size, placed.pane.size(), size);
    }

    /// A key's pan: a share of the pane in direction `dir` (-1, 0 or 1 each way).
    pub fn pan_step(&mut self, dir: Vec2, placed: &Placed) {
        // The view moves that way, so the photo moves the other.
        self.pan(-dir * placed.pane.size() * PAN_STEP, placed);
    }
}

/// The whole photo's rectangle in points for `pane`: fit (never past 100 %), or at the zoom's
/// scale with its centre in the middle of the pane, held so that the photo covers the pane
/// where it is big enough, and starting on a whole physical pixel so 100 % shows each photo
/// pixel on one screen pixel. `photo_px` is the photo's size in its own pixels; `ppp` the
/// screen's pixels per point.
pub fn place(zoom: &Zoom, pane: Rect, photo_px: Vec2, ppp: f32) -> Rect {
    let photo_px = photo_px.max(vec2(1.0, 1.0));
    match zoom.scale {
        None => {
            let points_per_px = (pane.width() / photo_px.x)
                .min(pane.height() / photo_px.y)
                .min(1.0 / ppp);
            Rect::from_center_size(pane.center(), photo_px * points_per_px)
        }
        Some(scale) => {
            let size = photo_px * scale / ppp;
            let c = held(zoom.center, pane.size(), size);
            let min = pane.center() - vec2(c.x * size.x, c.y * size.y);
            let min = pos2((min.x * ppp).round() / ppp, (min.y * ppp).round() / ppp);
            Rect::from_min_size(min, size)
        }
    }
}

/// `c` held so that a photo of `photo` points covers a pane of `pane` points: on each axis
/// where the photo is smaller than the pane, its middle.
fn held(c: Pos2, pane: Vec2, photo: Vec2) -> Pos2 {
    let axis = |c: f32, pane: f32, photo: f32| {
        let half = pane / photo.max(1e-3) / 2.0;
        if half >= 0.5 {
            0.5
        } else {
            c.clamp(half, 1.0 - half)
        }
    };
    pos2(axis(c.x, pane.x, photo.x), axis(c.y, pane.y, photo.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane() -> Rect {
        Rect::from_min_size(pos2(10.0, 20.0), vec2(800.0, 600.0))
    }

    #[test]
    fn fit_never_enlarges_and_keeps_the_aspect() {
        let z = Zoom::default();
        let r = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        assert_eq!(r.width(), 800.0);
        assert!((r.height() - 533.333).abs() < 0.01);
        assert_eq!(r.center(), pane().center());
        let small = place(&z, pane(), vec2(300.0, 200.0), 1.0);
        assert_eq!(
            small.size(),
            vec2(300.0, 200.0),
            "a small photo is not blown up"
        );
        let hidpi = place(&z, pane(), vec2(300.0, 200.0), 2.0);
        assert_eq!(
            hidpi.size(),
            vec2(150.0, 100.0),
            "100 % is per physical pixel"
        );
    }

    #[test]
    fn full_scale_is_one_pixel_per_pixel_around_the_point_asked_for() {
        let mut z = Zoom::default();
        z.toggle(FULL, Some(pos2(0.25, 0.5)));
        let r = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        assert_eq!(r.size(), vec2(6000.0, 4000.0));
        // The asked-for point sits in the middle of the pane, on a whole pixel.
        let p = r.min + vec2(0.25 * 6000.0, 0.5 * 4000.0);
        assert!((p - pane().center()).length() < 1.0, "{p:?}");
        assert_eq!(r.min.x, r.min.x.round());
        let placed = Placed {
            pane: pane(),
            photo: r,
        };
        let at = placed.point_at(pane().center()).expect("over the photo");
        assert!((at.x - 0.25).abs() < 1e-3 && (at.y - 0.5).abs() < 1e-3);
        z.toggle(FULL, None);
        assert!(z.is_fit(), "the same key goes back to fit");
    }

    #[test]
    fn the_view_is_held_inside_the_photo_and_a_pan_back_moves_at_once() {
        let mut z = Zoom::default();
        z.toggle(FULL, Some(pos2(0.0, 0.0)));
        let r = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        assert_eq!(
            r.min,
            pane().min,
            "a corner asked for shows the corner, no void"
        );
        let placed = Placed {
            pane: pane(),
            photo: r,
        };
        // Far past the edge, then back: the way back moves the view at once.
        for _ in 0..10 {
            z.pan(vec2(500.0, 0.0), &placed);
        }
        let stuck = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        z.pan(vec2(-100.0, 0.0), &placed);
        let back = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        assert!((back.min.x - (stuck.min.x - 100.0)).abs() < 1.0);
        let v = Placed {
            pane: pane(),
            photo: back,
        }
        .visible();
        assert!(v.min.x >= 0.0 && v.max.x <= 1.0);
    }

    #[test]
    fn a_key_pans_by_a_share_of_the_pane_and_a_small_photo_stays_centred() {
        let mut z = Zoom::default();
        z.toggle(FULL, Some(pos2(0.5, 0.5)));
        let r = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        let placed = Placed {
            pane: pane(),
            photo: r,
        };
        z.pan_step(vec2(1.0, 0.0), &placed);
        let moved = place(&z, pane(), vec2(6000.0, 4000.0), 1.0);
        assert_eq!(moved.min.x, r.min.x - 200.0, "a quarter of 800 points");
        let mut small = Zoom::default();
        small.toggle(DOUBLE, Some(pos2(0.9, 0.9)));
        let r = place(&small, pane(), vec2(300.0, 200.0), 1.0);
        assert_eq!(
            r.center(),
            pane().center(),
            "a photo smaller than the pane stays central"
        );
    }
}
