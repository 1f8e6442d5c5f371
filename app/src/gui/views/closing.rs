//! Closing while decisions are saving: the window stays, says how many, and closes by itself
//! once they are durable; asked to close again, it says what would be lost and asks. Closing
//! while the card is being copied asks first whether to stop the copy.

use crate::gui::intent::Intent;
use crate::gui::state::{Closing, DarkRoom};

pub fn closing_ui(ctx: &egui::Context, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let closing = app.closing();
    if matches!(closing, Closing::AskStopIngest | Closing::StoppingIngest) {
        stop_ingest_ui(ctx, app, closing, intents);
        return;
    }
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

/// "Copying 212 photos — stop and close? The next ingest will finish them."
fn stop_ingest_ui(
    ctx: &egui::Context,
    app: &DarkRoom,
    closing: Closing,
    intents: &mut Vec<Intent>,
) {
    let left = app.windows.ingest.left_to_copy();
    let photos = if left == 1 {
        "1 photo".to_owned()
    } else {
        format!("{left} photos")
    };
    egui::Modal::new(egui::Id::unique("closing-ingest")).show(ctx, |ui| {
        ui.set_max_width(380.0);
        if closing == Closing::StoppingIngest {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Stopping the copy…");
            });
            ui.label("DarkRoom closes when the file being copied is done.");
            // A card that stopped answering never finishes its file: closing must not wait on it.
            ui.label("If the card has stopped answering, close now: the photos already verified stay, and the next ingest finishes the rest.");
            if ui.button("Close now").clicked() {
                intents.push(Intent::CloseWithoutTheCopy);
            }
            return;
        }
        ui.heading(format!("Copying {photos} — stop and close?"));
        ui.label("What is copied stays. The next ingest of this card finishes the rest.");
        ui.horizontal(|ui| {
            if ui.button("Keep copying").clicked() {
                intents.push(Intent::StopIngestAndClose(false));
            }
            if ui.button("Stop and close").clicked() {
                intents.push(Intent::StopIngestAndClose(true));
            }
        });
    });
}
