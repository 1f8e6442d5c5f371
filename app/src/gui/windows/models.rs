//! The Models window: which models are installed, and getting the missing ones (download after
//! the licence is accepted, or install from a folder). All the work is the model manager's, on
//! its worker; this holds what the window shows and asks for.

use std::collections::BTreeSet;
use std::path::PathBuf;

use darkroom_models::{CardState, CardStatus, Progress};
use egui::RichText;

pub use crate::gui::intent::ModelsAction;

use super::{AppWindow, Intent, WindowEnv};
use crate::gui::tasks::{Task, Waker, take_answer};
use crate::gui::theme;
use crate::gui::workers::{self, Cancel, ModelsMsg, ModelsRequest};

/// What the Models window holds between frames.
#[derive(Default)]
pub struct ModelsWindow {
    /// None until the first refresh reports.
    pub rows: Option<Vec<CardStatus>>,
    /// Download URLs whose licence the user ticked.
    pub accepted: BTreeSet<String>,
    /// What the worker did, newest last.
    pub outcomes: Vec<Result<String, String>>,
    job: Option<Job>,
    /// The folder dialog for "Install from folder…", while it is open.
    folder_dialog: Option<Task<Option<PathBuf>>>,
}

struct Job {
    task: Task<ModelsMsg>,
    cancel: Cancel,
    /// The model being downloaded, if this job downloads.
    installing: Option<String>,
    progress: Option<Progress>,
}

/// Where the manager works, gathered by the window.
pub struct ModelsEnv<'a> {
    pub models_dir: &'a PathBuf,
    pub mirror: Option<String>,
    pub pick_folder: &'a workers::PickFolder,
    pub wake: &'a Waker,
}

impl AppWindow for ModelsWindow {
    fn title(&self) -> &'static str {
        "Models"
    }

    fn contents(&mut self, ui: &mut egui::Ui, env: &WindowEnv<'_>, intents: &mut Vec<Intent>) {
        let Some(dir) = env.models_dir else {
            intents.push(Intent::CloseOverlay);
            return;
        };
        if let Some(action) = self.show(ui, dir) {
            intents.push(Intent::Models(action));
        }
    }
}

impl ModelsWindow {
    pub fn busy(&self) -> bool {
        self.job.is_some() || self.folder_dialog.is_some()
    }

    /// Start a job unless one runs (one at a time: downloads share the models dir).
    pub fn start(&mut self, env: &ModelsEnv<'_>, request: ModelsRequest) {
        if self.job.is_some() {
            return;
        }
        let installing = match &request {
            ModelsRequest::Install(id) => Some(id.clone()),
            _ => None,
        };
        let cancel = Cancel::default();
        let task = workers::models_job(
            env.models_dir.clone(),
            env.mirror.clone(),
            request,
            cancel.clone(),
            env.wake.clone(),
        );
        self.job = Some(Job {
            task,
            cancel,
            installing,
            progress: None,
        });
    }

    pub fn act(&mut self, env: &ModelsEnv<'_>, action: ModelsAction) {
        match action {
            ModelsAction::Install(id) => self.start(env, ModelsRequest::Install(id)),
            ModelsAction::Cancel => {
                if let Some(job) = &self.job {
                    job.cancel.set();
                }
            }
            ModelsAction::FromFolder => {
                if self.folder_dialog.is_none() {
                    self.folder_dialog = Some(workers::pick_folder(
                        env.pick_folder.clone(),
                        workers::FolderAsk {
                            title: workers::MODELS_FOLDER,
                            start: None,
                        },
                        env.wake.clone(),
                    ));
                }
            }
        }
    }

    /// Take the worker's reports; returns the new rows when a job ended.
    pub fn poll(&mut self, env: &ModelsEnv<'_>) -> Option<&[CardStatus]> {
        match take_answer(&mut self.folder_dialog) {
            Some(Ok(Some(folder))) => self.start(env, ModelsRequest::FromFolder(folder)),
            Some(Ok(None)) => {}
            Some(Err(died)) => self.outcomes.push(Err(died)),
            None => {}
        }
        let job = self.job.as_mut()?;
        let drained = job.task.drain(64);
        let mut ended = drained.ended;
        if ended
            && !drained
                .items
                .iter()
                .any(|m| matches!(m, ModelsMsg::States(_)))
        {
            self.outcomes.push(Err(job.task.died()));
        }
        for msg in drained.items {
            match msg {
                ModelsMsg::Progress(p) => job.progress = Some(p),
                ModelsMsg::Outcome(o) => self.outcomes.push(o),
                ModelsMsg::States(rows) => {
                    self.rows = Some(rows);
                    ended = true;
                }
            }
        }
        // Only the last few lines matter to a person.
        let excess = self.outcomes.len().saturating_sub(6);
        self.outcomes.drain(..excess);
        if ended {
            self.job = None;
            return self.rows.as_deref();
        }
        None
    }

