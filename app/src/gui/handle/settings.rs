//! Intents that change a setting, and the saves that follow.

use std::sync::mpsc::TrySendError;

use crate::gui::intent::SettingsChange;
use crate::gui::state::{DarkRoom, StatusSource};
use crate::gui::workers;

impl DarkRoom {
    /// Apply a Settings change; persisting it is file I/O, so it happens on its own thread.
    pub(in crate::gui) fn apply(&mut self, change: SettingsChange) {
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
                self.detector_saved = Some(id.clone());
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
    pub(in crate::gui) fn save_settings(&mut self) {
        let Some(path) = self.env.settings_file.clone() else {
            return;
        };
        let settings = crate::services::AppSettings {
            recent: self.recent.clone(),
            naming: self.naming,
            detector: self.detector_saved.clone(),
            blurry_below: Some(self.blurry_below),
            culling: self.cull_settings,
            sidecar_words: self.words,
            write_to_cards: self.write_to_cards,
        };
        self.save(workers::SaveMsg::App(path, settings));
    }

    /// Persist the engine's settings (the settings thread does the file I/O).
    pub(in crate::gui) fn save_backend_settings(&mut self) {
        if let Some(dir) = self.env.inference_dir.clone() {
            self.save(workers::SaveMsg::Backend(dir, self.knobs.saved.clone()));
        }
    }

    pub(in crate::gui) fn save(&mut self, msg: workers::SaveMsg) {
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
