//! The window: grid, loupe and compare over a folder, keyboard-first, with Settings and About
//! rendering the engine's backend status. The UI thread only draws and routes input; scanning,
//! thumbnails, the catalog and the engine all live in `workers`.

pub mod keymap;
pub mod models_panel;
pub mod panels;
pub mod workers;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use darkroom_catalog::{Decision, Flag, Label, SidecarNaming};
use darkroom_engine::{Backend, BackendStatus};
use darkroom_library::thumbs::ThumbCache;
use darkroom_library::{Item, ScanEvent};
use egui::{Color32, RichText, TextureHandle};

use keymap::Action;
use workers::{Cancel, DecisionJob, ThumbJob, Waker};

/// Grid cell size in points; thumbnails are made at this many pixels.
pub const THUMB_SIDE: u32 = 256;
/// Loupe previews are made at this many pixels (fit on a 4K screen is downscaled by egui).
pub const LOUPE_SIDE: u32 = 2048;
const CELL: f32 = 180.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Grid,
    Loupe,
    Compare,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Picks,
    Rejects,
    Unflagged,
    MinStars(u8),
    Label(darkroom_catalog::ColourLabel),
    /// Photos with this person in them.
    Person(i64),
}

impl Filter {
    pub fn describe(self) -> String {
        match self {
            Filter::All => "all".into(),
            Filter::Picks => "picks".into(),
            Filter::Rejects => "rejects".into(),
            Filter::Unflagged => "unflagged".into(),
            Filter::MinStars(n) => format!("{n}+ stars"),
            Filter::Label(c) => format!("{} label", c.xmp_name().to_lowercase()),
            Filter::Person(id) => format!("person {id}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Settings,
    About,
    Models,
}

#[derive(Default)]
pub enum Picture {
    #[default]
    None,
    Requested,
    Ready(TextureHandle),
    Failed(String),
}

/// A photo's faces for the loupe's close-up strip.
#[derive(Default)]
pub enum Faces {
    #[default]
    None,
    Requested,
    /// Not indexed yet.
    NotIndexed,
    Ready(Vec<FaceTile>),
    Failed(String),
}

pub struct FaceTile {
    pub texture: TextureHandle,
    pub sharpness: f32,
    pub eyes_closed: Option<bool>,
}

pub struct Entry {
    pub item: Item,
    pub faces: Faces,
    /// What the index says (None: not indexed).
    pub analysis: Option<darkroom_index::PhotoAnalysis>,
    pub decision: Decision,
    /// Sent to the catalog, not yet acknowledged as durable.
    pub pending: bool,
    /// A decision was made here: a late import result must not overwrite it.
    pub decided_here: bool,
    pub thumb: Picture,
    pub loupe: Picture,
    pub error: Option<String>,
}

/// Where Settings and About get the backend's state: the live engine, or a fixed status
/// (screenshot tests of each state).
pub enum StatusSource {
    Starting(Receiver<Backend>),
    Live(Backend),
    Fixed(Box<BackendStatus>),
}

pub struct DarkRoom {
    pub root: Option<PathBuf>,
    pub entries: Vec<Entry>,
    pub visible: Vec<usize>,
    pub selected: usize,
    pub view: View,
    pub zoom_100: bool,
    pub filter: Filter,
    pub overlay: Overlay,
    pub undo: Vec<(usize, Decision)>,
    pub scanning: bool,
    pub scan_errors: Vec<String>,
    pub recent: Vec<PathBuf>,
    pub folder_field: String,
    pub naming: SidecarNaming,
    pub status: StatusSource,
    /// Threads and TensorRT workspace, shown and edited in Settings.
    pub knobs: panels::EngineKnobs,
    /// The folder dialog, while it is open.
    folder_dialog: Option<Receiver<Option<PathBuf>>>,
    pick_folder: workers::PickFolder,
    saver: std::sync::mpsc::SyncSender<workers::SaveMsg>,
    /// Where the engine keeps its settings (None: not persisted, in tests).
    inference_dir: Option<PathBuf>,
    scan_rx: Option<Receiver<ScanEvent>>,
    /// The keyboard moved the selection: scroll the grid until it is in view (once).
    follow_selection: bool,
    /// Where the models are (None: indexing is not offered, in tests without an engine).
    models_dir: Option<PathBuf>,
    /// The Models window: installed models, downloads, install from a folder.
    pub models: models_panel::ModelsPanel,
    model_mirror: Option<String>,
    catalog_path: PathBuf,
    /// The index job, while it runs.
    indexing: Option<Indexing>,
    pub detectors: Vec<panels::DetectorChoice>,
    /// The face detector new index jobs use.
    pub detector: String,
    /// The folder's analysis being read from the index rows.
    analysis_rx: Option<Receiver<Result<workers::FolderAnalysis, String>>>,
    /// People's names, by person id.
    pub person_names: std::collections::HashMap<i64, String>,
    /// The person being named, and the text so far.
    naming_person: Option<(i64, String)>,
    /// Show the sharpest first.
    pub sort_by_sharpness: bool,
    /// Bursts show as their suggested frame until opened (B).
    pub expanded_bursts: std::collections::HashSet<usize>,
    /// Sharpness under which a photo is marked blurry (Settings).
    pub blurry_below: f32,
    /// Face crops being made for the loupe.
    face_requests: Vec<Receiver<workers::FaceCrops>>,
    /// The last index job's outcome, one line.
    pub index_summary: Option<String>,
    /// Frames drawn so far: background work starts once the first is on screen.
    frames: u64,
    /// The folder to open and the work to start once the first frame is on screen.
    deferred_folder: Option<PathBuf>,
    on_first_frame: Vec<Box<dyn FnOnce() + Send>>,
    /// The grid's scroll offset to apply next frame (the selection was off screen).
    grid_offset: Option<f32>,
    /// Items waiting to be imported (the catalog's channel is bounded).
    import_queue: std::collections::VecDeque<usize>,
    imports_in_flight: usize,
    thumbs: workers::ThumbPool,
    writer: workers::DecisionWriter,
    cancel: Cancel,
    wake: Waker,
    settings_file: Option<PathBuf>,
}

impl Drop for DarkRoom {
    fn drop(&mut self) {
        self.cancel.set();
        if let Some(run) = &self.indexing {
            run.control.cancel();
        }
    }
}

/// A running index job as the window follows it.
struct Indexing {
    rx: Receiver<workers::IndexMsg>,
    control: Arc<darkroom_index::Control>,
    progress: Option<darkroom_index::Progress>,
    to_index: usize,
}

/// What the app needs from the outside world.
pub struct Setup {
    pub folder: Option<PathBuf>,
    pub catalog: PathBuf,
    pub thumb_cache: PathBuf,
    pub naming: SidecarNaming,
    pub recent: Vec<PathBuf>,
    pub status: StatusSource,
    pub thumb_threads: usize,
    pub knobs: panels::EngineKnobs,
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
    pub detectors: Vec<panels::DetectorChoice>,
    pub detector: String,
    /// Sharpness under which a photo is marked blurry.
    pub blurry_below: f32,
    /// A mirror serving model files by name, instead of each download's upstream.
    pub model_mirror: Option<String>,
}

/// What the window remembers between runs.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct AppSettings {
    #[serde(default)]
    pub recent: Vec<PathBuf>,
    #[serde(default)]
    pub naming: SidecarNaming,
    /// The face detector's model_id (None: the default tier).
    #[serde(default)]
    pub detector: Option<String>,
    /// Sharpness under which a photo is "blurry" (None: the default).
    #[serde(default)]
    pub blurry_below: Option<f32>,
}

impl AppSettings {
    /// Read at start-up, before the window exists. A bad file means defaults, said once.
    pub fn load(path: &Path) -> Self {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                eprintln!("darkroom: settings ignored: {e}: {}", path.display());
                AppSettings::default()
            }),
            Err(_) => AppSettings::default(),
        }
    }

    /// Written whole, through a temporary file, so a crash leaves the old or the new one.
    pub fn store(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, path)
    }
}

