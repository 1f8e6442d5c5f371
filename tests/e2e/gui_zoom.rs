//! The loupe at true 100 % on a 24 MP photo: what is on screen is the photo's own pixels (a
//! crop of the rendered loupe equals the same region of a full decode), zoom at the pointer and
//! at a face, keyboard and drag pans, the navigator, and only the photos around the one shown
//! held at full resolution. The snapshot was looked at.

use std::path::{Path, PathBuf};

use crate::gui::{harness, ort_cpu, settle};
use crate::snapshots::Snap;
use crate::support::photo;
use darkroom_app::gui::pictures::Faces;
use darkroom_app::gui::{DarkRoom, View};
use darkroom_catalog::{Catalog, FaceRow, IndexStamp, PhotoIndex, SidecarNaming};
use egui::{Key, Modifiers, Pos2, pos2, vec2};
use egui_kittest::kittest::Queryable;

const BIG: (u32, u32) = (6000, 4342);
/// Einstein's face in the 24 MP frame (the 1927 Solvay photo at twice its size).
const FACE: [f32; 4] = [3150.0, 2250.0, 3370.0, 2510.0];

/// A camera-sized JPEG made from a real photo, with grain, so that neighbouring pixels differ
/// and a stretched preview cannot pass for the photo's pixels.
fn big_photo(folder: &Path) -> PathBuf {
    let solvay = image::open(photo("solvay_conference_1927.jpg"))
        .expect("photo")
        .into_rgb8();
    let mut up =
        image::imageops::resize(&solvay, BIG.0, BIG.1, image::imageops::FilterType::Triangle);
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for p in up.pixels_mut() {
        for c in &mut p.0 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *c = c.saturating_add((state % 48) as u8).saturating_sub(24);
        }
    }
    let path = folder.join("solvay_24mp.jpg");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 95)
        .encode_image(&up)
        .expect("encode");
    drop(out);
    path
}

/// A folder `shoot` in `dir` with the big photo and `others` (a sample photo, its name there);
/// the folder and the big photo's path.
fn shoot(dir: &Path, others: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let folder = dir.join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let big = big_photo(&folder);
    for (sample, name) in others {
        std::fs::copy(photo(sample), folder.join(name)).expect("copy photo");
    }
    (folder, big)
}

/// The window on `folder` (catalog in `dir`), settled in the loupe on its third photo, walked
/// to in the grid.
fn loupe_on_the_third(dir: &Path, folder: &Path) -> egui_kittest::Harness<'static, DarkRoom> {
    let mut h = harness(dir, Some(folder.to_path_buf()), ort_cpu());
    settle(&mut h);
    h.key_press(Key::ArrowRight);
    h.key_press(Key::ArrowRight);
    h.key_press(Key::Enter);
    settle(&mut h);
    h
}

/// The index row the index job would write for the big photo: one face.
fn index_row(dir: &Path, path: &Path) {
    let mut c =
        Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension).expect("catalog");
    let [x0, y0, _, _] = FACE;
    let index = PhotoIndex {
        stamp: IndexStamp {
            size: std::fs::metadata(path).expect("stat").len(),
            mtime_ns: 0,
            detector: "scrfd_2.5g".into(),
            embedder: None,
            eyes: Some("fr_eye".into()),
            segmenter: None,
            scene: None,
            mesh: None,
            measures: darkroom_catalog::MEASURES,
        },
        backend: "CPU · ONNX Runtime 1.31.1".into(),
        width: BIG.0,
        height: BIG.1,
        sharpness: 80.0,
        phash: 0x0F0F_0F0F_0F0F_0F0F,
        captured_at: Some(100.0),
        body: None,
        clock_offset_s: 0.0,
        faces: vec![FaceRow {
            id: 0,
            bbox: FACE,
            score: 0.9,
            landmarks: [[x0 + 70.0, y0 + 100.0]; 5],
            embedding: None,
            sharpness: 80.0,
            eyes_closed: Some(false),
            person: None,
            eyes_sharpness: None,
            expression: None,
            key: false,
        }],
        subject: None,
        look: None,
        exposure: Default::default(),
        scene_classes: Vec::new(),
        af: None,
    };
    c.store_index(path, &index, &[]).expect("store");
}

