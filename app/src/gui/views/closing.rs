//! Closing while decisions are saving: the window stays, says how many, and closes by itself
//! once they are durable; asked to close again, it says what would be lost and asks.

use crate::gui::intent::Intent;
use crate::gui::state::{Closing, DarkRoom};

pub fn closing_ui(ctx: &egui::Context, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let closing = app.closing();
    if !matches!(closing, Closing::Saving | Closing::Asking) {
        return;
    }
    let n = app.unsaved();
    let decisions = if n == 1 {
        "1 decision".to_owned()
    } else {
        format!("{n} decisions")
    };
    egui::Modal::new(egui::Id::unique("closing")).show(ctx, |ui| {
        ui.set_max_width(360.0);
        if closing == Closing::Saving || n == 0 {
            ui.horizontal(|ui| {
                ui.spinner();
                if n == 0 {
                    ui.label("Writing the sidecars…");
                } else {
                    ui.label(format!("Saving {decisions}…"));
                }
            });
            ui.label("DarkRoom closes when they are saved.");
            return;
        }
        ui.heading("Close without saving?");
        ui.label(format!(
            "{decisions} are not saved yet. Closing now loses them; they are saved in a moment if you wait."
        ));
        ui.horizontal(|ui| {
            if ui.button("Keep saving").clicked() {
                intents.push(Intent::CloseAnyway(false));
            }
            if ui.button("Close anyway").clicked() {
                intents.push(Intent::CloseAnyway(true));
            }
        });
    });
}
