//! A folder of photos for the culling state's tests and the window's (behind the
//! `test-fixtures` feature): no files, every import answered.

use std::path::PathBuf;

use darkroom_catalog::Decision;
use darkroom_library::{Item, ItemKind};

use super::Culling;
use crate::{BurstPlace, PhotoAnalysis};

pub fn item(name: &str) -> Item {
    Item {
        primary: PathBuf::from(format!("/shoot/{name}.jpg")),
        twin: None,
        kind: ItemKind::Raster,
    }
}

/// `n` photos `/shoot/IMG_0000.jpg`…, shown, none decided.
pub fn folder(n: usize) -> Culling {
    let mut c = Culling::default();
    c.open(PathBuf::from("/shoot"));
    for i in 0..n {
        c.push(item(&format!("IMG_{i:04}")));
    }
    c.refilter();
    // Every import answered: nothing recorded yet.
    for i in 0..n {
        c.imported(c.id(i), Some(Decision::default()), None);
    }
    c
}

/// Photo `i`'s index row: one face of person 7 or 8, in `burst` (id, suggested) if any.
pub fn analysis(
    c: &Culling,
    i: usize,
    sharpness: f32,
    burst: Option<(usize, bool)>,
) -> PhotoAnalysis {
    PhotoAnalysis {
        path: c.entries()[i].item.primary.clone(),
        detector: "scrfd_2.5g".into(),
        sharpness,
        blurry: false,
        faces: 1,
        eyes_closed: false,
        people: vec![(Some(7 + (i % 2) as i64), [0.1, 0.1, 0.3, 0.3])],
        burst: burst.map(|(id, suggested)| BurstPlace {
            id,
            position: 1,
            size: 2,
            suggested,
        }),
        judged_by_faces: true,
        subject: None,
        subject_sought: false,
        eyes_soft: false,
        closed_eyes: Vec::new(),
        soft_eyes: Vec::new(),
        scene: None,
        set: None,
        tones: None,
        tags: Vec::new(),
        clock: Default::default(),
        af: None,
        doing: Default::default(),
    }
}
