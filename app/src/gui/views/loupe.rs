//! The loupe: one photo fit to the window or zoomed at its own pixels (Z, Shift+Z; see
//! `photo.rs`), its caption, the close-up strip of its indexed faces (a click zooms to one),
//! and a filmstrip of the photos around it. What it asks for, in which order, is the plan
//! `pace` makes from how the person moves: the photo shown first, then those coming.

use egui::RichText;

use crate::gui::intent::Intent;
use crate::gui::pictures::{FaceTile, Faces, Picture};
use crate::gui::state::{DarkRoom, UiState};
use crate::gui::theme;
use crate::gui::workers::FACE_CROP_MAX;
use crate::gui::workers::Want;
use darkroom_index::culling::{EntryId, Photo};

pub fn loupe_ui(ui: &mut egui::Ui, app: &DarkRoom, state: &mut UiState, intents: &mut Vec<Intent>) {
    let cull = &app.cull;
    let Some(id) = cull.selected_id() else {
        return;
    };
    let (Some(photo), Some(pictures)) = (cull.get(id), app.gallery.get(id)) else {
        return;
    };
    // What the plan names, in its order (`pace`): the photo shown, then what comes next.
    for &(n, want) in &state.plan.pictures {
        intents.push(match want {
            Want::Side(side) => Intent::Show(n, side),
            Want::Facts => Intent::ShowFacts(n),
            Want::Full | Want::Faces => continue,
        });
    }
    for &n in &state.plan.full {
        intents.push(Intent::ShowFull(n));
    }
    if let Some(revisit) = state.plan.revisit_in {
        ui.ctx().request_repaint_after(revisit);
    }
    caption_ui(ui, photo);
    facts_ui(ui, &pictures.facts);
    subject_ui(ui, app, photo);
    context_ui(ui, app, id, photo);
    // A small window keeps its height for the photo.
    if ui.available_height() >= theme::FILMSTRIP_MIN_HEIGHT {
        egui::Panel::bottom("filmstrip").show(ui, |ui| filmstrip_ui(ui, app, intents));
    }
    // The close-ups come with the photo's own pixels (one decode), after the dwell.
    match &pictures.faces {
        Faces::Ready(tiles) if !tiles.is_empty() => {
            let chosen = state
                .chosen_face
                .and_then(|(face_of, k)| (face_of == id).then_some(k));
            egui::Panel::bottom("faces").show(ui, |ui| {
                face_strip_ui(ui, tiles, chosen, app.blurry_below, intents);
            });
        }
        // The close-ups could not be made: say why rather than show nothing.
        Faces::Failed(e) => {
            ui.colored_label(theme::ERROR_TEXT, format!("Faces: {e}"));
        }
        _ => {}
    }
    let drawn = super::photo::photo_ui(ui, pictures, &app.zoom, app.overlays(), intents);
    state.loupe_placed = drawn.placed;
    if let Some(placed) = drawn.placed {
        state.loupe_pane = Some(placed.pane);
    }
    state.loupe_drew = drawn.drew.map(|drew| (id, drew));
    if let (Some(placed), Some(full)) = (state.loupe_placed, pictures.full.ready()) {
        super::histogram::histogram_ui(ui, placed.pane, &full.histogram);
    }
}

/// The facts beside the photo: camera, lens, focal length, shutter, aperture, ISO, capture
/// time.
fn facts_ui(ui: &mut egui::Ui, facts: &crate::gui::pictures::Slot<darkroom_library::facts::Facts>) {
    use crate::gui::pictures::Slot;
    let words = match facts {
        Slot::Ready(f) if f.is_empty() => "No camera facts in this file".to_owned(),
        Slot::Ready(f) => f.line(),
        Slot::Failed(e) => format!("Facts: {e}"),
        // The line keeps its height, so the photo does not jump when they arrive.
        Slot::None | Slot::Requested => " ".to_owned(),
    };
    ui.label(RichText::new(words).size(theme::FACTS_TEXT).weak());
}

/// The photo's name, decision and error, over the picture.
pub fn caption_ui(ui: &mut egui::Ui, p: &Photo) {
    ui.horizontal(|ui| {
        ui.strong(p.file_name());
        let mut job = egui::text::LayoutJob::default();
        super::badge::append_glyphs(&mut job, p, theme::CAPTION_TEXT, ui.visuals().text_color());
        let words = super::badge::words(p);
        ui.label(job)
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &words));
        if let Some(err) = &p.error {
            ui.colored_label(theme::ERROR_TEXT, RichText::new(err));
        }
    });
}

