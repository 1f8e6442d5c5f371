//! The system's folder dialog, on a thread of its own (it blocks until the user answers).

use std::path::PathBuf;
use std::sync::Arc;

use crate::gui::tasks::{Task, Waker};

/// Asks the user for a folder; None when they cancel (or no dialog could be shown).
pub type PickFolder = Arc<dyn Fn(FolderAsk) -> Option<PathBuf> + Send + Sync>;

/// What the folder dialog asks, and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderAsk {
    pub title: &'static str,
    pub start: Option<PathBuf>,
}

pub const OPEN_FOLDER: &str = "Open a folder of photos";
pub const MODELS_FOLDER: &str = "Install models from a folder";
pub const EXPORT_FOLDER: &str = "Copy the picks into a folder";
pub const INGEST_CARD: &str = "The card to ingest";
pub const INGEST_TO: &str = "Ingest onto this working folder";
pub const INGEST_BACKUP: &str = "Back the card up into this folder";

/// The system's folder dialog (the XDG portal on Linux, so Flatpak works; the shell dialog on
/// Windows). It blocks until the user answers, so it runs on a thread of its own.
pub fn system_folder_dialog() -> PickFolder {
    Arc::new(|ask: FolderAsk| {
        let mut dialog = rfd::FileDialog::new().set_title(ask.title);
        if let Some(dir) = ask.start {
            dialog = dialog.set_directory(dir);
        }
        dialog.pick_folder()
    })
}

/// Show the folder dialog in the background; the answer arrives on the task.
pub fn pick_folder(pick: PickFolder, ask: FolderAsk, wake: Waker) -> Task<Option<PathBuf>> {
    Task::spawn("the folder dialog", 1, wake, move |out| {
        out.send(pick(ask));
    })
}
