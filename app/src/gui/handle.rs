//! Carries out what the UI asked for, in one place, after the views are drawn: everything
//! that changes the culling state or starts work happens here.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::TrySendError;

use darkroom_catalog::{Change, Flag, Label};

use super::culling::{DecisionJob, EntryId, Filter, View};
use super::intent::{Intent, Overlay, SettingsChange, ZoomChange};
use super::keymap::Action;
use super::pictures::Faces;
use super::state::{DarkRoom, Indexing, StatusSource};
use super::tasks::Latest;
use super::theme::LOUPE_SIDE;
use super::windows::models::ModelsEnv;
use super::workers::{self, ModelsRequest};
use super::zoom;

impl DarkRoom {
    /// Carry out what the views asked for this frame, in order.
    pub(super) fn handle_intents(&mut self) {
        for intent in std::mem::take(&mut self.intents) {
            self.handle(intent);
        }
    }

    pub fn handle(&mut self, intent: Intent) {
        // A view shows this photo in this frame: its thumbnail and close-ups are kept.
        if let Intent::Show(id, _)
        | Intent::ShowFull(id)
        | Intent::ShowFacts(id)
        | Intent::CloseUps(id) = intent
        {
            self.gallery.seen(id);
        }
        match intent {
            Intent::Key(action) => self.act(action),
            Intent::Open(folder) => self.open(folder),
            Intent::ChooseFolder => self.choose_folder(),
            Intent::Select(v, how) => self.cull.select(v, how),
            Intent::OpenLoupe(v) => {
                self.cull.select_visible(v);
                self.cull.view = View::Loupe;
            }
            Intent::ShowOverlay(o) => self.overlay = o,
            Intent::CloseOverlay => self.close_overlay(),
            Intent::OpenModels => self.open_models(),
            Intent::Models(action) => {
                if let Some(env) = models_env(&self.env) {
                    self.windows.models.act(&env, action);
                }
            }
            Intent::StartIndex => self.start_index(),
            Intent::SetIndexPaused(p) => {
                if let Some(run) = &self.tasks.indexing {
                    run.control.set_paused(p);
                }
            }
            Intent::CancelIndex => {
                if let Some(run) = &self.tasks.indexing {
                    run.control.cancel();
                }
            }
            Intent::TogglePerson(id) => self.cull.toggle_person(id),
            Intent::ToggleTag(tag) => self.cull.toggle_tag(tag),
            Intent::NamePerson(id, name) => self.name_person(id, &name),
            Intent::Settings(change) => self.apply(change),
            Intent::Show(id, side) => self.request(id, side),
            Intent::ShowFull(id) => self.request_full(id),
            Intent::ShowFacts(id) => self.request_facts(id),
            Intent::Zoom(change) => self.zoom(change),
            Intent::Pin(id) => self.comparison.toggle_pin(id),
            Intent::PickFrame(id) => {
                if let Some(v) = self.cull.position_of(id) {
                    self.cull.select(v, super::culling::SelectHow::Only);
                    self.decide(Change::Flag(Flag::Pick));
                }
            }
            Intent::ZoomLock(id) => self.comparison.toggle_lock(id, self.zoom),
            Intent::CloseUps(id) => self.request_faces(id),
            Intent::DismissNotice(n) => self.notices.dismiss(n),
            Intent::ProposeCull => self.propose(),
            Intent::ApplyProposal => self.apply_proposal(),
            Intent::DiscardProposal => self.cull.discard_proposal(),
            Intent::RefineProposal(kind, aside) => self.refine_proposal(kind, aside),
            Intent::ExportPicks => self.export_picks(),
            Intent::CloseAnyway(now) => {
                use super::state::Closing;
                if matches!(self.ui_state.closing, Closing::Saving | Closing::Asking) {
                    self.ui_state.closing = if now {
                        Closing::Forced
                    } else {
                        Closing::Saving
                    };
                }
            }
            Intent::StopIngestAndClose(stop) => {
                use super::state::Closing;
                if self.ui_state.closing == Closing::AskStopIngest {
                    self.ui_state.closing = if stop {
                        self.windows.ingest.stop();
                        Closing::StoppingIngest
                    } else {
                        Closing::No
                    };
                }
            }
            Intent::CloseWithoutTheCopy => {
                use super::state::Closing;
                if self.ui_state.closing == Closing::StoppingIngest {
                    // Decisions still saving are waited for as ever; only the copy is not.
                    self.ui_state.closing = Closing::Saving;
                }
            }
            Intent::OpenIngest => self.open_ingest(),
            Intent::Ingest(action) => {
                self.windows.ingest.act(
                    action,
                    &self.env.pick_folder,
                    self.env.catalog_path.clone(),
                    (self.naming, self.words),
                    &self.env.wake,
                );
                if !self.windows.ingest.showing() && self.overlay == Overlay::Ingest {
                    self.overlay = Overlay::None;
                }
            }
            Intent::Export(action) => {
                self.windows.export.act(action, &self.env.wake);
                if !self.windows.export.showing() && self.overlay == Overlay::Export {
                    self.overlay = Overlay::None;
                }
            }
        }
    }

