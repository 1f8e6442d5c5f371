//! The export window: hand the picks to the next tool. The folder dialog, the plan (what goes
//! where, what is there already) and the copy all run on workers; this holds where the export
//! is and shows it: what will be copied and how much, copy or move, what to do with files
//! already there (asked, never assumed), then the progress with Cancel, then what was done.

use std::path::PathBuf;

use darkroom_library::Item;
use darkroom_library::export::{Existing, Mode, Plan, Progress, Report};

use super::{AppWindow, Intent, WindowEnv};
use crate::gui::tasks::{Latest, Task, Waker};
use crate::gui::theme;
use crate::gui::workers::{self, Cancel, FolderAsk, PickFolder};

pub use crate::gui::intent::ExportAction;

enum Stage {
    Idle,
    Choosing(Task<Option<PathBuf>>),
    Planning(Task<Result<Plan, String>>),
    Confirm(Plan),
    Running {
        task: Task<Result<Report, String>>,
        progress: Latest<Progress>,
        cancel: Cancel,
    },
}

/// What the export holds between frames.
pub struct ExportWindow {
    stage: Stage,
    pub mode: Mode,
    /// What to do with files already there; asked when there are some.
    pub existing: Existing,
    /// The picks and the folder they were found in, from when the export started.
    picks: Vec<Item>,
    root: PathBuf,
    /// What the last export did (or why it did not), newest last.
    pub outcome: Option<Result<String, String>>,
}

impl Default for ExportWindow {
    fn default() -> Self {
        ExportWindow {
            stage: Stage::Idle,
            mode: Mode::Copy,
            existing: Existing::Refuse,
            picks: Vec::new(),
            root: PathBuf::new(),
            outcome: None,
        }
    }
}

/// What the window tells the app once an export ended.
pub enum ExportEnded {
    /// Files were moved out of the open folder: it is scanned again.
    Moved,
    Other,
}

impl ExportWindow {
    /// Ask where the picks go (the dialog runs on its own thread).
    pub fn start(
        &mut self,
        picks: Vec<Item>,
        root: PathBuf,
        pick_folder: &PickFolder,
        wake: &Waker,
    ) {
        if self.busy() {
            return;
        }
        self.outcome = None;
        self.existing = Existing::Refuse;
        self.stage = Stage::Choosing(workers::pick_folder(
            pick_folder.clone(),
            FolderAsk {
                title: workers::EXPORT_FOLDER,
                start: None,
            },
            wake.clone(),
        ));
        self.picks = picks;
        self.root = root;
    }

    pub fn busy(&self) -> bool {
        !matches!(self.stage, Stage::Idle | Stage::Confirm(_))
    }

    /// Whether the window should be on screen.
    pub fn showing(&self) -> bool {
        !matches!(self.stage, Stage::Idle | Stage::Choosing(_)) || self.outcome.is_some()
    }

    pub fn act(&mut self, action: ExportAction, wake: &Waker) {
        match action {
            ExportAction::SetMode(m) => self.mode = m,
            ExportAction::SetExisting(e) => self.existing = e,
            ExportAction::Start => {
                if !matches!(self.stage, Stage::Confirm(_)) {
                    return;
                }
                let Stage::Confirm(plan) = std::mem::replace(&mut self.stage, Stage::Idle) else {
                    return;
                };
                let progress = Latest::default();
                let cancel = Cancel::default();
                self.stage = Stage::Running {
                    task: workers::export(
                        plan,
                        self.mode,
                        self.existing,
                        cancel.clone(),
                        progress.clone(),
                        wake.clone(),
                    ),
                    progress,
                    cancel,
                };
            }
            ExportAction::Cancel => match &self.stage {
                Stage::Running { cancel, .. } => cancel.set(),
                _ => {
                    self.stage = Stage::Idle;
                    self.outcome = None;
                }
            },
        }
    }

