//! Every foreign call the engine makes, and the only place in the workspace where `unsafe` is
//! allowed: loading an ONNX Runtime library and reading its API table (`ort_lib`), asking the
//! CUDA driver for device 0 (`cuda`), TensorRT's version (`tensorrt`), the process's
//! scheduling priority (`priority`) and what a closed pipe does to it (`signals`). Each
//! function is safe to call; every `unsafe` block says why it is sound. The rest of the engine
//! decides what to do with the answers.
#![allow(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod cuda;
pub mod ort_lib;
pub mod priority;
pub mod signals;
pub mod tensorrt;

/// The first of `names` the system loader can open.
fn open_first(names: &[&str]) -> Option<libloading::Library> {
    names.iter().find_map(|name| {
        // SAFETY: loading a library runs its initialisers. These are vendor driver libraries by
        // their documented names, found by the system loader (never in the current folder on
        // Windows): the trust model of any dynamically linked program.
        unsafe { open(std::path::Path::new(name)) }.ok()
    })
}

/// Open the library at `name`: a bare name is searched for by the system, a path is loaded.
/// On Windows a bare name is never looked for in the current folder, where a DLL planted
/// beside the photos a command runs on would be loaded: only in the application's folder,
/// System32 and the absolute folders PATH names (where TensorRT's installer puts its own);
/// a DLL found by path loads its dependencies from its own folder first.
///
/// # Safety
/// Loading a library runs its initialisers: the caller vouches for what it names.
unsafe fn open(name: &std::path::Path) -> Result<libloading::Library, libloading::Error> {
    #[cfg(windows)]
    {
        use libloading::os::windows::{
            LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR, Library,
        };
        let beside = LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS;
        if name.components().count() > 1 || name.is_absolute() {
            let path = std::path::absolute(name).unwrap_or_else(|_| name.to_path_buf());
            // SAFETY: the caller vouches for the library; the flags only narrow the search.
            return unsafe { Library::load_with_flags(&path, beside) }.map(Into::into);
        }
        // SAFETY: as above.
        let system = unsafe { Library::load_with_flags(name, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) };
        if system.is_ok() {
            return system.map(Into::into);
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        for dir in std::env::split_paths(&path).filter(|d| d.is_absolute()) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                // SAFETY: as above.
                if let Ok(lib) = unsafe { Library::load_with_flags(&candidate, beside) } {
                    return Ok(lib.into());
                }
            }
        }
        system.map(Into::into)
    }
    #[cfg(not(windows))]
    {
        // SAFETY: the caller vouches for the library.
        unsafe { libloading::Library::new(name) }
    }
}
