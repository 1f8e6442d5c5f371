//! One frame: keys first (so the frame shows their effect), then the views, then the open
//! window, then what they asked for. Background work is taken in by `logic`, not here.

use super::intent::{Intent, Overlay};
use super::keymap;
use super::state::DarkRoom;
use super::theme::CELL;
use super::views;
use super::windows::WindowEnv;
use super::windows::settings::IndexSettings;
use darkroom_index::culling::View;

impl DarkRoom {
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.ui_state.frames += 1;
        match self.ui_state.frames {
            // Ask for a second frame at once: eframe presents this one before drawing it.
            1 => ctx.request_repaint(),
            2 => self.start_deferred(),
            _ => {}
        }
        self.ui_state.columns = ((ui.available_width() / CELL).floor() as usize).max(1);
        self.ui_state.pointer = ctx.input(|i| i.pointer.hover_pos());
        let typing = ctx.memory(|m| m.focused().is_some());
        // Keys still decide while the window waits to close: what they decide is waited for.
        if !typing {
            // Each key in the scope the keys before it left: Enter then F opens the loupe and
            // shows its AF points, as the same keys a frame apart would.
            for press in ctx.input(|i| keymap::presses(&i.events)) {
                if let Some(action) = press.action(self.over_photo()) {
                    self.handle(Intent::Key(action));
                }
            }
        }
        // Where the keys took the loupe decides what its pictures are made in.
        self.plan_pictures(&ctx);
        let status = self.backend_status();
        let mut intents = std::mem::take(&mut self.intents);
        let mut state = std::mem::take(&mut self.ui_state);
        // The loupe says where it drew, if it is drawn at all.
        state.loupe_placed = None;
        state.loupe_drew = None;
        state.zoom_pane = None;
        {
            let app = &*self;
            egui::Panel::top("top").show(ui, |ui| {
                views::top_bar::top_bar_ui(ui, app, status.as_ref(), &mut intents);
            });
            if app.cull.proposal_counts().is_some() {
                egui::Panel::top("proposal").show(ui, |ui| {
                    views::proposal_bar::proposal_bar_ui(ui, app, &mut intents);
                });
            }
            if !app.notices.is_empty() {
                egui::Panel::top("notices").show(ui, |ui| {
                    views::notices::notices_ui(ui, &app.notices, &mut intents);
                });
            }
            egui::CentralPanel::default().show(ui, |ui| {
                if app.root().is_none() {
                    views::empty::empty_ui(ui, app, &mut state.folder_field, &mut intents);
                    return;
                }
                match app.cull.view {
                    View::Grid => {
                        views::people::people_ui(ui, app, &mut state.naming_person, &mut intents);
                        views::people::tags_ui(ui, app, &mut intents);
                        views::grid::grid_ui(ui, app, &mut state, &mut intents);
                    }
                    View::Loupe => views::loupe::loupe_ui(ui, app, &mut state, &mut intents),
                    View::Compare => views::compare::compare_ui(ui, app, &mut state, &mut intents),
                    View::People => views::across::across_ui(ui, app, &mut intents),
                }
            });
        }
        // Only Settings lists them: a folder's walk, not every frame's.
        let bodies = if self.overlay == Overlay::Settings {
            self.cull.bodies()
        } else {
            Vec::new()
        };
        let env = WindowEnv {
            status: status.as_ref(),
            naming: self.naming,
            words: self.words,
            write_to_cards: self.write_to_cards,
            bodies: &bodies,
            knobs: &self.knobs,
            index: IndexSettings {
                detectors: &self.detectors,
                detector: &self.detector,
                blurry_below: self.blurry_below,
                culling: self.cull_settings,
            },
            models_dir: self.env.models_dir.as_deref(),
        };
        self.windows.show(&ctx, self.overlay, &env, &mut intents);
        self.ui_state = state;
        views::closing::closing_ui(&ctx, self, &mut intents);
        // Asking for pictures changes nothing on screen until they arrive (which wakes the
        // window); anything else the user did is drawn in the next frame, at once.
        if intents
            .iter()
            .any(|i| !matches!(i, Intent::Show(..) | Intent::CloseUps(_)))
        {
            ctx.request_repaint();
        }
        self.intents = intents;
        self.handle_intents();
    }
}