/// The photos around the one shown, as thumbnails with their decision; a click shows one.
fn filmstrip_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let cull = &app.cull;
    let at = cull.selected;
    let first = at.saturating_sub(theme::FILMSTRIP_EACH_SIDE);
    ui.horizontal(|ui| {
        for v in first..=at + theme::FILMSTRIP_EACH_SIDE {
            let Some((id, photo, pictures)) = shown(app, v) else {
                break;
            };
            intents.push(Intent::Show(id, theme::THUMB_SIDE));
            let side = theme::FILMSTRIP_CELL;
            let (rect, response) =
                ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::click());
            let painter = ui.painter_at(rect);
            painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
            if let Picture::Ready(tex) = &pictures.thumb {
                let size = tex.size_vec2();
                let inner = rect.shrink(3.0);
                let scale = (inner.width() / size.x).min(inner.height() / size.y);
                painter.image(
                    tex.id(),
                    egui::Rect::from_center_size(inner.center(), size * scale),
                    egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
                    egui::Color32::WHITE,
                );
            }
            let mut glyphs = egui::text::LayoutJob::default();
            super::badge::append_glyphs(&mut glyphs, photo, theme::CELL_TEXT, egui::Color32::WHITE);
            let galley = painter.layout_job(glyphs);
            painter.galley(
                rect.left_bottom() + egui::vec2(3.0, -galley.size().y - 2.0),
                galley,
                egui::Color32::WHITE,
            );
            if v == at {
                painter.rect_stroke(
                    rect,
                    2.0,
                    egui::Stroke::new(2.0, ui.visuals().selection.stroke.color),
                    egui::StrokeKind::Inside,
                );
            }
            let label = format!(
                "filmstrip {} {}",
                photo.file_name(),
                super::badge::words(photo)
            );
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
            if response.clicked() {
                intents.push(Intent::Select(v, darkroom_index::culling::SelectHow::Only));
            }
        }
    });
}

/// The loupe's close-ups: every face at 100% (up to a fixed size) with its focus and eyes, so a
/// missed focus or a blink shows without zooming around the photo; a click zooms there.
fn face_strip_ui(
    ui: &mut egui::Ui,
    tiles: &[FaceTile],
    chosen: Option<usize>,
    blurry_below: f32,
    intents: &mut Vec<Intent>,
) {
    egui::ScrollArea::horizontal().show(ui, |ui| {
        ui.horizontal(|ui| {
            for (k, t) in tiles.iter().enumerate() {
                ui.vertical(|ui| {
                    let max = FACE_CROP_MAX as f32;
                    let size = t.texture.size_vec2().min(egui::vec2(max, max));
                    let shown = size * (theme::CLOSE_UP_HEIGHT / size.y).min(1.0);
                    let response = ui
                        .add(egui::Image::new((t.texture.id(), shown)).sense(egui::Sense::click()));
                    if chosen == Some(k) {
                        ui.painter().rect_stroke(
                            response.rect,
                            0.0,
                            egui::Stroke::new(2.0, theme::CHOSEN_FACE),
                            egui::StrokeKind::Outside,
                        );
                    }
                    let label = format!("face {} close-up", k + 1);
                    response.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::Role::Button, true, &label)
                    });
                    if response.clicked() {
                        intents.push(Intent::Zoom(crate::gui::intent::ZoomChange::Face(k)));
                    }
                    face_focus_ui(ui, t.sharpness, blurry_below);
                    eyes_ui(ui, t.eyes_closed, t.expression.as_ref());
                    eye_focus_ui(ui, t.eyes_sharpness, t.eyes_soft, blurry_below);
                });
            }
        });
    });
}

/// A face's eyes as their judge saw them (nothing when none could), and where the face mesh
/// ran, whether it smiles and whether it looks away; the mesh's figures on hover.
pub fn eyes_ui(
    ui: &mut egui::Ui,
    eyes_closed: Option<bool>,
    expression: Option<&darkroom_catalog::ExpressionRow>,
) {
    use darkroom_engine::face::{EXPRESSION_RULES, Openness};
    let rules = &EXPRESSION_RULES;
    let e = expression.map(darkroom_index::eyes::expression_of);
    let lids = e.map(|e| {
        format!(
            "lids open {:.2} and {:.2} of the eye's width (closed under {:.2})",
            e.eye_open[0], e.eye_open[1], rules.closed_below
        )
    });
    let half = e.is_some_and(|e| rules.eyes(&e).contains(&Openness::Half));
    let shown = match eyes_closed {
        Some(true) => Some(ui.colored_label(theme::EYES_CLOSED, "eyes closed")),
        Some(false) if half => Some(ui.label("eyes half-closed")),
        Some(false) => Some(ui.label("eyes open")),
        None => None,
    };
    if let (Some(r), Some(lids)) = (shown, lids) {
        r.on_hover_text(lids);
    }
    let Some(e) = e else {
        return;
    };
    if rules.smiling(&e) {
        ui.label("smiling").on_hover_text(format!(
            "smile {:.2} (from {:.2})",
            e.smile, rules.smile_from
        ));
    }
    if eyes_closed != Some(true) && rules.looking_away(&e) {
        ui.colored_label(theme::EYES_CLOSED, "looking away")
            .on_hover_text(format!(
                "gaze {:.0}° across, {:.0}° up or down",
                e.gaze[0],
                e.gaze[1] - rules.level_pitch_deg
            ));
    }
}

