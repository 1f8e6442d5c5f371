//! The top bar: the folder, its counts, the filter in force, the scan and index rows, problems,
//! and the buttons.

use darkroom_engine::BackendStatus;

use crate::gui::intent::Intent;
use crate::gui::intent::Overlay;
use crate::gui::state::DarkRoom;
use crate::gui::theme;
use darkroom_index::culling::Filter;

pub fn top_bar_ui(
    ui: &mut egui::Ui,
    app: &DarkRoom,
    status: Option<&BackendStatus>,
    intents: &mut Vec<Intent>,
) {
    // The buttons are laid out first, from the right, so they always have their room; the
    // folder's summary takes what is left and wraps to a second row on a narrow window
    // instead of running under them. The outer row keeps the bar one line tall until then.
    ui.horizontal(|ui| {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui.button("About").clicked() {
                intents.push(Intent::ShowOverlay(Overlay::About));
            }
            if ui.button("Settings").clicked() {
                intents.push(Intent::ShowOverlay(Overlay::Settings));
            }
            if app.models_dir().is_some() && ui.button("Models").clicked() {
                intents.push(Intent::OpenModels);
            }
            if ui.button("Help (?)").clicked() {
                intents.push(Intent::ShowOverlay(Overlay::Help));
            }
            // While a card is copied behind the grid, where it stands (and the way back to it).
            if let Some(line) = app.windows.ingest.running_line()
                && ui
                    .button(line)
                    .on_hover_text("The ingest: progress and Cancel (Ctrl+G)")
                    .clicked()
            {
                intents.push(Intent::OpenIngest);
            }
            if app.root().is_some()
                && ui
                    .add_enabled(!app.choosing_folder(), egui::Button::new("Open…"))
                    .clicked()
            {
                intents.push(Intent::ChooseFolder);
            }
            if app.root().is_some() {
                if ui
                    .add_enabled(
                        app.cull.picks() > 0 && !app.windows.export.busy(),
                        egui::Button::new("Export…"),
                    )
                    .on_hover_text("Copy the picks, their RAW/JPEG twins and sidecars to a folder (Ctrl+E)")
                    .on_disabled_hover_text("Nothing picked yet")
                    .clicked()
                {
                    intents.push(Intent::ExportPicks);
                }
                if ui
                    .button("Auto-cull")
                    .on_hover_text("Propose decisions for the whole folder from the index, to review before applying (Ctrl+P)")
                    .clicked()
                {
                    intents.push(Intent::ProposeCull);
                }
            }
            if let Some(p) = status.and_then(|s| s.progress.as_ref()) {
                ui.label(p);
            }
            let left = egui::Layout::left_to_right(egui::Align::Center).with_main_wrap(true);
            ui.with_layout(left, |ui| {
                ui.strong("DarkRoom");
                if let Some(root) = app.root() {
                    summary(ui, app, root);
                    super::index_row::index_row_ui(ui, app, intents);
                    if !app.problems.is_empty() {
                        ui.colored_label(
                            theme::ERROR_TEXT,
                            format!("{} problems", app.problems.len()),
                        )
                        .on_hover_text(app.problems.join("\n"));
                    }
                }
            });
        });
    });
}

fn summary(ui: &mut egui::Ui, app: &DarkRoom, root: &std::path::Path) {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string());
    ui.label(name).on_hover_text(root.display().to_string());
    ui.label(format!(
        "{} photos · {} picked",
        app.cull.len(),
        app.cull.picks()
    ));
    let selected = app.cull.selection_len();
    if selected > 1 {
        ui.label(format!("{selected} selected"));
    }
    if app.cull.filter != Filter::All {
        ui.label(format!(
            "showing {} ({})",
            app.cull.filter.describe(),
            app.cull.visible.len()
        ));
    }
    if app.scanning() {
        ui.spinner();
        ui.label("scanning…");
    }
    let loading = app.cull.loading();
    if loading > 0 && !app.scanning() {
        ui.label(format!("reading {loading} sidecars…"));
    }
}