/// The largest difference of any channel between the rendered screen and the photo, over a
/// 160×120 block of the pane's middle, with the photo's pixel `shift` further right.
fn difference(
    screen: &image::RgbaImage,
    full: &image::RgbImage,
    placed: (Pos2, Pos2),
    shift: u32,
) -> u8 {
    let (pane_center, photo_min) = placed;
    let mut worst = 0;
    for dy in 0..120 {
        for dx in 0..160 {
            let sx = pane_center.x as u32 - 80 + dx;
            let sy = pane_center.y as u32 - 60 + dy;
            let px = (sx as f32 - photo_min.x) as u32 + shift;
            let py = (sy as f32 - photo_min.y) as u32;
            let s = screen.get_pixel(sx, sy).0;
            let p = full.get_pixel(px, py).0;
            for c in 0..3 {
                worst = worst.max(s[c].abs_diff(p[c]));
            }
        }
    }
    worst
}

#[test]
fn the_loupe_at_100_percent_shows_the_photos_own_pixels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (folder, big) = shoot(
        dir.path(),
        &[
            ("astronaut.png", "astronaut.png"),
            ("coffee.png", "coffee.png"),
        ],
    );
    index_row(dir.path(), &big);
    // The decode the loupe is given (libjpeg-turbo; its own parity with an independent
    // decoder is library/tests/jpeg_turbo.rs): this test is about what reaches the screen.
    let full = darkroom_library::working::full(&big).expect("the reference decode");

    // The folder is in name order: astronaut, coffee, solvay.
    let mut h = loupe_on_the_third(dir.path(), &folder);
    assert_eq!(h.state().cull.view, View::Loupe);
    let fit = h.state().loupe_placed().expect("the loupe drew the photo");
    assert!(
        fit.photo.width() < fit.pane.width() + 0.5,
        "fit: the whole photo shows"
    );

    // Z with the pointer on the photo: 100 % with that point in the middle.
    let aim = fit.photo.min + vec2(0.25 * fit.photo.width(), 0.5 * fit.photo.height());
    h.hover_at(aim);
    h.run_steps(2);
    h.key_press(Key::Z);
    settle(&mut h);
    let at = h.state().loupe_placed().expect("placed");
    assert_eq!(
        at.photo.size(),
        vec2(BIG.0 as f32, BIG.1 as f32),
        "one photo pixel per pixel"
    );
    let middle = at.point_at(at.pane.center()).expect("over the photo");
    assert!(
        (middle.x - 0.25).abs() < 0.002 && (middle.y - 0.5).abs() < 0.002,
        "{middle:?}"
    );
    h.get_by_label("photo 100 %");

    // What is on screen is the photo's own pixels (the GPU's sRGB round trip may move a
    // channel by one), and grain enough that a pixel off would not pass.
    let screen = h.render().expect("render");
    let mapping = (at.pane.center(), at.photo.min);
    let own = difference(&screen, &full, mapping, 0);
    assert!(own <= 2, "the loupe differs from the full decode by {own}");
    let off = difference(&screen, &full, mapping, 1);
    assert!(
        off > 20,
        "a pixel to the side differs by only {off}: the test could not fail"
    );

    // A pan key moves a quarter of the pane; a drag moves with the pointer.
    h.key_press_modifiers(Modifiers::COMMAND, Key::ArrowRight);
    settle(&mut h);
    let panned = h.state().loupe_placed().expect("placed");
    let step = at.photo.min.x - panned.photo.min.x;
    assert!((step - at.pane.width() / 4.0).abs() < 1.0, "moved {step}");
    let from = panned.pane.center();
    h.drag_at(from);
    h.run_steps(1);
    for k in 1..=4 {
        h.hover_at(from + vec2(-30.0, -20.0) * k as f32);
        h.run_steps(1);
    }
    h.drop_at(from + vec2(-120.0, -80.0));
    settle(&mut h);
    let dragged = h.state().loupe_placed().expect("placed");
    let moved = dragged.photo.min - panned.photo.min;
    assert!(
        (moved - vec2(-120.0, -80.0)).length() < 2.0,
        "dragged {moved:?}"
    );

    // The navigator: a click at its top-left corner shows the photo's top-left corner.
    let nav = h.get_by_label("navigator").rect();
    h.get_by_label("navigator").hover();
    h.run_steps(1);
    h.drag_at(nav.min + vec2(1.0, 1.0));
    h.drop_at(nav.min + vec2(1.0, 1.0));
    settle(&mut h);
    let corner = h.state().loupe_placed().expect("placed");
    assert!(
        (corner.photo.min - corner.pane.min).length() < 1.5,
        "{corner:?}"
    );

    // A click on the face's close-up zooms to it at 100 %; Shift+Z goes to 200 % there.
    h.get_by_label("face 1 close-up").click();
    settle(&mut h);
    let face = h.state().loupe_placed().expect("placed");
    let mid = face.point_at(face.pane.center()).expect("over the photo");
    let want = pos2(
        (FACE[0] + FACE[2]) / 2.0 / BIG.0 as f32,
        (FACE[1] + FACE[3]) / 2.0 / BIG.1 as f32,
    );
    assert!(
        (mid - want).length() < 0.002,
        "{mid:?} is not the face {want:?}"
    );
    h.snap("loupe_100_navigator");
    h.hover_at(pos2(2.0, 2.0));
    h.key_press_modifiers(Modifiers::SHIFT, Key::Z);
    settle(&mut h);
    let double = h.state().loupe_placed().expect("placed");
    assert_eq!(double.photo.width(), 2.0 * BIG.0 as f32);
    h.key_press_modifiers(Modifiers::SHIFT, Key::Z);
    settle(&mut h);
    assert!(h.state().zoom.is_fit(), "the same key goes back to fit");

    // Stepping through the shoot holds at most the photo shown and the next at full size.
    for _ in 0..3 {
        h.key_press(Key::ArrowLeft);
        settle(&mut h);
        let held = h.state().gallery.full_pictures();
        assert!(held <= 2, "{held} full-resolution photos held");
    }
}

