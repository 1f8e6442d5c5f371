//! exiv2's test data as scripts/fetch-assets lays it out (Debian's exiv2 0.27.6 source
//! package): its folder and every file its pin list names. Shared by library/tests/af_points.rs
//! and the end-to-end suites (`#[path]`), both crates one folder below the root.

use std::path::{Path, PathBuf};

/// The set's folder, under `DARKROOM_ASSETS` or the checkout's assets-cache.
pub fn set_dir() -> PathBuf {
    let assets = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"));
    let dir = assets.join("exiv2/test-data");
    assert!(
        dir.join("Canon-R6-pruned.CR3").is_file(),
        "exiv2 test data missing in {}: run scripts/fetch-assets",
        dir.display()
    );
    dir
}

/// Every file of the set, as its pin list names them, sorted.
pub fn set_files() -> Vec<String> {
    let pins = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets/hostile/exiv2-0.27.6-test-data.sha256"),
    )
    .expect("the pin list");
    let mut files: Vec<String> = pins
        .lines()
        .filter_map(|l| l.split_once("  ").map(|(_, f)| f.to_owned()))
        .collect();
    files.sort();
    files
}
