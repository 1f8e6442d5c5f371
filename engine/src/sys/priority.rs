//! The process's scheduling priority.

/// Lower this process's priority (nice 10). Best effort: a refusal leaves it as it was.
pub fn lower() {
    #[cfg(unix)]
    // SAFETY: setpriority on our own process with a positive (nicer) value has no memory effects.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// Lower the calling thread's priority (nice 10; on Linux each thread has its own): a worker
/// that makes pictures yields its core to the window's thread, whose frames must not wait
/// behind a decode. Best effort; elsewhere nothing.
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: the gettid system call has no arguments and no preconditions (called through
    // syscall: glibc before 2.30 has no wrapper); setpriority on our own thread with a
    // positive (nicer) value has no memory effects.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid);
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}
