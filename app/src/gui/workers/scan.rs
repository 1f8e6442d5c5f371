//! The folder scan on a thread of its own: items stream to the window in batches.

use std::path::PathBuf;

use darkroom_library::ScanEvent;

use super::Cancel;
use crate::gui::tasks::{Reporter, Task, Waker};

/// The folder scan: items arrive in batches; the channel closing means the scan is done.
pub fn scan(root: PathBuf, cancel: Cancel, wake: Waker) -> Task<ScanEvent> {
    Task::spawn(
        "the folder scan",
        512,
        wake,
        move |out: Reporter<ScanEvent>| {
            let mut n = 0usize;
            darkroom_library::scan::scan(&root, cancel.flag(), &mut |event| {
                n += 1;
                // Blocks when the window is behind: backpressure instead of an unbounded queue.
                let ok = out.send_quietly(event);
                if n.is_multiple_of(64) {
                    out.wake();
                }
                ok
            });
            out.wake();
        },
    )
}
