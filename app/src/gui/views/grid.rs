//! The grid: only the rows on screen are laid out (a folder of 10,000 costs what a screenful
//! does), each cell its thumbnail, decision, label, the index's marks and an error badge.

use std::collections::HashSet;

use darkroom_catalog::{Flag, Label};
use darkroom_index::Proposed;
use egui::Color32;

use super::badge;
use crate::gui::intent::Intent;
use crate::gui::pictures::Picture;
use crate::gui::state::{DarkRoom, UiState};
use crate::gui::theme::{self, CELL};
use darkroom_index::culling::{Filter, Photo, SelectHow};

pub fn grid_ui(ui: &mut egui::Ui, app: &DarkRoom, state: &mut UiState, intents: &mut Vec<Intent>) {
    let cull = &app.cull;
    let columns = state.columns.max(1);
    if cull.visible.is_empty() {
        ui.centered_and_justified(|ui| {
            ui.label(if app.scanning() {
                "Scanning…"
            } else {
                "No photos match this filter"
            });
        });
        return;
    }
    let rows = cull.visible.len().div_ceil(columns);
    let selected_row = cull.selected / columns;
    let mut area = egui::ScrollArea::vertical().auto_shrink(false);
    if let Some(offset) = state.grid_offset.take() {
        area = area.vertical_scroll_offset(offset);
    }
    let mut follow = state.follow_selection;
    let marks = Marks {
        detector: &app.detector,
        blurry_below: app.blurry_below,
        stacked: cull.filter == Filter::All,
        expanded: &cull.expanded_bursts,
    };
    let shown = area.show_rows(ui, CELL, rows, |ui, range| {
        for row in range {
            ui.horizontal(|ui| {
                for col in 0..columns {
                    let v = row * columns + col;
                    let Some(id) = cull.visible_id(v) else {
                        break;
                    };
                    let (Some(photo), Some(pictures)) = (cull.get(id), app.gallery.get(id)) else {
                        break;
                    };
                    intents.push(Intent::Show(id, theme::THUMB_SIDE));
                    let current = v == cull.selected;
                    let proposed = cull.proposed(id.index());
                    let look = Look {
                        current,
                        selected: cull.is_selected(id.index()),
                        reasons: proposed
                            .as_ref()
                            .map(|p| proposal_reasons(p, cull))
                            .unwrap_or_default(),
                        proposed,
                        scene_start: cull.scene_starts_at(v),
                    };
                    let response = cell_ui(ui, photo, &pictures.thumb, &look, &marks);
                    if current && follow {
                        response.scroll_to_me(None);
                        follow = false;
                    }
                    if response.double_clicked() {
                        intents.push(Intent::OpenLoupe(v));
                    } else if response.clicked() {
                        let m = ui.input(|i| i.modifiers);
                        let how = if m.shift {
                            SelectHow::Range
                        } else if m.command {
                            SelectHow::Toggle
                        } else {
                            SelectHow::Only
                        };
                        intents.push(Intent::Select(v, how));
                    }
                }
            });
        }
    });
    // Only rows on screen are laid out: a selection that left them is reached by offset.
    if follow {
        let row_h = CELL + ui.spacing().item_spacing.y;
        let top = selected_row as f32 * row_h;
        let view_h = shown.inner_rect.height();
        let offset = if top < shown.state.clamped_offset().y {
            top
        } else {
            top + row_h - view_h
        };
        state.grid_offset = Some(offset.max(0.0));
        ui.ctx().request_repaint();
    }
    state.follow_selection = false;
}

/// How a cell is drawn besides its photo: the current photo, the rest of the selection, and
/// what an auto-cull proposal says.
struct Look {
    current: bool,
    selected: bool,
    proposed: Option<Proposed>,
    /// The first photo shown of its scene: (the scene's number, from 1; its photos).
    scene_start: Option<(usize, usize)>,
    /// Every reason of the proposal, with its evidence, for the tooltip.
    reasons: String,
}

fn proposed_what(p: &Proposed) -> &'static str {
    match p.flag {
        Flag::Pick => "pick",
        Flag::Reject => "reject",
        Flag::Unflagged => "unflag",
    }
}

/// "proposed: reject (blurry)", the proposal's own mark on a cell (never a decision's words).
pub fn proposal_text(p: &Proposed) -> String {
    format!("proposed: {} ({})", proposed_what(p), p.reason().short())
}

