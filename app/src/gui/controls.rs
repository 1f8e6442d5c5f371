//! The scene controls, shared by Settings and the proposal bar: how alike frames must be and
//! how far apart in time they may be to be one scene. A leaf of the window (egui only). A drag
//! is held in egui's memory and applied when it ends, so a folder is grouped again once per
//! change, not once per frame of a drag.

use darkroom_index::scenes::SceneRules;

/// Draw the two sliders; the new rules once a change is finished.
pub fn scene_controls_ui(ui: &mut egui::Ui, salt: &str, saved: SceneRules) -> Option<SceneRules> {
    let id = ui.make_persistent_id(("scene-controls", salt));
    let mut rules = ui.data(|d| d.get_temp::<SceneRules>(id)).unwrap_or(saved);
    let alike = ui
        .add(
            egui::Slider::new(&mut rules.similarity, SceneRules::SIMILARITY)
                .fixed_decimals(2)
                .text("alike"),
        )
        .on_hover_text(
            "How alike a frame must look to the scene's last frames to join it \
             (colour layout, structure, the subject's place): 0 joins anything, 1 only the same picture",
        );
    let gap = ui
        .add(
            egui::Slider::new(&mut rules.max_gap_s, SceneRules::MAX_GAP_S)
                .logarithmic(true)
                .fixed_decimals(0)
                .suffix(" s")
                .text("apart"),
        )
        .on_hover_text("The longest time between two frames of one scene");
    if alike.dragged() || gap.dragged() {
        ui.data_mut(|d| d.insert_temp(id, rules));
        return None;
    }
    ui.data_mut(|d| d.remove::<SceneRules>(id));
    (rules != saved).then_some(rules)
}
