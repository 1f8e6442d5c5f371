//! An ONNX Runtime library: loaded, its `OrtGetApiBase` called, its version read, and the API
//! table of a given version copied out.

use std::ffi::{CStr, c_char};
use std::path::Path;

/// A library that answered with the API table asked for.
pub struct OrtLibrary {
    /// Must stay loaded while `api` is in use: the table points into it.
    pub library: libloading::Library,
    pub api: ort::sys::OrtApi,
    pub version: String,
}

/// Why a file is not a usable ONNX Runtime.
#[derive(Debug)]
pub enum LoadFailure {
    /// The loader could not open it (its words).
    Open(String),
    /// No `OrtGetApiBase`, or it returned nothing.
    NoSymbol,
    /// It does not provide the API version asked for; its own version string.
    TooOld(String),
}

/// Load `path` (a file path, or a bare name for the system loader) and take API table
/// `api_version` from it.
pub fn load(path: &Path, api_version: u32) -> Result<OrtLibrary, LoadFailure> {
    // SAFETY: loading a library runs its initialisers. We only load files named like ONNX
    // Runtime from places the user or packager put them, which is the trust model of any
    // dynamically linked program.
    // On Windows a bare name is never looked for in the current folder (`super::open`).
    let library = unsafe { super::open(path) }.map_err(|e| LoadFailure::Open(e.to_string()))?;
    type GetApiBase = unsafe extern "system" fn() -> *const ort::sys::OrtApiBase;
    // SAFETY: `OrtGetApiBase` has this signature in every ONNX Runtime release.
    let get_base = match unsafe { library.get::<GetApiBase>(b"OrtGetApiBase\0") } {
        Ok(sym) => *sym,
        Err(_) => return Err(LoadFailure::NoSymbol),
    };
    // SAFETY: the symbol is ONNX Runtime's entry point; it returns a pointer to a static struct.
    let base = unsafe { get_base() };
    if base.is_null() {
        return Err(LoadFailure::NoSymbol);
    }
    // SAFETY: `base` is non-null and points at the library's static `OrtApiBase`, which lives
    // as long as `library`.
    let base = unsafe { &*base };
    let version = {
        // SAFETY: returns a static NUL-terminated string owned by the library.
        let ptr: *const c_char = unsafe { (base.GetVersionString)() };
        if ptr.is_null() {
            "unknown".to_owned()
        } else {
            // SAFETY: non-null, NUL-terminated, static.
            unsafe { CStr::from_ptr(ptr) }
                .to_string_lossy()
                .into_owned()
        }
    };
    // SAFETY: GetApi returns NULL for a version the library does not provide, else a pointer to
    // a static table at least as long as that version's `OrtApi`.
    let api_ptr = unsafe { (base.GetApi)(api_version) };
    if api_ptr.is_null() {
        return Err(LoadFailure::TooOld(version));
    }
    // SAFETY: non-null and at least `size_of::<OrtApi>()` long for `api_version` (checked
    // above); `OrtApi` is a table of function pointers, so a bitwise copy is a valid value.
    let api = unsafe { std::ptr::read(api_ptr) };
    Ok(OrtLibrary {
        library,
        api,
        version,
    })
}
