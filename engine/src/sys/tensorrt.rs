//! TensorRT's core library (dlopened), asked for its version.

/// TensorRT's core library, newest major first.
const NAMES: &[&str] = if cfg!(windows) {
    &["nvinfer_10.dll", "nvinfer.dll"]
} else {
    &["libnvinfer.so.10", "libnvinfer.so.8", "libnvinfer.so"]
};

/// `getInferLibVersion()`'s integer, when the loader can find the library.
pub fn lib_version() -> Option<i32> {
    let lib = super::open_first(NAMES)?;
    type GetVersion = unsafe extern "C" fn() -> i32;
    // SAFETY: `getInferLibVersion` takes nothing and returns an int in every TensorRT release;
    // it is called while `lib` is loaded.
    unsafe {
        let f = lib.get::<GetVersion>(b"getInferLibVersion\0").ok()?;
        Some(f())
    }
}
