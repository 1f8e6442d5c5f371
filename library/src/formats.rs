//! Which files are photos, by extension (data, not scattered literals). Decoding itself goes by
//! content, so a PNG named `.jpg` still opens.

/// Formats decoded directly.
pub const RASTER: &[&str] = &["jpg", "jpeg", "png", "tif", "tiff", "webp"];

/// RAW formats, shown through the JPEG preview the camera embedded.
pub const RAW: &[&str] = &[
    "cr2", "cr3", "crw", "nef", "arw", "dng", "raf", "orf", "rw2",
];

fn ext_of(path: &std::path::Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

pub fn is_raw(path: &std::path::Path) -> bool {
    ext_of(path).is_some_and(|e| RAW.contains(&e.as_str()))
}

pub fn is_raster(path: &std::path::Path) -> bool {
    ext_of(path).is_some_and(|e| RASTER.contains(&e.as_str()))
}

/// JPEGs are the twin a camera writes beside a RAW.
pub fn is_jpeg(path: &std::path::Path) -> bool {
    ext_of(path).is_some_and(|e| e == "jpg" || e == "jpeg")
}