    fn act(&mut self, action: Action) {
        let columns = self.ui_state_columns();
        if matches!(
            action,
            Action::Next
                | Action::Previous
                | Action::Up
                | Action::Down
                | Action::ExtendNext
                | Action::ExtendPrevious
                | Action::ExtendUp
                | Action::ExtendDown
                | Action::Back
        ) {
            self.ui_state.follow_selection = true;
        }
        let grid = self.cull.view == View::Grid;
        match action {
            Action::Next => self.step_photo(1),
            Action::Previous => self.step_photo(-1),
            Action::Up if grid => self.cull.step(-(columns as isize)),
            Action::Down if grid => self.cull.step(columns as isize),
            Action::Up | Action::Down => {}
            Action::ExtendNext => self.cull.extend(1),
            Action::ExtendPrevious => self.cull.extend(-1),
            Action::ExtendUp if grid => self.cull.extend(-(columns as isize)),
            Action::ExtendDown if grid => self.cull.extend(columns as isize),
            Action::ExtendUp | Action::ExtendDown => {}
            Action::SelectAll => self.cull.select_all(),
            Action::ToggleLoupe => self.cull.toggle_loupe(),
            Action::Back => {
                if self.overlay != Overlay::None {
                    self.close_overlay();
                } else {
                    self.cull.view = View::Grid;
                }
            }
            Action::Compare => {
                let set = self.cull.compare();
                self.comparison.start(set);
            }
            Action::CompareScene => {
                let set = self.cull.compare_scene();
                self.comparison.start(set);
            }
            Action::ToggleClipping => self.show_clipping = !self.show_clipping,
            Action::ToggleSubject => self.show_subject = !self.show_subject,
            Action::PeopleAcross => {
                let set = self.cull.people_across();
                self.comparison.start(set);
            }
            Action::PinBest => {
                if self.cull.view == View::Compare
                    && let Some(id) = self.cull.selected_id()
                {
                    self.comparison.toggle_pin(id);
                }
            }
            Action::Zoom => self.zoom(ZoomChange::Toggle(zoom::FULL)),
            Action::Zoom200 => self.zoom(ZoomChange::Toggle(zoom::DOUBLE)),
            Action::PanLeft => self.zoom(ZoomChange::Step(egui::vec2(-1.0, 0.0))),
            Action::PanRight => self.zoom(ZoomChange::Step(egui::vec2(1.0, 0.0))),
            Action::PanUp => self.zoom(ZoomChange::Step(egui::vec2(0.0, -1.0))),
            Action::PanDown => self.zoom(ZoomChange::Step(egui::vec2(0.0, 1.0))),
            Action::Pick => self.decide(Change::Flag(Flag::Pick)),
            Action::Reject => self.decide(Change::Flag(Flag::Reject)),
            Action::Unflag => self.decide(Change::Flag(Flag::Unflagged)),
            Action::Stars(s) => self.decide(Change::Stars(s)),
            Action::Label(c) => {
                // Again on photos that all have it takes it off; on a mixed selection, all get it.
                let label = Label::Colour(c);
                let off = self.cull.targets_all(|d| d.label.as_ref() == Some(&label));
                self.decide(Change::Label((!off).then_some(label)));
            }
            Action::Undo => self.undo(),
            Action::Help => {
                self.overlay = if self.overlay == Overlay::Help {
                    Overlay::None
                } else {
                    Overlay::Help
                }
            }
            Action::Settings => self.overlay = Overlay::Settings,
            Action::OpenFolder => self.choose_folder(),
            Action::IndexFaces => self.start_index(),
            Action::ToggleBurst => self.cull.toggle_burst(),
            Action::SortBySharpness => self.cull.toggle_sort_by_sharpness(),
            Action::ProposeCull => self.propose(),
            Action::ApplyProposal => self.apply_proposal(),
            Action::DiscardProposal => self.cull.discard_proposal(),
            Action::ExportPicks => self.export_picks(),
            Action::Ingest => self.open_ingest(),
            Action::SortByTime => self.cull.toggle_sort_by_time(),
            Action::SameMoment => self.same_moment(),
            Action::FilterAll => self.cull.set_filter(Filter::All),
            Action::FilterPicks => self.cull.set_filter(Filter::Picks),
            Action::FilterRejects => self.cull.set_filter(Filter::Rejects),
            Action::FilterUnflagged => self.cull.set_filter(Filter::Unflagged),
            Action::FilterMinStars(n) => self.cull.set_filter(Filter::MinStars(n)),
            Action::FilterLabel(c) => self.cull.set_filter(Filter::Label(c)),
        }
    }

