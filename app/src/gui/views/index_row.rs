//! The index row: "Index faces", the running job's progress with pause and cancel, the last
//! job's outcome, or "Get face models…" on a first run.

use crate::gui::intent::Intent;
use crate::gui::state::{DarkRoom, StatusSource};

pub fn index_row_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    if let Some(run) = &app.tasks.indexing {
        let paused = run.control.is_paused();
        let text = run.live.read(|live| {
            // After every photo's faces, the subjects of the frames that compete.
            let doing = if live.first_pass {
                "Finding subjects"
            } else {
                "Indexing faces"
            };
            match &live.progress {
                Some(p) => format!(
                    "{doing} · {} of {} · {:.1} photos/s{}",
                    p.done,
                    p.to_index,
                    p.photos_per_s,
                    p.eta_s
                        .map(|s| format!(" · {} left", eta(s)))
                        .unwrap_or_default()
                ),
                None if live.to_index > 0 => format!("{doing} · 0 of {}", live.to_index),
                None => format!("{doing}…"),
            }
        });
        if !paused {
            ui.spinner();
        }
        ui.label(if paused {
            format!("{text} · paused")
        } else {
            text
        });
        if ui.button(if paused { "Resume" } else { "Pause" }).clicked() {
            intents.push(Intent::SetIndexPaused(!paused));
        }
        if ui.button("Cancel").clicked() {
            intents.push(Intent::CancelIndex);
        }
    } else if app.models_dir().is_some() && !app.detectors.iter().any(|d| d.installed) {
        // First run: nothing to index with yet. Say so, and where to get it.
        if ui
            .button("Get face models…")
            .on_hover_text("No face detector is installed: download one, or install from a folder")
            .clicked()
        {
            intents.push(Intent::OpenModels);
        }
    } else {
        let waiting = if matches!(app.status, StatusSource::Failed) {
            "The inference engine did not start: the notice above says why"
        } else {
            "Waiting for the inference engine"
        };
        let button = ui
            .add_enabled(app.can_index(), egui::Button::new("Index faces"))
            .on_hover_text("Find faces, eyes, focus, bursts and people in this folder")
            .on_disabled_hover_text(waiting);
        if button.clicked() {
            intents.push(Intent::StartIndex);
        }
        if let Some(s) = &app.index_summary {
            ui.label(s);
        }
    }
}

/// "2 min", "40 s": an estimate, said plainly.
fn eta(seconds: f64) -> String {
    if seconds >= 90.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.0} s", seconds.max(1.0))
    }
}
