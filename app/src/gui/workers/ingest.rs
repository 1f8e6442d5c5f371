//! The ingest's plan and the ingest itself, off the UI thread (`darkroom_ingest`). Each opens
//! its own connection to the catalog: the catalog thread keeps the window's decisions, this
//! one the record of what was copied and the decisions a card held.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use darkroom_catalog::{Catalog, SidecarNaming};

use super::Cancel;
use crate::gui::tasks::{Latest, Task, Waker};
use darkroom_ingest::{self as ingest, Event, Options, Outcome, Plan, Progress};

/// Photos that landed on the working drive, each its files there (the primary first), for the
/// window to show while the rest is copied.
pub type Landed = Arc<Mutex<Vec<Vec<PathBuf>>>>;

/// The card scanned and every photo named; nothing written.
pub fn ingest_plan(
    options: Options,
    catalog: PathBuf,
    cancel: Cancel,
    wake: Waker,
) -> Task<Result<Plan, String>> {
    Task::spawn("the ingest plan", 1, wake, move |out| {
        let plan = Catalog::open(&catalog, SidecarNaming::default())
            .map_err(anyhow::Error::from)
            .and_then(|c| ingest::plan(&options, &c, cancel.flag()).map_err(anyhow::Error::from));
        out.send(plan.map_err(|e| format!("{e:#}")));
    })
}

/// The copy: progress overwritten in `progress`, each photo that lands added to `landed`.
pub fn ingest(
    plan: Plan,
    options: Options,
    catalog: PathBuf,
    cancel: Cancel,
    progress: Latest<Progress>,
    landed: Landed,
    wake: Waker,
) -> Task<Result<Outcome, String>> {
    Task::spawn("the ingest", 1, wake.clone(), move |out| {
        let mut catalog = match Catalog::open(&catalog, SidecarNaming::default()) {
            Ok(c) => c,
            Err(e) => {
                out.send(Err(e.to_string()));
                return;
            }
        };
        let outcome = ingest::run(&plan, &options, &mut catalog, cancel.flag(), &mut |e| {
            match e {
                Event::Progress(p) => progress.update(|v| *v = p.clone()),
                Event::Landed { files, .. } => {
                    let mut l = landed.lock().unwrap_or_else(|p| p.into_inner());
                    l.push(files);
                }
                Event::Failed { .. } => {}
            }
            wake();
        });
        out.send(Ok(outcome));
    })
}