    /// Esc or the window's ×: closing the export window cancels it (a running copy stops
    /// between chunks, and says what it did).
    fn close_overlay(&mut self) {
        if self.overlay == Overlay::Ingest {
            // A running ingest goes on behind: the photographer culls what landed.
            self.windows.ingest.hide();
        }
        if self.overlay == Overlay::Export {
            self.windows
                .export
                .act(super::windows::export::ExportAction::Cancel, &self.env.wake);
            if self.windows.export.showing() {
                return;
            }
        }
        self.overlay = Overlay::None;
    }

    fn ui_state_columns(&self) -> usize {
        self.ui_state.columns.max(1)
    }

    /// Start scanning `folder` (in the background). Everything of the folder open before is
    /// let go: its photos, pictures, undo history and queued imports; results still on their
    /// way carry the old generation and are dropped when they arrive.
    pub fn open(&mut self, folder: PathBuf) {
        let generation = self.cull.open(folder.clone());
        self.gallery.open(generation);
        self.comparison.clear();
        self.tasks.thumbs.set_generation(generation);
        self.tasks.import_queue.clear();
        self.tasks.analysis = None;
        self.problems.clear();
        self.ui_state.grid_offset = None;
        self.recent.retain(|r| *r != folder);
        self.recent.insert(0, folder.clone());
        self.recent.truncate(8);
        self.tasks.sidecar_watch = Some(workers::watch_sidecars(
            folder.clone(),
            self.env.wake.clone(),
        ));
        self.tasks.scan = Some(workers::scan(
            folder,
            self.env.cancel.clone(),
            self.env.wake.clone(),
        ));
        self.save_settings();
    }

    /// "Open folder…": the dialog runs on its own thread; `logic` takes the answer.
    pub fn choose_folder(&mut self) {
        if self.tasks.folder_dialog.is_some() {
            return;
        }
        let start = self
            .cull
            .root
            .clone()
            .or_else(|| self.recent.first().cloned());
        self.tasks.folder_dialog = Some(workers::pick_folder(
            self.env.pick_folder.clone(),
            workers::FolderAsk {
                title: workers::OPEN_FOLDER,
                start,
            },
            self.env.wake.clone(),
        ));
    }