impl DarkRoom {
    /// Starts the background workers and returns at once: the first frame never waits.
    pub fn new(ctx: &egui::Context, setup: Setup) -> Self {
        let repaint = ctx.clone();
        let wake: Waker = Arc::new(move || repaint.request_repaint());
        let cancel = Cancel::default();
        let cache = ThumbCache::new(setup.thumb_cache);
        let thumbs = workers::thumb_pool(cache, setup.thumb_threads, cancel.clone(), wake.clone());
        let catalog_path = setup.catalog.clone();
        let writer = workers::decision_writer(setup.catalog, setup.naming, wake.clone());
        DarkRoom {
            root: None,
            entries: Vec::new(),
            visible: Vec::new(),
            selected: 0,
            view: View::Grid,
            zoom_100: false,
            filter: Filter::All,
            overlay: Overlay::None,
            undo: Vec::new(),
            scanning: false,
            scan_errors: Vec::new(),
            recent: setup.recent,
            folder_field: String::new(),
            naming: setup.naming,
            status: setup.status,
            knobs: setup.knobs,
            folder_dialog: None,
            pick_folder: setup.pick_folder,
            saver: workers::settings_saver(),
            inference_dir: setup.inference_dir,
            scan_rx: None,
            follow_selection: false,
            models_dir: setup.models_dir,
            models: models_panel::ModelsPanel::default(),
            model_mirror: setup.model_mirror,
            catalog_path,
            indexing: None,
            face_requests: Vec::new(),
            analysis_rx: None,
            detectors: setup.detectors,
            detector: setup.detector,
            person_names: std::collections::HashMap::new(),
            naming_person: None,
            sort_by_sharpness: false,
            expanded_bursts: std::collections::HashSet::new(),
            blurry_below: setup.blurry_below,
            index_summary: None,
            frames: 0,
            deferred_folder: setup.folder,
            on_first_frame: setup.on_first_frame,
            grid_offset: None,
            import_queue: std::collections::VecDeque::new(),
            imports_in_flight: 0,
            thumbs,
            writer,
            cancel,
            wake,
            settings_file: setup.settings_file,
        }
    }

    /// Start scanning `folder` (in the background).
    pub fn open(&mut self, folder: PathBuf) {
        self.entries.clear();
        self.visible.clear();
        self.import_queue.clear();
        self.selected = 0;
        self.view = View::Grid;
        self.scan_errors.clear();
        self.recent.retain(|r| *r != folder);
        self.recent.insert(0, folder.clone());
        self.recent.truncate(8);
        self.scan_rx = Some(workers::scan(
            folder.clone(),
            self.cancel.clone(),
            self.wake.clone(),
        ));
        self.scanning = true;
        self.root = Some(folder);
        self.save_settings();
    }

    /// Persist recent folders and naming (the settings thread does the file I/O).
    fn save_settings(&self) {
        let Some(path) = self.settings_file.clone() else {
            return;
        };
        let settings = AppSettings {
            recent: self.recent.clone(),
            naming: self.naming,
            detector: Some(self.detector.clone()),
            blurry_below: Some(self.blurry_below),
        };
        self.save(workers::SaveMsg::App(path, settings));
    }

    /// Persist the engine's settings (the settings thread does the file I/O).
    fn save_backend_settings(&self) {
        if let Some(dir) = self.inference_dir.clone() {
            self.save(workers::SaveMsg::Backend(dir, self.knobs.saved.clone()));
        }
    }

    fn save(&self, msg: workers::SaveMsg) {
        // Sixteen unsaved changes in one frame means the disk is stuck; say so, keep going.
        if let Err(e) = self.saver.try_send(msg) {
            eprintln!("darkroom: settings not saved: {e}");
        }
    }

    /// "Open folder…": the dialog runs on its own thread; `poll_folder_dialog` takes the answer.
    pub fn choose_folder(&mut self) {
        if self.folder_dialog.is_some() {
            return;
        }
        let start = self.root.clone().or_else(|| self.recent.first().cloned());
        self.folder_dialog = Some(workers::pick_folder(
            self.pick_folder.clone(),
            start,
            self.wake.clone(),
        ));
    }

    /// Whether the folder dialog is open.
    pub fn choosing_folder(&self) -> bool {
        self.folder_dialog.is_some()
    }

    fn poll_folder_dialog(&mut self) {
        let Some(rx) = &self.folder_dialog else {
            return;
        };
        match rx.try_recv() {
            Ok(answer) => {
                self.folder_dialog = None;
                if let Some(folder) = answer {
                    self.open(folder);
                }
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(std::sync::mpsc::TryRecvError::Disconnected) => self.folder_dialog = None,
        }
    }

    fn models_env(&self) -> Option<models_panel::ModelsEnv<'_>> {
        Some(models_panel::ModelsEnv {
            models_dir: self.models_dir.as_ref()?,
            mirror: self.model_mirror.clone(),
            pick_folder: &self.pick_folder,
            wake: &self.wake,
        })
    }

    /// Open the Models window; its contents are read fresh each time it opens.
    pub fn open_models(&mut self) {
        self.overlay = Overlay::Models;
        let mut panel = std::mem::take(&mut self.models);
        if let Some(env) = self.models_env() {
            panel.start(&env, workers::ModelsRequest::Refresh);
        }
        self.models = panel;
    }

    fn poll_models(&mut self) {
        let mut panel = std::mem::take(&mut self.models);
        let ended = self
            .models_env()
            .and_then(|env| panel.poll(&env).map(<[_]>::to_vec));
        self.models = panel;
        // A detector that was just installed can be chosen in Settings right away.
        if let Some(rows) = ended {
            for d in &mut self.detectors {
                d.installed = rows.iter().any(|r| {
                    r.model_id == d.model_id
                        && matches!(r.state, darkroom_models::CardState::Ready { .. })
                });
            }
        }
    }

