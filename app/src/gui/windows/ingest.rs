//! The Ingest window: a card onto the working drive and a backup. The card, the drives, the
//! naming pattern and the job are set here, with a live preview of the first names (made on
//! the UI thread from the card's survey, which a worker read); Ingest plans on a worker, asks
//! what to do when names are taken on a drive, then copies with progress and Cancel. As
//! photos land the app shows the working folder, so culling starts before the copy ends.

use std::path::PathBuf;

use darkroom_library::ingest::Pattern;

use super::{AppWindow, Intent, WindowEnv};
use crate::gui::tasks::{Latest, Task, Waker};
use crate::gui::theme;
use crate::gui::workers::{self, Cancel, FolderAsk, Landed, PickFolder};
use darkroom_catalog::{SidecarNaming, SidecarWords};
use darkroom_ingest::{
    self as service, Collisions, DEFAULT_PATTERN, Options, Outcome, Plan, Progress, Surveyed,
};

pub use crate::gui::intent::{IngestAction, IngestSlot};

/// How many names the preview shows.
const PREVIEW: usize = 5;

enum Stage {
    Setup,
    Choosing(IngestSlot, Task<Option<PathBuf>>),
    Planning(Task<Result<Plan, String>>),
    Ask(Plan),
    Running {
        task: Task<Result<Outcome, String>>,
        progress: Latest<Progress>,
        cancel: Cancel,
    },
}

/// What the ingest holds between frames.
pub struct IngestWindow {
    stage: Stage,
    open: bool,
    pub card: Option<PathBuf>,
    pub to: Option<PathBuf>,
    pub backup: Option<PathBuf>,
    pub pattern: String,
    pub job: String,
    /// The card's photos for the preview, and the survey reading them.
    survey: Option<Result<Vec<Surveyed>, String>>,
    surveying: Option<Task<Result<Vec<Surveyed>, String>>>,
    /// Photos landed on the working drive and not yet shown.
    landed: Landed,
    /// A run's progress frozen for a picture of the window (snapshots): shown as running.
    shown_progress: Option<Progress>,
    pub outcome: Option<Result<String, String>>,
    /// Settings' sidecar naming and words, which the copies' sidecars follow.
    sidecars: (SidecarNaming, SidecarWords),
}

impl Default for IngestWindow {
    fn default() -> Self {
        IngestWindow {
            stage: Stage::Setup,
            open: false,
            card: None,
            to: None,
            backup: None,
            pattern: DEFAULT_PATTERN.to_owned(),
            job: String::new(),
            survey: None,
            surveying: None,
            landed: Landed::default(),
            sidecars: Default::default(),
            shown_progress: None,
            outcome: None,
        }
    }
}

/// What the window tells the app as it goes.
pub enum IngestNews {
    /// These photos (each its files on the working drive, primary first) landed: show them.
    Landed(PathBuf, Vec<Vec<PathBuf>>),
    Ended,
}

impl IngestWindow {
    /// Open the window; a card the app has open is the card to ingest.
    pub fn start(&mut self, card: Option<PathBuf>, catalog: PathBuf, wake: &Waker) {
        self.open = true;
        if card.is_some() && self.card.is_none() && !self.busy() {
            self.card = card;
            self.resurvey(catalog, wake);
        }
    }

    /// Out of sight; a running copy goes on.
    pub fn hide(&mut self) {
        self.open = false;
        self.shown_progress = None;
    }

    /// "Ingesting 3 of 40…" while a copy runs.
    pub fn running_line(&self) -> Option<String> {
        match &self.stage {
            Stage::Running { progress, .. } => Some(
                progress.read(|p| format!("Ingesting {} of {}…", p.photos_done, p.photos_total)),
            ),
            Stage::Planning(_) => Some("Ingest: reading the card…".to_owned()),
            _ => None,
        }
    }

    /// Anything of it on a worker or a dialog (the window looks again soon).
    pub fn working(&self) -> bool {
        self.busy() || self.surveying.is_some() || matches!(self.stage, Stage::Choosing(..))
    }

    /// The card is being copied (not only planned).
    pub fn copying(&self) -> bool {
        matches!(self.stage, Stage::Running { .. })
    }

    /// Photos of the running copy still to land.
    pub fn left_to_copy(&self) -> usize {
        match &self.stage {
            Stage::Running { progress, .. } => {
                progress.read(|p| p.photos_total.saturating_sub(p.photos_done))
            }
            _ => 0,
        }
    }

