//! The window: grid, loupe and compare over a folder, keyboard-first, with Settings, About,
//! Help and Models windows. The UI thread only draws and routes input; scanning, thumbnails,
//! the catalog, the index and the engine all run in `workers`, taken in by `logic`.
//!
//! - the culling state (the folder's photos, filter, selection, decisions, undo) is
//!   `darkroom_index::culling`: no egui, no I/O, usable by any front end
//! - `state`: the window's state; `logic`: polling background work; `intent`: what the UI
//!   asks for; `handle`: carrying it out, in one place; `ui`: one frame; `views/`: one file per view;
//!   `windows/`: the overlay windows behind one trait
//! - `tasks`: the background-task type; `workers`: the work itself
//! - `pictures`, `notices`, `theme`, `keymap`: what they say; `pace`: what the loupe asks
//!   for first, from how the person moves through it
//! - `shell`: eframe and what is read before the window opens

pub mod comparison;
pub mod controls;
mod handle;
pub mod intent;
pub mod keymap;
mod logic;
pub mod notices;
pub mod pace;
pub mod pictures;
pub mod shell;
pub mod state;
pub mod tasks;
pub mod theme;
mod ui;
pub mod views;
pub mod windows;
pub mod workers;
pub mod zoom;

pub use darkroom_index::culling::{EntryId, Filter, View};
pub use logic::SMALL_PICTURES_BUDGET;
pub use pictures::Picture;
pub use shell::run;
pub use state::{DarkRoom, Setup, StatusSource};
pub use windows::Overlay;

/// Picture workers: one a core. They run at a lower priority than the window's thread
/// (`darkroom_engine::lower_this_thread`), so a frame never waits behind a decode, and
/// skimming the loupe on two cores has both making thumbnails ahead (one falls behind key
/// repeat: a 24 MP JPEG's thumbnail is ~75 ms).
pub fn num_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .max(2)
}
