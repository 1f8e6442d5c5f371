use darkroom_engine::CardSet;
use darkroom_engine::face::*;
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).expect("photo");
    let img = darkroom_engine::image_io::load_rgb(std::path::Path::new(&path)).expect("load");
    let cards = CardSet::builtin().expect("cards");
    let spec = &cards.get("scrfd_2.5g").expect("card").input;
    let t = |name: &str, f: &mut dyn FnMut()| {
        for _ in 0..3 {
            f();
        }
        let s = Instant::now();
        for _ in 0..20 {
            f();
        }
        println!("{name}: {:.2} ms", s.elapsed().as_secs_f64() * 1e3 / 20.0);
    };
    t("resize fir", &mut || {
        std::hint::black_box(resize_bilinear(&img, 640, 463));
    });
    t("letterbox", &mut || {
        std::hint::black_box(letterbox_top_left(&img, 640, 640));
    });
    let (canvas, _) = letterbox_top_left(&img, 640, 640);
    let mut out = Vec::new();
    t("normalise", &mut || {
        normalise_nchw(&canvas, spec, &mut out);
    });
    let lm = [
        [100.0f32, 100.0],
        [140.0, 100.0],
        [120.0, 120.0],
        [105.0, 140.0],
        [135.0, 140.0],
    ];
    let s = Similarity::estimate(&lm, &ARCFACE_TEMPLATE);
    t("align x1", &mut || {
        std::hint::black_box(warp_affine_rgb(&img, &s.inverse(), 112));
    });
}