/// The chip's words, then every reason with its evidence, people by name: "proposed: reject
/// (blurry) — blurry: 12 vs 85 for the best of the scene; eyes closed: Anna". The tooltip's,
/// the loupe's and the cell's accessible label.
pub fn proposal_reasons(p: &Proposed, cull: &darkroom_index::culling::Culling) -> String {
    format!(
        "{} — {}",
        proposal_text(p),
        p.describe_with(&|id| cull.person_label(id))
    )
}

/// Where a photo stands in its scene and set: "scene 7, 3 of 12 · bracket set 2, 1 of 3".
pub fn place_text(p: &Photo) -> String {
    let Some(a) = &p.analysis else {
        return String::new();
    };
    let mut parts = Vec::new();
    // A scene of one photo says nothing its neighbours' bars do not.
    if let Some(s) = a.scene.as_ref().filter(|s| s.size > 1) {
        parts.push(format!("scene {}, {} of {}", s.id + 1, s.position, s.size));
    }
    if !a.tags.is_empty() {
        let words: Vec<&str> = a.tags.iter().map(|(t, _)| t.word()).collect();
        parts.push(words.join(", "));
    }
    if let Some(s) = &a.set {
        parts.push(format!(
            "{} set {}, {} of {}",
            s.kind.word(),
            s.id + 1,
            s.position,
            s.size
        ));
    }
    parts.join(" · ")
}

/// What the grid's marks depend on besides the photo.
struct Marks<'a> {
    detector: &'a str,
    blurry_below: f32,
    /// Bursts are stacked in this view (no filter).
    stacked: bool,
    expanded: &'a HashSet<usize>,
}

/// The index's marks: blurry, eyes closed, the burst and its suggested keeper, a soft subject
/// and soft eyes.
fn marks_text(p: &Photo, m: &Marks<'_>) -> String {
    let Some(a) = &p.analysis else {
        return String::new();
    };
    let mut parts = Vec::new();
    if a.detector != m.detector {
        // Never mixed silently: these rows came from another detector.
        parts.push(format!("indexed with {}", a.detector));
    }
    if let Some(s) = &a.set {
        parts.push(format!("{} {}/{}", s.kind.word(), s.position, s.size));
    }
    if let Some(b) = &a.burst {
        if m.stacked && !m.expanded.contains(&b.id) {
            parts.push(format!("burst of {} (B opens)", b.size));
        } else {
            parts.push(format!("burst {}/{}", b.position, b.size));
        }
        if b.suggested {
            parts.push("suggested".to_owned());
        }
    }
    let blurry = a.sharpness < m.blurry_below;
    if blurry {
        parts.push("blurry".to_owned());
    }
    if a.eyes_closed {
        parts.push("eyes closed".to_owned());
    }
    // A photo blurry as a whole has a soft subject too: one word says it.
    if !blurry && a.subject.as_ref().is_some_and(|s| s.soft) {
        parts.push("subject soft".to_owned());
    }
    if a.eyes_soft {
        parts.push("eyes soft".to_owned());
    }
    parts.join(" · ")
}