    /// Stop the running copy at the next file (what landed stays; the next ingest finishes
    /// the rest).
    pub fn stop(&mut self) {
        if let Stage::Running { cancel, .. } = &self.stage {
            cancel.set();
        }
    }

    pub fn busy(&self) -> bool {
        matches!(self.stage, Stage::Planning(_) | Stage::Running { .. })
    }

    pub fn showing(&self) -> bool {
        self.open
    }

    fn options(&self) -> Result<Options, String> {
        let card = self.card.clone().ok_or("Choose the card first")?;
        let to = self.to.clone().ok_or("Choose the working folder")?;
        let pattern = Pattern::parse(&self.pattern).map_err(|e| e.to_string())?;
        Ok(Options {
            source: card,
            to,
            backups: self.backup.iter().cloned().collect(),
            pattern,
            job: self.job.clone(),
            write_times: false,
            naming: self.sidecars.0,
            words: self.sidecars.1,
        })
    }

    fn resurvey(&mut self, catalog: PathBuf, wake: &Waker) {
        let Some(card) = self.card.clone() else {
            return;
        };
        self.survey = None;
        self.surveying = Some(Task::spawn(
            "the card's survey",
            1,
            wake.clone(),
            move |out| {
                let found = darkroom_catalog::Catalog::open(
                    &catalog,
                    darkroom_catalog::SidecarNaming::default(),
                )
                .map_err(anyhow::Error::from)
                .and_then(|c| {
                    service::survey(&card, &c, &std::sync::atomic::AtomicBool::new(false))
                        .map_err(anyhow::Error::from)
                })
                .map(|(photos, _)| photos)
                .map_err(|e| format!("{e:#}"));
                out.send(found);
            },
        ));
    }

    /// Carry out `action`; `sidecars` are Settings' naming and words as they are now.
    pub fn act(
        &mut self,
        action: IngestAction,
        pick_folder: &PickFolder,
        catalog: PathBuf,
        sidecars: (SidecarNaming, SidecarWords),
        wake: &Waker,
    ) {
        self.sidecars = sidecars;
        match action {
            IngestAction::Choose(slot) => {
                if self.busy() {
                    return;
                }
                let (title, start) = match slot {
                    IngestSlot::Card => (workers::INGEST_CARD, self.card.clone()),
                    IngestSlot::To => (workers::INGEST_TO, self.to.clone()),
                    IngestSlot::Backup => (workers::INGEST_BACKUP, self.backup.clone()),
                };
                self.stage = Stage::Choosing(
                    slot,
                    workers::pick_folder(
                        pick_folder.clone(),
                        FolderAsk { title, start },
                        wake.clone(),
                    ),
                );
            }
            IngestAction::NoBackup => self.backup = None,
            IngestAction::Start => {
                if !matches!(self.stage, Stage::Setup) {
                    return;
                }
                match self.options() {
                    Ok(options) => {
                        self.outcome = None;
                        self.stage = Stage::Planning(workers::ingest_plan(
                            options,
                            catalog,
                            Cancel::default(),
                            wake.clone(),
                        ));
                    }
                    Err(why) => self.outcome = Some(Err(why)),
                }
            }
            IngestAction::Collisions(answer) => {
                let Stage::Ask(_) = &self.stage else {
                    return;
                };
                let Stage::Ask(plan) = std::mem::replace(&mut self.stage, Stage::Setup) else {
                    return;
                };
                self.run(plan.with_collisions(answer), catalog, wake);
            }
            IngestAction::Cancel => match &self.stage {
                Stage::Running { cancel, .. } => cancel.set(),
                _ => {
                    self.stage = Stage::Setup;
                    self.open = false;
                    self.outcome = None;
                    self.shown_progress = None;
                }
            },
        }
    }

    fn run(&mut self, plan: Plan, catalog: PathBuf, wake: &Waker) {
        let options = match self.options() {
            Ok(o) => o,
            Err(why) => {
                self.outcome = Some(Err(why));
                return;
            }
        };
        let progress = Latest::default();
        let cancel = Cancel::default();
        self.stage = Stage::Running {
            task: workers::ingest(
                plan,
                options,
                catalog,
                cancel.clone(),
                progress.clone(),
                self.landed.clone(),
                wake.clone(),
            ),
            progress,
            cancel,
        };
    }