    fn models_window(&mut self, ctx: &egui::Context) {
        let Some(dir) = self.models_dir.clone() else {
            self.overlay = Overlay::None;
            return;
        };
        let mut open = true;
        let mut action = None;
        egui::Window::new("Models")
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .min_width(560.0)
            .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
            .show(ctx, |ui| action = self.models.show(ui, &dir));
        if let Some(action) = action {
            let mut panel = std::mem::take(&mut self.models);
            if let Some(env) = self.models_env() {
                panel.act(&env, action);
            }
            self.models = panel;
        }
        if !open {
            self.overlay = Overlay::None;
        }
        if self.models.busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    /// Whether "Index faces" can run now: a folder, a live engine, a models dir, no job yet.
    pub fn can_index(&self) -> bool {
        self.root.is_some()
            && self.indexing.is_none()
            && self.models_dir.is_some()
            && matches!(self.status, StatusSource::Live(_))
    }

    pub fn is_indexing(&self) -> bool {
        self.indexing.is_some()
    }

    /// Index every photo of the folder on the backend as it is now (the job pins it).
    pub fn start_index(&mut self) {
        if !self.can_index() {
            return;
        }
        let (StatusSource::Live(backend), Some(models_dir)) = (&self.status, &self.models_dir)
        else {
            return;
        };
        let request = workers::IndexRequest {
            pin: backend.pin(),
            models_dir: models_dir.clone(),
            catalog: self.catalog_path.clone(),
            photos: self
                .entries
                .iter()
                .map(|e| e.item.primary.clone())
                .collect(),
            decode_threads: num_threads(),
            inference_threads: self.knobs.threads_in_effect,
            detector: self.detector.clone(),
        };
        let control = Arc::new(darkroom_index::Control::default());
        self.index_summary = None;
        self.indexing = Some(Indexing {
            rx: workers::index_job(request, Arc::clone(&control), self.wake.clone()),
            control,
            progress: None,
            to_index: 0,
        });
    }

    fn poll_index(&mut self) {
        let Some(run) = &mut self.indexing else {
            return;
        };
        let (messages, closed) = workers::drain(&run.rx, 64);
        let mut finished = closed.then(|| Err("the index job stopped".to_string()));
        for m in messages {
            match m {
                workers::IndexMsg::Event(darkroom_index::Event::Started { to_index, .. }) => {
                    run.to_index = to_index;
                }
                workers::IndexMsg::Event(darkroom_index::Event::Progress(p)) => {
                    run.progress = Some(p);
                }
                workers::IndexMsg::Event(darkroom_index::Event::Failed { path, error }) => {
                    self.scan_errors
                        .push(format!("{error}: {}", path.display()));
                }
                workers::IndexMsg::Event(darkroom_index::Event::Indexed { .. }) => {}
                workers::IndexMsg::Done(result) => finished = Some(result),
            }
        }
        if let Some(result) = finished {
            // The close-ups and the marks are made again from the new rows.
            for e in &mut self.entries {
                e.faces = Faces::None;
            }
            self.load_analysis();
            self.index_summary = Some(match result {
                Ok(s) if s.cancelled => format!("Indexing cancelled · {} photos done", s.indexed),
                Ok(s) => format!(
                    "Indexed · {} photos · {} faces{}",
                    s.indexed + s.skipped,
                    s.faces,
                    if s.failed.is_empty() {
                        String::new()
                    } else {
                        format!(" · {} failed", s.failed.len())
                    }
                ),
                Err(e) => format!("Indexing failed: {e}"),
            });
            self.indexing = None;
        }
    }

    fn load_analysis(&mut self) {
        if self.entries.is_empty() {
            return;
        }
        self.analysis_rx = Some(workers::load_analysis(
            self.entries
                .iter()
                .map(|e| e.item.primary.clone())
                .collect(),
            self.catalog_path.clone(),
            self.wake.clone(),
        ));
    }

    fn poll_analysis(&mut self) {
        let Some(rx) = &self.analysis_rx else {
            return;
        };
        let answer = match rx.try_recv() {
            Ok(answer) => answer,
            Err(std::sync::mpsc::TryRecvError::Empty) => return,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => Err("stopped".into()),
        };
        self.analysis_rx = None;
        match answer {
            Ok(folder) => {
                self.person_names = folder.names;
                let mut by_path: std::collections::HashMap<PathBuf, darkroom_index::PhotoAnalysis> =
                    folder
                        .photos
                        .into_iter()
                        .map(|a| (a.path.clone(), a))
                        .collect();
                for e in &mut self.entries {
                    e.analysis = by_path.remove(&e.item.primary);
                }
                self.refilter();
            }
            Err(e) => self.scan_errors.push(format!("cannot read the index: {e}")),
        }
    }

    /// Give person `id` a name (empty: forget it); the catalog thread records it.
    pub fn name_person(&mut self, id: i64, name: &str) {
        let name = name.trim();
        if name.is_empty() {
            self.person_names.remove(&id);
        } else {
            self.person_names.insert(id, name.to_string());
        }
        let msg = workers::WriterMsg::NamePerson(id, (!name.is_empty()).then(|| name.to_string()));
        if self.writer.jobs.try_send(msg).is_err() {
            self.scan_errors
                .push("the catalog is busy: the name was not saved".to_string());
        }
    }

    /// People in this folder, most photos first: (person, photos, the entry and box of their
    /// first face).
    pub fn people(&self) -> Vec<(i64, usize, usize, [f32; 4])> {
        let mut people: std::collections::BTreeMap<i64, (usize, usize, [f32; 4])> =
            std::collections::BTreeMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            let Some(a) = &e.analysis else { continue };
            let mut seen = Vec::new();
            for (p, b) in &a.people {
                if let Some(p) = *p
                    && !seen.contains(&p)
                {
                    seen.push(p);
                    people.entry(p).or_insert((0, i, *b)).0 += 1;
                }
            }
        }
        let mut list: Vec<_> = people
            .into_iter()
            .map(|(id, (n, i, b))| (id, n, i, b))
            .collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        list
    }

