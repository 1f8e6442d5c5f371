//! Overlays: the keymap help, Settings (the *Inference backend* row, its override, the engine
//! progress row, sidecar naming) and About (the same backend line, the runtime, every model's
//! id and short hash). They only render state; changes go back to the app as values.

use darkroom_catalog::SidecarNaming;
use darkroom_engine::{BackendStatus, Rung};
use egui::{Color32, RichText};

use super::Overlay;
use super::keymap::KEYMAP;

/// A change the user made in Settings, applied (and persisted) by the app off the UI thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsChange {
    Force(Option<Rung>),
    Naming(SidecarNaming),
}

fn window<'a>(title: &'a str, open: &'a mut bool) -> egui::Window<'a> {
    egui::Window::new(title)
        .open(open)
        .collapsible(false)
        .resizable(false)
        .min_width(560.0)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
}

fn close_if(overlay: &mut Overlay, open: bool) {
    if !open {
        *overlay = Overlay::None;
    }
}

pub fn help(ctx: &egui::Context, overlay: &mut Overlay) {
    let mut open = true;
    window("Keyboard", &mut open).show(ctx, |ui| {
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
    });
    close_if(overlay, open);
}

/// The backend row: the engine's one line, or honest words while it starts.
fn backend_line(ui: &mut egui::Ui, status: Option<&BackendStatus>) {
    match status {
        Some(s) => {
            ui.label(RichText::new(&s.line).strong());
            if let Some(note) = &s.forced_note {
                ui.colored_label(Color32::from_rgb(230, 160, 40), note);
            }
        }
        None => {
            ui.label("Starting the inference engine…");
        }
    }
}

pub fn settings(
    ctx: &egui::Context,
    overlay: &mut Overlay,
    status: Option<&BackendStatus>,
    naming: &mut SidecarNaming,
    threads: usize,
) -> Option<SettingsChange> {
    let mut open = true;
    let mut change = None;
    window("Settings", &mut open).show(ctx, |ui| {
        egui::Grid::new("settings")
            .num_columns(2)
            .spacing([16.0, 10.0])
            .show(ui, |ui| {
                ui.label("Inference backend");
                ui.vertical(|ui| {
                    backend_line(ui, status);
                    if let Some(s) = status {
                        let current = s.forced.map(|f| f.rung);
                        let label = current
                            .map(|r| r.label().to_string())
                            .unwrap_or_else(|| "Automatic".into());
                        egui::ComboBox::from_label("Override")
                            .selected_text(label)
                            .show_ui(ui, |ui| {
                                if ui
                                    .selectable_label(current.is_none(), "Automatic")
                                    .clicked()
                                {
                                    change = Some(SettingsChange::Force(None));
                                }
                                // Only rungs below the one chosen can be forced.
                                let chosen = s.selected.unwrap_or(s.floor);
                                let below = s.ladder.iter().skip_while(|r| **r != chosen).skip(1);
                                for &r in below {
                                    if ui
                                        .selectable_label(
                                            current == Some(r),
                                            format!("Force {}", r.label()),
                                        )
                                        .clicked()
                                    {
                                        change = Some(SettingsChange::Force(Some(r)));
                                    }
                                }
                            });
                    }
                });
                ui.end_row();
                if let Some(p) = status.and_then(|s| s.progress.as_ref()) {
                    ui.label("");
                    ui.label(p);
                    ui.end_row();
                }
                ui.label("Sidecar files");
                ui.vertical(|ui| {
                    let before = *naming;
                    ui.radio_value(
                        naming,
                        SidecarNaming::WithExtension,
                        "IMG_0001.CR3.xmp (darktable, digiKam)",
                    );
                    ui.radio_value(
                        naming,
                        SidecarNaming::ReplaceExtension,
                        "IMG_0001.xmp (Lightroom, Capture One)",
                    );
                    if *naming != before {
                        change = Some(SettingsChange::Naming(*naming));
                    }
                });
                ui.end_row();
                if let Some(inputs) = status.and_then(|s| s.inputs.as_ref()) {
                    ui.label("TensorRT workspace");
                    ui.label(format!(
                        "{} MB (DARKROOM_TRT_WORKSPACE_MB)",
                        inputs.workspace_mb
                    ));
                    ui.end_row();
                }
                ui.label("Threads");
                ui.label(format!("{threads} (DARKROOM_THREADS)"));
                ui.end_row();
            });
    });
    close_if(overlay, open);
    change
}

pub fn about(ctx: &egui::Context, overlay: &mut Overlay, status: Option<&BackendStatus>) {
    let mut open = true;
    window("About DarkRoom", &mut open).show(ctx, |ui| {
        ui.label(format!("DarkRoom {}", env!("CARGO_PKG_VERSION")));
        ui.add_space(6.0);
        backend_line(ui, status);
        if let Some(inputs) = status.and_then(|s| s.inputs.as_ref()) {
            let runtime = match inputs.runtime.kind {
                darkroom_engine::RuntimeKind::OnnxRuntime => "ONNX Runtime",
                darkroom_engine::RuntimeKind::Tract => "tract",
            };
            ui.label(format!("Runtime: {runtime} {}", inputs.runtime.version));
            ui.add_space(6.0);
            egui::Grid::new("models").striped(true).show(ui, |ui| {
                for m in &inputs.models {
                    ui.monospace(&m.model_id);
                    ui.monospace(&m.sha256[..12.min(m.sha256.len())]);
                    ui.end_row();
                }
            });
        }
    });
    close_if(overlay, open);
}