/// Zoomed on a 24 MP photo it has not decoded yet, the loupe shows the photo's own pixels
/// where it looks before the whole photo is decoded: in some frame it draws the rows on screen
/// over the stretched screen picture (`Drew::Part`), and they are the photo's pixels; then the
/// whole.
#[test]
fn zoomed_on_a_new_photo_the_rows_on_screen_come_before_the_rest() {
    use darkroom_app::gui::pictures::Drew;
    let dir = tempfile::tempdir().expect("tempdir");
    // Name order: a small photo, the big one, a small one last.
    let (folder, big) = shoot(
        dir.path(),
        &[("astronaut.png", "a.png"), ("coffee.png", "z.png")],
    );
    let full = darkroom_library::working::full(&big).expect("the reference decode");

    // The grid asks for no photo's own pixels: to the last photo, then the loupe, at 100 %.
    let mut h = loupe_on_the_third(dir.path(), &folder);
    h.hover_at(pos2(2.0, 2.0));
    h.key_press(Key::Z);
    settle(&mut h);
    assert!(!h.state().zoom.is_fit(), "zoomed");
    // One step back, zoomed: the big photo's own pixels are asked for at once.
    let last = h.state().cull.selected_id().expect("a photo");
    h.key_press(Key::ArrowLeft);
    h.run_steps(1);
    let id = h.state().cull.selected_id().expect("a photo");
    assert_ne!(id, last, "the key stepped back");
    let mut part_seen = None;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        match h.state().loupe_drew() {
            Some((d, Drew::Part)) if d == id && part_seen.is_none() => {
                let at = h.state().loupe_placed().expect("placed");
                part_seen = Some((h.render().expect("render"), at));
            }
            Some((d, Drew::Full)) if d == id => break,
            _ => {}
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the photo's own pixels never came"
        );
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let (screen, at) = part_seen.expect("no frame drew the rows on screen before the whole");
    assert_eq!(
        at.photo.size(),
        vec2(BIG.0 as f32, BIG.1 as f32),
        "placed at 100 % of the photo's own size while only its rows on screen are here"
    );
    let mapping = (at.pane.center(), at.photo.min);
    let own = difference(&screen, &full, mapping, 0);
    assert!(
        own <= 2,
        "the rows on screen differ from the full decode by {own}"
    );
    let off = difference(&screen, &full, mapping, 1);
    assert!(
        off > 20,
        "a pixel to the side differs by only {off}: the test could not fail"
    );
}

