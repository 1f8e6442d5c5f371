//! The people strip over the grid: a chip per person (their first face, name, photo count, ★
//! for a key person); a click shows only their photos, again shows all; "Name…" in its menu
//! names them, and "Key person" stars them. Beside it,
//! the scene tags the scene model found, filtering the same way.

use crate::gui::intent::Intent;
use crate::gui::pictures::Picture;
use crate::gui::state::DarkRoom;
use crate::gui::theme;
use darkroom_index::culling::Filter;

pub fn people_ui(
    ui: &mut egui::Ui,
    app: &DarkRoom,
    naming_person: &mut Option<(i64, String)>,
    intents: &mut Vec<Intent>,
) {
    let people = app.cull.people();
    if people.is_empty() {
        return;
    }
    let mut start_naming = None;
    egui::ScrollArea::horizontal()
        .id_salt("people")
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                // A name never wraps letter by letter into the width left at the strip's end:
                // the strip scrolls instead.
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
                for person in people {
                    let (photo, b) = person.face;
                    intents.push(Intent::Show(photo, theme::THUMB_SIDE));
                    let id = person.person;
                    // ★ a key person; ☆ one in at least half of the folder's photos with faces,
                    // suggested.
                    let star = match (person.key, person.suggested) {
                        (true, _) => "★ ",
                        (false, true) => "☆ ",
                        (false, false) => "",
                    };
                    let label = format!("{star}{} ({})", app.cull.person_label(id), person.photos);
                    let selected = app.cull.filter == Filter::Person(id);
                    ui.vertical(|ui| {
                        if let Some(Picture::Ready(tex)) = app.gallery.get(photo).map(|p| &p.thumb)
                        {
                            let uv = egui::Rect::from_min_max(
                                egui::pos2(b[0], b[1]),
                                egui::pos2(b[2], b[3]),
                            );
                            let side = egui::vec2(theme::PERSON_CHIP, theme::PERSON_CHIP);
                            ui.add(egui::Image::new((tex.id(), side)).uv(uv));
                        }
                        let mut chip = ui.selectable_label(selected, label);
                        if person.suggested {
                            chip = chip.on_hover_text(
                                "In at least half of this folder's photos with faces: a key person? \
                                 (right-click)",
                            );
                        }
                        if chip.clicked() {
                            intents.push(Intent::TogglePerson(id));
                        }
                        chip.context_menu(|ui| {
                            if ui.button("Name…").clicked() {
                                start_naming = Some(id);
                                ui.close();
                            }
                            let (words, starred) = if person.key {
                                ("Not a key person", false)
                            } else {
                                ("Key person: their eyes and smile weigh first", true)
                            };
                            if ui.button(words).clicked() {
                                intents.push(Intent::StarPerson(id, starred));
                                ui.close();
                            }
                        });
                    });
                }
            });
        });
    if let Some(id) = start_naming {
        let current = app.cull.person_names.get(&id).cloned().unwrap_or_default();
        *naming_person = Some((id, current));
    }
    naming_ui(ui, app, naming_person, intents);
    ui.separator();
}

/// The scene tags over the grid, where a scene model ran: a chip per tag (its photos); a
/// click shows only its photos, again shows all.
pub fn tags_ui(ui: &mut egui::Ui, app: &DarkRoom, intents: &mut Vec<Intent>) {
    let tags = app.cull.tag_counts();
    if tags.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Scene:");
        for (tag, photos) in tags {
            let selected = app.cull.filter == Filter::Tag(tag);
            if ui
                .selectable_label(selected, format!("{} ({photos})", tag.word()))
                .on_hover_text("Only the photos the scene model sees this in (again: all)")
                .clicked()
            {
                intents.push(Intent::ToggleTag(tag));
            }
        }
    });
    ui.separator();
}

fn naming_ui(
    ui: &mut egui::Ui,
    app: &DarkRoom,
    naming_person: &mut Option<(i64, String)>,
    intents: &mut Vec<Intent>,
) {
    if let Some((id, mut text)) = naming_person.take() {
        let mut done = None;
        ui.horizontal(|ui| {
            let label = ui.label(format!("Name for {}:", app.cull.person_label(id)));
            let field = ui.text_edit_singleline(&mut text).labelled_by(label.id);
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button("Save").clicked() || entered {
                done = Some(true);
            }
            if ui.button("Cancel").clicked() {
                done = Some(false);
            }
        });
        match done {
            Some(true) => intents.push(Intent::NamePerson(id, text)),
            Some(false) => {}
            None => *naming_person = Some((id, text)),
        }
    }
}
