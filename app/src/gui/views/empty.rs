//! The empty state: open a folder by dialog, by typing its path, or from the recent ones.

use std::path::PathBuf;

use crate::gui::intent::Intent;
use crate::gui::state::DarkRoom;

pub fn empty_ui(
    ui: &mut egui::Ui,
    app: &DarkRoom,
    folder_field: &mut String,
    intents: &mut Vec<Intent>,
) {
    ui.vertical_centered(|ui| {
        ui.add_space(60.0);
        ui.heading("Open a folder of photos to start culling");
        ui.add_space(12.0);
        let choosing = app.choosing_folder();
        let open = ui.add_enabled(!choosing, egui::Button::new("Open folder…"));
        if open.clicked() {
            intents.push(Intent::ChooseFolder);
        }
        if choosing {
            ui.label("Choosing a folder…");
        }
        if ui
            .button("Ingest a card…")
            .on_hover_text("Copy a card onto the working drive and a backup, renamed and verified; cull as it copies (Ctrl+G)")
            .clicked()
        {
            intents.push(Intent::OpenIngest);
        }
        ui.add_space(8.0);
        // For a path at hand, and where no folder dialog can be shown (no XDG portal).
        ui.horizontal(|ui| {
            // Centred by hand: a horizontal row takes the whole width.
            let row = 90.0 + ui.spacing().text_edit_width + 60.0;
            ui.add_space(((ui.available_width() - row) / 2.0).max(0.0));
            let label = ui.label("or type a path:");
            let field = ui.text_edit_singleline(folder_field).labelled_by(label.id);
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let go = ui.add_enabled(!folder_field.trim().is_empty(), egui::Button::new("Open"));
            if (go.clicked() || entered) && !folder_field.trim().is_empty() {
                intents.push(Intent::Open(PathBuf::from(folder_field.trim())));
            }
        });
        if !app.recent.is_empty() {
            ui.add_space(16.0);
            ui.label("Recent folders");
            for r in &app.recent {
                if ui.link(r.display().to_string()).clicked() {
                    intents.push(Intent::Open(r.clone()));
                }
            }
        }
    });
}