    /// The window's contents. Returns what the user asked for.
    fn show(&mut self, ui: &mut egui::Ui, models_dir: &std::path::Path) -> Option<ModelsAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            ui.label("Models folder:");
            ui.monospace(models_dir.display().to_string());
        });
        ui.add_space(6.0);
        let Some(rows) = &self.rows else {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Checking the installed models…");
            });
            return None;
        };
        let busy = self.job.is_some();
        egui::Grid::new("models")
            .num_columns(3)
            .spacing([14.0, 8.0])
            .striped(true)
            .show(ui, |ui| {
                // Test fixtures are listed only when installed or offered (by a mirror).
                let listed = |r: &&CardStatus| {
                    !r.fixture_only || r.state != CardState::Missing || r.offer.is_some()
                };
                for row in rows.iter().filter(listed) {
                    ui.monospace(&row.model_id);
                    // A detector's measured recall, an embedder's measured clustering: under
                    // its role, so the rows of one role compare at a glance.
                    match row.recall.as_ref().or(row.people.as_ref()) {
                        Some(recall) => {
                            ui.vertical(|ui| {
                                ui.label(role_name(row.role));
                                ui.label(RichText::new(recall).small().weak());
                            });
                        }
                        None => {
                            ui.label(role_name(row.role));
                        }
                    }
                    match &row.state {
                        CardState::Ready { sha256 } => {
                            ui.label(format!("installed · {}", &sha256[..12]));
                        }
                        CardState::Unusable { reason } => {
                            ui.colored_label(theme::ERROR_TEXT, "unusable")
                                .on_hover_text(reason);
                        }
                        CardState::Missing => match &row.offer {
                            // The user's own weights: what to bring, and under which licence.
                            None => {
                                ui.vertical(|ui| {
                                    ui.weak(format!(
                                        "not installed · import your {} (models import FILE --as {})",
                                        row.file, row.model_id
                                    ));
                                    ui.label(RichText::new(&row.licence).small());
                                });
                            }
                            Some(offer) => {
                                ui.vertical(|ui| {
                                    ui.label(RichText::new(&offer.title).strong());
                                    ui.label(RichText::new(&offer.licence).small());
                                    let file = offer.url.rsplit('/').next().unwrap_or_default();
                                    let mut ok = self.accepted.contains(&offer.url);
                                    let tick = ui.checkbox(
                                        &mut ok,
                                        format!("I accept the licence of {file}"),
                                    );
                                    if tick.changed() {
                                        if ok {
                                            self.accepted.insert(offer.url.clone());
                                        } else {
                                            self.accepted.remove(&offer.url);
                                        }
                                    }
                                    let installing =
                                        self.job.as_ref().and_then(|j| j.installing.as_deref())
                                            == Some(row.model_id.as_str());
                                    if installing {
                                        let p = self.job.as_ref().and_then(|j| j.progress);
                                        ui.horizontal(|ui| {
                                            progress_bar(ui, p);
                                            if ui.button("Cancel").clicked() {
                                                action = Some(ModelsAction::Cancel);
                                            }
                                        });
                                    } else if ui
                                        .add_enabled(
                                            ok && !busy,
                                            egui::Button::new(format!("Download {file}")),
                                        )
                                        .on_disabled_hover_text(
                                            "Tick the licence first (one download at a time)",
                                        )
                                        .clicked()
                                    {
                                        action = Some(ModelsAction::Install(row.model_id.clone()));
                                    }
                                });
                            }
                        },
                    }
                    ui.end_row();
                }
            });
        ui.add_space(8.0);
        ui.horizontal(|ui| {
            if ui
                .add_enabled(!self.busy(), egui::Button::new("Install from folder…"))
                .on_hover_text("Model files (or an upstream archive) you already have; they are checked against their pinned hashes and copied")
                .clicked()
            {
                action = Some(ModelsAction::FromFolder);
            }
            if busy && self.job.as_ref().is_some_and(|j| j.installing.is_none()) {
                ui.spinner();
            }
        });
        for o in &self.outcomes {
            match o {
                Ok(line) => ui.label(line),
                Err(line) => ui.colored_label(theme::ERROR_TEXT, line),
            };
        }
        action
    }
}

fn role_name(role: darkroom_engine::Role) -> &'static str {
    use darkroom_engine::Role;
    match role {
        Role::Detector => "face detector",
        Role::Embedder => "face embedder",
        Role::EyeState => "eye state",
        Role::Segmenter => "segmenter",
        Role::Scene => "scene",
        Role::FaceMesh => "face mesh",
        Role::Iris => "iris",
    }
}

fn progress_bar(ui: &mut egui::Ui, p: Option<Progress>) {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let (fraction, text) = match p {
        Some(Progress {
            done,
            total: Some(t),
        }) if t > 0 => (
            done as f32 / t as f32,
            format!("{:.1} of {:.1} MiB", mib(done), mib(t)),
        ),
        Some(Progress { done, .. }) => (0.0, format!("{:.1} MiB", mib(done))),
        None => (0.0, "connecting…".to_owned()),
    };
    ui.add(
        egui::ProgressBar::new(fraction)
            .desired_width(220.0)
            .text(text),
    );
}
