//! Where the camera focused, in the window: F lays the AF points over the loupe's photo (the
//! point in focus filled) at every zoom and over every compare pane, Z without a face zooms to
//! the AF point, and Shift+F paints the sharp edges of the photo's own pixels. The frames are a
//! real photo carrying a real X-T3's maker notes (`af_points::af_frame`). The snapshots were
//! looked at.

use egui::{Key, Modifiers, pos2};

use crate::af_points::{FUJI_POINT, af_frame};
use crate::gui::{harness, ort_cpu, settle};
use crate::gui_pace::keys_in_one_frame;
use crate::snapshots::Snap;
use darkroom_app::gui::{DarkRoom, View, theme};
use egui_kittest::Harness;

#[test]
fn the_loupe_and_compare_show_where_the_camera_focused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    // 1200 × 800: at 100 % the pane shows a part of it.
    af_frame(&folder, "a_sharp_at_af", false, 10, 2);
    af_frame(&folder, "b_soft_at_af", true, 30, 2);
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    h.key_press(Key::Enter);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    // F over a photo: the AF points, not the picks filter.
    h.key_press(Key::F);
    settle(&mut h);
    assert!(h.state().show_af_points);
    assert_eq!(
        h.state().cull.filter,
        darkroom_index::culling::Filter::All,
        "F in the loupe leaves the filter"
    );
    h.snap("loupe_af_points_fit");

    // Z with the pointer off the photo and no face: 100 % where the camera focused.
    h.hover_at(pos2(2.0, 2.0));
    h.run_steps(2);
    h.key_press(Key::Z);
    settle(&mut h);
    let at = h.state().loupe_placed().expect("placed");
    assert_eq!(at.photo.width(), 1200.0, "100 %");
    let point = at.photo.min + egui::vec2(FUJI_POINT[0], FUJI_POINT[1]) * at.photo.size();
    // The view is centred on the AF point as far as the photo's edges let it (about the
    // photo's middle, as without an AF point, it would be 0.5, 0.5).
    let middle = at.point_at(at.pane.center()).expect("over the photo");
    let half = at.pane.size() / at.photo.size() / 2.0;
    let want = pos2(
        FUJI_POINT[0].clamp(half.x, 1.0 - half.x),
        FUJI_POINT[1].clamp(half.y, 1.0 - half.y),
    );
    assert!(
        (middle - want).length() < 0.01 && (want - pos2(0.5, 0.5)).length() > 0.05,
        "the view's middle {middle:?}, the AF point clamped {want:?}"
    );
    h.snap("loupe_af_points_100");
    // Focus peaking over the same view, from the photo's own pixels: it paints the square
    // left sharp around the AF point, and nothing of the blurred rest.
    let before = h.render().expect("render");
    h.key_press_modifiers(Modifiers::SHIFT, Key::F);
    settle(&mut h);
    assert!(h.state().show_peaking);
    let after = h.render().expect("render");
    let ppp = h.ctx.pixels_per_point();
    // The sharp square: 0.1 of the frame's height either side of the point.
    let half = egui::vec2(0.1 * at.photo.height(), 0.1 * at.photo.height());
    let sharp = egui::Rect::from_center_size(point, 2.0 * half).expand(4.0);
    let (mut inside, mut outside) = (0usize, 0usize);
    for (x, y, p) in after.enumerate_pixels() {
        if p != before.get_pixel(x, y) {
            let at_point = pos2(x as f32 / ppp, y as f32 / ppp);
            if sharp.contains(at_point) {
                inside += 1;
            } else if at.pane.contains(at_point) {
                outside += 1;
            }
        }
    }
    assert!(
        inside > 100,
        "peaking painted {inside} pixels of the sharp square"
    );
    assert_eq!(
        outside, 0,
        "peaking painted {outside} pixels of the blurred rest"
    );
    h.snap("loupe_af_peaking_100");
    h.key_press_modifiers(Modifiers::SHIFT, Key::F);
    h.key_press(Key::Z);
    settle(&mut h);

    // Compare both frames, the AF points over each pane.
    h.key_press(Key::Escape);
    settle(&mut h);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.key_press(Key::C);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Compare);
    h.snap("compare_af_points");

    // In the grid, F is the picks filter again.
    h.key_press(Key::Escape);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Grid);
    h.key_press(Key::F);
    settle(&mut h);
    assert_eq!(
        h.state().cull.filter,
        darkroom_index::culling::Filter::Picks
    );
}

