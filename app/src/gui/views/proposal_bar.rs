//! The proposal bar, under the top bar while an auto-cull proposal is shown: what it proposes
//! and by which rules, the scene controls, the reasons it gives (each can be set aside:
//! "keep eyes-closed frames"), and Apply / Discard. The proposal is marks until applied.

use darkroom_index::proposal::ReasonKind;

use crate::gui::intent::{Intent, SettingsChange};
use crate::gui::state::DarkRoom;
use crate::gui::theme;

pub fn proposal_bar_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let (Some((picks, rejects)), Some(rules)) =
        (app.cull.proposal_counts(), app.cull.proposal_rules())
    else {
        return;
    };
    ui.horizontal(|ui| {
        ui.colored_label(
            theme::PROPOSED_PICK,
            egui::RichText::new("Proposal").strong(),
        );
        ui.label(format!(
            "{picks} to pick · {rejects} to reject ({}, keep {} per burst); photos you decided are left as they are",
            rules.strictness.name(),
            rules.keep_per_burst
        ));
        if ui
            .add_enabled(picks + rejects > 0, egui::Button::new("Apply (Ctrl+Enter)"))
            .on_hover_text("Make these decisions real, in the catalog and the sidecars; one undo")
            .clicked()
        {
            intents.push(Intent::ApplyProposal);
        }
        if ui.button("Discard").clicked() {
            intents.push(Intent::DiscardProposal);
        }
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Scenes:");
        let saved = app.cull_settings.scenes;
        if let Some(scenes) = crate::gui::controls::scene_controls_ui(ui, "proposal", saved) {
            intents.push(Intent::Settings(SettingsChange::Culling(
                crate::services::CullSettings {
                    scenes,
                    ..app.cull_settings
                },
            )));
        }
        ui.separator();
        ui.label("Refine:");
        let counts = app.cull.proposal_reasons();
        // The rejects' reasons, in the table's order.
        for kind in ReasonKind::ALL.into_iter().filter(|k| k.rejects()) {
            let aside = rules.without.contains(&kind);
            let n = counts.get(&kind).copied().unwrap_or(0);
            // Only what this proposal says, and what was set aside (to take it back).
            if n == 0 && !aside {
                continue;
            }
            let mut on = aside;
            let text = if aside {
                kind.refine_words().to_owned()
            } else {
                format!("{} ({n})", kind.refine_words())
            };
            if ui
                .checkbox(&mut on, text)
                .on_hover_text(format!(
                    "Take \"{}\" out of the proposal: its proposals go, the rest stay",
                    kind.word()
                ))
                .changed()
            {
                intents.push(Intent::RefineProposal(kind, on));
            }
        }
    });
}
