//! Another tool's edits to the open folder's sidecars, seen as they happen: the folder is
//! watched (inotify, FSEvents, ReadDirectoryChangesW through `notify`), and the sidecars that
//! changed are handed to the window in batches once the folder has been quiet for a moment (a
//! tool that rewrites a packet in several steps, or a script tagging 300 files, is one batch).
//! The window has the catalog read each one again; what DarkRoom wrote itself reads back as
//! unchanged, by its recorded identity.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use super::Cancel;
use crate::gui::tasks::{Reporter, Task, Waker};

/// The folder quiet this long ends a batch.
const QUIET: Duration = Duration::from_millis(300);
/// How often a watch with nothing to say looks whether it is still wanted.
const LOOK: Duration = Duration::from_millis(500);

/// The watch of one folder; dropped (another folder opened, the window closed), it ends.
pub struct SidecarWatch {
    pub changed: Task<Result<Vec<PathBuf>, String>>,
    stop: Cancel,
    /// The folder is being watched (an edit from now on is seen).
    watching: Arc<AtomicBool>,
}

impl SidecarWatch {
    pub fn watching(&self) -> bool {
        self.watching.load(Ordering::SeqCst)
    }
}

impl Drop for SidecarWatch {
    fn drop(&mut self) {
        self.stop.set();
    }
}

fn is_sidecar(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xmp"))
}

/// Watch `root` and everything under it for sidecars that change.
pub fn watch_sidecars(root: PathBuf, wake: Waker) -> SidecarWatch {
    let stop = Cancel::default();
    let stopped = stop.clone();
    let watching = Arc::new(AtomicBool::new(false));
    let started = Arc::clone(&watching);
    let changed = Task::spawn(
        "the sidecar watch",
        4,
        wake,
        move |out: Reporter<Result<Vec<PathBuf>, String>>| {
            let (tx, events) = std::sync::mpsc::channel();
            let watcher = notify::recommended_watcher(move |event| {
                let _ = tx.send(event);
            });
            let mut watcher = match watcher {
                Ok(w) => w,
                Err(e) => {
                    out.send(Err(format!("another program's edits are not watched: {e}")));
                    return;
                }
            };
            if let Err(e) = watcher.watch(&root, RecursiveMode::Recursive) {
                out.send(Err(format!(
                    "another program's edits are not watched: {e}: {}",
                    root.display()
                )));
                return;
            }
            started.store(true, Ordering::SeqCst);
            let mut batch: BTreeSet<PathBuf> = BTreeSet::new();
            while !stopped.is_set() {
                let wait = if batch.is_empty() { LOOK } else { QUIET };
                match events.recv_timeout(wait) {
                    Ok(Ok(event)) => {
                        let event: notify::Event = event;
                        if event.kind.is_access() {
                            continue;
                        }
                        batch.extend(event.paths.into_iter().filter(|p| is_sidecar(p)));
                    }
                    // An overflowed queue or a watch lost: said, and the watch goes on.
                    Ok(Err(e)) => {
                        if !out.send(Err(format!("the folder watch missed events: {e}"))) {
                            return;
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        if !batch.is_empty()
                            && !out.send(Ok(std::mem::take(&mut batch).into_iter().collect()))
                        {
                            return;
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        },
    );
    SidecarWatch {
        changed,
        stop,
        watching,
    }
}