    /// Record a decision for the selected photos; one photo decided in a view that advances
    /// (Settings) moves on to the next.
    pub fn decide(&mut self, change: Change) {
        let alone = self.cull.selection_len() == 1;
        let jobs = self.cull.decide(change);
        let advance = match self.cull.view {
            View::Loupe | View::Compare => self.cull_settings.advance_in_loupe,
            View::Grid => self.cull_settings.advance_in_grid,
            // A frame picked for its faces is the answer, not a step in a walk.
            View::People => false,
        };
        if alone && advance && !jobs.is_empty() {
            self.step_photo(1);
            self.ui_state.follow_selection = true;
        }
        self.send_decisions(jobs);
    }

    pub fn undo(&mut self) {
        let jobs = self.cull.undo();
        self.send_decisions(jobs);
    }

    /// Propose a cull of the folder from the index (shown, not applied).
    pub fn propose(&mut self) {
        if let Err(why) = self.cull.propose(self.proposal_rules()) {
            self.notices.push(why);
        }
    }

    /// The proposal's rules as Settings has them now.
    pub fn proposal_rules(&self) -> darkroom_index::ProposalRules {
        darkroom_index::ProposalRules {
            strictness: self.cull_settings.strictness,
            keep_per_burst: self.cull_settings.keep_per_burst,
            blurry_below: self.blurry_below,
            // A proposal made again keeps what the photographer set aside in this one.
            without: self
                .cull
                .proposal_rules()
                .map(|r| r.without)
                .unwrap_or_default(),
        }
    }

    /// Set a reason aside in the proposal shown (or take it back): its proposals go.
    fn refine_proposal(&mut self, kind: darkroom_index::proposal::ReasonKind, aside: bool) {
        let Some(mut rules) = self.cull.proposal_rules() else {
            return;
        };
        if aside {
            rules.without.insert(kind);
        } else {
            rules.without.remove(&kind);
        }
        if let Err(why) = self.cull.propose(rules) {
            self.notices.push(why);
        }
    }

    pub fn apply_proposal(&mut self) {
        let jobs = self.cull.apply_proposal();
        self.send_decisions(jobs);
    }

    /// A body's clock correction to the catalog thread; the folder's analysis is read again
    /// once it is durable (`ClockSet`).
    fn set_clock(&mut self, body: String, offset_s: f64) {
        let request = workers::CatalogRequest::SetClock { body, offset_s };
        if self.tasks.catalog.client.try_send(request).is_err() {
            self.notices
                .push("the catalog is busy: the clock correction was not saved, try again");
        }
    }

    /// Ctrl+T on two photos of one moment from two bodies: the other photo's body is set to
    /// the current photo's clock.
    pub fn same_moment(&mut self) {
        let said = match self.cull.selected_pair() {
            None => Err("Ctrl+T: select two photos of one moment from two cameras (Shift+→), the one whose clock is right shown".to_owned()),
            Some((reference, other)) => match (&reference.analysis, &other.analysis) {
                (Some(a), Some(b)) => match (&a.clock.body, &b.clock.body, a.clock.corrected(), b.clock.captured_at) {
                    (Some(ra), Some(rb), Some(ta), Some(tb)) if ra != rb => Ok((rb.clone(), ta - tb)),
                    (Some(ra), Some(rb), ..) if ra == rb => Err(format!("Ctrl+T: both photos are from one camera ({ra})")),
                    _ => Err("Ctrl+T: a photo's EXIF names no camera or no capture time".to_owned()),
                },
                _ => Err("Ctrl+T: index the folder first (Ctrl+I): a photo's camera and time come from its index".to_owned()),
            },
        };
        match said {
            Ok((body, offset_s)) => self.set_clock(body, offset_s),
            Err(why) => self.notices.push(why),
        }
    }

