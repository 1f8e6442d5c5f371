//! Settings: the *Inference backend* row with its override and the engine's progress row, the
//! face detector, the blurry threshold, sidecar naming, threads and the TensorRT workspace. It
//! renders state; each change goes back to the app as a [`SettingsChange`] intent.

use darkroom_catalog::SidecarNaming;
use darkroom_engine::ladder::BackendSettings;
use darkroom_engine::ladder::backend::{THREADS_ENV, WORKSPACE_ENV, env_number, threads_for};
use darkroom_engine::ladder::rungs::DEFAULT_WORKSPACE_MB;
use darkroom_index::proposal::STRICTNESS;

use crate::services::CullSettings;

pub use crate::gui::intent::SettingsChange;

use super::{AppWindow, Intent, WindowEnv, backend_line};

/// A face detector choice, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DetectorTier {
    pub label: &'static str,
    pub model_id: &'static str,
    /// Offered only on ONNX Runtime: an int8 form, faster there and slower than f32 on tract.
    pub onnx_runtime_only: bool,
}

/// The face detector choices: a name for each SCRFD size, the int8 form of one, and CenterFace,
/// the one whose licence allows any use (every package installs it; docs/MODEL-RELEASES.md has
/// its recall against SCRFD-2.5G).
pub const DETECTOR_TIERS: &[DetectorTier] = &[
    DetectorTier {
        label: "Any use, MIT",
        model_id: "centerface",
        onnx_runtime_only: false,
    },
    DetectorTier {
        label: "Fast",
        model_id: "scrfd_500m",
        onnx_runtime_only: false,
    },
    DetectorTier {
        label: "Balanced",
        model_id: "scrfd_2.5g",
        onnx_runtime_only: false,
    },
    DetectorTier {
        label: "Balanced, int8",
        model_id: "scrfd_2.5g_i8",
        onnx_runtime_only: true,
    },
    DetectorTier {
        label: "Thorough",
        model_id: "scrfd_10g",
        onnx_runtime_only: false,
    },
];

/// The default tier's detector.
pub const DEFAULT_DETECTOR: &str = darkroom_index::models::DEFAULT_DETECTOR;

/// The detector a window's jobs use: the one the user chose (`saved`), as `darkroom index`
/// does (a choice not installed is said by the job, never swapped); with no choice, the
/// default tier's where it is installed and may be offered (released, and on every runtime),
/// else the first installed tier that may be (a fresh install has only the detector the
/// packages ship), else the default tier's (the window then points at Models).
pub fn window_detector(saved: Option<&str>, choices: &[DetectorChoice]) -> String {
    if let Some(id) = saved {
        return id.to_owned();
    }
    let usable = |c: &&DetectorChoice| c.installed && c.offered(None);
    choices
        .iter()
        .filter(usable)
        .find(|c| c.tier.model_id == DEFAULT_DETECTOR)
        .or_else(|| choices.iter().find(usable))
        .map_or(DEFAULT_DETECTOR, |c| c.tier.model_id)
        .to_owned()
}

/// The index's settings as Settings shows them.
#[derive(Clone, Copy)]
pub struct IndexSettings<'a> {
    pub detectors: &'a [DetectorChoice],
    pub detector: &'a str,
    pub blurry_below: f32,
    pub culling: CullSettings,
}

/// A detector tier, whether its model file is installed, and whether it may be offered at
/// all: a derived form only while its release record passed (`darkroom_engine::releases`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectorChoice {
    pub tier: DetectorTier,
    pub installed: bool,
    pub released: bool,
    /// What its release gate measured it to find against its reference, in words.
    pub recall: Option<String>,
}

impl DetectorChoice {
    /// Whether Settings lists it on a process whose floor is `floor` (unknown until the
    /// backend reports: then only what runs everywhere).
    pub fn offered(&self, floor: Option<darkroom_engine::Rung>) -> bool {
        self.released
            && (!self.tier.onnx_runtime_only || floor == Some(darkroom_engine::Rung::OrtCpu))
    }
}

/// The engine's tunables as Settings shows them: what is saved, what this process runs with,
/// and whether an environment variable pins a value (then the field is read-only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineKnobs {
    pub saved: BackendSettings,
    pub threads_in_effect: usize,
    pub threads_env: bool,
    pub workspace_in_effect: u64,
    pub workspace_env: bool,
}

