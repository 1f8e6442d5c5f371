//! The notices strip under the top bar: what failed in the window's own parts, with its cause.

use crate::gui::intent::Intent;
use crate::gui::notices::Notices;
use crate::gui::theme;

pub fn notices_ui(ui: &mut egui::Ui, notices: &Notices, intents: &mut Vec<Intent>) {
    for (n, text) in notices.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui.small_button("Dismiss").clicked() {
                intents.push(Intent::DismissNotice(n));
            }
            // Wrapped: the cause and the file it names are the point, however long.
            let text = egui::RichText::new(text).color(theme::WARNING);
            ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Wrap));
        });
    }
}