    /// The Ingest window; a card open in the window is the card to ingest.
    pub fn open_ingest(&mut self) {
        // A folder whose photos are in a DCIM tree is a card (a path's words: no I/O here).
        let on_card = self
            .cull
            .entries()
            .iter()
            .any(|e| darkroom_library::card::in_dcim(&e.item.primary));
        let card = self.cull.root.clone().filter(|_| on_card);
        self.windows
            .ingest
            .start(card, self.env.catalog_path.clone(), &self.env.wake);
        self.overlay = Overlay::Ingest;
    }

    /// Photos the ingest landed on the working folder: that folder is shown (opened at the
    /// first), each photo added as it lands, so culling starts before the copy ends.
    pub(super) fn show_landed(&mut self, to: PathBuf, landed: Vec<Vec<PathBuf>>) {
        if self.cull.root.as_deref() != Some(to.as_path()) {
            // Its scan finds what landed so far; later photos come as they land.
            self.open(to);
        }
        let mut found = false;
        for files in landed {
            for item in darkroom_library::scan::items_of(files) {
                let path = item.primary.clone();
                if let Some(id) = self.cull.push_new(item) {
                    self.gallery.push(id);
                    self.tasks.import_queue.push_back((id, path));
                    found = true;
                }
            }
        }
        if found {
            self.cull.refilter();
        }
    }

    /// Copy the picks to a folder: the dialog, the plan, then the export window asks how.
    pub fn export_picks(&mut self) {
        let Some(root) = self.cull.root.clone() else {
            return;
        };
        let picks = self.cull.pick_items();
        if picks.is_empty() {
            self.notices
                .push("nothing is picked in this folder: pick (P) the photos to hand off first");
            return;
        }
        self.windows
            .export
            .start(picks, root, &self.env.pick_folder, &self.env.wake);
    }

    fn send_decisions(&mut self, jobs: Vec<DecisionJob>) {
        self.tasks.outbox.extend(jobs);
        self.flush_outbox();
    }

    /// Hand queued decisions to the catalog thread while its queue has room; the rest wait for
    /// the next `logic`. Never blocks: a catalog stuck on a slow disk must not freeze the window.
    pub(super) fn flush_outbox(&mut self) {
        while let Some(job) = self.tasks.outbox.pop_front() {
            match self.tasks.catalog.send_decision(job) {
                Ok(()) => {}
                Err((job, false)) => {
                    self.tasks.outbox.push_front(job);
                    return;
                }
                Err((job, true)) => {
                    let why = "the catalog thread stopped: the decision was not saved";
                    self.notices.push(why);
                    self.cull.send_failed(job, why.to_owned());
                }
            }
        }
    }

    /// Give person `id` a name (empty: forget it); the catalog thread records it.
    pub fn name_person(&mut self, id: i64, name: &str) {
        let name = self.cull.name_person(id, name);
        let msg = workers::CatalogRequest::NamePerson(id, name);
        if self.tasks.catalog.client.try_send(msg).is_err() {
            self.notices
                .push("the catalog is busy: the name was not saved");
        }
    }

    /// Open the Models window; its contents are read fresh each time it opens.
    pub fn open_models(&mut self) {
        self.overlay = Overlay::Models;
        if let Some(env) = models_env(&self.env) {
            self.windows.models.start(&env, ModelsRequest::Refresh);
        }
    }

    /// Index every photo of the folder on the backend as it is now (the job pins it).
    pub fn start_index(&mut self) {
        if !self.can_index() {
            return;
        }
        let (StatusSource::Live(backend), Some(models_dir)) = (&self.status, &self.env.models_dir)
        else {
            return;
        };
        let request = workers::IndexRequest {
            pin: backend.pin(),
            models_dir: models_dir.clone(),
            catalog: self.env.catalog_path.clone(),
            photos: self.cull.photos(),
            decode_threads: darkroom_index::job::decode_threads_max(),
            inference_threads: self.knobs.threads_in_effect,
            detector: self.detector.clone(),
        };
        let control = Arc::new(darkroom_index::Control::default());
        let live = Latest::default();
        self.index_summary = None;
        self.tasks.indexing = Some(Indexing {
            task: workers::index_job(
                request,
                Arc::clone(&control),
                live.clone(),
                self.env.wake.clone(),
            ),
            control,
            live,
        });
    }