/// A step is answered on screen in the frame it comes in: that frame draws the next photo from
/// what is up already and uploads none of a photo's own pixels still going up (on lavapipe a
/// frame that did took ~30 ms).
#[test]
fn the_frame_a_step_comes_in_uploads_no_tile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (folder, _) = shoot(
        dir.path(),
        &[("astronaut.png", "a.png"), ("coffee.png", "z.png")],
    );
    let mut h = loupe_on_the_third(dir.path(), &folder);
    h.hover_at(pos2(2.0, 2.0));
    h.key_press(Key::Z);
    settle(&mut h);
    // Back onto the big photo, zoomed: its own pixels are asked for at once, and its 24 MP
    // go up over several frames.
    h.key_press(Key::ArrowLeft);
    h.run_steps(1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !h.state().gallery.uploading() {
        assert!(
            std::time::Instant::now() < deadline,
            "the big photo's tiles never started up"
        );
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // A frame without a key would upload the next tile (the first always goes).
    let before = h.state().gallery.tiles_up();
    crate::gui_pace::keys_in_one_frame(&mut h, &[(Key::ArrowLeft, Modifiers::NONE)]);
    let app = h.state();
    let first = app.cull.selected_id().expect("a photo");
    assert_eq!(app.cull.selected, 0, "the key stepped to the first photo");
    assert!(
        app.loupe_drew().is_some_and(|(d, _)| d == first),
        "the frame of the step drew {:?}, not the first photo",
        app.loupe_drew()
    );
    assert_eq!(
        app.gallery.tiles_up(),
        before,
        "the frame the step came in uploaded a tile"
    );
}

fn photo_labels(
    h: &egui_kittest::Harness<'static, darkroom_app::gui::DarkRoom>,
    words: &str,
) -> usize {
    h.query_all_by_label(&format!("photo {words}")).count()
}

#[test]
fn compare_shows_a_selection_zoomed_together_with_a_pinned_pane_and_decides_from_any() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = crate::gui::sample_folder(dir.path());
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    for _ in 0..2 {
        h.key_press_modifiers(Modifiers::SHIFT, Key::ArrowRight);
    }
    h.key_press(Key::C);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Compare);
    assert_eq!(photo_labels(&h, "fit"), 3, "three panes");

    // Z over a pane zooms every locked pane to 100 % at the same place.
    let first = h.state().loupe_placed().expect("a pane");
    h.hover_at(first.photo.center());
    h.run_steps(2);
    h.key_press(Key::Z);
    settle(&mut h);
    assert_eq!(photo_labels(&h, "100 %"), 3, "locked: all three zoomed");

    // The second pane pinned as the best so far: it comes first.
    let second = &crate::gui::PHOTOS[1];
    h.get_all_by_label("Pin as best")
        .nth(1)
        .expect("a pin button")
        .click();
    settle(&mut h);
    assert_eq!(
        h.state().comparison.pinned,
        h.state()
            .cull
            .entries()
            .iter()
            .position(|p| p.file_name() == *second)
            .map(|i| h.state().cull.id(i))
    );
    // The third pane on its own zoom: 200 % there, 100 % elsewhere.
    h.get_all_by_label("Zoom locked")
        .nth(2)
        .expect("a lock button")
        .click();
    settle(&mut h);
    let panes = h.state().comparison.panes(&h.state().cull);
    assert_eq!(panes.len(), 3);
    let third = h
        .get_all_by_label("photo 100 %")
        .nth(2)
        .expect("third pane")
        .rect();
    h.hover_at(third.center());
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::SHIFT, Key::Z);
    settle(&mut h);
    assert_eq!(photo_labels(&h, "200 %"), 1, "only the unlocked pane");
    assert_eq!(photo_labels(&h, "100 %"), 2);
    h.snap("compare_3up_pinned");

    // A click makes a pane the one decided on; the decision moves on to the next pane.
    h.get_all_by_label("photo 100 %")
        .nth(1)
        .expect("a locked pane")
        .click();
    settle(&mut h);
    let decided = h.state().cull.selected_id().expect("a photo");
    h.key_press(Key::P);
    settle(&mut h);
    let photo = h.state().cull.get(decided).expect("photo");
    assert_eq!(photo.decision.flag, darkroom_catalog::Flag::Pick);
    assert_ne!(h.state().cull.selected_id(), Some(decided), "moved on");
    assert!(
        panes.contains(&h.state().cull.selected_id().expect("a photo")),
        "to another pane"
    );
}

/// Two people (Einstein and a man to his left, boxes in the 3000×2171 Solvay photo) across a
/// burst of three frames: in the first the second person blinks, in the third the first is
/// blurry; only the second has everyone sharp with open eyes. The face mesh's measures say the
/// second person smiles in the second frame and looks away in the third.
const EINSTEIN: [f32; 4] = [1591.0, 1146.0, 1682.0, 1246.0];
const OTHER: [f32; 4] = [862.0, 1095.0, 950.0, 1195.0];

