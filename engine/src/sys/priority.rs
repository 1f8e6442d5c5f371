//! The process's scheduling priority.

/// Lower this process's priority (nice 10). Best effort: a refusal leaves it as it was.
pub fn lower() {
    #[cfg(unix)]
    // SAFETY: setpriority on our own process with a positive (nicer) value has no memory effects.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}
