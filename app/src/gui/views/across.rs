//! People across a burst (or a selection): a row per person, a column per frame, each cell the
//! person's face in that frame at 100 % with its focus and eyes. It answers "in which frame is
//! everyone sharp with open eyes": such frames are marked over their column, and "Pick this
//! frame" picks one.

use darkroom_index::across::{self, FaceAt};
use egui::RichText;

use crate::gui::intent::Intent;
use crate::gui::pictures::{FaceTile, Faces, Picture};
use crate::gui::state::DarkRoom;
use crate::gui::theme;
use darkroom_index::culling::EntryId;

pub fn across_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let frames = app.comparison.panes(&app.cull);
    let mut tiles: Vec<&[FaceTile]> = Vec::new();
    let mut waiting = false;
    for &id in &frames {
        intents.push(Intent::CloseUps(id));
        intents.push(Intent::Show(id, theme::THUMB_SIDE));
        match app.gallery.get(id).map(|p| &p.faces) {
            Some(Faces::Ready(t)) => tiles.push(t),
            Some(Faces::NotIndexed | Faces::Failed(_)) => tiles.push(&[]),
            _ => {
                waiting = true;
                tiles.push(&[]);
            }
        }
    }
    let faces: Vec<Vec<FaceAt>> = tiles
        .iter()
        .map(|t| {
            t.iter()
                .map(|f| FaceAt {
                    person: f.person,
                    center: (f.center.x, f.center.y),
                    sharpness: f.sharpness,
                    eyes_closed: f.eyes_closed,
                    eyes_soft: f.eyes_soft,
                })
                .collect()
        })
        .collect();
    let rows = across::rows(&faces);
    let good = across::everyone_good(&faces, &rows, app.blurry_below);
    ui.horizontal(|ui| {
        ui.heading("People across these frames");
        if waiting {
            ui.spinner();
        }
    });
    if rows.is_empty() && !waiting {
        ui.label("No faces in these frames: index the folder (Ctrl+I) to find them.");
        return;
    }
    let cell = theme::ACROSS_CELL;
    egui::ScrollArea::both().auto_shrink(false).show(ui, |ui| {
        egui::Grid::new("people across")
            .spacing(egui::vec2(theme::COMPARE_GAP, theme::COMPARE_GAP))
            .show(ui, |ui| {
                ui.label("");
                for (k, &id) in frames.iter().enumerate() {
                    frame_header_ui(ui, app, id, good.contains(&k), intents);
                }
                ui.end_row();
                for (r, row) in rows.iter().enumerate() {
                    let who = row
                        .person
                        .map_or_else(|| format!("Person {}", r + 1), |p| app.cull.person_label(p));
                    ui.label(RichText::new(who).strong());
                    for (k, face) in row.faces.iter().enumerate() {
                        match face.and_then(|i| tiles[k].get(i)) {
                            Some(t) => face_cell_ui(ui, t, cell, app.blurry_below),
                            None => {
                                ui.allocate_ui(egui::vec2(cell, cell), |ui| {
                                    ui.weak("not in this frame");
                                });
                            }
                        }
                    }
                    ui.end_row();
                }
            });
    });
}

/// A column's head: the frame, its decision, whether everyone is good in it, and its pick.
fn frame_header_ui(
    ui: &mut egui::Ui,
    app: &DarkRoom,
    id: EntryId,
    everyone_good: bool,
    intents: &mut Vec<Intent>,
) {
    let (Some(photo), Some(pictures)) = (app.cull.get(id), app.gallery.get(id)) else {
        ui.label("");
        return;
    };
    ui.vertical(|ui| {
        if let Picture::Ready(tex) = &pictures.thumb {
            let size = tex.size_vec2();
            let scale = (theme::ACROSS_CELL / size.x.max(size.y)).min(1.0);
            ui.image((tex.id(), size * scale));
        }
        ui.horizontal(|ui| {
            ui.label(RichText::new(photo.file_name()).small());
            let mut job = egui::text::LayoutJob::default();
            super::badge::append_glyphs(
                &mut job,
                photo,
                theme::CELL_TEXT,
                ui.visuals().text_color(),
            );
            ui.label(job);
        });
        if everyone_good {
            ui.colored_label(theme::PICK_COLOUR, "everyone sharp, eyes open");
        }
        let label = format!("Pick this frame {}", photo.file_name());
        let button = ui.button("Pick this frame");
        button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
        if button.clicked() {
            intents.push(Intent::PickFrame(id));
        }
    });
}

/// One person's face in one frame: at 100 % up to the cell, with its focus and eyes.
fn face_cell_ui(ui: &mut egui::Ui, t: &FaceTile, cell: f32, blurry_below: f32) {
    ui.vertical(|ui| {
        let size = t.texture.size_vec2();
        let shown = size * (cell / size.x.max(size.y)).min(1.0);
        ui.image((t.texture.id(), shown));
        super::loupe::face_focus_ui(ui, t.sharpness, blurry_below);
        super::loupe::eyes_ui(ui, t.eyes_closed, t.expression.as_ref());
        super::loupe::eye_focus_ui(ui, t.eyes_sharpness, t.eyes_soft, blurry_below);
    });
}
