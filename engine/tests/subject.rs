//! The segmenter and scene roles on ONNX Runtime: U²-Netp (Apache-2.0) finds the astronaut and
//! not the room behind her; the YOLO-seg decode returns exactly the instances, classes and mask
//! pixels a graph of known tensors encodes, in both export layouts; the ADE20K scene decode the
//! coverage a graph of known logits encodes (tools/fixtures/ade20k_scene.py).

mod support;

use support::assets;

use darkroom_engine::scene::{Coverage, SceneParser};
use darkroom_engine::subject::{InstanceSegmenter, Mask, SalientSegmenter};
use darkroom_engine::{
    CardSet, EngineError, ModelStore, Role, RuntimeKind, RuntimeSearch, SessionSettings, Sessions,
    image_io, runtime,
};

fn sessions() -> Sessions {
    let outcome = runtime::install(&RuntimeSearch {
        explicit: Some(assets().join("runtime/libonnxruntime.so.1.31.1")),
        ..Default::default()
    });
    assert_eq!(outcome.kind, RuntimeKind::OnnxRuntime, "{outcome:?}");
    let cards = CardSet::builtin().expect("cards");
    Sessions::new(outcome, ModelStore::new(assets().join("models"), cards), 1).expect("sessions")
}

/// The hand-traced outline in `data/astronaut-subject.txt`, filled (even-odd, pixel centres).
fn reference_mask(width: u32, height: u32) -> Mask {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/astronaut-subject.txt"),
    )
    .expect("reference outline");
    let pts: Vec<(f32, f32)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l
                .split_whitespace()
                .map(|v| v.parse::<f32>().expect("number"));
            (it.next().expect("x"), it.next().expect("y"))
        })
        .collect();
    assert!(pts.len() > 10, "an outline, not {} points", pts.len());
    Mask::from_fn(width, height, |x, y| {
        let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
        let mut inside = false;
        for i in 0..pts.len() {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            if (a.1 > py) != (b.1 > py) && px < a.0 + (py - a.1) / (b.1 - a.1) * (b.0 - a.0) {
                inside = !inside;
            }
        }
        inside
    })
}

#[test]
fn u2netp_covers_the_astronaut_and_not_the_room() {
    let sessions = sessions();
    let mut segmenter =
        SalientSegmenter::new(sessions.open("u2netp", Role::Segmenter).expect("u2netp"))
            .expect("contract");
    let img = image_io::load_rgb(&assets().join("photos/astronaut.png")).expect("photo");
    let (w, h) = img.dimensions();
    let salient = segmenter.segment(&img, w, h).expect("segment");
    let reference = reference_mask(w, h);
    let iou = salient.mask.iou(&reference);
    assert!(
        iou >= 0.8,
        "IoU with the traced astronaut {iou:.3} (mask covers {:.2} of the photo, the outline {:.2})",
        salient.mask.coverage(),
        reference.coverage()
    );
    // Asked at another size, it is the same mask read there.
    let small = segmenter
        .segment(&img, w / 8, h / 8)
        .expect("segment small");
    let iou_small = small.mask.iou(&salient.mask.resized(w / 8, h / 8));
    assert!(
        iou_small >= 0.97,
        "1/8 size against the full mask: {iou_small:.3}"
    );

    // A launch pad at dusk: the rocket is the subject, a sliver of the frame.
    let rocket = image_io::load_rgb(&assets().join("photos/rocket.jpg")).expect("photo");
    let (rw, rh) = rocket.dimensions();
    let mask = segmenter.segment(&rocket, rw, rh).expect("segment").mask;
    let [x0, _, x1, _] = mask.bounds().expect("a subject");
    assert!(
        mask.coverage() < 0.06 && x0 > rw * 2 / 5 && x1 < rw * 3 / 5,
        "the rocket, in the middle third: coverage {:.3}, x {x0}..{x1} of {rw}",
        mask.coverage()
    );
}

