//! The proposal bar, under the top bar while an auto-cull proposal is shown: what it proposes
//! and by which rules, and Apply / Discard. The proposal is marks until applied.

use crate::gui::intent::Intent;
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
}