    /// Take the workers' answers (from `logic`).
    pub fn poll(&mut self, catalog: PathBuf, wake: &Waker) -> Option<IngestNews> {
        if let Some(task) = &self.surveying
            && let Some(answer) = task.answer()
        {
            self.surveying = None;
            self.survey = Some(answer.and_then(|r| r));
        }
        let landed: Vec<Vec<PathBuf>> = {
            let mut l = self.landed.lock().unwrap_or_else(|p| p.into_inner());
            std::mem::take(&mut *l)
        };
        if !landed.is_empty()
            && let Some(to) = self.to.clone()
        {
            return Some(IngestNews::Landed(to, landed));
        }
        match &mut self.stage {
            Stage::Setup | Stage::Ask(_) => None,
            Stage::Choosing(slot, task) => {
                let slot = *slot;
                let answer = task.answer()?;
                self.stage = Stage::Setup;
                match answer {
                    Ok(Some(dir)) => match slot {
                        IngestSlot::Card => {
                            self.card = Some(dir);
                            self.resurvey(catalog, wake);
                        }
                        IngestSlot::To => self.to = Some(dir),
                        IngestSlot::Backup => self.backup = Some(dir),
                    },
                    Ok(None) => {}
                    Err(died) => self.outcome = Some(Err(died)),
                }
                None
            }
            Stage::Planning(task) => {
                let answer = task.answer()?;
                match answer.and_then(|r| r) {
                    Ok(plan) if plan.collisions() > 0 => self.stage = Stage::Ask(plan),
                    Ok(plan) => self.run(plan, catalog, wake),
                    Err(why) => {
                        self.stage = Stage::Setup;
                        self.outcome = Some(Err(why));
                    }
                }
                None
            }
            Stage::Running { task, .. } => {
                let answer = task.answer()?;
                self.outcome = Some(answer.and_then(|r| r).and_then(|o| said(&o)));
                self.stage = Stage::Setup;
                Some(IngestNews::Ended)
            }
        }
    }

    /// The window as a run shows it at `progress` (for a picture of it: the snapshots).
    pub fn show_progress(&mut self, progress: Progress) {
        self.open = true;
        self.shown_progress = Some(progress);
    }

    fn setup_ui(&mut self, ui: &mut egui::Ui, action: &mut Option<IngestAction>) {
        let enabled = matches!(self.stage, Stage::Setup);
        let folder_row = |ui: &mut egui::Ui, label: &str, path: &Option<PathBuf>, slot| {
            let mut clicked = false;
            ui.horizontal(|ui| {
                clicked = ui
                    .add_enabled(enabled, egui::Button::new(format!("{label}…")))
                    .clicked();
                match path {
                    Some(p) => ui.monospace(p.display().to_string()),
                    None => ui.weak("not chosen"),
                };
            });
            clicked.then_some(IngestAction::Choose(slot))
        };
        if let Some(a) = folder_row(ui, "Card", &self.card, IngestSlot::Card) {
            *action = Some(a);
        }
        if let Some(a) = folder_row(ui, "Working folder", &self.to, IngestSlot::To) {
            *action = Some(a);
        }
        if let Some(a) = folder_row(ui, "Backup", &self.backup, IngestSlot::Backup) {
            *action = Some(a);
        }
        if self.backup.is_some() && ui.small_button("No backup").clicked() {
            *action = Some(IngestAction::NoBackup);
        }
        ui.horizontal(|ui| {
            ui.label("Names");
            ui.add_enabled(
                enabled,
                egui::TextEdit::singleline(&mut self.pattern)
                    .desired_width(260.0)
                    .hint_text(DEFAULT_PATTERN),
            )
            .on_hover_text(
                "{date} {year} {month} {day} {time} {camera} {serial} {name} {number} {job} {seq:N}; '/' makes folders",
            );
            ui.label("Job");
            ui.add_enabled(
                enabled,
                egui::TextEdit::singleline(&mut self.job)
                    .desired_width(120.0)
                    .hint_text("wedding"),
            );
        });
        self.preview_ui(ui);
    }