/// What the fixture encodes (tools/fixtures/yolo_seg.py), in a 1280×640 photo: the letterbox
/// halves it and pads 160 rows above, so photo = (input − (0, 160)) × 2.
fn expected_instances() -> Vec<(&'static str, f32, [u32; 4])> {
    vec![
        // person: its box (x 60..200) cut by R_0's left edge (x 80).
        ("person", 0.9, [160, 160, 400, 480]),
        // dog: its box (y 200..360) cut by R_1's top edge (y 240).
        ("dog", 0.8, [800, 160, 1120, 400]),
        // car: its box (y 240..420) cut by R_2's top edge (y 360).
        ("car", 0.7, [160, 400, 400, 520]),
    ]
}

#[test]
fn yolo_seg_decode_returns_exactly_what_the_fixture_encodes() {
    let sessions = sessions();
    let cards = CardSet::builtin().expect("cards");
    let card = cards.get("yolo_seg").expect("card");
    let classes = cards.classes(card).expect("coco80");
    let img = image::RgbImage::from_pixel(1280, 640, image::Rgb([90, 120, 30]));
    for layout in ["v8", "e2e"] {
        let file = assets().join(format!("fixtures/yolo_seg_{layout}.onnx"));
        let session = sessions
            .open_file(&file, "yolo_seg", SessionSettings::untuned(1))
            .expect("fixture session");
        let mut segmenter = InstanceSegmenter::new(session, classes.clone()).expect("contract");
        let found = segmenter.segment(&img, 1280, 640).expect("segment");
        let expected = expected_instances();
        let got: Vec<(&str, f32)> = found.iter().map(|i| (i.class.as_str(), i.score)).collect();
        assert_eq!(
            got,
            expected.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
            "{layout}: instances best first, the duplicate person and the faint cat gone"
        );
        for (instance, (class, _, [x0, y0, x1, y1])) in found.iter().zip(&expected) {
            let want = Mask::from_fn(1280, 640, |x, y| x >= *x0 && x < *x1 && y >= *y0 && y < *y1);
            assert_eq!(
                instance.mask.area(),
                want.area(),
                "{layout} {class}: mask area (bounds {:?})",
                instance.mask.bounds()
            );
            assert_eq!(instance.mask, want, "{layout} {class}: mask pixels");
        }
        let person = &found[0];
        assert_eq!(person.class_id, 0);
        assert_eq!(
            person.bbox,
            [120.0, 160.0, 400.0, 480.0],
            "{layout}: box in the photo"
        );
        // Masks are read at whatever size the caller measures at.
        let small = segmenter.segment(&img, 160, 80).expect("segment small");
        assert_eq!(
            small[1].mask.bounds(),
            Some([100, 20, 140, 50]),
            "{layout}: dog at 1/8"
        );
    }
}

#[test]
fn the_ade20k_decode_returns_the_coverage_the_fixture_encodes() {
    let sessions = sessions();
    let cards = CardSet::builtin().expect("cards");
    let card = cards.get("ade20k_scene").expect("card");
    let classes = cards.classes(card).expect("ade20k150");
    assert_eq!(classes.len(), 150);
    let file = assets().join("fixtures/ade20k_scene.onnx");
    let session = sessions
        .open_file(&file, "ade20k_scene", SessionSettings::untuned(1))
        .expect("fixture session");
    let mut parser = SceneParser::new(session, classes).expect("contract");
    let want = [
        ("sky", 0.375),
        ("person", 0.21875),
        ("building", 0.1875),
        ("tree", 0.109375),
        ("water", 0.109375),
    ]
    .map(|(class, share)| Coverage {
        class: class.to_owned(),
        share,
    })
    .to_vec();
    for (w, h) in [(1200, 800), (300, 900)] {
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([90, 120, 30]));
        assert_eq!(parser.coverage(&img).expect("coverage"), want, "{w}×{h}");
    }

    // The U²-Netp card is a segmenter, not a scene model.
    let u2 = sessions
        .open_file(
            &assets().join("models/u2netp.onnx"),
            "u2netp",
            SessionSettings::untuned(1),
        )
        .expect("u2netp");
    match SceneParser::new(u2, vec!["sky".into()]) {
        Err(EngineError::WrongRole { .. }) => {}
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("a segmenter taken as a scene model"),
    }
}
