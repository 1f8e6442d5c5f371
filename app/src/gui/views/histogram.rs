//! The loupe's histogram: each channel's levels as a filled curve, in the pane's top-right
//! corner, with how much of the photo is blown out and crushed beside it (J lays the same
//! clipping over the photo).

use darkroom_library::histogram::Histogram;
use egui::{Color32, Pos2, Rect, Shape, Stroke, pos2, vec2};

use crate::gui::theme;

const CHANNELS: [Color32; 3] = [
    Color32::from_rgba_premultiplied(200, 40, 40, 120),
    Color32::from_rgba_premultiplied(40, 180, 40, 120),
    Color32::from_rgba_premultiplied(50, 90, 220, 120),
];

/// Draw `h` in the top-right corner of `pane`.
pub fn histogram_ui(ui: &egui::Ui, pane: Rect, h: &Histogram) {
    let size = vec2(theme::HISTOGRAM_WIDTH, theme::HISTOGRAM_HEIGHT);
    let margin = theme::NAVIGATOR_MARGIN;
    let rect = Rect::from_min_size(
        pos2(pane.right() - size.x - margin, pane.top() + margin),
        size,
    );
    if !pane.contains_rect(rect.expand(4.0)) {
        return;
    }
    let painter = ui.painter_at(pane);
    painter.rect_filled(rect.expand(4.0), 3.0, theme::OVERLAY_FILL);
    let peak = h.peak() as f32;
    for (levels, colour) in h.channels.iter().zip(CHANNELS) {
        // One column per level, from the baseline up (convex pieces, as egui fills them).
        for (level, &count) in levels.iter().enumerate() {
            let x0 = rect.left() + rect.width() * level as f32 / 256.0;
            let x1 = rect.left() + rect.width() * (level + 1) as f32 / 256.0;
            let top = rect.bottom() - rect.height() * (count as f32 / peak).min(1.0);
            if count > 0 {
                painter.add(Shape::rect_filled(
                    Rect::from_min_max(pos2(x0, top), pos2(x1, rect.bottom())),
                    0.0,
                    colour,
                ));
            }
        }
    }
    let (blown, crushed) = h.clipped_percent();
    let words = format!("blown {blown:.1} % · crushed {crushed:.1} %");
    let galley = painter.layout_no_wrap(
        words.clone(),
        egui::FontId::proportional(11.0),
        Color32::WHITE,
    );
    let at = Pos2::new(rect.left(), rect.bottom() + 4.0);
    painter.rect_filled(
        Rect::from_min_size(at, galley.size()).expand(2.0),
        2.0,
        theme::OVERLAY_FILL,
    );
    painter.galley(at, galley, Color32::WHITE);
    // A clipped end shows as a marked edge: its spike is left out of the curve's scale.
    for (count, x) in [(h.crushed, rect.left()), (h.blown, rect.right())] {
        if count > 0 {
            painter.line_segment(
                [pos2(x, rect.top()), pos2(x, rect.bottom())],
                Stroke::new(2.0, theme::WARNING),
            );
        }
    }
    let label = format!("histogram {words}");
    ui.interact(rect, ui.scope_id().with("histogram"), egui::Sense::hover())
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &label));
}