    /// Take the workers' answers (from `logic`). Some: an export just ended.
    pub fn poll(&mut self, wake: &Waker) -> Option<ExportEnded> {
        match &mut self.stage {
            Stage::Idle | Stage::Confirm(_) => None,
            Stage::Choosing(task) => {
                let answer = task.answer()?;
                self.stage = match answer {
                    Ok(Some(dest)) => Stage::Planning(workers::export_plan(
                        std::mem::take(&mut self.picks),
                        self.root.clone(),
                        dest,
                        wake.clone(),
                    )),
                    Ok(None) => Stage::Idle,
                    Err(died) => {
                        self.outcome = Some(Err(died));
                        Stage::Idle
                    }
                };
                None
            }
            Stage::Planning(task) => {
                let answer = task.answer()?;
                self.stage = match answer.and_then(|r| r) {
                    Ok(plan) => Stage::Confirm(plan),
                    Err(why) => {
                        self.outcome = Some(Err(why));
                        Stage::Idle
                    }
                };
                None
            }
            Stage::Running { task, .. } => {
                let answer = task.answer()?;
                let moved = self.mode == Mode::Move;
                self.outcome = Some(answer.and_then(|r| r).map(|r| said(&r, self.mode)));
                self.stage = Stage::Idle;
                Some(if moved {
                    ExportEnded::Moved
                } else {
                    ExportEnded::Other
                })
            }
        }
    }

    fn show(&self, ui: &mut egui::Ui) -> Option<ExportAction> {
        let mut action = None;
        match &self.stage {
            Stage::Confirm(plan) => {
                let items = plan.files.len();
                ui.label(format!(
                    "{} ({}) into {}",
                    files_word(items),
                    super::size_words(plan.total_bytes()),
                    plan.dest.display()
                ));
                ui.weak("Each pick's RAW and JPEG and their XMP sidecars, kept at their place under the folder; a list of what was copied goes with them.");
                ui.horizontal(|ui| {
                    for (mode, text) in [
                        (Mode::Copy, "Copy them"),
                        (Mode::Move, "Move them (originals removed once copied)"),
                    ] {
                        if ui.radio(self.mode == mode, text).clicked() {
                            action = Some(ExportAction::SetMode(mode));
                        }
                    }
                });
                let there = plan.conflicts().count();
                if there > 0 {
                    ui.colored_label(
                        theme::WARNING,
                        format!("{} already in the destination:", files_word(there)),
                    );
                    ui.horizontal(|ui| {
                        for (e, text) in [
                            (Existing::Skip, "Leave them, copy the rest"),
                            (Existing::Overwrite, "Replace them"),
                        ] {
                            if ui.radio(self.existing == e, text).clicked() {
                                action = Some(ExportAction::SetExisting(e));
                            }
                        }
                    });
                }
                let ready = there == 0 || self.existing != Existing::Refuse;
                ui.horizontal(|ui| {
                    let verb = if self.mode == Mode::Move {
                        "Move"
                    } else {
                        "Copy"
                    };
                    if ui
                        .add_enabled(ready, egui::Button::new(verb))
                        .on_disabled_hover_text("Say what to do with the files already there")
                        .clicked()
                    {
                        action = Some(ExportAction::Start);
                    }
                    if ui.button("Cancel").clicked() {
                        action = Some(ExportAction::Cancel);
                    }
                });
            }
            Stage::Running { progress, .. } => {
                let p = progress.read(|p| *p);
                let fraction = if p.bytes > 0 {
                    p.bytes_done as f32 / p.bytes as f32
                } else {
                    0.0
                };
                ui.label(format!("{} of {} files", p.files_done, p.files));
                ui.add(egui::ProgressBar::new(fraction).show_percentage());
                if ui.button("Cancel").clicked() {
                    action = Some(ExportAction::Cancel);
                }
            }
            Stage::Planning(_) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Looking at what goes where…");
                });
            }
            Stage::Idle | Stage::Choosing(_) => {}
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
        if self.outcome.is_some() && ui.button("Close").clicked() {
            action = Some(ExportAction::Cancel);
        }
        action
    }
}

impl AppWindow for ExportWindow {
    fn title(&self) -> &'static str {
        "Export picks"
    }

    fn contents(&mut self, ui: &mut egui::Ui, _env: &WindowEnv<'_>, intents: &mut Vec<Intent>) {
        if let Some(action) = self.show(ui) {
            intents.push(Intent::Export(action));
        }
    }
}

/// "31 files copied into /dest (list: /dest/darkroom-export.txt)", and what was left alone.
fn said(r: &Report, mode: Mode) -> String {
    let verb = match mode {
        Mode::Copy => "copied",
        Mode::Move => "moved",
    };
    let mut text = format!("{} {verb}", files_word(r.copied.len()));
    if !r.skipped.is_empty() {
        text.push_str(&format!(", {} already there left alone", r.skipped.len()));
    }
    if r.cancelled {
        text.push_str(" before it was cancelled");
    }
    if let Some(list) = &r.list_file {
        text.push_str(&format!(" (list: {})", list.display()));
    }
    text
}

fn files_word(n: usize) -> String {
    super::count_words(n, "file", "files")
}