impl EngineKnobs {
    /// As the engine resolves them: environment, else the saved setting, else the default.
    pub fn resolve(saved: BackendSettings) -> Self {
        let workspace_env = env_number(WORKSPACE_ENV).ok().flatten();
        EngineKnobs {
            threads_in_effect: threads_for(&saved),
            threads_env: env_number(THREADS_ENV).ok().flatten().is_some(),
            workspace_in_effect: workspace_env
                .or(saved.workspace_mb)
                .unwrap_or(DEFAULT_WORKSPACE_MB),
            workspace_env: workspace_env.is_some(),
            saved,
        }
    }
}

/// Most threads a user may ask for: every logical core.
fn max_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// One numeric setting of the engine, as Settings shows it.
struct Knob<'a> {
    /// The row's label, which names the field for screen readers.
    label: egui::Id,
    saved: Option<u64>,
    in_effect: u64,
    /// The variable pinning it, if set.
    env: Option<&'a str>,
    range: std::ops::RangeInclusive<u64>,
    suffix: &'a str,
    /// Change per point dragged and per arrow key (below 1 an integer never moves by key).
    speed: f64,
    note: &'a str,
}

/// What the user set a knob to: the saved value to keep (None: automatic).
struct KnobChange(Option<u64>);

impl Knob<'_> {
    /// Read-only when the environment pins it, else a field plus "Automatic". Returns the new
    /// saved value when the user changed it.
    fn show(self, ui: &mut egui::Ui) -> Option<KnobChange> {
        let mut change = None;
        ui.vertical(|ui| {
            if let Some(var) = self.env {
                ui.label(format!("{}{} (set by {var})", self.in_effect, self.suffix));
                return;
            }
            ui.horizontal(|ui| {
                let mut value = self.saved.unwrap_or(self.in_effect);
                // Never clamp what is already there: a value from another machine stays as is.
                let top = (*self.range.end()).max(value);
                let field = ui
                    .add(
                        egui::DragValue::new(&mut value)
                            .range(*self.range.start()..=top)
                            .suffix(self.suffix)
                            .speed(self.speed),
                    )
                    .labelled_by(self.label);
                if field.changed() && Some(value) != self.saved {
                    change = Some(KnobChange(Some(value)));
                }
                let auto = self.saved.is_none();
                if ui.selectable_label(auto, "Automatic").clicked() && !auto {
                    change = Some(KnobChange(None));
                }
            });
            let next = change.as_ref().map_or(self.saved, |c| c.0);
            let differs = match next {
                Some(v) => v != self.in_effect,
                None => self.saved.is_some(),
            };
            if differs {
                ui.weak(format!("{} Takes effect at the next start.", self.note));
            } else {
                ui.weak(self.note);
            }
        });
        change
    }
}

#[derive(Default)]
pub struct SettingsWindow {
    /// Clock corrections being typed, by body.
    clock_edits: std::collections::BTreeMap<String, String>,
}

impl AppWindow for SettingsWindow {
    fn title(&self) -> &'static str {
        "Settings"
    }

    fn contents(&mut self, ui: &mut egui::Ui, env: &WindowEnv<'_>, intents: &mut Vec<Intent>) {
        if let Some(change) = settings_grid(ui, env) {
            intents.push(Intent::Settings(change));
        }
        if let Some(change) = clocks_ui(ui, env, &mut self.clock_edits) {
            intents.push(Intent::Settings(change));
        }
    }
}

/// Several cameras, one shoot: each body of the open folder with its clock correction, typed
/// here ("+1h3m", "-63m", "-01:03:00") or set from two frames of one moment (Ctrl+T).
fn clocks_ui(
    ui: &mut egui::Ui,
    env: &WindowEnv<'_>,
    edits: &mut std::collections::BTreeMap<String, String>,
) -> Option<SettingsChange> {
    use darkroom_library::clock;
    if env.bodies.is_empty() {
        return None;
    }
    let mut change = None;
    ui.separator();
    ui.label("Camera clocks")
        .on_hover_text("Bursts, scenes and shooting order (T) use the corrected times.");
    ui.weak("Or select two photos of one moment from two cameras, the right one shown, and press Ctrl+T.");
    egui::Grid::new("clocks")
        .num_columns(3)
        .spacing([12.0, 6.0])
        .show(ui, |ui| {
            for (body, photos, offset) in env.bodies {
                let label = ui.label(format!("{body} ({photos})"));
                let text = edits
                    .entry(body.clone())
                    .or_insert_with(|| clock::offset_words(*offset));
                let field = ui
                    .add_sized([120.0, 20.0], egui::TextEdit::singleline(text))
                    .labelled_by(label.id);
                let typed =
                    clock::parse_offset(text).or_else(|| (text.trim() == "none").then_some(0.0));
                if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    match typed {
                        Some(seconds) => {
                            change = Some(SettingsChange::Clock(body.clone(), seconds));
                            edits.remove(body);
                        }
                        None => {
                            ui.colored_label(
                                crate::gui::theme::ERROR_TEXT,
                                "try +1h3m, -63m or -01:03:00",
                            );
                        }
                    }
                } else if typed.is_none() {
                    ui.colored_label(
                        crate::gui::theme::ERROR_TEXT,
                        "try +1h3m, -63m or -01:03:00",
                    );
                } else {
                    ui.weak(format!("now {}; Enter sets", clock::offset_words(*offset)));
                }
                ui.end_row();
            }
        });
    change
}

