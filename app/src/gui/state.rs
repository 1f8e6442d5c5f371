//! The window's state: the culling state, the textures, the open overlay, and the ends of every
//! background task. `logic.rs` takes in what the tasks report, `intent.rs` carries out what the
//! UI asks for, `ui.rs` and `views/` draw; none of them does I/O.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender};

use darkroom_catalog::SidecarNaming;
use darkroom_engine::{Backend, BackendStatus};
use darkroom_library::ScanEvent;
use darkroom_library::thumbs::ThumbCache;

use super::intent::Intent;
use super::notices::Notices;
use super::pictures::{Gallery, Slot};
use super::tasks::{Latest, Task, Waker};
use super::windows::settings::{DetectorChoice, EngineKnobs, window_detector};
use super::windows::{Overlay, Windows};
use super::workers::{self, Cancel};
use darkroom_index::culling::{Culling, DecisionJob, EntryId, View};

/// Where Settings and About get the backend's state: the live engine, or a fixed status
/// (screenshot tests of each state). `Starting` answers with the engine, or why it did not start.
pub enum StatusSource {
    Starting(Receiver<Result<Backend, String>>),
    Live(Backend),
    Fixed(Box<BackendStatus>),
    /// The engine did not start; the notice says why.
    Failed,
}

/// What the app needs from the outside world.
pub struct Setup {
    pub folder: Option<PathBuf>,
    pub catalog: PathBuf,
    pub thumb_cache: PathBuf,
    pub naming: SidecarNaming,
    /// Which other tools' words the sidecars carry.
    pub words: darkroom_catalog::SidecarWords,
    /// Sidecars are written on camera cards too.
    pub write_to_cards: bool,
    pub recent: Vec<PathBuf>,
    pub status: StatusSource,
    pub thumb_threads: usize,
    pub knobs: EngineKnobs,
    /// Where recent folders and the sidecar naming are kept (None: not persisted, in tests).
    pub settings_file: Option<PathBuf>,
    /// Where the engine's settings are kept (None: not persisted, in tests).
    pub inference_dir: Option<PathBuf>,
    /// "Open folder…": the system dialog, or a stand-in in tests.
    pub pick_folder: workers::PickFolder,
    /// Started once the first frame is on screen (the engine), after the folder's scan.
    pub on_first_frame: Vec<Box<dyn FnOnce() + Send>>,
    /// Where the models are, for the index job (None: no "Index faces").
    pub models_dir: Option<PathBuf>,
    /// The detector tiers and which are installed (looked up before the window opens).
    pub detectors: Vec<DetectorChoice>,
    /// The detector the user chose in Settings, as saved (None: never chosen). Index jobs use
    /// it, else the default among `detectors` ([`super::windows::settings::window_detector`]).
    pub detector_saved: Option<String>,
    /// Sharpness under which a photo is marked blurry.
    pub blurry_below: f32,
    /// Moving on after a decision, and the proposal's rules.
    pub culling: crate::services::CullSettings,
    /// A mirror serving model files by name, instead of each download's upstream.
    pub model_mirror: Option<String>,
    /// What went wrong before the window opened (a settings file that could not be read).
    pub notices: Vec<String>,
}

/// A running index job as the window follows it.
pub struct Indexing {
    pub task: Task<Result<darkroom_index::Summary, String>>,
    pub control: Arc<darkroom_index::Control>,
    pub live: Latest<workers::IndexLive>,
    /// The analysis was read after the job's first pass (every photo's faces).
    pub first_pass_read: bool,
}