/// Pixels of the in-focus AF point's colour on screen, inside the AF point's square of the
/// loupe's photo and elsewhere in its pane; None while the loupe draws no photo.
fn af_pixels(h: &mut Harness<'static, DarkRoom>) -> Option<(usize, usize)> {
    let at = h.state().loupe_placed()?;
    let image = h.render().expect("render");
    let ppp = h.ctx.pixels_per_point();
    let point = at.photo.min + egui::vec2(FUJI_POINT[0], FUJI_POINT[1]) * at.photo.size();
    let near = egui::Rect::from_center_size(point, egui::vec2(1.0, 1.0) * 0.1 * at.photo.height())
        .expand(6.0);
    let want = theme::AF_IN_FOCUS.to_array();
    let (mut inside, mut elsewhere) = (0, 0);
    for (x, y, p) in image.enumerate_pixels() {
        if p.0[..3] != want[..3] {
            continue;
        }
        let on_screen = pos2(x as f32 / ppp, y as f32 / ppp);
        if near.contains(on_screen) {
            inside += 1;
        } else if at.pane.contains(on_screen) {
            elsewhere += 1;
        }
    }
    Some((inside, elsewhere))
}

/// At a person's pace. Enter and F inside one slow frame open the loupe with its AF points
/// (F over the photo Enter opened, not the grid's picks filter), asked before the photo's
/// facts have come. → inside the next frame moves to a frame whose file has no AF record: in
/// no frame while its facts load are the last photo's points drawn over it. ← and F in one
/// frame go back with the points off.
#[test]
fn af_keys_faster_than_frames() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    af_frame(&folder, "a_with_af", false, 10, 2);
    let with_notes = af_frame(&folder, "b_without_af", false, 30, 2);
    let status = std::process::Command::new("exiftool")
        .args(["-q", "-q", "-m", "-overwrite_original", "-MakerNotes:all="])
        .arg(&with_notes)
        .status()
        .expect("exiftool");
    assert!(status.success(), "maker notes stripped");
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    let first = h.state().cull.selected_id().expect("a photo selected");

    keys_in_one_frame(
        &mut h,
        &[(Key::Enter, Modifiers::NONE), (Key::F, Modifiers::NONE)],
    );
    assert_eq!(h.state().cull.view, View::Loupe);
    assert!(h.state().show_af_points, "F over the photo Enter opened");
    assert_eq!(
        h.state().cull.filter,
        darkroom_index::culling::Filter::All,
        "F read in the loupe's scope, not the grid's"
    );
    settle(&mut h);
    let (inside, elsewhere) = af_pixels(&mut h).expect("the loupe drew the photo");
    assert!(
        inside > 20 && elsewhere == 0,
        "the AF point drawn once the facts came: {inside} pixels at it, {elsewhere} elsewhere"
    );

    keys_in_one_frame(&mut h, &[(Key::ArrowRight, Modifiers::NONE)]);
    let second = h.state().cull.selected_id().expect("a photo selected");
    assert_ne!(first, second, "→ moved");
    // Every frame until the next photo's facts are in, and one after: none drawn.
    let (mut frames, mut looked) = (0, 0);
    loop {
        let waiting = h
            .state()
            .gallery
            .get(second)
            .is_none_or(|p| !matches!(p.facts, darkroom_app::gui::pictures::Slot::Ready(_)));
        if let Some(pixels) = af_pixels(&mut h) {
            looked += 1;
            assert_eq!(
                pixels,
                (0, 0),
                "frame {frames} after →: the last photo's AF point over one without any"
            );
        }
        if !waiting {
            break;
        }
        h.step();
        frames += 1;
        assert!(frames < 2000, "the next photo's facts never came");
    }
    assert!(looked >= 1, "no frame drew the photo");
    settle(&mut h);
    assert_eq!(
        af_pixels(&mut h),
        Some((0, 0)),
        "no AF point on a file without any"
    );

    keys_in_one_frame(
        &mut h,
        &[(Key::ArrowLeft, Modifiers::NONE), (Key::F, Modifiers::NONE)],
    );
    assert_eq!(h.state().cull.selected_id(), Some(first));
    assert!(!h.state().show_af_points);
    settle(&mut h);
    assert_eq!(af_pixels(&mut h), Some((0, 0)), "F off: no AF point drawn");
}