    pub fn person_label(&self, id: i64) -> String {
        self.person_names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("Person {id}"))
    }

    /// A chip per person (their first face, name, photo count): a click shows only their
    /// photos, again shows all; "Name…" in its menu names them.
    fn people_strip(&mut self, ui: &mut egui::Ui) {
        let people = self.people();
        if people.is_empty() {
            return;
        }
        for &(_, _, index, _) in &people {
            self.request(index, THUMB_SIDE);
        }
        let mut clicked = None;
        let mut start_naming = None;
        egui::ScrollArea::horizontal()
            .id_salt("people")
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    for &(id, count, index, b) in &people {
                        let label = format!("{} ({count})", self.person_label(id));
                        let selected = self.filter == Filter::Person(id);
                        ui.vertical(|ui| {
                            if let Picture::Ready(tex) = &self.entries[index].thumb {
                                let uv = egui::Rect::from_min_max(
                                    egui::pos2(b[0], b[1]),
                                    egui::pos2(b[2], b[3]),
                                );
                                ui.add(egui::Image::new((tex.id(), egui::vec2(40.0, 40.0))).uv(uv));
                            }
                            let chip = ui.selectable_label(selected, label);
                            if chip.clicked() {
                                clicked = Some(id);
                            }
                            chip.context_menu(|ui| {
                                if ui.button("Name…").clicked() {
                                    start_naming = Some(id);
                                    ui.close();
                                }
                            });
                        });
                    }
                });
            });
        if let Some(id) = start_naming {
            let current = self.person_names.get(&id).cloned().unwrap_or_default();
            self.naming_person = Some((id, current));
        }
        if let Some((id, mut text)) = self.naming_person.take() {
            let mut done = None;
            ui.horizontal(|ui| {
                let label = ui.label(format!("Name for {}:", self.person_label(id)));
                let field = ui.text_edit_singleline(&mut text).labelled_by(label.id);
                let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.button("Save").clicked() || entered {
                    done = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    done = Some(false);
                }
            });
            match done {
                Some(true) => self.name_person(id, &text),
                Some(false) => {}
                None => self.naming_person = Some((id, text)),
            }
        }
        if let Some(id) = clicked {
            let f = if self.filter == Filter::Person(id) {
                Filter::All
            } else {
                Filter::Person(id)
            };
            self.set_filter(f);
        }
        ui.separator();
    }

    /// Ask for the close-ups of entry `index` once.
    fn request_faces(&mut self, index: usize) {
        let Some(e) = self.entries.get_mut(index) else {
            return;
        };
        if !matches!(e.faces, Faces::None) || self.face_requests.len() >= 4 {
            return;
        }
        e.faces = Faces::Requested;
        self.face_requests.push(workers::face_crops(
            index,
            e.item.primary.clone(),
            self.catalog_path.clone(),
            self.wake.clone(),
        ));
    }

    fn poll_faces(&mut self, ctx: &egui::Context) {
        let mut done = Vec::new();
        for (n, rx) in self.face_requests.iter().enumerate() {
            match rx.try_recv() {
                Ok(answer) => done.push((n, Some(answer))),
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => done.push((n, None)),
            }
        }
        for (n, answer) in done.into_iter().rev() {
            self.face_requests.remove(n);
            let Some((index, result)) = answer else {
                continue;
            };
            let Some(e) = self.entries.get_mut(index) else {
                continue;
            };
            e.faces = match result {
                Ok(None) => Faces::NotIndexed,
                Ok(Some(crops)) => Faces::Ready(
                    crops
                        .into_iter()
                        .enumerate()
                        .map(|(k, c)| {
                            let size = [c.image.width() as usize, c.image.height() as usize];
                            let pixels = egui::ColorImage::from_rgb(size, c.image.as_raw());
                            FaceTile {
                                texture: ctx.load_texture(
                                    format!("face-{index}-{k}"),
                                    pixels,
                                    egui::TextureOptions::NEAREST,
                                ),
                                sharpness: c.sharpness,
                                eyes_closed: c.eyes_closed,
                            }
                        })
                        .collect(),
                ),
                Err(e) => Faces::Failed(e),
            };
        }
    }

    fn index_row(&mut self, ui: &mut egui::Ui) {
        if let Some(run) = &self.indexing {
            let paused = run.control.is_paused();
            let text = match &run.progress {
                Some(p) => format!(
                    "Indexing faces · {} of {} · {:.1} photos/s{}",
                    p.done,
                    p.to_index,
                    p.photos_per_s,
                    p.eta_s
                        .map(|s| format!(" · {} left", eta(s)))
                        .unwrap_or_default()
                ),
                None if run.to_index > 0 => format!("Indexing faces · 0 of {}", run.to_index),
                None => "Indexing faces…".to_string(),
            };
            if !paused {
                ui.spinner();
            }
            ui.label(if paused {
                format!("{text} · paused")
            } else {
                text
            });
            if ui.button(if paused { "Resume" } else { "Pause" }).clicked() {
                run.control.set_paused(!paused);
            }
            if ui.button("Cancel").clicked() {
                run.control.cancel();
            }
        } else if self.root.is_some()
            && self.models_dir.is_some()
            && !self.detectors.iter().any(|d| d.installed)
        {
            // First run: nothing to index with yet. Say so, and where to get it.
            if ui
                .button("Get face models…")
                .on_hover_text(
                    "No face detector is installed: download one, or install from a folder",
                )
                .clicked()
            {
                self.open_models();
            }
        } else if self.root.is_some() {
            let button = ui
                .add_enabled(self.can_index(), egui::Button::new("Index faces"))
                .on_hover_text("Find faces, eyes, focus, bursts and people in this folder")
                .on_disabled_hover_text("Waiting for the inference engine");
            if button.clicked() {
                self.start_index();
            }
            if let Some(s) = &self.index_summary {
                ui.label(s);
            }
        }
    }

    /// The backend's status as it is now.
    pub fn backend_status(&mut self) -> Option<BackendStatus> {
        if let StatusSource::Starting(rx) = &self.status
            && let Ok(backend) = rx.try_recv()
        {
            self.status = StatusSource::Live(backend);
        }
        match &self.status {
            StatusSource::Starting(_) => None,
            StatusSource::Live(b) => Some(b.status()),
            StatusSource::Fixed(s) => Some((**s).clone()),
        }
    }

    /// Take in what the workers reported since the last frame (bounded per frame).
    fn poll(&mut self, ctx: &egui::Context) {
        self.poll_folder_dialog();
        self.poll_models();
        self.poll_index();
        self.poll_faces(ctx);
        self.poll_analysis();
        if let Some(rx) = &self.scan_rx {
            let (events, done) = workers::drain(rx, 2048);
            for e in events {
                match e {
                    ScanEvent::Item(item) => {
                        self.import_queue.push_back(self.entries.len());
                        self.entries.push(Entry {
                            item,
                            decision: Decision::default(),
                            pending: false,
                            decided_here: false,
                            thumb: Picture::None,
                            faces: Faces::None,
                            analysis: None,
                            loupe: Picture::None,
                            error: None,
                        });
                    }
                    ScanEvent::Error(e) => self.scan_errors.push(e.to_string()),
                }
            }
            if done {
                self.scan_rx = None;
                self.scanning = false;
                self.load_analysis();
            }
            self.refilter();
        }
        while let Some(&index) = self.import_queue.front() {
            let path = self.entries[index].item.primary.clone();
            if self.writer.import.try_send((index, path)).is_err() {
                break;
            }
            self.import_queue.pop_front();
            self.imports_in_flight += 1;
        }
        let (imported, _) = workers::drain(&self.writer.imported, 4096);
        self.imports_in_flight = self.imports_in_flight.saturating_sub(imported.len());
        for (index, decision, err) in imported {
            if let Some(e) = self.entries.get_mut(index)
                && !e.decided_here
            {
                e.decision = decision;
                if err.is_some() {
                    e.error = err;
                }
            }
        }
        let (acks, _) = workers::drain(&self.writer.acks, 256);
        for ack in acks {
            if let Some(e) = self.entries.get_mut(ack.index) {
                e.pending = false;
                e.decision = ack.decision;
                if let Some(err) = ack.error {
                    e.error = Some(err);
                }
            }
        }
        // Uploading textures is the UI's only image work; cap it per frame to keep frames short.
        let (done, _) = workers::drain(&self.thumbs.done, 32);
        for d in done {
            let Some(e) = self.entries.get_mut(d.index) else {
                continue;
            };
            let picture = match d.result {
                Ok(img) => {
                    let size = [img.width() as usize, img.height() as usize];
                    let color = egui::ColorImage::from_rgb(size, img.as_raw());
                    Picture::Ready(ctx.load_texture(
                        format!("photo-{}-{}", d.index, d.side),
                        color,
                        egui::TextureOptions::LINEAR,
                    ))
                }
                Err(err) => {
                    e.error = Some(err.clone());
                    Picture::Failed(err)
                }
            };
            if d.side == LOUPE_SIDE {
                e.loupe = picture;
            } else {
                e.thumb = picture;
            }
        }
    }

    fn request(&mut self, index: usize, side: u32) {
        let Some(e) = self.entries.get_mut(index) else {
            return;
        };
        let slot = if side == LOUPE_SIDE {
            &mut e.loupe
        } else {
            &mut e.thumb
        };
        if matches!(slot, Picture::None) {
            let job = ThumbJob {
                index,
                path: e.item.display_file().to_path_buf(),
                side,
            };
            // A full queue just means "ask again next frame".
            if self.thumbs.jobs.try_send(job).is_ok() {
                *slot = Picture::Requested;
            }
        }
    }

    pub fn refilter(&mut self) {
        let current = self.visible.get(self.selected).copied();
        self.visible = (0..self.entries.len())
            .filter(|&i| {
                let d = &self.entries[i].decision;
                match self.filter {
                    Filter::All => true,
                    Filter::Picks => d.flag == Flag::Pick,
                    Filter::Rejects => d.flag == Flag::Reject,
                    Filter::Unflagged => d.flag == Flag::Unflagged,
                    Filter::MinStars(n) => d.stars >= n,
                    Filter::Label(c) => d.label == Some(Label::Colour(c)),
                    Filter::Person(id) => self.entries[i]
                        .analysis
                        .as_ref()
                        .is_some_and(|a| a.people.iter().any(|(p, _)| *p == Some(id))),
                }
            })
            .collect();
        if self.filter == Filter::All {
            // A burst shows as its suggested frame until it is opened. Filters show every
            // frame they match: a pick inside a burst must never hide.
            let entries = &self.entries;
            let expanded = &self.expanded_bursts;
            self.visible.retain(|&i| {
                entries[i]
                    .analysis
                    .as_ref()
                    .and_then(|a| a.burst.as_ref())
                    .is_none_or(|b| b.suggested || expanded.contains(&b.id))
            });
        }
        if self.sort_by_sharpness {
            // Sharpest first; photos not indexed keep their order after them.
            let sharpness = |i: usize| {
                self.entries[i]
                    .analysis
                    .as_ref()
                    .map_or(f32::NEG_INFINITY, |a| a.sharpness)
            };
            self.visible
                .sort_by(|&a, &b| sharpness(b).total_cmp(&sharpness(a)));
        }
        self.selected = current
            .and_then(|c| self.visible.iter().position(|&i| i == c))
            .unwrap_or(0)
            .min(self.visible.len().saturating_sub(1));
    }

    pub fn selected_index(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    /// Record a decision for the selected item: shown at once as pending, durable when the
    /// catalog acknowledges it.
    pub fn decide(&mut self, change: impl FnOnce(&mut Decision)) {
        let Some(index) = self.selected_index() else {
            return;
        };
        let entry = &mut self.entries[index];
        let before = entry.decision.clone();
        let mut after = before.clone();
        change(&mut after);
        if after == before {
            return;
        }
        self.send_decision(index, after);
        self.undo.push((index, before));
    }

    fn send_decision(&mut self, index: usize, decision: Decision) {
        let entry = &mut self.entries[index];
        let job = DecisionJob {
            index,
            files: entry.item.files().map(Path::to_path_buf).collect(),
            decision: decision.clone(),
        };
        match self.send_to_writer(job) {
            Ok(()) => {
                let entry = &mut self.entries[index];
                entry.decision = decision;
                entry.pending = true;
                entry.decided_here = true;
            }
            Err(e) => self.entries[index].error = Some(e),
        }
    }

    fn send_to_writer(&self, job: DecisionJob) -> Result<(), String> {
        // The writer drains decisions first; a full queue means it is far behind, and waiting
        // here is better than dropping a decision.
        self.writer
            .jobs
            .send(workers::WriterMsg::Decide(job))
            .map_err(|_| "the catalog writer stopped".to_string())
    }

    pub fn undo(&mut self) {
        if let Some((index, before)) = self.undo.pop() {
            self.send_decision(index, before);
        }
    }

    /// True when every acknowledged decision has come back.
    pub fn all_acknowledged(&self) -> bool {
        self.entries.iter().all(|e| !e.pending)
    }

    /// True when the scan is done, every decision is durable, every picture asked for (the
    /// cells on screen, the loupe's) has arrived and no scroll is pending (tests wait on it).
    pub fn settled(&self) -> bool {
        let arrived = |p: &Picture| !matches!(p, Picture::Requested);
        !self.scanning
            && self.indexing.is_none()
            && self.face_requests.is_empty()
            && self.analysis_rx.is_none()
            && self.deferred_folder.is_none()
            && !self.choosing_folder()
            && !self.models.busy()
            && self.grid_offset.is_none()
            && self.import_queue.is_empty()
            && self.imports_in_flight == 0
            && self.all_acknowledged()
            && self
                .entries
                .iter()
                .all(|e| arrived(&e.thumb) && arrived(&e.loupe))
            && (self.view == View::Grid
                || self.selected_index().is_none_or(|i| {
                    matches!(
                        self.entries[i].loupe,
                        Picture::Ready(_) | Picture::Failed(_)
                    )
                }))
    }

    fn act(&mut self, action: Action, columns: usize) {
        let n = self.visible.len();
        if matches!(
            action,
            Action::Next | Action::Previous | Action::Up | Action::Down | Action::Back
        ) {
            self.follow_selection = true;
        }
        let step = |s: &mut usize, by: isize| {
            if n > 0 {
                *s = (*s as isize + by).clamp(0, n as isize - 1) as usize;
            }
        };
        match action {
            Action::Next => step(&mut self.selected, 1),
            Action::Previous => step(&mut self.selected, -1),
            Action::Up if self.view == View::Grid => step(&mut self.selected, -(columns as isize)),
            Action::Down if self.view == View::Grid => step(&mut self.selected, columns as isize),
            Action::Up | Action::Down => {}
            Action::ToggleLoupe => {
                self.view = if self.view == View::Grid && n > 0 {
                    View::Loupe
                } else {
                    View::Grid
                }
            }
            Action::Back => {
                if self.overlay != Overlay::None {
                    self.overlay = Overlay::None;
                } else {
                    self.view = View::Grid;
                }
            }
            Action::Compare if n > 1 => self.view = View::Compare,
            Action::Compare => {}
            Action::Zoom => self.zoom_100 = !self.zoom_100,
            Action::Pick => self.decide(|d| d.flag = Flag::Pick),
            Action::Reject => self.decide(|d| d.flag = Flag::Reject),
            Action::Unflag => self.decide(|d| d.flag = Flag::Unflagged),
            Action::Stars(s) => self.decide(|d| d.stars = s),
            Action::Label(c) => self.decide(|d| {
                d.label = if d.label == Some(Label::Colour(c)) {
                    None
                } else {
                    Some(Label::Colour(c))
                }
            }),
            Action::Undo => self.undo(),
            Action::Help => {
                self.overlay = if self.overlay == Overlay::Help {
                    Overlay::None
                } else {
                    Overlay::Help
                }
            }
            Action::Settings => self.overlay = Overlay::Settings,
            Action::OpenFolder => self.choose_folder(),
            Action::ToggleBurst => {
                let burst = self
                    .selected_index()
                    .and_then(|i| self.entries[i].analysis.as_ref())
                    .and_then(|a| a.burst.as_ref())
                    .map(|b| b.id);
                if let Some(id) = burst {
                    if !self.expanded_bursts.remove(&id) {
                        self.expanded_bursts.insert(id);
                    }
                    self.refilter();
                }
            }
            Action::SortBySharpness => {
                self.sort_by_sharpness = !self.sort_by_sharpness;
                self.refilter();
            }
            Action::FilterAll => self.set_filter(Filter::All),
            Action::FilterPicks => self.set_filter(Filter::Picks),
            Action::FilterRejects => self.set_filter(Filter::Rejects),
            Action::FilterUnflagged => self.set_filter(Filter::Unflagged),
            Action::FilterMinStars(n) => self.set_filter(Filter::MinStars(n)),
            Action::FilterLabel(c) => self.set_filter(Filter::Label(c)),
        }
    }

    fn set_filter(&mut self, f: Filter) {
        self.filter = f;
        self.refilter();
    }

    /// One frame.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.frames += 1;
        match self.frames {
            // Ask for a second frame at once: eframe presents this one before drawing it.
            1 => ctx.request_repaint(),
            2 => {
                if let Some(folder) = self.deferred_folder.take() {
                    self.open(folder);
                }
                for start in self.on_first_frame.drain(..) {
                    start();
                }
            }
            _ => {}
        }
        self.poll(&ctx);
        let columns = ((ui.available_width() / CELL).floor() as usize).max(1);
        let typing = ctx.memory(|m| m.focused().is_some());
        if !typing {
            for action in ctx.input(keymap::pressed) {
                self.act(action, columns);
            }
        }
        let status = self.backend_status();
        egui::Panel::top("top").show(ui, |ui| self.top_bar(ui, status.as_ref()));
        egui::CentralPanel::default().show(ui, |ui| {
            if self.root.is_none() {
                self.empty_state(ui);
            } else {
                match self.view {
                    View::Grid => {
                        self.people_strip(ui);
                        self.grid(ui, columns)
                    }
                    View::Loupe => self.loupe(ui),
                    View::Compare => self.compare(ui),
                }
            }
        });
        match self.overlay {
            Overlay::None => {}
            Overlay::Help => panels::help(&ctx, &mut self.overlay),
            Overlay::Settings => {
                if let Some(change) = panels::settings(
                    &ctx,
                    &mut self.overlay,
                    status.as_ref(),
                    &mut self.naming,
                    &self.knobs,
                    panels::IndexSettings {
                        detectors: &self.detectors,
                        detector: &self.detector,
                        blurry_below: self.blurry_below,
                    },
                ) {
                    self.apply(change);
                }
            }
            Overlay::About => panels::about(&ctx, &mut self.overlay, status.as_ref()),
            Overlay::Models => self.models_window(&ctx),
        }
        if self.scanning
            || !self.import_queue.is_empty()
            || self.imports_in_flight > 0
            || self.entries.iter().any(|e| e.pending)
        {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    /// Apply a Settings change; persisting it is file I/O, so it happens on its own thread.
    fn apply(&mut self, change: panels::SettingsChange) {
        match change {
            panels::SettingsChange::Force(rung) => {
                if let StatusSource::Live(backend) = &self.status {
                    backend.set_forced(rung.map(|rung| darkroom_engine::ladder::Override {
                        rung,
                        source: darkroom_engine::ladder::OverrideSource::Setting,
                    }));
                }
                self.knobs.saved.force = rung;
                self.save_backend_settings();
            }
            panels::SettingsChange::Threads(n) => {
                self.knobs.saved.threads = n;
                self.save_backend_settings();
            }
            panels::SettingsChange::BlurryBelow(v) => {
                self.blurry_below = v;
                self.save_settings();
            }
            panels::SettingsChange::Detector(id) => {
                self.detector = id;
                self.save_settings();
            }
            panels::SettingsChange::Workspace(mb) => {
                self.knobs.saved.workspace_mb = mb;
                self.save_backend_settings();
            }
            panels::SettingsChange::Naming(naming) => {
                self.naming = naming;
                let _ = self.writer.jobs.send(workers::WriterMsg::Naming(naming));
                self.save_settings();
            }
        }
    }

    fn top_bar(&mut self, ui: &mut egui::Ui, status: Option<&BackendStatus>) {
        // The buttons are laid out first, from the right, so they always have their room; the
        // folder's summary takes what is left and wraps to a second row on a narrow window
        // instead of running under them. The outer row keeps the bar one line tall until then.
        ui.horizontal(|ui| {
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("About").clicked() {
                    self.overlay = Overlay::About;
                }
                if ui.button("Settings").clicked() {
                    self.overlay = Overlay::Settings;
                }
                if self.models_dir.is_some() && ui.button("Models").clicked() {
                    self.open_models();
                }
                if ui.button("Help (?)").clicked() {
                    self.overlay = Overlay::Help;
                }
                if self.root.is_some()
                    && ui
                        .add_enabled(!self.choosing_folder(), egui::Button::new("Open…"))
                        .clicked()
                {
                    self.choose_folder();
                }
                if let Some(p) = status.and_then(|s| s.progress.as_ref()) {
                    ui.label(p);
                }
                let left = egui::Layout::left_to_right(egui::Align::Center).with_main_wrap(true);
                ui.with_layout(left, |ui| {
                    ui.strong("DarkRoom");
                    if let Some(root) = &self.root {
                        let name = root
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_else(|| root.display().to_string());
                        ui.label(name).on_hover_text(root.display().to_string());
                        let picks = self
                            .entries
                            .iter()
                            .filter(|e| e.decision.flag == Flag::Pick)
                            .count();
                        ui.label(format!("{} photos · {picks} picked", self.entries.len()));
                        if self.filter != Filter::All {
                            ui.label(format!(
                                "showing {} ({})",
                                self.filter.describe(),
                                self.visible.len()
                            ));
                        }
                        if self.scanning {
                            ui.spinner();
                            ui.label("scanning…");
                        }
                        self.index_row(ui);
                        if !self.scan_errors.is_empty() {
                            ui.colored_label(
                                Color32::LIGHT_RED,
                                format!("{} problems", self.scan_errors.len()),
                            )
                            .on_hover_text(self.scan_errors.join("\n"));
                        }
                    }
                });
            });
        });
    }

    fn empty_state(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(60.0);
            ui.heading("Open a folder of photos to start culling");
            ui.add_space(12.0);
            let choosing = self.choosing_folder();
            let open = ui.add_enabled(!choosing, egui::Button::new("Open folder…"));
            if open.clicked() {
                self.choose_folder();
            }
            if choosing {
                ui.label("Choosing a folder…");
            }
            ui.add_space(8.0);
            // For a path at hand, and where no folder dialog can be shown (no XDG portal).
            ui.horizontal(|ui| {
                // Centred by hand: a horizontal row takes the whole width.
                let row = 90.0 + ui.spacing().text_edit_width + 60.0;
                ui.add_space(((ui.available_width() - row) / 2.0).max(0.0));
                let label = ui.label("or type a path:");
                let field = ui
                    .text_edit_singleline(&mut self.folder_field)
                    .labelled_by(label.id);
                let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                let go = ui.add_enabled(
                    !self.folder_field.trim().is_empty(),
                    egui::Button::new("Open"),
                );
                if (go.clicked() || entered) && !self.folder_field.trim().is_empty() {
                    let folder = PathBuf::from(self.folder_field.trim());
                    self.open(folder);
                }
            });
            if !self.recent.is_empty() {
                ui.add_space(16.0);
                ui.label("Recent folders");
                let mut chosen = None;
                for r in &self.recent {
                    if ui.link(r.display().to_string()).clicked() {
                        chosen = Some(r.clone());
                    }
                }
                if let Some(c) = chosen {
                    self.open(c);
                }
            }
        });
    }

    fn grid(&mut self, ui: &mut egui::Ui, columns: usize) {
        if self.visible.is_empty() {
            ui.centered_and_justified(|ui| {
                ui.label(if self.scanning {
                    "Scanning…"
                } else {
                    "No photos match this filter"
                });
            });
            return;
        }
        let rows = self.visible.len().div_ceil(columns);
        let selected_row = self.selected / columns;
        let mut clicked = None;
        let mut area = egui::ScrollArea::vertical().auto_shrink(false);
        if let Some(offset) = self.grid_offset.take() {
            area = area.vertical_scroll_offset(offset);
        }
        let mut follow = self.follow_selection;
        let shown = area.show_rows(ui, CELL, rows, |ui, range| {
            for row in range {
                ui.horizontal(|ui| {
                    for col in 0..columns {
                        let v = row * columns + col;
                        let Some(&index) = self.visible.get(v) else {
                            break;
                        };
                        self.request(index, THUMB_SIDE);
                        let selected = v == self.selected;
                        let marks = Marks {
                            detector: &self.detector,
                            blurry_below: self.blurry_below,
                            stacked: self.filter == Filter::All,
                            expanded: &self.expanded_bursts,
                        };
                        let response = cell(ui, &self.entries[index], selected, &marks);
                        if selected && follow {
                            response.scroll_to_me(None);
                            follow = false;
                        }
                        if response.clicked() {
                            clicked = Some(v);
                        }
                        if response.double_clicked() {
                            clicked = Some(v);
                            self.view = View::Loupe;
                        }
                    }
                });
            }
        });
        // Only rows on screen are laid out: a selection that left them is reached by offset.
        if follow {
            let row_h = CELL + ui.spacing().item_spacing.y;
            let top = selected_row as f32 * row_h;
            let view_h = shown.inner_rect.height();
            let offset = if top < shown.state.clamped_offset().y {
                top
            } else {
                top + row_h - view_h
            };
            self.grid_offset = Some(offset.max(0.0));
            ui.ctx().request_repaint();
        }
        self.follow_selection = false;
        if let Some(v) = clicked {
            self.selected = v;
        }
    }

    fn loupe(&mut self, ui: &mut egui::Ui) {
        let Some(index) = self.selected_index() else {
            self.view = View::Grid;
            return;
        };
        self.request(index, LOUPE_SIDE);
        // Pre-load the neighbours so next/previous is instant.
        for v in [self.selected + 1, self.selected.wrapping_sub(1)] {
            if let Some(&i) = self.visible.get(v) {
                self.request(i, LOUPE_SIDE);
            }
        }
        caption(ui, &self.entries[index]);
        self.request_faces(index);
        match &self.entries[index].faces {
            Faces::Ready(tiles) if !tiles.is_empty() => {
                egui::Panel::bottom("faces").show(ui, |ui| face_strip(ui, tiles));
            }
            // The close-ups could not be made: say why rather than show nothing.
            Faces::Failed(e) => {
                ui.colored_label(Color32::LIGHT_RED, format!("Faces: {e}"));
            }
            _ => {}
        }
        let zoom = self.zoom_100;
        show_picture(ui, &self.entries[index], zoom);
    }

    fn compare(&mut self, ui: &mut egui::Ui) {
        let Some(&a) = self.visible.get(self.selected) else {
            self.view = View::Grid;
            return;
        };
        let b = self.visible.get(self.selected + 1).copied();
        self.request(a, LOUPE_SIDE);
        if let Some(b) = b {
            self.request(b, LOUPE_SIDE);
        }
        ui.columns(2, |cols| {
            caption(&mut cols[0], &self.entries[a]);
            show_picture(&mut cols[0], &self.entries[a], false);
            if let Some(b) = b {
                caption(&mut cols[1], &self.entries[b]);
                show_picture(&mut cols[1], &self.entries[b], false);
            }
        });
    }
}