fn burst_rows(dir: &Path, frames: &[PathBuf]) {
    let mut c =
        Catalog::open(&dir.join("catalog.sqlite"), SidecarNaming::WithExtension).expect("catalog");
    // (sharpness, eyes closed, smile, gaze across) of each person in each frame.
    let states = [
        [(90.0, false, 0.0, 0.0), (85.0, true, 0.0, 0.0)],
        [(92.0, false, 0.0, 0.0), (88.0, false, 0.2, 0.0)],
        [(12.0, false, 0.0, 0.0), (86.0, false, 0.0, 30.0)],
    ];
    for (k, (path, people)) in frames.iter().zip(states).enumerate() {
        let faces = [EINSTEIN, OTHER]
            .into_iter()
            .zip(people)
            .enumerate()
            .map(|(p, (bbox, (sharpness, closed, smile, gaze)))| FaceRow {
                id: 0,
                bbox,
                score: 0.9,
                landmarks: [[bbox[0] + 30.0, bbox[1] + 40.0]; 5],
                embedding: None,
                sharpness,
                eyes_closed: Some(closed),
                person: Some(p as i64 + 1),
                eyes_sharpness: None,
                expression: Some(darkroom_catalog::ExpressionRow {
                    eye_open: if closed { [0.08, 0.07] } else { [0.3, 0.29] },
                    smile,
                    gaze: [gaze, 6.0],
                    head: [gaze / 2.0, 6.0],
                }),
                key: false,
            })
            .collect();
        let index = PhotoIndex {
            stamp: IndexStamp {
                size: std::fs::metadata(path).expect("stat").len(),
                mtime_ns: 0,
                detector: "scrfd_2.5g".into(),
                embedder: Some("fr_feature".into()),
                eyes: Some("face_mesh+iris_landmark".into()),
                segmenter: None,
                scene: None,
                mesh: Some("face_mesh+iris_landmark".into()),
                measures: darkroom_catalog::MEASURES,
            },
            backend: "CPU · ONNX Runtime 1.31.1".into(),
            width: 3000,
            height: 2171,
            sharpness: 80.0,
            // One look, half a second apart: a burst.
            phash: 0x0F0F_0F0F_0F0F_0F0F ^ k as u64,
            captured_at: Some(100.0 + 0.5 * k as f64),
            body: None,
            clock_offset_s: 0.0,
            faces,
            subject: None,
            look: None,
            exposure: Default::default(),
            scene_classes: Vec::new(),
            af: None,
        };
        c.store_index(path, &index, &[]).expect("store");
    }
}

#[test]
fn people_across_a_burst_show_who_is_sharp_with_open_eyes_and_a_column_picks_its_frame() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("shoot");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let frames: Vec<PathBuf> = (1..=3)
        .map(|k| {
            let to = folder.join(format!("burst_{k}.jpg"));
            std::fs::copy(photo("solvay_conference_1927.jpg"), &to).expect("copy");
            to
        })
        .collect();
    burst_rows(dir.path(), &frames);
    let mut h = harness(dir.path(), Some(folder.clone()), ort_cpu());
    settle(&mut h);
    assert_eq!(
        h.state().cull.visible.len(),
        1,
        "the burst shows as one frame"
    );
    h.key_press(Key::E);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::People);
    assert_eq!(h.state().cull.visible.len(), 3, "the burst is opened");
    assert_eq!(
        h.query_all_by_label("everyone sharp, eyes open").count(),
        1,
        "one frame has everyone"
    );
    h.get_by_label("eyes closed");
    h.get_by_label("face blurry");
    // The face mesh's verdicts, under the faces they are about.
    h.get_by_label("smiling");
    h.get_by_label("looking away");
    h.snap("people_across_burst");
    h.get_by_label("Pick this frame burst_2.jpg").click();
    settle(&mut h);
    let picked = Catalog::open(
        &dir.path().join("catalog.sqlite"),
        SidecarNaming::WithExtension,
    )
    .expect("catalog")
    .decision(&frames[1])
    .expect("query")
    .unwrap_or_default();
    assert_eq!(
        picked.flag,
        darkroom_catalog::Flag::Pick,
        "the column's frame is picked"
    );
    let sidecar = std::fs::read_to_string(folder.join("burst_2.jpg.xmp")).expect("sidecar");
    assert!(sidecar.contains("darkroom:Pick=\"True\""), "{sidecar}");

    // In the loupe the close-ups stand left to right as the people do in the photo, though
    // the index lists the right-hand face first.
    h.key_press(Key::Escape);
    h.run_steps(2);
    h.key_press(Key::Space);
    settle(&mut h);
    assert_eq!(h.state().cull.view, View::Loupe);
    let id = h.state().cull.selected_id().expect("a photo in the loupe");
    let Some(Faces::Ready(tiles)) = h.state().gallery.get(id).map(|p| &p.faces) else {
        panic!("the close-ups were made");
    };
    let order: Vec<(Option<i64>, f32)> = tiles.iter().map(|t| (t.person, t.center.x)).collect();
    assert_eq!(order.len(), 2, "{order:?}");
    assert!(order[0].1 < order[1].1, "left to right: {order:?}");
    assert_eq!(order[0].0, Some(2), "the left-hand person first: {order:?}");
}