    /// Ask for photo `id`'s picture at `side` once (a full queue: ask again next frame).
    fn request(&mut self, id: EntryId, side: u32) {
        let want = workers::Want::Side(side);
        if side == LOUPE_SIDE {
            self.ask(id, want, |p| &mut p.loupe);
        } else {
            self.ask(id, want, |p| &mut p.thumb);
        }
    }

    /// Ask for photo `id` at its own resolution once (the loupe's 100 %); its faces' close-ups
    /// come with it, cut from the same decode.
    fn request_full(&mut self, id: EntryId) {
        self.ask(id, workers::Want::Full, |p| &mut p.full);
        let Some(p) = self.gallery.get_mut(id) else {
            return;
        };
        if matches!(p.faces, Faces::None) {
            if p.full.waiting() {
                p.faces = Faces::Requested;
            } else if p.full.ready().is_some() {
                // Let go under the thumbnail budget while the photo's own pixels stayed.
                self.request_faces(id);
            }
        }
    }

    /// Ask for photo `id`'s facts once (a small read of its EXIF).
    fn request_facts(&mut self, id: EntryId) {
        self.ask(id, workers::Want::Facts, |p| &mut p.facts);
    }

    /// Queue `want` for photo `id` if its slot has nothing yet; a full queue leaves the slot
    /// empty, so the view's next frame asks again.
    fn ask<T>(
        &mut self,
        id: EntryId,
        want: workers::Want,
        slot: impl Fn(&mut super::pictures::Pictures) -> &mut super::pictures::Slot<T>,
    ) {
        let (Some(photo), Some(pictures)) = (self.cull.get(id), self.gallery.get_mut(id)) else {
            return;
        };
        let slot = slot(pictures);
        if !matches!(slot, super::pictures::Slot::None) {
            return;
        }
        let job = workers::ThumbJob {
            id,
            path: photo.item.display_file().to_path_buf(),
            photo: photo.item.primary.clone(),
            want,
        };
        if self.tasks.thumbs.send(job) {
            *slot = super::pictures::Slot::Requested;
        }
    }

