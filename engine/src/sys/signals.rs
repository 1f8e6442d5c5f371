//! How the process meets a pipe whose reader has gone.

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
