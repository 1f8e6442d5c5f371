//! Intents that open things or start work: a folder, the ingest, the export, the models
//! window, the index job; naming a person, a body's clock.

use std::path::PathBuf;
use std::sync::Arc;

use super::models_env;
use crate::gui::intent::Overlay;
use crate::gui::state::{DarkRoom, Indexing, StatusSource};
use crate::gui::tasks::Latest;
use crate::gui::workers::{self, ModelsRequest};

impl DarkRoom {
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
    pub(in crate::gui) fn show_landed(&mut self, to: PathBuf, landed: Vec<Vec<PathBuf>>) {
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
            eye_judge: self.cull_settings.eye_judge,
            scenes: self.cull_settings.scenes,
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
            first_pass_read: false,
        });
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

    /// Make person `id` a key person (or not): the catalog thread records it, and the
    /// folder's analysis is read again once it is durable (`PersonStarred`).
    pub fn star_person(&mut self, id: i64, starred: bool) {
        let msg = workers::CatalogRequest::StarPerson(id, starred);
        if self.tasks.catalog.client.try_send(msg).is_err() {
            self.notices
                .push("the catalog is busy: the key person was not saved, try again");
        }
    }

    /// A body's clock correction to the catalog thread; the folder's analysis is read again
    /// once it is durable (`ClockSet`).
    pub(in crate::gui) fn set_clock(&mut self, body: String, offset_s: f64) {
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
}