fn settings_grid(ui: &mut egui::Ui, env: &WindowEnv<'_>) -> Option<SettingsChange> {
    let IndexSettings {
        detectors,
        detector,
        blurry_below,
        culling,
    } = env.index;
    let status = env.status;
    let knobs = env.knobs;
    let mut naming = env.naming;
    let naming = &mut naming;
    let mut change = None;
    {
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
                            .map(|r| r.label().to_owned())
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
                ui.label("Face detector");
                ui.vertical(|ui| {
                    let floor = status.map(|s| s.floor);
                    for d in detectors
                        .iter()
                        .filter(|d| d.offered(floor) || detector == d.tier.model_id)
                    {
                        let id = d.tier.model_id;
                        let text = format!("{} ({id})", d.tier.label);
                        let r = ui
                            .add_enabled(
                                d.installed,
                                egui::RadioButton::new(detector == id, text),
                            )
                            .on_disabled_hover_text("Not installed: get it in Models");
                        if r.clicked() && detector != id {
                            change = Some(SettingsChange::Detector(id.to_owned()));
                        }
                        if let Some(recall) = &d.recall {
                            ui.weak(format!("    {recall}"));
                        }
                    }
                    ui.weak("Photos indexed with another detector are marked; Index faces redoes them.");
                });
                ui.end_row();
                let label = ui.label("Blurry below").id;
                ui.vertical(|ui| {
                    let mut v = blurry_below;
                    let field = ui
                        .add(egui::DragValue::new(&mut v).range(0.0..=2000.0).speed(1.0))
                        .labelled_by(label);
                    if field.changed() && v != blurry_below {
                        change = Some(SettingsChange::BlurryBelow(v));
                    }
                    ui.weak("Sharpness (variance of the Laplacian at a fixed scale) under which a photo is marked blurry.");
                });
                ui.end_row();
                ui.label("After a decision");
                ui.horizontal(|ui| {
                    let mut c = culling;
                    ui.checkbox(&mut c.advance_in_loupe, "next photo in the loupe");
                    ui.checkbox(&mut c.advance_in_grid, "next photo in the grid");
                    if c != culling {
                        change = Some(SettingsChange::Culling(c));
                    }
                });
                ui.end_row();
                let label = ui.label("Auto-cull proposal").id;
                ui.horizontal(|ui| {
                    let mut c = culling;
                    egui::ComboBox::from_id_salt("strictness")
                        .selected_text(c.strictness.name())
                        .show_ui(ui, |ui| {
                            for r in STRICTNESS {
                                ui.selectable_value(&mut c.strictness, r.strictness, r.name);
                            }
                        })
                        .response
                        .labelled_by(label);
                    ui.label("keep");
                    ui.add(egui::DragValue::new(&mut c.keep_per_burst).range(1..=10))
                        .labelled_by(label);
                    ui.label("per burst");
                    if c != culling {
                        change = Some(SettingsChange::Culling(c));
                    }
                });
                ui.end_row();
                let label = ui.label("Eyes judged by").id;
                ui.horizontal(|ui| {
                    use darkroom_index::eyes::EyeJudge;
                    let mut c = culling;
                    let words = |j: EyeJudge| match j {
                        EyeJudge::Mesh => "the face mesh",
                        EyeJudge::Classifier => "the eye-state model",
                    };
                    egui::ComboBox::from_id_salt("eye judge")
                        .selected_text(words(c.eye_judge))
                        .show_ui(ui, |ui| {
                            for j in EyeJudge::ALL {
                                ui.selectable_value(&mut c.eye_judge, j, words(j));
                            }
                        })
                        .response
                        .labelled_by(label);
                    ui.weak("each stands in where the other cannot judge; the next index judges again");
                    if c != culling {
                        change = Some(SettingsChange::Culling(c));
                    }
                });
                ui.end_row();
                ui.label("Scenes");
                ui.vertical(|ui| {
                    if let Some(scenes) =
                        crate::gui::controls::scene_controls_ui(ui, "settings", culling.scenes)
                    {
                        change = Some(SettingsChange::Culling(crate::services::CullSettings {
                            scenes,
                            ..culling
                        }));
                    }
                    ui.weak("Frames of one set-up are one scene; bursts are the tight case inside it. Shift+C compares a scene.");
                });
                ui.end_row();
                ui.label("Sidecar files").on_hover_text(
                    "How a new sidecar is named. A photo that already has one, under either \
                     name, keeps it: its decisions go there.",
                );
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
                // Rating and the label's name are in every sidecar: each tool reads them.
                ui.label("Sidecars also speak");
                ui.vertical(|ui| {
                    let mut words = env.words;
                    ui.checkbox(
                        &mut words.digikam,
                        "digiKam (pick label, colour label)",
                    );
                    ui.checkbox(&mut words.photo_mechanic, "Photo Mechanic (tagged)");
                    if words != env.words {
                        change = Some(SettingsChange::Words(words));
                    }
                });
                ui.end_row();
                ui.label("Camera cards");
                let mut write = env.write_to_cards;
                ui.checkbox(&mut write, "Write sidecars on the card too")
                    .on_hover_text(
                        "Off: decisions made on a card (a DCIM folder) wait in the catalog and \
                         go into the copies' sidecars when the card is ingested. A card \
                         mounted read-only is never written.",
                    );
                if write != env.write_to_cards {
                    change = Some(SettingsChange::WriteToCards(write));
                }
                ui.end_row();
                let label = ui.label("Inference threads").id;
                let threads = Knob {
                    label,
                    saved: knobs.saved.threads.map(|n| n as u64),
                    in_effect: knobs.threads_in_effect as u64,
                    env: knobs.threads_env.then_some(THREADS_ENV),
                    range: 1..=max_threads() as u64,
                    suffix: "",
                    speed: 1.0,
                    note: "Automatic: measured per model on this CPU. tract uses one.",
                };
                if let Some(KnobChange(v)) = threads.show(ui) {
                    change = Some(SettingsChange::Threads(v.map(|n| n as usize)));
                }
                ui.end_row();
                let label = ui.label("TensorRT workspace").id;
                let workspace = Knob {
                    label,
                    saved: knobs.saved.workspace_mb,
                    in_effect: knobs.workspace_in_effect,
                    env: knobs.workspace_env.then_some(WORKSPACE_ENV),
                    range: 64..=65_536,
                    suffix: " MB",
                    speed: 16.0,
                    note: "GPU memory the TensorRT builder may use; engines are rebuilt for a new cap.",
                };
                if let Some(KnobChange(v)) = workspace.show(ui) {
                    change = Some(SettingsChange::Workspace(v));
                }
                ui.end_row();
            });
    }
    change
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choices(installed: &[&str]) -> Vec<DetectorChoice> {
        DETECTOR_TIERS
            .iter()
            .map(|t| DetectorChoice {
                tier: *t,
                installed: installed.contains(&t.model_id),
                released: true,
                recall: None,
            })
            .collect()
    }

    #[test]
    fn a_window_with_no_choice_uses_the_default_tier_else_what_is_installed() {
        let all = choices(&["centerface", "scrfd_2.5g", "scrfd_10g"]);
        assert_eq!(window_detector(None, &all), DEFAULT_DETECTOR);
        let fresh = choices(&["centerface"]);
        assert_eq!(window_detector(None, &fresh), "centerface");
        // The int8 form is not offered before the backend says ONNX Runtime.
        let int8 = choices(&["scrfd_2.5g_i8", "scrfd_10g"]);
        assert_eq!(window_detector(None, &int8), "scrfd_10g");
        assert_eq!(window_detector(None, &choices(&[])), DEFAULT_DETECTOR);
        // A default tier installed but with no passing release record is not offered.
        let mut unreleased = choices(&["centerface", "scrfd_2.5g"]);
        for c in &mut unreleased {
            c.released = c.tier.model_id != DEFAULT_DETECTOR;
        }
        assert_eq!(window_detector(None, &unreleased), "centerface");
        // A choice is kept, installed or not: the job says what is missing.
        assert_eq!(window_detector(Some("scrfd_500m"), &fresh), "scrfd_500m");
    }
}
