//! Intents that ask for pictures: thumbnails, previews, the full resolution, facts and
//! close-ups, each to its worker; zoom and the steps the loupe takes.

use crate::gui::intent::ZoomChange;
use crate::gui::pictures::Faces;
use crate::gui::state::DarkRoom;
use crate::gui::theme::LOUPE_SIDE;
use crate::gui::workers;
use crate::gui::zoom;
use darkroom_index::culling::{EntryId, View};

impl DarkRoom {
    /// Ask for photo `id`'s picture at `side` once (a full queue: ask again next frame).
    pub(in crate::gui) fn request(&mut self, id: EntryId, side: u32) {
        let want = workers::Want::Side(side);
        if side == LOUPE_SIDE {
            self.ask(id, want, |p| &mut p.loupe);
        } else {
            self.ask(id, want, |p| &mut p.thumb);
        }
    }

    /// Ask for photo `id` at its own resolution once (the loupe's 100 %); its faces' close-ups
    /// come with it, cut from the same decode.
    pub(in crate::gui) fn request_full(&mut self, id: EntryId) {
        self.ask(id, workers::Want::Full, |p| &mut p.full);
        // Its pixels decoded and going up, the full job has answered already: the close-ups
        // are then asked for alone, or nothing would ever answer them.
        let answered = self.gallery.full_made(id);
        let Some(p) = self.gallery.get_mut(id) else {
            return;
        };
        if !matches!(p.faces, Faces::None) {
            return;
        }
        if p.full.waiting() && !answered {
            p.faces = Faces::Requested;
        } else if p.full.ready().is_some() || answered {
            // Let go under the thumbnail budget while the photo's own pixels stayed.
            self.request_faces(id);
        }
    }

    /// Ask for photo `id`'s facts once (a small read of its EXIF).
    pub(in crate::gui) fn request_facts(&mut self, id: EntryId) {
        self.ask(id, workers::Want::Facts, |p| &mut p.facts);
    }

    /// Queue `want` for photo `id` if its slot has nothing yet; a full queue leaves the slot
    /// empty, so the view's next frame asks again.
    pub(in crate::gui) fn ask<T>(
        &mut self,
        id: EntryId,
        want: workers::Want,
        slot: impl Fn(&mut crate::gui::pictures::Pictures) -> &mut crate::gui::pictures::Slot<T>,
    ) {
        let (Some(photo), Some(pictures)) = (self.cull.get(id), self.gallery.get_mut(id)) else {
            return;
        };
        let slot = slot(pictures);
        if !matches!(slot, crate::gui::pictures::Slot::None) {
            return;
        }
        let job = workers::ThumbJob {
            id,
            path: photo.item.display_file().to_path_buf(),
            photo: photo.item.primary.clone(),
            want,
        };
        if self.tasks.thumbs.send(job) {
            *slot = crate::gui::pictures::Slot::Requested;
        }
    }

    /// A zoom key, click or drag in the loupe or a compare pane, read against where that
    /// photo was drawn in the last frame. An unlocked compare pane has its own zoom.
    pub(in crate::gui) fn zoom(&mut self, change: ZoomChange) {
        let placed = self.ui_state.loupe_placed;
        // At the point under the pointer; else at the face chosen in the strip; else, on a
        // photo without faces, where the camera focused.
        let under_pointer = placed
            .zip(self.ui_state.pointer)
            .and_then(|(p, pos)| p.point_at(pos))
            .or_else(|| self.chosen_face_center())
            .or_else(|| self.af_point_center());
        if let ZoomChange::Face(k) = change {
            self.ui_state.chosen_face = self.cull.selected_id().map(|id| (id, k));
        }
        let face = self.chosen_face_center();
        let own = match self.ui_state.zoom_pane {
            Some(id) if self.cull.view == View::Compare => self.comparison.own_zoom(id),
            _ => None,
        };
        let zoom = own.unwrap_or(&mut self.zoom);
        let keep_scale = zoom.scale.unwrap_or(zoom::FULL);
        match change {
            ZoomChange::Toggle(scale) => zoom.toggle(scale, under_pointer),
            ZoomChange::At(scale, at) => zoom.toggle(scale, Some(at)),
            ZoomChange::Pan(delta) => {
                if let Some(p) = placed {
                    zoom.pan(delta, &p);
                }
            }
            ZoomChange::Step(dir) => {
                if let Some(p) = placed {
                    zoom.pan_step(dir, &p);
                }
            }
            ZoomChange::LookAt(at) => zoom.zoom_to(keep_scale, Some(at)),
            ZoomChange::Face(_) => {
                if let Some(at) = face {
                    zoom.zoom_to(keep_scale, Some(at));
                }
            }
        }
    }

    /// → and ← (and moving on after a decision): in compare, to the next pane of the set or
    /// past the pinned photo; elsewhere, to the next photo shown.
    pub(in crate::gui) fn step_photo(&mut self, by: isize) {
        if self.cull.view == View::Compare {
            if let Some(v) = self.comparison.step(&self.cull, by) {
                self.cull
                    .select(v, darkroom_index::culling::SelectHow::Only);
            }
        } else {
            self.cull.step(by);
        }
    }

    /// The middle of the face chosen in the loupe's strip, if it is of the photo shown.
    pub(in crate::gui) fn chosen_face_center(&self) -> Option<egui::Pos2> {
        let (id, k) = self.ui_state.chosen_face?;
        if self.cull.selected_id() != Some(id) {
            return None;
        }
        match &self.gallery.get(id)?.faces {
            Faces::Ready(tiles) => tiles.get(k).map(|t| t.center),
            _ => None,
        }
    }

    /// The middle of where the camera focused on the photo shown (its AF points in focus, else
    /// the chosen ones), as fractions of the photo; None where it has faces (Z goes to them)
    /// or its file records no AF point.
    pub(in crate::gui) fn af_point_center(&self) -> Option<egui::Pos2> {
        let id = self.cull.selected_id()?;
        let pictures = self.gallery.get(id)?;
        if matches!(&pictures.faces, Faces::Ready(tiles) if !tiles.is_empty()) {
            return None;
        }
        let crate::gui::pictures::Slot::Ready(facts) = &pictures.facts else {
            return None;
        };
        let r = facts.af.as_ref()?.focus_area()?;
        Some(egui::pos2((r[0] + r[2]) / 2.0, (r[1] + r[3]) / 2.0))
    }

    /// Ask for photo `id`'s close-ups once, alone (people across a burst: a column per frame,
    /// no frame's full view); the loupe's come with its full resolution.
    pub(in crate::gui) fn request_faces(&mut self, id: EntryId) {
        let (Some(photo), Some(pictures)) = (self.cull.get(id), self.gallery.get_mut(id)) else {
            return;
        };
        if !matches!(pictures.faces, Faces::None) {
            return;
        }
        let job = workers::ThumbJob {
            id,
            path: photo.item.display_file().to_path_buf(),
            photo: photo.item.primary.clone(),
            want: workers::Want::Faces,
        };
        if self.tasks.thumbs.send(job) {
            pictures.faces = Faces::Requested;
        }
    }
}