fn label_colour(label: &Option<Label>) -> Option<Color32> {
    match label {
        Some(Label::Colour(c)) => Some(match c {
            darkroom_catalog::ColourLabel::Red => Color32::from_rgb(220, 50, 47),
            darkroom_catalog::ColourLabel::Yellow => Color32::from_rgb(230, 200, 40),
            darkroom_catalog::ColourLabel::Green => Color32::from_rgb(80, 170, 60),
            darkroom_catalog::ColourLabel::Blue => Color32::from_rgb(50, 110, 220),
            darkroom_catalog::ColourLabel::Purple => Color32::from_rgb(150, 80, 190),
        }),
        _ => None,
    }
}

/// "3 stars · Pick" and friends, for the cell and the loupe caption.
fn badge_text(e: &Entry) -> String {
    let mut parts = Vec::new();
    // Words, not ★: egui's bundled fonts have no star glyph.
    match e.decision.stars {
        0 => {}
        1 => parts.push("1 star".into()),
        n => parts.push(format!("{n} stars")),
    }
    match e.decision.flag {
        Flag::Pick => parts.push("Pick".into()),
        Flag::Reject => parts.push("Reject".into()),
        Flag::Unflagged => {}
    }
    if e.pending {
        parts.push("saving…".into());
    }
    parts.join(" · ")
}

