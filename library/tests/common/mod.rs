//! What the decoder tests share: the fixtures, and how far apart two decodes are.

use std::path::Path;

/// The fixtures coded every way cameras and editors write JPEGs (scripts/make-jpeg-fixtures),
/// the progressive one last (not every decoder takes it).
pub const CODINGS: [&str; 7] = [
    "s420.jpg",
    "s422.jpg",
    "s444.jpg",
    "grey.jpg",
    "restart.jpg",
    "odd_420.jpg",
    "progressive.jpg",
];

/// A fixture of `tests/data` (scripts/make-jpeg-fixtures).
pub fn data(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{e}: {}", p.display()))
}

/// Two RGB decodes of the same size (`what` names them in the failure): their mean absolute
/// difference per channel, in levels.
pub fn mean_difference(what: &str, ours: &image::RgbImage, theirs: (u32, u32, &[u8])) -> f64 {
    let (w, h, theirs) = theirs;
    assert_eq!(
        (ours.width(), ours.height()),
        (w, h),
        "{what}: the size, rounded up"
    );
    let sum: u64 = ours
        .as_raw()
        .iter()
        .zip(theirs)
        .map(|(&a, &b)| u64::from(a.abs_diff(b)))
        .sum();
    sum as f64 / theirs.len() as f64
}
