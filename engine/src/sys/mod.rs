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
        // their documented names, found by the system loader: the trust model of any
        // dynamically linked program.
        unsafe { libloading::Library::new(name) }.ok()
    })
}