/// The index's marks: blurry, eyes closed, the burst and its suggested keeper.
/// What the grid's marks depend on besides the photo.
struct Marks<'a> {
    detector: &'a str,
    blurry_below: f32,
    /// Bursts are stacked in this view (no filter).
    stacked: bool,
    expanded: &'a std::collections::HashSet<usize>,
}

fn marks_text(e: &Entry, m: &Marks<'_>) -> String {
    let Some(a) = &e.analysis else {
        return String::new();
    };
    let mut parts = Vec::new();
    if a.detector != m.detector {
        // Never mixed silently: these rows came from another detector.
        parts.push(format!("indexed with {}", a.detector));
    }
    if let Some(b) = &a.burst {
        if m.stacked && !m.expanded.contains(&b.id) {
            parts.push(format!("burst of {} (B opens)", b.size));
        } else {
            parts.push(format!("burst {}/{}", b.position, b.size));
        }
        if b.suggested {
            parts.push("suggested".to_string());
        }
    }
    if a.sharpness < m.blurry_below {
        parts.push("blurry".to_string());
    }
    if a.eyes_closed {
        parts.push("eyes closed".to_string());
    }
    parts.join(" · ")
}

fn file_name(e: &Entry) -> String {
    e.item
        .primary
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn cell(ui: &mut egui::Ui, e: &Entry, selected: bool, marks: &Marks<'_>) -> egui::Response {
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(CELL - 8.0, CELL - 8.0), egui::Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let image_rect = rect.shrink(6.0).with_max_y(rect.max.y - 26.0);
    match &e.thumb {
        Picture::Ready(tex) => {
            let size = tex.size_vec2();
            let scale = (image_rect.width() / size.x).min(image_rect.height() / size.y);
            let fitted = egui::Rect::from_center_size(image_rect.center(), size * scale);
            painter.image(
                tex.id(),
                fitted,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        Picture::Failed(_) => {
            painter.text(
                image_rect.center(),
                egui::Align2::CENTER_CENTER,
                "cannot read",
                egui::FontId::proportional(14.0),
                Color32::LIGHT_RED,
            );
        }
        _ => {}
    }
    if e.decision.flag == Flag::Reject {
        painter.rect_filled(image_rect, 0.0, Color32::from_black_alpha(140));
    }
    if let Some(c) = label_colour(&e.decision.label) {
        painter.rect_filled(
            egui::Rect::from_min_size(
                rect.left_bottom() - egui::vec2(0.0, 6.0),
                egui::vec2(rect.width(), 6.0),
            ),
            0.0,
            c,
        );
    }
    let marks_line = marks_text(e, marks);
    if !marks_line.is_empty() {
        // The index's marks over the picture's top edge, legible on any photo.
        let font = egui::FontId::proportional(11.0);
        let galley = painter.layout_no_wrap(marks_line, font, Color32::WHITE);
        let at = rect.left_top() + egui::vec2(6.0, 6.0);
        painter.rect_filled(
            egui::Rect::from_min_size(at, galley.size() + egui::vec2(8.0, 4.0)),
            3.0,
            Color32::from_black_alpha(170),
        );
        painter.galley(at + egui::vec2(4.0, 2.0), galley, Color32::WHITE);
    }
    let text = format!("{}  {}", file_name(e), badge_text(e));
    painter.text(
        rect.left_bottom() + egui::vec2(6.0, -14.0),
        egui::Align2::LEFT_CENTER,
        text,
        egui::FontId::proportional(11.0),
        ui.visuals().text_color(),
    );
    if e.error.is_some() {
        // The per-item error badge: the cause is in the hover text and the loupe caption.
        let at = rect.right_top() + egui::vec2(-14.0, 14.0);
        painter.circle_filled(at, 9.0, Color32::from_rgb(200, 40, 40));
        painter.text(
            at,
            egui::Align2::CENTER_CENTER,
            "!",
            egui::FontId::proportional(13.0),
            Color32::WHITE,
        );
    }
    if selected {
        painter.rect_stroke(
            rect,
            4.0,
            egui::Stroke::new(2.5, ui.visuals().selection.stroke.color),
            egui::StrokeKind::Inside,
        );
    }
    let mut label = [file_name(e), badge_text(e), marks_text(e, marks)]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    if let Some(err) = &e.error {
        label.push_str(&format!(" · error: {err}"));
    }
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
    if let Some(err) = &e.error {
        response.on_hover_text(err)
    } else {
        response
    }
}

fn caption(ui: &mut egui::Ui, e: &Entry) {
    ui.horizontal(|ui| {
        ui.strong(file_name(e));
        ui.label(badge_text(e));
        if let Some(err) = &e.error {
            ui.colored_label(Color32::LIGHT_RED, RichText::new(err));
        }
    });
}

/// The loupe's close-ups: every face at 100% (up to a fixed size) with its focus and eyes, so a
/// missed focus or a blink shows without zooming around the photo.
fn face_strip(ui: &mut egui::Ui, tiles: &[FaceTile]) {
    egui::ScrollArea::horizontal().show(ui, |ui| {
        ui.horizontal(|ui| {
            for t in tiles {
                ui.vertical(|ui| {
                    let size = t.texture.size_vec2().min(egui::vec2(
                        workers::FACE_CROP_MAX as f32,
                        workers::FACE_CROP_MAX as f32,
                    ));
                    // Shown at most 128 points high; the pixels stay the photo's own.
                    let shown = size * (128.0 / size.y).min(1.0);
                    ui.image((t.texture.id(), shown));
                    ui.label(format!("focus {:.0}", t.sharpness));
                    match t.eyes_closed {
                        Some(true) => {
                            ui.colored_label(Color32::from_rgb(230, 120, 90), "eyes closed");
                        }
                        Some(false) => {
                            ui.label("eyes open");
                        }
                        None => {}
                    }
                });
            }
        });
    });
}

fn show_picture(ui: &mut egui::Ui, e: &Entry, zoom_100: bool) {
    match &e.loupe {
        Picture::Ready(tex) => {
            if zoom_100 {
                egui::ScrollArea::both().auto_shrink(false).show(ui, |ui| {
                    ui.image((tex.id(), tex.size_vec2()));
                });
            } else {
                let avail = ui.available_size();
                let size = tex.size_vec2();
                let scale = (avail.x / size.x).min(avail.y / size.y).min(1.0);
                ui.centered_and_justified(|ui| {
                    ui.image((tex.id(), size * scale));
                });
            }
        }
        Picture::Failed(err) => {
            ui.colored_label(Color32::LIGHT_RED, err);
        }
        _ => {
            ui.centered_and_justified(|ui| ui.spinner());
        }
    }
}

/// The eframe shell around [`DarkRoom`].
struct Window {
    app: DarkRoom,
    frames: u64,
    /// `--report-first-frame`: say when the first frame is on screen, then close.
    report_first_frame: bool,
}

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frames += 1;
        if self.report_first_frame {
            // eframe presents a frame before it asks for the next one: reaching the second
            // means the first is on screen.
            if self.frames == 2 {
                use std::io::Write;
                let mut out = std::io::stdout();
                let _ = writeln!(out, "first-frame");
                let _ = out.flush();
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
            ui.ctx().request_repaint();
        }
        self.app.ui(ui);
    }
}

/// `darkroom [FOLDER]`: open the window. Everything slow starts in the background after the
/// first frame is on its way.
pub fn run(
    folder: Option<PathBuf>,
    report_first_frame: bool,
) -> anyhow::Result<std::process::ExitCode> {
    use anyhow::Context;
    let data = darkroom_engine::paths::data_dir()
        .context("no data directory: set DARKROOM_DATA_DIR or HOME")?;
    let cache = darkroom_engine::paths::cache_dir()
        .context("no cache directory: set DARKROOM_CACHE_DIR or HOME")?;
    let settings_file = data.join("settings.json");
    let settings = AppSettings::load(&settings_file);
    let inference_dir =
        darkroom_engine::paths::inference_dir().context("no inference directory: set HOME")?;
    let backend_settings = darkroom_engine::ladder::BackendSettings::load(&inference_dir)
        .unwrap_or_else(|e| {
            eprintln!("darkroom: {e}");
            Default::default()
        });
    let models = crate::cli::models_dir(None)?;
    let models_dir = models.clone();
    // A few stats before the window opens: which detector files are there.
    let cards = darkroom_engine::CardSet::builtin().ok();
    let detectors = panels::DETECTOR_TIERS
        .iter()
        .map(|&(tier, model_id)| panels::DetectorChoice {
            tier,
            model_id,
            installed: cards
                .as_ref()
                .and_then(|cards| cards.get(model_id).ok())
                .is_some_and(|c| models.join(&c.file).is_file()),
        })
        .collect();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    // Loading the runtime, hashing the models and probing are CPU work: after the first frame.
    let start_engine = move || {
        let started = std::thread::Builder::new()
            .name("darkroom-engine-start".into())
            .spawn(move || {
                let store = darkroom_engine::CardSet::builtin()
                    .map(|cards| darkroom_engine::ModelStore::new(models, cards));
                match store
                    .map_err(anyhow::Error::from)
                    .and_then(|s| crate::backend_cmd::start(s, false))
                {
                    Ok((backend, _)) => {
                        let _ = tx.send(backend);
                    }
                    Err(e) => eprintln!("darkroom: the inference engine did not start: {e:#}"),
                }
            });
        if let Err(e) = started {
            eprintln!("darkroom: cannot start the engine thread: {e}");
        }
    };
    let setup = Setup {
        folder,
        catalog: data.join("catalog.sqlite"),
        thumb_cache: cache.join("thumbs"),
        naming: settings.naming,
        recent: settings.recent,
        status: StatusSource::Starting(rx),
        thumb_threads: num_threads(),
        knobs: panels::EngineKnobs::resolve(backend_settings),
        settings_file: Some(settings_file),
        inference_dir: Some(inference_dir),
        pick_folder: workers::system_folder_dialog(),
        on_first_frame: vec![Box::new(start_engine)],
        detectors,
        detector: settings
            .detector
            .clone()
            .unwrap_or_else(|| panels::DEFAULT_DETECTOR.to_string()),
        blurry_below: settings
            .blurry_below
            .unwrap_or(darkroom_index::Thresholds::default().blurry_below),
        model_mirror: darkroom_models::ModelManager::mirror_from_env(),
        models_dir: Some(models_dir),
    };
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("DarkRoom")
            .with_inner_size([1280.0, 820.0]),
        ..Default::default()
    };
    eframe::run_native(
        "DarkRoom",
        options,
        Box::new(move |cc| {
            Ok(Box::new(Window {
                app: DarkRoom::new(&cc.egui_ctx, setup),
                frames: 0,
                report_first_frame,
            }))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// "2 min", "40 s": an estimate, said plainly.
fn eta(seconds: f64) -> String {
    if seconds >= 90.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.0} s", seconds.max(1.0))
    }
}

/// Thumbnail workers: all cores but one for the UI.
pub fn num_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .saturating_sub(1)
        .max(1)
}