pub struct DarkRoom {
    /// The folder's photos, filter, selection, decisions and undo: no egui, no I/O.
    pub cull: Culling,
    /// Textures for the open folder's photos.
    pub gallery: Gallery,
    pub overlay: Overlay,
    pub windows: Windows,
    /// Per-photo problems of this folder (unreadable files, failed imports), for the top bar.
    pub problems: Vec<String>,
    /// Failures of the window's own parts, shown until dismissed.
    pub notices: Notices,
    pub recent: Vec<PathBuf>,
    pub naming: SidecarNaming,
    pub words: darkroom_catalog::SidecarWords,
    pub write_to_cards: bool,
    pub status: StatusSource,
    /// Threads and TensorRT workspace, shown and edited in Settings.
    pub knobs: EngineKnobs,
    pub detectors: Vec<DetectorChoice>,
    /// The face detector new index jobs use.
    pub detector: String,
    /// The user's choice, saved as it was: a fallback in `detector` is never saved as a choice.
    pub(super) detector_saved: Option<String>,
    /// Sharpness under which a photo is marked blurry (Settings).
    pub blurry_below: f32,
    pub cull_settings: crate::services::CullSettings,
    /// How the loupe shows its photo (fit, or 100 % around a point); kept from photo to photo,
    /// and shared by compare's locked panes.
    pub zoom: super::zoom::Zoom,
    /// J: blown-out and crushed pixels marked over the loupe's photo.
    pub show_clipping: bool,
    /// The loupe lays the subject's mask over the photo (O).
    pub show_subject: bool,
    /// The AF points over the photo (F).
    pub show_af_points: bool,
    /// Focus peaking over the photo (Shift+F).
    pub show_peaking: bool,
    /// The loupe's looks for a subject the index did not look for: the photos asked about
    /// (each once), and whether looking stopped on an error until O is pressed again.
    pub subject_looks: SubjectLooks,
    /// What compare shows: its set, the pinned photo, the unlocked panes.
    pub comparison: super::comparison::Comparison,
    /// The last index job's outcome, one line.
    pub index_summary: Option<String>,
    /// Decisions the catalog has answered as durable since the window opened.
    pub decisions_durable: usize,
    pub(super) ui_state: UiState,
    pub(super) tasks: Tasks,
    pub(super) env: Env,
    /// What the views asked for this frame, carried out after they are drawn.
    pub(super) intents: Vec<Intent>,
}

/// State only the views hold: text being typed, where the grid scrolls.
#[derive(Default)]
pub struct UiState {
    /// The empty state's "type a path" field.
    pub folder_field: String,
    /// The person being named, and the text so far.
    pub naming_person: Option<(i64, String)>,
    /// The keyboard moved the selection: scroll the grid until it is in view (once).
    pub follow_selection: bool,
    /// The grid's scroll offset to apply next frame (the selection was off screen).
    pub grid_offset: Option<f32>,
    /// Frames drawn so far: background work starts once the first is on screen.
    pub frames: u64,
    /// The pass whose keys the picture uploads last read (`Context::cumulative_pass_nr`).
    pub pictures_pass: Option<u64>,
    /// The grid's columns at the last frame (Up and Down move by a row).
    pub columns: usize,
    /// Where the loupe drew its photo in the last frame (None: no loupe on screen), so a zoom
    /// key knows what is under the pointer.
    pub loupe_placed: Option<super::zoom::Placed>,
    /// The loupe's pane the last time it was drawn, kept when it is not (a zoomed loupe opened
    /// from the grid publishes where it will look before its first frame).
    pub loupe_pane: Option<egui::Rect>,
    /// The photo the loupe drew in the last frame, and from which of its pictures.
    pub loupe_drew: Option<(EntryId, super::pictures::Drew)>,
    /// The pointer at the start of this frame, if it is over the window.
    pub pointer: Option<egui::Pos2>,
    /// Compare's pane under the pointer (its zoom is the one a key or drag changes).
    pub zoom_pane: Option<EntryId>,
    /// How the person moves through the loupe (which way, how fast, since when on this photo).
    pub pace: super::pace::Pace,
    /// What the loupe asks the picture pool for this frame, most wanted first.
    pub plan: super::pace::Plan,
    /// The face close-up clicked last (Z zooms to it when the pointer is not on the photo).
    pub chosen_face: Option<(EntryId, usize)>,
    /// The window was asked to close while decisions were saving.
    pub closing: Closing,
}