/// A face's focus in words a photographer reads at a glance — sharp, or blurry under the
/// threshold Settings hold —, the figure on hover.
pub fn face_focus_ui(ui: &mut egui::Ui, sharpness: f32, blurry_below: f32) {
    let figure = format!("focus {sharpness:.0} (blurry under {blurry_below:.0})");
    if sharpness < blurry_below {
        ui.colored_label(theme::EYES_CLOSED, "face blurry")
    } else {
        ui.label("face sharp")
    }
    .on_hover_text(figure);
}

/// A face's eye-level focus in words: "eyes soft" when they are softer than the face (the
/// focus on the nose, ears or hair), "eyes blurry" under the blurry threshold, else "eyes
/// sharp"; the sharper eye's figure on hover. Nothing when the eyes were too small to judge.
pub fn eye_focus_ui(ui: &mut egui::Ui, eyes_sharpness: Option<f32>, soft: bool, blurry_below: f32) {
    let Some(v) = eyes_sharpness else {
        return;
    };
    let figure = format!("eyes {v:.0} (blurry under {blurry_below:.0})");
    if soft {
        ui.colored_label(theme::EYES_CLOSED, "eyes soft")
    } else if v < blurry_below {
        ui.colored_label(theme::EYES_CLOSED, "eyes blurry")
    } else {
        ui.label("eyes sharp")
    }
    .on_hover_text(figure);
}

/// The subject's focus, as the index measured it: the figure inside and outside, and "subject
/// soft" when the focus missed it.
fn subject_ui(ui: &mut egui::Ui, app: &DarkRoom, p: &Photo) {
    let Some(a) = p.analysis.as_ref() else {
        return;
    };
    let Some(s) = a.subject.as_ref() else {
        // The index looks only where the subject can change a decision; O looks here.
        if !a.judged_by_faces {
            let words = if app.subject_looks.looking.as_ref() == Some(&a.path) {
                "looking for the subject…"
            } else if a.subject_sought {
                "no subject found"
            } else if app.show_subject && !app.subject_looks.stopped && app.tasks.indexing.is_some()
            {
                "subject not looked for · looked for once indexing ends"
            } else {
                "subject not looked for · O looks"
            };
            ui.label(RichText::new(words).size(theme::FACTS_TEXT).weak());
        }
        return;
    };
    let what = s.class.as_deref().unwrap_or("subject");
    let background = s
        .background
        .map(|b| format!(" · background {b:.0}"))
        .unwrap_or_default();
    let words = format!("{what} focus {:.0}{background}", s.sharpness);
    ui.horizontal(|ui| {
        ui.label(RichText::new(words).size(theme::FACTS_TEXT).weak());
        if s.soft {
            ui.colored_label(
                theme::EYES_CLOSED,
                RichText::new("subject soft").size(theme::FACTS_TEXT),
            );
        }
    });
}

/// Where the photo stands (its scene, its set) and, while a proposal is shown, every reason it
/// gives for this photo with its evidence.
fn context_ui(ui: &mut egui::Ui, app: &DarkRoom, id: EntryId, p: &Photo) {
    let place = super::grid::place_text(p);
    let proposed = app.cull.proposed(id.index());
    if place.is_empty() && proposed.is_none() {
        return;
    }
    ui.horizontal(|ui| {
        if !place.is_empty() {
            ui.label(RichText::new(place).size(theme::FACTS_TEXT).weak());
        }
        if let Some(proposed) = &proposed {
            let colour = match proposed.flag {
                darkroom_catalog::Flag::Pick => theme::PROPOSED_PICK,
                _ => theme::PROPOSED_REJECT,
            };
            ui.colored_label(
                colour,
                RichText::new(super::grid::proposal_reasons(proposed, &app.cull))
                    .size(theme::FACTS_TEXT),
            );
        }
    });
}

/// The id of the photo shown at position `v`, with what the views need of it.
pub fn shown(
    app: &DarkRoom,
    v: usize,
) -> Option<(EntryId, &Photo, &crate::gui::pictures::Pictures)> {
    let id = app.cull.visible_id(v)?;
    Some((id, app.cull.get(id)?, app.gallery.get(id)?))
}
