//! What the UI asks of the app, as one enum (rerun's UI commands), and the values it carries:
//! which window to show, a change made in Settings, a click in the Models or Export window. A
//! leaf of the window: the views and windows push these, `handle` carries them out after the
//! frame.

use std::path::PathBuf;

use darkroom_catalog::SidecarNaming;
use darkroom_engine::Rung;

use super::culling::{EntryId, SelectHow};
use super::keymap::Action;

/// Which window is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Settings,
    About,
    Models,
    Export,
}

/// A change the user made in Settings, applied (and persisted) by the app off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingsChange {
    Force(Option<Rung>),
    Naming(SidecarNaming),
    /// None: automatic.
    Threads(Option<usize>),
    Workspace(Option<u64>),
    /// The face detector's model_id.
    Detector(String),
    BlurryBelow(f32),
    Culling(crate::services::CullSettings),
}

/// What a click in the Export window asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportAction {
    Start,
    SetMode(darkroom_library::export::Mode),
    SetExisting(darkroom_library::export::Existing),
    /// Cancel the running copy, or close the window.
    Cancel,
}

/// What a click in the window asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelsAction {
    Install(String),
    FromFolder,
    Cancel,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// A key of the keymap.
    Key(Action),
    Open(PathBuf),
    ChooseFolder,
    /// Select what is shown at this position of the grid (alone, Ctrl: toggled, Shift: a
    /// range).
    Select(usize, SelectHow),
    /// Select it and look at it in the loupe.
    OpenLoupe(usize),
    ShowOverlay(Overlay),
    CloseOverlay,
    /// Open the Models window (its rows are read fresh each time).
    OpenModels,
    Models(ModelsAction),
    StartIndex,
    SetIndexPaused(bool),
    CancelIndex,
    TogglePerson(i64),
    NamePerson(i64, String),
    Settings(SettingsChange),
    /// A view shows this photo's picture at this size: make it if it is not there.
    Show(EntryId, u32),
    /// The loupe shows this photo's close-ups.
    CloseUps(EntryId),
    DismissNotice(usize),
    ProposeCull,
    ApplyProposal,
    DiscardProposal,
    /// Copy the picks to a folder (the dialog asks which).
    ExportPicks,
    Export(ExportAction),
}