    fn preview_ui(&self, ui: &mut egui::Ui) {
        let pattern = match Pattern::parse(&self.pattern) {
            Ok(p) => p,
            Err(e) => {
                ui.colored_label(theme::ERROR_TEXT, e.to_string());
                return;
            }
        };
        match &self.survey {
            None if self.surveying.is_some() => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Reading the card…");
                });
            }
            None => {
                ui.weak("Choose the card to see the names its photos will get.");
            }
            Some(Err(why)) => {
                ui.colored_label(theme::ERROR_TEXT, why);
            }
            Some(Ok(photos)) => {
                ui.label(format!(
                    "{} on the card, first names in shooting order:",
                    photos_word(photos.len())
                ));
                for (p, name) in photos
                    .iter()
                    .zip(service::preview(photos, &pattern, &self.job, PREVIEW))
                {
                    let from = p
                        .item
                        .primary
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    ui.monospace(format!("{from}  →  {}", name.display()));
                }
            }
        }
    }

    fn show(&mut self, ui: &mut egui::Ui) -> Option<IngestAction> {
        let mut action = None;
        if let Some(p) = self.shown_progress.clone() {
            progress_ui(ui, &p, &mut action);
            return action;
        }
        match &self.stage {
            Stage::Setup | Stage::Choosing(..) => {
                self.setup_ui(ui, &mut action);
                let ready = self.options().is_ok();
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(ready, egui::Button::new("Copy and verify"))
                        .on_disabled_hover_text("Choose the card and the working folder")
                        .clicked()
                    {
                        action = Some(IngestAction::Start);
                    }
                    if ui.button("Close").clicked() {
                        action = Some(IngestAction::Cancel);
                    }
                });
            }
            Stage::Planning(_) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Reading the card and naming its photos…");
                });
            }
            Stage::Ask(plan) => {
                ui.label(format!(
                    "{} to copy ({}), {} ingested before.",
                    photos_word(plan.new_photos()),
                    super::size_words(plan.bytes()),
                    plan.already()
                ));
                ui.colored_label(
                    theme::WARNING,
                    format!(
                        "{} would land on a name another file already has on a drive:",
                        photos_word(plan.collisions())
                    ),
                );
                for p in plan.photos.iter().filter(|p| p.collided).take(PREVIEW) {
                    ui.monospace(format!("{}  →  {}", file_name(&p.source), p.stem.display()));
                }
                ui.weak("Nothing is ever overwritten.");
                ui.horizontal(|ui| {
                    if ui.button("Number them (-2, -3…)").clicked() {
                        action = Some(IngestAction::Collisions(Collisions::Number));
                    }
                    if ui.button("Leave them on the card").clicked() {
                        action = Some(IngestAction::Collisions(Collisions::Skip));
                    }
                    if ui.button("Cancel").clicked() {
                        action = Some(IngestAction::Cancel);
                    }
                });
            }
            Stage::Running { progress, .. } => {
                let p = progress.read(Clone::clone);
                progress_ui(ui, &p, &mut action);
            }
        }
        match &self.outcome {
            Some(Ok(text)) => {
                ui.label(text);
            }
            Some(Err(why)) => {
                ui.colored_label(theme::ERROR_TEXT, why);
            }
            None => {}
        }
        action
    }
}

fn progress_ui(ui: &mut egui::Ui, p: &Progress, action: &mut Option<IngestAction>) {
    let fraction = if p.bytes_total > 0 {
        p.bytes_done as f32 / p.bytes_total as f32
    } else {
        0.0
    };
    ui.label(format!(
        "{} of {} photos on the drives, verified",
        p.photos_done, p.photos_total
    ));
    ui.label(p.line());
    ui.add(egui::ProgressBar::new(fraction).show_percentage());
    ui.weak("Cull the photos that landed while the rest is copied.");
    if ui.button("Cancel").clicked() {
        *action = Some(IngestAction::Cancel);
    }
}

impl AppWindow for IngestWindow {
    fn title(&self) -> &'static str {
        "Ingest"
    }

    fn contents(&mut self, ui: &mut egui::Ui, _env: &WindowEnv<'_>, intents: &mut Vec<Intent>) {
        if let Some(action) = self.show(ui) {
            intents.push(Intent::Ingest(action));
        }
    }
}

/// "12 photos copied (31 files, 412.0 MB) and verified", and what stopped it.
fn said(o: &Outcome) -> Result<String, String> {
    let mut text = format!(
        "{} copied ({} files, {}) and verified",
        photos_word(o.copied_photos),
        o.copied_files,
        super::size_words(o.bytes)
    );
    if o.decisions_carried > 0 {
        text.push_str(&format!(
            "; {} decided on the card went into their sidecars",
            o.decisions_carried
        ));
    }
    if o.resumed > 0 {
        text.push_str(&format!(
            "; {} finished from an ingest that stopped",
            photos_word(o.resumed)
        ));
    }
    if let Some(why) = &o.stopped {
        return Err(format!("{text}. Stopped: {why}. Ingest again to continue."));
    }
    if !o.failed.is_empty() {
        let (file, why) = &o.failed[0];
        return Err(format!(
            "{text}. {} failed, first {}: {why}",
            photos_word(o.failed.len()),
            file.display()
        ));
    }
    Ok(text)
}

fn file_name(p: &std::path::Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn photos_word(n: usize) -> String {
    super::count_words(n, "photo", "photos")
}
