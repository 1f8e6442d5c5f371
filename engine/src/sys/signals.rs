//! How the process meets a pipe whose reader has gone, and a request to stop.

/// A write into a pipe nobody reads any more ends the process quietly, as it ends any Unix tool
/// (`darkroom ingest --plan … | head`). Rust's runtime ignores SIGPIPE, so without this every
/// `println!` after the reader left would panic with "Broken pipe". For the command line only:
/// the window must outlive a closed socket of a helper (the file dialog's portal).
pub fn end_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: SIG_DFL is the disposition the process would have had without Rust's runtime;
    // no handler of ours runs, and no memory is touched. Called before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

static STOP_ASKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn ask_to_stop(signal: libc::c_int) {
    // Only async-signal-safe work here: an atomic store; a second ask ends the process the
    // way the signal's default does.
    if STOP_ASKED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        // SAFETY: signal(2) and raise(3) are async-signal-safe; the default disposition ends
        // the process as it would have without us.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
}

/// Ctrl+C (SIGINT) or SIGTERM asks a long command (the ingest) to stop at its next file
/// boundary instead of ending mid-file: the flag returned is set, and the command finishes
/// what it must and says what is left. A second signal ends the process at once.
pub fn stop_on_interrupt() -> &'static std::sync::atomic::AtomicBool {
    #[cfg(unix)]
    // SAFETY: the handler only touches an atomic (and, the second time, restores the default
    // and re-raises); it is installed before the command starts its threads.
    unsafe {
        #[expect(
            clippy::fn_to_numeric_cast_any,
            reason = "signal(2) takes the handler as an address"
        )]
        let handler = ask_to_stop as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
    &STOP_ASKED
}