    /// A zoom key, click or drag in the loupe or a compare pane, read against where that
    /// photo was drawn in the last frame. An unlocked compare pane has its own zoom.
    fn zoom(&mut self, change: ZoomChange) {
        let placed = self.ui_state.loupe_placed;
        // At the point under the pointer; else at the face chosen in the strip.
        let under_pointer = placed
            .zip(self.ui_state.pointer)
            .and_then(|(p, pos)| p.point_at(pos))
            .or_else(|| self.chosen_face_center());
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
    fn step_photo(&mut self, by: isize) {
        if self.cull.view == View::Compare {
            if let Some(v) = self.comparison.step(&self.cull, by) {
                self.cull.select(v, super::culling::SelectHow::Only);
            }
        } else {
            self.cull.step(by);
        }
    }

    /// The middle of the face chosen in the loupe's strip, if it is of the photo shown.
    fn chosen_face_center(&self) -> Option<egui::Pos2> {
        let (id, k) = self.ui_state.chosen_face?;
        if self.cull.selected_id() != Some(id) {
            return None;
        }
        match &self.gallery.get(id)?.faces {
            Faces::Ready(tiles) => tiles.get(k).map(|t| t.center),
            _ => None,
        }
    }

    /// Ask for photo `id`'s close-ups once, alone (people across a burst: a column per frame,
    /// no frame's full view); the loupe's come with its full resolution.
    fn request_faces(&mut self, id: EntryId) {
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

    /// Apply a Settings change; persisting it is file I/O, so it happens on its own thread.
    fn apply(&mut self, change: SettingsChange) {
        match change {
            SettingsChange::Force(rung) => {
                if let StatusSource::Live(backend) = &self.status {
                    backend.set_forced(rung.map(|rung| darkroom_engine::ladder::Override {
                        rung,
                        source: darkroom_engine::ladder::OverrideSource::Setting,
                    }));
                }
                self.knobs.saved.force = rung;
                self.save_backend_settings();
            }
            SettingsChange::Threads(n) => {
                self.knobs.saved.threads = n;
                self.save_backend_settings();
            }
            SettingsChange::BlurryBelow(v) => {
                self.blurry_below = v;
                self.save_settings();
            }
            SettingsChange::Culling(c) => {
                let regroup = c.scenes != self.cull_settings.scenes;
                self.cull_settings = c;
                if regroup {
                    // Scenes are grouped with the analysis: read again, the proposal follows.
                    self.load_analysis();
                }
                self.save_settings();
            }
            SettingsChange::Detector(id) => {
                self.detector = id;
                self.save_settings();
            }
            SettingsChange::Workspace(mb) => {
                self.knobs.saved.workspace_mb = mb;
                self.save_backend_settings();
            }
            SettingsChange::Clock(body, offset_s) => self.set_clock(body, offset_s),
            SettingsChange::WriteToCards(write) => {
                self.write_to_cards = write;
                if self
                    .tasks
                    .catalog
                    .client
                    .try_send(workers::CatalogRequest::WriteToCards(write))
                    .is_err()
                {
                    self.notices
                        .push("the catalog is busy: writing to cards changes from the next start");
                }
                self.save_settings();
            }
            SettingsChange::Words(words) => {
                self.words = words;
                if self
                    .tasks
                    .catalog
                    .client
                    .try_send(workers::CatalogRequest::Words(words))
                    .is_err()
                {
                    self.notices.push(
                        "the catalog is busy: the sidecars' words change from the next start",
                    );
                }
                self.save_settings();
            }
            SettingsChange::Naming(naming) => {
                self.naming = naming;
                if self
                    .tasks
                    .catalog
                    .client
                    .try_send(workers::CatalogRequest::Naming(naming))
                    .is_err()
                {
                    self.notices.push(
                        "the catalog is busy: the sidecar naming applies from the next start",
                    );
                }
                self.save_settings();
            }
        }
    }

    /// Persist recent folders and naming (the settings thread does the file I/O).
    fn save_settings(&mut self) {
        let Some(path) = self.env.settings_file.clone() else {
            return;
        };
        let settings = crate::services::AppSettings {
            recent: self.recent.clone(),
            naming: self.naming,
            detector: Some(self.detector.clone()),
            blurry_below: Some(self.blurry_below),
            culling: self.cull_settings,
            sidecar_words: self.words,
            write_to_cards: self.write_to_cards,
        };
        self.save(workers::SaveMsg::App(path, settings));
    }

    /// Persist the engine's settings (the settings thread does the file I/O).
    fn save_backend_settings(&mut self) {
        if let Some(dir) = self.env.inference_dir.clone() {
            self.save(workers::SaveMsg::Backend(dir, self.knobs.saved.clone()));
        }
    }

    fn save(&mut self, msg: workers::SaveMsg) {
        // Sixteen unsaved changes at once means the disk is stuck; say so, keep going.
        if let Err(e) = self.tasks.saver.try_send(msg) {
            let why = match e {
                TrySendError::Full(_) => "the settings writer is behind",
                TrySendError::Disconnected(_) => "the settings writer stopped",
            };
            self.notices.push(format!("settings not saved: {why}"));
        }
    }
}

/// Where the model manager works, from the window's fixed environment.
pub(super) fn models_env(env: &super::state::Env) -> Option<ModelsEnv<'_>> {
    Some(ModelsEnv {
        models_dir: env.models_dir.as_ref()?,
        mirror: env.model_mirror.clone(),
        pick_folder: &env.pick_folder,
        wake: &env.wake,
    })
}