/// Closing the window while decisions are on their way to the catalog.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Closing {
    #[default]
    No,
    /// Kept open, saying "Saving N decisions…"; it closes once they are durable.
    Saving,
    /// Asked to close again while saving: the window asks whether to lose them.
    Asking,
    /// "Close anyway": the window closes at the next `logic`, whatever is still saving (the
    /// catalog thread still finishes what it was given before the process exits).
    Forced,
    /// Closing: the close request goes through.
    Now,
    /// Asked to close while the ingest copies: the window asks whether to stop it.
    AskStopIngest,
    /// "Stop and close": the copy stops at the next file; then the window closes as it does
    /// with decisions saving ("Close now" does not wait for a card that stopped answering).
    StoppingIngest,
}

/// The window's ends of its background work, all polled in `logic`.
/// What the loupe asked the segmenter about.
#[derive(Default)]
pub struct SubjectLooks {
    /// Photos looked at (or being looked at) on the loupe's request: none is asked twice.
    pub asked: std::collections::HashSet<PathBuf>,
    /// A look failed: no more until the person presses O again.
    pub stopped: bool,
    /// The photo being looked at now.
    pub looking: Option<PathBuf>,
}

pub struct Tasks {
    pub scan: Option<Task<ScanEvent>>,
    /// The loupe's look for one photo's subject (O), one at a time.
    pub subject_look: Option<Task<workers::SubjectAnswer>>,
    /// The open folder's sidecars, watched for another tool's edits.
    pub sidecar_watch: Option<workers::SidecarWatch>,
    pub folder_dialog: Option<Task<Option<PathBuf>>>,
    pub indexing: Option<Indexing>,
    pub analysis: Option<Task<workers::AnalysisAnswer>>,
    pub thumbs: workers::ThumbPool,
    pub catalog: workers::CatalogThread,
    /// The catalog thread ended (said once).
    pub catalog_gone: bool,
    pub saver: SyncSender<workers::SaveMsg>,
    pub saver_problems: Task<String>,
    /// Photos waiting to be imported (the catalog thread's queue is bounded).
    pub import_queue: VecDeque<(EntryId, PathBuf)>,
    pub imports_in_flight: usize,
    /// Decisions waiting for room in the catalog thread's queue: the UI never blocks on it.
    pub outbox: VecDeque<DecisionJob>,
    /// The folder to open and the work to start once the first frame is on screen.
    pub deferred_folder: Option<PathBuf>,
    pub on_first_frame: Vec<Box<dyn FnOnce() + Send>>,
}

/// Where things are and how to wake the window: fixed for the window's life.
pub struct Env {
    pub catalog_path: PathBuf,
    pub settings_file: Option<PathBuf>,
    pub inference_dir: Option<PathBuf>,
    pub models_dir: Option<PathBuf>,
    pub model_mirror: Option<String>,
    pub pick_folder: workers::PickFolder,
    pub cancel: Cancel,
    pub wake: Waker,
}

impl Drop for DarkRoom {
    fn drop(&mut self) {
        self.env.cancel.set();
        if let Some(run) = &self.tasks.indexing {
            run.control.cancel();
        }
        // Everything the catalog thread was given is done (sidecars included) before the
        // process goes on to exit.
        self.tasks.catalog.client.close();
    }
}

/// What is laid over the photo, under the navigator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overlays {
    /// The clipping mask (J).
    pub clipping: bool,
    /// The subject's mask (O): where its focus was measured.
    pub subject: bool,
    /// The AF points the camera recorded (F).
    pub af_points: bool,
    /// Focus peaking (Shift+F).
    pub peaking: bool,
}

impl DarkRoom {
    /// What the loupe and compare lay over a photo.
    pub fn overlays(&self) -> Overlays {
        Overlays {
            clipping: self.show_clipping,
            subject: self.show_subject,
            af_points: self.show_af_points,
            peaking: self.show_peaking,
        }
    }

    /// A photo is shown large (loupe or compare): keys that mean one thing in the grid may
    /// mean another here (`keymap::Scope`).
    pub fn over_photo(&self) -> bool {
        matches!(self.cull.view, View::Loupe | View::Compare)
    }

