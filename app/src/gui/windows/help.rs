//! Help: the keymap, from the keymap's own data.

use super::{AppWindow, Intent, WindowEnv};
use crate::gui::keymap::KEYMAP;

/// The keymap's columns, and how wide a binding's words may grow before they wrap.
const HELP_COLUMNS: usize = 3;
const HELP_WORDS_WIDTH: f32 = 210.0;

#[derive(Default)]
pub struct HelpWindow;

impl AppWindow for HelpWindow {
    fn title(&self) -> &'static str {
        "Keyboard"
    }

    fn contents(&mut self, ui: &mut egui::Ui, _env: &WindowEnv<'_>, _intents: &mut Vec<Intent>) {
        // Three columns, the words wrapped, so the whole keymap fits a 1000×640 window; a
        // smaller one scrolls (the window's frame does).
        let third = KEYMAP.len().div_ceil(HELP_COLUMNS);
        ui.horizontal_top(|ui| {
            for (n, part) in KEYMAP.chunks(third).enumerate() {
                egui::Grid::new(("keymap", n))
                    .striped(true)
                    .spacing([8.0, 2.0])
                    .min_col_width(0.0)
                    .max_col_width(HELP_WORDS_WIDTH)
                    .show(ui, |ui| {
                        for b in part {
                            ui.monospace(b.keys);
                            ui.add(egui::Label::new(b.help).wrap());
                            ui.end_row();
                        }
                    });
                ui.add_space(12.0);
            }
        });
    }
}
