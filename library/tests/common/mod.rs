//! What the decoder tests share: the fixtures, and how far apart two decodes are.

use std::path::Path;

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
