//! Carries out what the UI asked for, in one place, after the views are drawn: everything
//! that changes the culling state or starts work happens here.

mod decisions;
mod folders;
mod pictures;
mod settings;

use darkroom_catalog::{Change, Flag, Label};

use crate::gui::intent::{Intent, Overlay, ZoomChange};
use crate::gui::keymap::Action;
use crate::gui::state::DarkRoom;
use crate::gui::windows::models::ModelsEnv;
use crate::gui::zoom;
use darkroom_index::culling::{Filter, View};

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
            Intent::StarPerson(id, starred) => self.star_person(id, starred),
            Intent::Settings(change) => self.apply(change),
            Intent::Show(id, side) => self.request(id, side),
            Intent::ShowFull(id) => self.request_full(id),
            Intent::ShowFacts(id) => self.request_facts(id),
            Intent::Zoom(change) => self.zoom(change),
            Intent::Pin(id) => self.comparison.toggle_pin(id),
            Intent::PickFrame(id) => {
                if let Some(v) = self.cull.position_of(id) {
                    self.cull
                        .select(v, darkroom_index::culling::SelectHow::Only);
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
        if action.moves() || action == Action::Back {
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
            Action::ToggleAfPoints => self.show_af_points = !self.show_af_points,
            Action::ToggleFocusPeaking => self.show_peaking = !self.show_peaking,
            Action::ToggleSubject => {
                self.show_subject = !self.show_subject;
                // Asking again is the person's say: a look that failed may be tried again.
                self.subject_looks.stopped = false;
            }
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
