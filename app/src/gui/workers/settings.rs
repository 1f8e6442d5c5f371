//! The settings writer: one thread, so two quick changes land in the order they were made.

use std::path::PathBuf;
use std::sync::mpsc::{SyncSender, sync_channel};

use crate::gui::tasks::{Task, Waker};

/// A settings file to write: the window's own, or the engine's beside the probe cache.
pub enum SaveMsg {
    App(PathBuf, crate::services::AppSettings),
    Backend(PathBuf, darkroom_engine::ladder::BackendSettings),
}

/// The settings writer: one thread, so two quick changes land in the order they were made. It
/// reports each file it could not write.
pub fn settings_saver(wake: Waker) -> (SyncSender<SaveMsg>, Task<String>) {
    let (tx, rx) = sync_channel::<SaveMsg>(16);
    let problems = Task::spawn("the settings writer", 16, wake, move |out| {
        for msg in rx {
            let result = match msg {
                SaveMsg::App(path, settings) => settings
                    .store(&path)
                    .map_err(|e| format!("settings not saved: {e}: {}", path.display())),
                SaveMsg::Backend(dir, settings) => settings
                    .store(&dir)
                    .map_err(|e| format!("engine settings not saved: {e}")),
            };
            if let Err(e) = result {
                out.try_send(e);
            }
        }
    });
    (tx, problems)
}
