//! The model manager's work (hashing, downloading, copying), off the UI thread.

use std::path::PathBuf;

use super::Cancel;
use crate::gui::tasks::{Task, Waker};

/// What the model manager's worker is asked to do.
pub enum ModelsRequest {
    /// Read every card's state; quarantine installed files that fail their hash.
    Refresh,
    /// Download and install a model (its licence was accepted in the window).
    Install(String),
    /// Install what a folder holds.
    FromFolder(PathBuf),
}

/// What the model manager's worker reports. Every job ends with `States`.
pub enum ModelsMsg {
    Progress(darkroom_models::Progress),
    /// One line for the window: Ok for what went right, Err for what did not.
    Outcome(Result<String, String>),
    States(Vec<darkroom_models::CardStatus>),
}

/// The model manager, on a thread: hashing, downloading and copying are all I/O.
pub fn models_job(
    models_dir: PathBuf,
    mirror: Option<String>,
    request: ModelsRequest,
    cancel: Cancel,
    wake: Waker,
) -> Task<ModelsMsg> {
    Task::spawn("the model manager", 64, wake, move |out| {
        let cards = match darkroom_engine::CardSet::builtin() {
            Ok(c) => c,
            Err(e) => {
                out.send(ModelsMsg::Outcome(Err(e.to_string())));
                return;
            }
        };
        let manager = darkroom_models::ModelManager::new(
            darkroom_engine::ModelStore::new(models_dir, cards)
                .with_bundled(darkroom_engine::paths::bundled_models_dirs()),
            mirror,
        );
        let say = |msg: ModelsMsg| {
            out.send(msg);
        };
        match request {
            ModelsRequest::Refresh => match manager.quarantine_invalid() {
                Ok(moved) => {
                    for q in moved {
                        say(ModelsMsg::Outcome(Err(format!(
                            "quarantined {}: {}",
                            q.reason,
                            q.path.display()
                        ))));
                    }
                }
                Err(e) => say(ModelsMsg::Outcome(Err(e.to_string()))),
            },
            ModelsRequest::Install(model_id) => {
                let mut last = std::time::Instant::now();
                let result = manager.install(
                    &model_id,
                    true,
                    &mut |p| {
                        // Progress is for eyes: a few updates a second, never blocking the fetch.
                        if last.elapsed() > std::time::Duration::from_millis(100)
                            || p.total == Some(p.done)
                        {
                            last = std::time::Instant::now();
                            out.try_send(ModelsMsg::Progress(p));
                        }
                    },
                    cancel.flag(),
                );
                say(ModelsMsg::Outcome(match result {
                    Ok(installed) => Ok(installed
                        .iter()
                        .map(|i| format!("{} installed and verified", i.model_id))
                        .collect::<Vec<_>>()
                        .join("; ")),
                    Err(e) => Err(format!("{model_id}: {e}")),
                }));
            }
            ModelsRequest::FromFolder(folder) => {
                let report = manager.install_from_folder(&folder);
                if report.is_empty() {
                    say(ModelsMsg::Outcome(Err(format!(
                        "no model file a card names: {}",
                        folder.display()
                    ))));
                }
                for (id, r) in report {
                    say(ModelsMsg::Outcome(match r {
                        Ok(_) => Ok(format!("{id} installed and verified")),
                        Err(e) => Err(format!("{id}: {e}")),
                    }));
                }
            }
        }
        say(ModelsMsg::States(manager.statuses()));
    })
}
