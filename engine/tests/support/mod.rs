//! Where `scripts/fetch-assets` put the runtime, models and photos.

use std::path::{Path, PathBuf};

pub fn assets() -> PathBuf {
    let dir = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"));
    assert!(
        dir.join("models").is_dir() && dir.join("runtime").is_dir(),
        "test assets missing in {}: run scripts/fetch-assets",
        dir.display()
    );
    dir
}
