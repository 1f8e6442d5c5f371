//! Help: the keymap, from the keymap's own data.

use super::{AppWindow, Intent, WindowEnv};
use crate::gui::keymap::KEYMAP;

#[derive(Default)]
pub struct HelpWindow;

impl AppWindow for HelpWindow {
    fn title(&self) -> &'static str {
        "Keyboard"
    }

    fn contents(&mut self, ui: &mut egui::Ui, _env: &WindowEnv<'_>, _intents: &mut Vec<Intent>) {
        // Two columns, so the whole keymap fits a laptop screen without scrolling.
        let half = KEYMAP.len().div_ceil(2);
        ui.horizontal_top(|ui| {
            for (n, part) in KEYMAP.chunks(half).enumerate() {
                egui::Grid::new(("keymap", n)).striped(true).show(ui, |ui| {
                    for b in part {
                        ui.monospace(b.keys);
                        ui.label(b.help);
                        ui.end_row();
                    }
                });
                ui.add_space(24.0);
            }
        });
    }
}
