//! Compare: photos side by side — the photo shown and the next, a selection, or a whole burst
//! — zoomed and panned together (one zoom for every locked pane, so the same spot of each frame
//! is looked at at once). A pane can be pinned as the best so far (it stays first while the
//! others change) or unlocked to zoom on its own; a click on a pane makes it the one decided
//! on.

use egui::{Rect, UiBuilder, vec2};

use crate::gui::intent::Intent;
use crate::gui::state::{DarkRoom, UiState};
use crate::gui::theme::{self, LOUPE_SIDE};

use super::loupe::caption_ui;

pub fn compare_ui(
    ui: &mut egui::Ui,
    app: &DarkRoom,
    state: &mut UiState,
    intents: &mut Vec<Intent>,
) {
    let panes = app.comparison.panes(&app.cull);
    if panes.is_empty() {
        return;
    }
    let current = app.cull.selected_id();
    let area = ui.available_rect_before_wrap();
    let cols = (panes.len() as f32).sqrt().ceil() as usize;
    let rows = panes.len().div_ceil(cols);
    let gap = theme::COMPARE_GAP;
    let cell = vec2(
        (area.width() - gap * (cols - 1) as f32) / cols as f32,
        (area.height() - gap * (rows - 1) as f32) / rows as f32,
    );
    for (k, &id) in panes.iter().enumerate() {
        let (Some(photo), Some(pictures)) = (app.cull.get(id), app.gallery.get(id)) else {
            continue;
        };
        let zoom = app.comparison.zoom_of(id, &app.zoom);
        intents.push(Intent::Show(id, LOUPE_SIDE));
        // The AF points come with the file's facts: each pane's are asked for while shown.
        if app.show_af_points {
            intents.push(Intent::ShowFacts(id));
        }
        // Zoomed, or peaking (found on the photo's own pixels): each pane's full resolution.
        if !zoom.is_fit() || app.show_peaking {
            intents.push(Intent::ShowFull(id));
        }
        let (col, row) = (k % cols, k / cols);
        let min = area.min + vec2(col as f32 * (cell.x + gap), row as f32 * (cell.y + gap));
        let rect = Rect::from_min_size(min, cell);
        // Salted by the photo: each pane's widgets (its navigator) have ids of their own.
        let mut pane = ui.new_child(UiBuilder::new().id_salt(id).max_rect(rect));
        let pinned = app.comparison.pinned == Some(id);
        let unlocked = app.comparison.is_unlocked(id);
        pane.horizontal(|ui| {
            caption_ui(ui, photo);
            let pin = if pinned {
                "Pinned as best"
            } else {
                "Pin as best"
            };
            if ui.selectable_label(pinned, pin).clicked() {
                intents.push(Intent::Pin(id));
            }
            let lock = if unlocked { "Own zoom" } else { "Zoom locked" };
            if ui.selectable_label(unlocked, lock).clicked() {
                intents.push(Intent::ZoomLock(id));
            }
        });
        let drawn = super::photo::photo_ui(&mut pane, pictures, &zoom, app.overlays(), intents);
        if Some(id) == current {
            ui.painter().rect_stroke(
                rect,
                2.0,
                egui::Stroke::new(2.0, ui.visuals().selection.stroke.color),
                egui::StrokeKind::Outside,
            );
        }
        if drawn.clicked
            && let Some(v) = app.cull.position_of(id)
        {
            intents.push(Intent::Select(v, darkroom_index::culling::SelectHow::Only));
        }
        // A zoom key or a drag acts on the pane under the pointer.
        let under_pointer = drawn
            .placed
            .is_some_and(|p| state.pointer.is_some_and(|pos| p.pane.contains(pos)));
        if under_pointer || state.loupe_placed.is_none() {
            state.loupe_placed = drawn.placed;
            state.zoom_pane = Some(id);
        }
    }
    ui.advance_cursor_after_rect(area);
}