    /// Starts the background workers and returns at once: the first frame never waits.
    pub fn new(ctx: &egui::Context, setup: Setup) -> Self {
        let repaint = ctx.clone();
        let wake: Waker = Arc::new(move || repaint.request_repaint());
        let cancel = Cancel::default();
        let cache = ThumbCache::new(setup.thumb_cache);
        let thumbs = workers::thumb_pool(
            cache,
            setup.catalog.clone(),
            setup.thumb_threads,
            cancel.clone(),
            wake.clone(),
        );
        let catalog = workers::catalog_thread(
            setup.catalog.clone(),
            setup.naming,
            setup.words,
            wake.clone(),
        );
        if setup.write_to_cards {
            // The first request: nothing is decided before it applies.
            let _ = catalog
                .client
                .try_send(workers::CatalogRequest::WriteToCards(true));
        }
        let (saver, saver_problems) = workers::settings_saver(wake.clone());
        let mut notices = Notices::default();
        for n in setup.notices {
            notices.push(n);
        }
        DarkRoom {
            cull: Culling::default(),
            gallery: Gallery::default(),
            overlay: Overlay::None,
            windows: Windows::default(),
            problems: Vec::new(),
            notices,
            recent: setup.recent,
            naming: setup.naming,
            words: setup.words,
            write_to_cards: setup.write_to_cards,
            status: setup.status,
            knobs: setup.knobs,
            detector: window_detector(setup.detector_saved.as_deref(), &setup.detectors),
            detectors: setup.detectors,
            detector_saved: setup.detector_saved,
            blurry_below: setup.blurry_below,
            cull_settings: setup.culling,
            zoom: Default::default(),
            comparison: Default::default(),
            show_clipping: false,
            show_subject: false,
            show_af_points: false,
            show_peaking: false,
            subject_looks: SubjectLooks::default(),
            index_summary: None,
            decisions_durable: 0,
            ui_state: UiState::default(),
            tasks: Tasks {
                scan: None,
                subject_look: None,
                sidecar_watch: None,
                folder_dialog: None,
                indexing: None,
                analysis: None,
                thumbs,
                catalog,
                catalog_gone: false,
                saver,
                saver_problems,
                import_queue: VecDeque::new(),
                imports_in_flight: 0,
                outbox: VecDeque::new(),
                deferred_folder: setup.folder,
                on_first_frame: setup.on_first_frame,
            },
            env: Env {
                catalog_path: setup.catalog,
                settings_file: setup.settings_file,
                inference_dir: setup.inference_dir,
                models_dir: setup.models_dir,
                model_mirror: setup.model_mirror,
                pick_folder: setup.pick_folder,
                cancel,
                wake,
            },
            intents: Vec::new(),
        }
    }

    pub fn root(&self) -> Option<&std::path::Path> {
        self.cull.root.as_deref()
    }

    /// Where the loupe (or compare's pane under the pointer) drew its photo in the last frame.
    pub fn loupe_placed(&self) -> Option<super::zoom::Placed> {
        self.ui_state.loupe_placed
    }

    pub fn scanning(&self) -> bool {
        self.tasks.scan.is_some()
    }

    /// The photo the loupe drew in the last frame and from which of its pictures (None: no
    /// loupe, or nothing of the photo to draw yet).
    pub fn loupe_drew(&self) -> Option<(EntryId, super::pictures::Drew)> {
        self.ui_state.loupe_drew
    }

    /// Whether the folder given at start-up waits for the first frames to be opened.
    pub fn opening(&self) -> bool {
        self.tasks.deferred_folder.is_some()
    }

    /// Whether the folder's analysis is being read from the index rows.
    pub fn analysing(&self) -> bool {
        self.tasks.analysis.is_some()
    }

    /// Whether the folder dialog is open.
    pub fn choosing_folder(&self) -> bool {
        self.tasks.folder_dialog.is_some()
    }

    pub fn models_dir(&self) -> Option<&std::path::Path> {
        self.env.models_dir.as_deref()
    }

    /// Whether "Index faces" can run now: a folder, a live engine, a models dir, no job yet.
    pub fn can_index(&self) -> bool {
        self.cull.root.is_some()
            && self.tasks.indexing.is_none()
            && self.env.models_dir.is_some()
            && matches!(self.status, StatusSource::Live(_))
    }

    pub fn is_indexing(&self) -> bool {
        self.tasks.indexing.is_some()
    }