fn cell_ui(
    ui: &mut egui::Ui,
    p: &Photo,
    thumb: &Picture,
    look: &Look,
    marks: &Marks<'_>,
) -> egui::Response {
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(CELL - 8.0, CELL - 8.0), egui::Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let image_rect = rect.shrink(6.0).with_max_y(rect.max.y - 26.0);
    match thumb {
        Picture::Ready(tex) => {
            let size = tex.size_vec2();
            let scale = (image_rect.width() / size.x).min(image_rect.height() / size.y);
            let fitted = egui::Rect::from_center_size(image_rect.center(), size * scale);
            painter.image(
                tex.id(),
                fitted,
                egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        Picture::Failed(_) => {
            painter.text(
                image_rect.center(),
                egui::Align2::CENTER_CENTER,
                "cannot read",
                egui::FontId::proportional(theme::CELL_FAILED_TEXT),
                theme::ERROR_TEXT,
            );
        }
        _ => {}
    }
    if p.decision.flag == Flag::Reject {
        painter.rect_filled(
            image_rect,
            0.0,
            Color32::from_black_alpha(theme::REJECT_DIM),
        );
    }
    if let Some(Label::Colour(c)) = &p.decision.label {
        painter.rect_filled(
            egui::Rect::from_min_size(
                rect.left_bottom() - egui::vec2(0.0, theme::LABEL_BAR),
                egui::vec2(rect.width(), theme::LABEL_BAR),
            ),
            0.0,
            theme::label_colour(*c),
        );
    }
    if let Some(proposed) = &look.proposed {
        // The proposal's mark: a dashed-looking frame in its own colour and a chip, so it is
        // never mistaken for a decision.
        let colour = match proposed.flag {
            Flag::Pick => theme::PROPOSED_PICK,
            _ => theme::PROPOSED_REJECT,
        };
        painter.rect_stroke(
            image_rect,
            0.0,
            egui::Stroke::new(2.0, colour),
            egui::StrokeKind::Inside,
        );
        let font = egui::FontId::proportional(theme::CELL_TEXT);
        let galley = painter.layout_no_wrap(proposal_text(proposed), font, Color32::BLACK);
        let at = egui::pos2(
            image_rect.min.x + 4.0,
            image_rect.max.y - galley.size().y - 8.0,
        );
        painter.rect_filled(
            egui::Rect::from_min_size(at, galley.size() + egui::vec2(8.0, 4.0)),
            3.0,
            colour,
        );
        painter.galley(at + egui::vec2(4.0, 2.0), galley, Color32::BLACK);
    }
    if let Some((scene, size)) = look.scene_start {
        // A new scene starts here: a bar down the cell's left edge; its number and size where
        // it holds more than this photo (a run of one-photo scenes is not a wall of chips).
        painter.rect_filled(
            egui::Rect::from_min_size(rect.left_top(), egui::vec2(theme::SCENE_BAR, rect.height())),
            0.0,
            theme::SCENE_MARK,
        );
        if size > 1 {
            let font = egui::FontId::proportional(theme::CELL_TEXT);
            let galley =
                painter.layout_no_wrap(format!("Scene {scene} · {size}"), font, Color32::BLACK);
            let at = egui::pos2(
                rect.max.x - galley.size().x - 14.0,
                image_rect.max.y
                    - galley.size().y
                    - 8.0
                    - if look.proposed.is_some() {
                        galley.size().y + 8.0
                    } else {
                        0.0
                    },
            );
            painter.rect_filled(
                egui::Rect::from_min_size(at, galley.size() + egui::vec2(8.0, 4.0)),
                3.0,
                theme::SCENE_MARK,
            );
            painter.galley(at + egui::vec2(4.0, 2.0), galley, Color32::BLACK);
        }
    }
    let marks_line = marks_text(p, marks);
    if !marks_line.is_empty() {
        // The index's marks over the picture's top edge, legible on any photo.
        let font = egui::FontId::proportional(theme::CELL_TEXT);
        let galley = painter.layout_no_wrap(marks_line, font, Color32::WHITE);
        let at = rect.left_top() + egui::vec2(6.0, 6.0);
        painter.rect_filled(
            egui::Rect::from_min_size(at, galley.size() + egui::vec2(8.0, 4.0)),
            3.0,
            Color32::from_black_alpha(theme::MARKS_BACKGROUND),
        );
        painter.galley(at + egui::vec2(4.0, 2.0), galley, Color32::WHITE);
    }
    let caption = painter.layout_job(badge::caption(
        p,
        theme::CELL_TEXT,
        ui.visuals().text_color(),
    ));
    painter.galley(
        rect.left_bottom() + egui::vec2(6.0, -14.0 - caption.size().y / 2.0),
        caption,
        ui.visuals().text_color(),
    );
    if p.error.is_some() {
        // The per-item error badge: the cause is in the hover text and the loupe caption.
        let at = rect.right_top() + egui::vec2(-14.0, 14.0);
        painter.circle_filled(at, theme::BADGE_RADIUS, theme::ERROR_BADGE);
        painter.text(
            at,
            egui::Align2::CENTER_CENTER,
            "!",
            egui::FontId::proportional(theme::BADGE_TEXT),
            Color32::WHITE,
        );
    }
    if look.selected {
        // The current photo gets the full stroke; the rest of a selection a lighter fill too.
        let stroke = ui.visuals().selection.stroke.color;
        if !look.current {
            painter.rect_filled(rect, 4.0, stroke.gamma_multiply(theme::SELECTION_FILL));
        }
        painter.rect_stroke(
            rect,
            4.0,
            egui::Stroke::new(if look.current { 2.5 } else { 1.5 }, stroke),
            egui::StrokeKind::Inside,
        );
    }
    let selected = if look.selected { "selected" } else { "" };
    let mut label = [
        p.file_name(),
        badge::words(p),
        marks_text(p, marks),
        place_text(p),
        look.reasons.clone(),
        selected.to_owned(),
    ]
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect::<Vec<_>>()
    .join(" · ");
    if let Some(err) = &p.error {
        label.push_str(&format!(" · error: {err}"));
    }
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
    if let Some(err) = &p.error {
        response.on_hover_text(err)
    } else if !look.reasons.is_empty() {
        response.on_hover_text(&look.reasons)
    } else {
        response
    }
}
