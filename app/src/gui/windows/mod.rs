//! The overlay windows (Help, Settings, About, Models, Export, Ingest), each a struct behind [`AppWindow`], as
//! egui_demo_lib does it: one frame for all of them, one at a time, Esc closes. They render the
//! state they are given and return what the user asked for as intents.

mod about;
pub mod export;
mod help;
pub mod ingest;
pub mod models;
pub mod settings;

use std::path::Path;

use darkroom_catalog::SidecarNaming;
use darkroom_engine::BackendStatus;

use super::intent::Intent;
use super::theme;

pub use super::intent::Overlay;
pub use about::AboutWindow;
pub use export::ExportWindow;
pub use help::HelpWindow;
pub use ingest::IngestWindow;
pub use models::ModelsWindow;
pub use settings::SettingsWindow;

/// What the windows render, gathered by the app each frame.
pub struct WindowEnv<'a> {
    pub status: Option<&'a BackendStatus>,
    pub naming: SidecarNaming,
    pub words: darkroom_catalog::SidecarWords,
    pub write_to_cards: bool,
    /// The open folder's camera bodies: each with its photos and clock correction.
    pub bodies: &'a [(String, usize, f64)],
    pub knobs: &'a settings::EngineKnobs,
    pub index: settings::IndexSettings<'a>,
    pub models_dir: Option<&'a Path>,
}

pub trait AppWindow {
    fn title(&self) -> &'static str;
    /// The window's contents; what the user asks for goes into `intents`.
    fn contents(&mut self, ui: &mut egui::Ui, env: &WindowEnv<'_>, intents: &mut Vec<Intent>);
}

/// Every overlay window, each holding its own state.
#[derive(Default)]
pub struct Windows {
    pub help: HelpWindow,
    pub settings: SettingsWindow,
    pub about: AboutWindow,
    pub models: ModelsWindow,
    pub export: ExportWindow,
    pub ingest: IngestWindow,
}

impl Windows {
    fn get_mut(&mut self, overlay: Overlay) -> Option<&mut dyn AppWindow> {
        Some(match overlay {
            Overlay::None => return None,
            Overlay::Help => &mut self.help,
            Overlay::Settings => &mut self.settings,
            Overlay::About => &mut self.about,
            Overlay::Models => &mut self.models,
            Overlay::Export => &mut self.export,
            Overlay::Ingest => &mut self.ingest,
        })
    }

    /// Draw the open window, if any. Closing it is an intent like any other.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        overlay: Overlay,
        env: &WindowEnv<'_>,
        intents: &mut Vec<Intent>,
    ) {
        let Some(window) = self.get_mut(overlay) else {
            return;
        };
        let mut open = true;
        // Never taller than the window: what does not fit scrolls (a 640 px laptop window
        // showed the help's top rows cut off).
        let tallest = (ctx.content_rect().height() - theme::WINDOW_MARGIN).max(160.0);
        egui::Window::new(window.title())
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .min_width(theme::WINDOW_WIDTH)
            .max_height(tallest)
            .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
            .show(ctx, |ui| {
                let room = tallest - theme::WINDOW_TITLE;
                egui::ScrollArea::vertical()
                    .max_height(room)
                    .min_scrolled_height(room)
                    .auto_shrink([true, true])
                    .show(ui, |ui| window.contents(ui, env, intents));
            });
        if !open {
            intents.push(Intent::CloseOverlay);
        }
    }
}

/// "1 photo", "12 photos".
fn count_words(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// "412.0 MB", "3.1 GB".
fn size_words(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb >= 1000.0 {
        format!("{:.1} GB", mb / 1000.0)
    } else {
        format!("{mb:.1} MB")
    }
}

/// The backend row: the engine's one line, or honest words while it starts.
fn backend_line(ui: &mut egui::Ui, status: Option<&BackendStatus>) {
    match status {
        Some(s) => {
            ui.label(egui::RichText::new(&s.line).strong());
            if let Some(note) = &s.forced_note {
                ui.colored_label(theme::WARNING, note);
            }
        }
        None => {
            ui.label("Starting the inference engine…");
        }
    }
}