    /// The backend's status as it is now (`logic` takes the engine in when it has started).
    pub fn backend_status(&self) -> Option<BackendStatus> {
        match &self.status {
            StatusSource::Starting(_) | StatusSource::Failed => None,
            StatusSource::Live(b) => Some(b.status()),
            StatusSource::Fixed(s) => Some((**s).clone()),
        }
    }

    /// True when every decision made here is durable.
    pub fn all_acknowledged(&self) -> bool {
        self.tasks.outbox.is_empty() && self.cull.all_acknowledged()
    }

    /// Decisions made here and not yet durable (waiting to be sent, or sent and unanswered:
    /// the culling state counts both).
    pub fn unsaved(&self) -> usize {
        self.cull.in_flight()
    }

    /// Whether closing now would lose nothing: every decision answered, and the catalog thread
    /// done with everything it was given (their sidecars included); or the catalog thread is
    /// gone, and nothing more can be saved (the notices say so).
    pub fn saved(&self) -> bool {
        self.tasks.catalog_gone
            || (self.all_acknowledged() && self.tasks.catalog.client.unfinished() == 0)
    }

    /// The open folder's sidecars are being watched for another tool's edits.
    pub fn watching_sidecars(&self) -> bool {
        self.tasks
            .sidecar_watch
            .as_ref()
            .is_some_and(|w| w.watching())
    }

    pub fn closing(&self) -> Closing {
        self.ui_state.closing
    }

    /// True when the scan is done, every decision is durable, every picture asked for (the
    /// cells on screen, the loupe's) has arrived and no scroll is pending (tests wait on it).
    pub fn settled(&self) -> bool {
        let t = &self.tasks;
        !self.scanning()
            && t.indexing.is_none()
            && t.analysis.is_none()
            && t.subject_look.is_none()
            && t.deferred_folder.is_none()
            && !self.choosing_folder()
            && !self.windows.models.busy()
            && !self.windows.export.busy()
            && !self.windows.ingest.working()
            && self.ui_state.grid_offset.is_none()
            && t.import_queue.is_empty()
            && t.imports_in_flight == 0
            && self.saved()
            && self
                .gallery
                .iter()
                .all(|p| {
                    !p.thumb.waiting()
                        && !p.loupe.waiting()
                        && !p.full.waiting()
                        // Close-ups asked for alone (after a subject look) are work too.
                        && !matches!(p.faces, super::pictures::Faces::Requested)
                })
            // The loupe's plan changes by itself after a dwell (a stop after skimming).
            && self.ui_state.plan.revisit_in.is_none()
            && (self.cull.view != View::Compare
                || self.comparison.panes(&self.cull).iter().all(|&id| {
                    self.comparison.zoom_of(id, &self.zoom).is_fit()
                        || self.gallery.get(id).is_some_and(|p| {
                            !matches!(
                                p.full,
                                super::pictures::Slot::None | super::pictures::Slot::Requested
                            )
                        })
                }))
            && (self.cull.view != View::People
                || self.comparison.panes(&self.cull).iter().all(|&id| {
                    self.gallery.get(id).is_some_and(|p| {
                        !matches!(
                            p.faces,
                            super::pictures::Faces::None | super::pictures::Faces::Requested
                        )
                    })
                }))
            && (matches!(self.cull.view, View::Grid | View::People)
                || self.cull.selected_id().is_none_or(|id| {
                    self.gallery.get(id).is_some_and(|p| {
                        !p.loupe.waiting()
                            && !matches!(p.loupe, super::pictures::Picture::None)
                            && (self.cull.view != View::Loupe
                                || (!matches!(p.full, Slot::None | Slot::Requested)
                                    && !matches!(p.facts, Slot::None | Slot::Requested)))
                    })
                }))
    }

    /// Background work that wants the window to look again soon (a spinner, a pending save).
    pub(super) fn busy(&self) -> bool {
        self.scanning()
            || !self.tasks.import_queue.is_empty()
            || self.tasks.imports_in_flight > 0
            || !self.all_acknowledged()
            || self.windows.models.busy()
            || self.windows.export.busy()
            || self.windows.ingest.working()
    }
}
