//! The window's end of the catalog thread.

use std::path::PathBuf;
use std::sync::mpsc::TrySendError;

use darkroom_catalog::SidecarNaming;

use crate::gui::tasks::{Task, Waker};
use darkroom_index::culling::{DecisionJob, Edit, EntryId};

/// What the catalog thread answers (each answer carries the photo it was asked for).
pub type CatalogReport = darkroom_catalog::client::Report<EntryId>;
pub use darkroom_catalog::client::Request as CatalogRequest;

/// The window's end of the catalog thread ([`darkroom_catalog::client`]): one ordered queue
/// for imports, decisions, undos, naming and words; its answers polled in `logic`. Dropping
/// it lets the queue run dry and joins the thread.
pub struct CatalogThread {
    pub client: darkroom_catalog::client::CatalogClient<EntryId>,
    pub reports: Task<CatalogReport>,
}

impl CatalogThread {
    /// Queue one decision job; handed back when the queue is full.
    pub fn send_decision(&self, job: DecisionJob) -> Result<(), (DecisionJob, bool)> {
        let request = match &job.edit {
            Edit::Change(change) => CatalogRequest::Change {
                tag: job.id,
                seq: job.seq,
                files: job.files.clone(),
                change: change.clone(),
            },
            Edit::Revert { of } => CatalogRequest::Revert {
                tag: job.id,
                seq: job.seq,
                of: *of,
                files: job.files.clone(),
            },
        };
        match self.client.try_send(request) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => Err((job, false)),
            Err(TrySendError::Disconnected(_)) => Err((job, true)),
        }
    }
}

/// Start the catalog thread. Its answers wake the window; their channel is unbounded so the
/// thread never waits for a window that has stopped looking (it is joined on close).
pub fn catalog_thread(
    catalog_path: PathBuf,
    naming: SidecarNaming,
    words: darkroom_catalog::SidecarWords,
    wake: Waker,
) -> CatalogThread {
    let (tx, rx) = std::sync::mpsc::channel();
    let report = move |r: CatalogReport| {
        let _ = tx.send(r);
        wake();
    };
    match darkroom_catalog::client::CatalogClient::start(catalog_path, naming, words, report) {
        Ok(client) => CatalogThread {
            client,
            reports: Task::from_receiver("the catalog thread", rx, None),
        },
        Err(e) => CatalogThread {
            client: darkroom_catalog::client::CatalogClient::unavailable(),
            reports: Task::from_receiver(
                "the catalog thread",
                rx,
                Some(format!(
                    "decisions cannot be saved: cannot start the catalog thread: {e}"
                )),
            ),
        },
    }
}
