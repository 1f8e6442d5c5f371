//! The loupe: one photo fit to the window or at 100% (Z), its caption, and the close-up strip
//! of its indexed faces. Its neighbours are asked for too, so next and previous are instant.

use egui::RichText;

use crate::gui::culling::{EntryId, Photo};
use crate::gui::intent::Intent;
use crate::gui::pictures::{FaceTile, Faces, Picture};
use crate::gui::state::DarkRoom;
use crate::gui::theme::{self, LOUPE_SIDE};
use crate::gui::workers::FACE_CROP_MAX;

pub fn loupe_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let cull = &app.cull;
    let Some(id) = cull.selected_id() else {
        return;
    };
    let (Some(photo), Some(pictures)) = (cull.get(id), app.gallery.get(id)) else {
        return;
    };
    intents.push(Intent::Show(id, LOUPE_SIDE));
    for v in [cull.selected + 1, cull.selected.wrapping_sub(1)] {
        if let Some(n) = cull.visible_id(v) {
            intents.push(Intent::Show(n, LOUPE_SIDE));
        }
    }
    caption_ui(ui, photo);
    intents.push(Intent::CloseUps(id));
    match &pictures.faces {
        Faces::Ready(tiles) if !tiles.is_empty() => {
            egui::Panel::bottom("faces").show(ui, |ui| face_strip_ui(ui, tiles));
        }
        // The close-ups could not be made: say why rather than show nothing.
        Faces::Failed(e) => {
            ui.colored_label(theme::ERROR_TEXT, format!("Faces: {e}"));
        }
        _ => {}
    }
    picture_ui(ui, &pictures.loupe, cull.zoom_100);
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

/// The loupe's close-ups: every face at 100% (up to a fixed size) with its focus and eyes, so a
/// missed focus or a blink shows without zooming around the photo.
fn face_strip_ui(ui: &mut egui::Ui, tiles: &[FaceTile]) {
    egui::ScrollArea::horizontal().show(ui, |ui| {
        ui.horizontal(|ui| {
            for t in tiles {
                ui.vertical(|ui| {
                    let max = FACE_CROP_MAX as f32;
                    let size = t.texture.size_vec2().min(egui::vec2(max, max));
                    let shown = size * (theme::CLOSE_UP_HEIGHT / size.y).min(1.0);
                    ui.image((t.texture.id(), shown));
                    ui.label(format!("focus {:.0}", t.sharpness));
                    match t.eyes_closed {
                        Some(true) => {
                            ui.colored_label(theme::EYES_CLOSED, "eyes closed");
                        }
                        Some(false) => {
                            ui.label("eyes open");
                        }
                        None => {}
                    }
                });
            }
        });
    });
}

/// A loupe picture, fit (never enlarged) or at 100% in a scroll area.
pub fn picture_ui(ui: &mut egui::Ui, picture: &Picture, zoom_100: bool) {
    match picture {
        Picture::Ready(tex) => {
            if zoom_100 {
                egui::ScrollArea::both().auto_shrink(false).show(ui, |ui| {
                    ui.image((tex.id(), tex.size_vec2()));
                });
            } else {
                let avail = ui.available_size();
                let size = tex.size_vec2();
                let scale = (avail.x / size.x).min(avail.y / size.y).min(1.0);
                ui.centered_and_justified(|ui| {
                    ui.image((tex.id(), size * scale));
                });
            }
        }
        Picture::Failed(err) => {
            ui.colored_label(theme::ERROR_TEXT, err);
        }
        _ => {
            ui.centered_and_justified(|ui| ui.spinner());
        }
    }
}

/// The id of the photo shown at position `v`, with what the views need of it.
pub fn shown(
    app: &DarkRoom,
    v: usize,
) -> Option<(EntryId, &Photo, &crate::gui::pictures::Pictures)> {
    let id = app.cull.visible_id(v)?;
    Some((id, app.cull.get(id)?, app.gallery.get(id)?))
}
