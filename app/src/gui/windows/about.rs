//! About: the version, the backend line, the runtime, every model's id and short hash.

use super::{AppWindow, Intent, WindowEnv, backend_line};

#[derive(Default)]
pub struct AboutWindow;

impl AppWindow for AboutWindow {
    fn title(&self) -> &'static str {
        "About DarkRoom"
    }

    fn contents(&mut self, ui: &mut egui::Ui, env: &WindowEnv<'_>, _intents: &mut Vec<Intent>) {
        ui.label(format!("DarkRoom {}", env!("CARGO_PKG_VERSION")));
        ui.add_space(6.0);
        backend_line(ui, env.status);
        if let Some(inputs) = env.status.and_then(|s| s.inputs.as_ref()) {
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
    }
}
