//! The export's plan and the export itself, off the UI thread.

use std::path::PathBuf;

use super::Cancel;
use crate::gui::tasks::{Latest, Task, Waker};

/// The export's plan (what goes where, what is there already): metadata only, off the UI
/// thread.
pub fn export_plan(
    picks: Vec<darkroom_library::Item>,
    root: PathBuf,
    dest: PathBuf,
    wake: Waker,
) -> Task<Result<darkroom_library::export::Plan, String>> {
    Task::spawn("the export plan", 1, wake, move |out| {
        let plan = darkroom_library::export::Plan::new(&picks, &root, &dest);
        out.send(plan.map_err(|e| e.to_string()));
    })
}

/// The export itself: progress overwritten in `progress`, stopped by `cancel`.
pub fn export(
    plan: darkroom_library::export::Plan,
    mode: darkroom_library::export::Mode,
    existing: darkroom_library::export::Existing,
    cancel: Cancel,
    progress: Latest<darkroom_library::export::Progress>,
    wake: Waker,
) -> Task<Result<darkroom_library::export::Report, String>> {
    Task::spawn("the export", 1, wake.clone(), move |out| {
        let report =
            darkroom_library::export::run(&plan, mode, existing, cancel.flag(), &mut |p| {
                progress.update(|v| *v = p);
                wake();
            });
        out.send(report.map_err(|e| e.to_string()));
    })
}
