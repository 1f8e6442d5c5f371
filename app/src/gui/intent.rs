//! What the UI asks of the app, as one enum (rerun's UI commands), and the values it carries:
//! which window to show, a change made in Settings, a click in the Models or Export window. A
//! leaf of the window: the views and windows push these, `handle` carries them out after the
//! frame.

use std::path::PathBuf;

use darkroom_catalog::SidecarNaming;
use darkroom_engine::Rung;

use super::keymap::Action;
use darkroom_index::culling::{EntryId, SelectHow};

/// Which window is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Settings,
    About,
    Models,
    Export,
    Ingest,
}

/// A change the user made in Settings, applied (and persisted) by the app off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingsChange {
    Force(Option<Rung>),
    Naming(SidecarNaming),
    /// Which other tools' words the sidecars carry.
    Words(darkroom_catalog::SidecarWords),
    /// Sidecars on camera cards too.
    WriteToCards(bool),
    /// A camera body's clock correction, seconds.
    Clock(String, f64),
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

/// Which folder of the Ingest window a dialog chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IngestSlot {
    Card,
    To,
    Backup,
}

/// What a click in the Ingest window asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IngestAction {
    Choose(IngestSlot),
    NoBackup,
    /// Plan, then copy (asking first when names are taken).
    Start,
    /// The answer to names taken on a drive.
    Collisions(darkroom_ingest::Collisions),
    /// Cancel the running copy, or close the window.
    Cancel,
}

/// What a zoom key, a click on the photo, a drag, the navigator or a face asks of the loupe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZoomChange {
    /// To this scale at the point under the pointer (or the chosen face), or back to fit.
    Toggle(f32),
    /// To this scale at this point of the photo (fractions of its size), or back to fit.
    At(f32, egui::Pos2),
    /// The photo dragged by this many points.
    Pan(egui::Vec2),
    /// A pan key, in this direction.
    Step(egui::Vec2),
    /// The navigator: this point of the photo in the middle.
    LookAt(egui::Pos2),
    /// The loupe's k-th face close-up: zoom to it.
    Face(usize),
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
    /// Show only the photos with this scene tag, or all again.
    ToggleTag(darkroom_index::tags::SceneTag),
    NamePerson(i64, String),
    /// Make a person a key person (or not).
    StarPerson(i64, bool),
    Settings(SettingsChange),
    /// A view shows this photo's picture at this size: make it if it is not there.
    Show(EntryId, u32),
    /// The loupe shows (or is about to show) this photo at its own resolution.
    ShowFull(EntryId),
    /// The loupe shows this photo's facts (camera, lens, exposure).
    ShowFacts(EntryId),
    Zoom(ZoomChange),
    /// Compare: pin this photo's pane as the best so far, or unpin it.
    Pin(EntryId),
    /// People across a burst: pick this frame (a column).
    PickFrame(EntryId),
    /// Compare: give this pane its own zoom, or lock it to the shared one.
    ZoomLock(EntryId),
    /// The loupe shows this photo's close-ups.
    CloseUps(EntryId),
    DismissNotice(usize),
    ProposeCull,
    ApplyProposal,
    DiscardProposal,
    /// Set a reason aside in the proposal shown (true), or take it back.
    RefineProposal(darkroom_index::proposal::ReasonKind, bool),
    /// Copy the picks to a folder (the dialog asks which).
    ExportPicks,
    Export(ExportAction),
    /// Show the Ingest window.
    OpenIngest,
    Ingest(IngestAction),
    /// Closing while decisions save, asked again: close anyway (true) or keep saving.
    CloseAnyway(bool),
    /// Closing while the ingest copies: stop it and close (true), or keep copying.
    StopIngestAndClose(bool),
    /// Stopping the copy to close, and the card does not answer: close without waiting for
    /// the file being copied (what landed stays; the next ingest sweeps its temporary).
    CloseWithoutTheCopy,
}
