//! The one place that takes in what background work reported: eframe calls [`DarkRoom::logic`]
//! before every frame, and on its own while the window is hidden or minimised (when `ui` is not
//! called at all), so scans, imports, decisions and index jobs go on unseen. Each poll is
//! bounded, so one call stays short whatever piled up.

use std::time::Duration;

/// Said when the folder opened is a camera's card.
const CARD_NOTICE: &str = "This is a camera card: nothing is written to it. Decisions are kept in the catalog and go into the copies' sidecars when you ingest (Ctrl+G).";

use darkroom_library::ScanEvent;

use super::pictures::{FaceTile, Faces, Full, FullUpload, PartUpload, Picture, TilesUp};
use std::sync::mpsc::TrySendError;

use super::state::{Closing, DarkRoom, StatusSource};
use super::tasks::take_answer;
use super::theme::{LOUPE_SIDE, THUMB_SIDE};
use super::workers::{CatalogReport, CatalogRequest, FullMade, Made, Want, ZoomedView};
use darkroom_index::culling::{DecisionAck, EntryId};

/// Per call: scan events, catalog reports, decoded pictures (their upload is the window's only
/// image work, so it is kept small).
const SCAN_EVENTS: usize = 2048;
const CATALOG_REPORTS: usize = 4096;
/// Pixels a frame uploads at most, about: two tiles of a photo's own pixels (a 24 MP photo's
/// upload in one frame took 60–130 ms on lavapipe), or a few screen pictures (the first of a
/// frame goes up whatever its size, the rest and the tiles only if they fit) …
const UPLOAD_PIXELS: usize = 8 << 20;
/// … while the photo shown waits for its own pixels: three tiles (a 24 MP photo in two frames,
/// not three; such a frame took ~30 ms on lavapipe) …
const WAITED_UPLOAD_PIXELS: usize = 12 << 20;
/// … and in the frame a step comes in: four grid thumbnails.
const STEP_UPLOAD_PIXELS: usize = 4 * (THUMB_SIDE as usize).pow(2);
/// Loupe pictures kept on each side of the photo shown (the loupe prefetches one each way).
const LOUPE_KEPT: usize = 1;
/// Thumbnails and face close-ups held as textures, at most (least recently shown let go
/// first): ~400 grid thumbnails of 256 px.
pub const SMALL_PICTURES_BUDGET: usize = 96 << 20;
/// Full-resolution photos kept after the one shown (the loupe prefetches the next one).
const FULL_KEPT: usize = 1;
/// At 200 % each photo pixel shows as a square of pixels, so focus is judged on the photo's
/// pixels, not on a blend of them; shrunk (fit on a big screen), it is smoothed.
const FULL_PIXELS: egui::TextureOptions = egui::TextureOptions {
    magnification: egui::TextureFilter::Nearest,
    minification: egui::TextureFilter::Linear,
    wrap_mode: egui::TextureWrapMode::ClampToEdge,
    mipmap_mode: None,
};
/// The clipping mask's blocks stay blocks when enlarged: a mark is where a block clips.
const CLIPPING_PIXELS: egui::TextureOptions = egui::TextureOptions::NEAREST;

impl DarkRoom {
    pub fn logic(&mut self, ctx: &egui::Context) {
        // A window hidden from the start draws no first frame to wait for: start anyway.
        if self.ui_state.frames < 2 && ctx.input(|i| i.viewport().visible() == Some(false)) {
            self.start_deferred();
        }
        self.poll_engine();
        self.poll_folder_dialog();
        self.poll_scan();
        self.poll_sidecar_watch();
        self.poll_catalog();
        // Decisions before imports: a decision waits behind at most one queue of imports.
        self.flush_outbox();
        self.flush_imports();
        self.poll_close(ctx);
        self.poll_pictures(ctx);
        self.plan_pictures(ctx);
        // What the last frame showed is stamped; what it did not may go past the budget.
        self.gallery.keep_small_within(SMALL_PICTURES_BUDGET);
        self.gallery.next_frame();
        self.poll_analysis();
        // A look's answer before the index job's end: the job's end clears what was asked.
        self.poll_subject_look();
        self.poll_index();
        self.poll_models();
        self.poll_export();
        self.poll_ingest();
        self.poll_settings_writer();
        if self.busy() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    /// The folder and the work that wait for the first frame to be on screen (once).
    pub(super) fn start_deferred(&mut self) {
        if let Some(folder) = self.tasks.deferred_folder.take() {
            self.open(folder);
        }
        for start in self.tasks.on_first_frame.drain(..) {
            start();
        }
    }

    fn poll_engine(&mut self) {
        let StatusSource::Starting(rx) = &self.status else {
            return;
        };
        match rx.try_recv() {
            Ok(Ok(backend)) => self.status = StatusSource::Live(backend),
            Ok(Err(why)) => {
                self.notices
                    .push(format!("the inference engine did not start: {why}"));
                self.status = StatusSource::Failed;
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                self.notices
                    .push("the inference engine did not start: its start-up thread stopped");
                self.status = StatusSource::Failed;
            }
        }
    }

    fn poll_folder_dialog(&mut self) {
        match take_answer(&mut self.tasks.folder_dialog) {
            Some(Ok(Some(folder))) => self.open(folder),
            Some(Ok(None)) | None => {}
            Some(Err(died)) => self.notices.push(died),
        }
    }

    fn poll_scan(&mut self) {
        let Some(scan) = &self.tasks.scan else {
            return;
        };
        let drained = scan.drain(SCAN_EVENTS);
        let found = !drained.items.is_empty();
        for event in drained.items {
            match event {
                ScanEvent::Item(item) => {
                    let path = item.primary.clone();
                    if self.cull.entries().is_empty() && darkroom_library::card::in_dcim(&path) {
                        self.notices.push(CARD_NOTICE);
                    }
                    let Some(id) = self.cull.push_new(item) else {
                        continue;
                    };
                    self.gallery.push(id);
                    self.tasks.import_queue.push_back((id, path));
                }
                ScanEvent::Error(e) => self.problems.push(e.to_string()),
            }
        }
        if drained.ended {
            self.tasks.scan = None;
            self.load_analysis();
        }
        if found || drained.ended {
            self.cull.refilter();
        }
    }

    /// Hand photos to the catalog thread for import while its queue has room.
    fn flush_imports(&mut self) {
        if !matches!(self.ui_state.closing, Closing::No | Closing::AskStopIngest) {
            // Closing: what is not imported yet is read again on the next open.
            self.tasks.import_queue.clear();
            return;
        }
        while let Some((id, path)) = self.tasks.import_queue.pop_front() {
            let request = CatalogRequest::Import {
                tag: id,
                photo: path,
            };
            match self.tasks.catalog.client.try_send(request) {
                Ok(()) => self.tasks.imports_in_flight += 1,
                Err(TrySendError::Full(CatalogRequest::Import { tag, photo })) => {
                    self.tasks.import_queue.push_front((tag, photo));
                    return;
                }
                Err(_) => {
                    // The catalog thread is gone; poll_catalog says so.
                    self.tasks.import_queue.clear();
                    return;
                }
            }
        }
    }

    /// Sidecars another tool may have changed: their photos are read again (the catalog takes
    /// in what that tool wrote, and answers as for an import).
    fn poll_sidecar_watch(&mut self) {
        let Some(watch) = &self.tasks.sidecar_watch else {
            return;
        };
        let drained = watch.changed.drain(8);
        if drained.ended {
            self.tasks.sidecar_watch = None;
        }
        let mut changed = Vec::new();
        for batch in drained.items {
            match batch {
                Ok(paths) => changed.extend(paths),
                Err(e) => self.notices.push(e),
            }
        }
        if changed.is_empty() {
            return;
        }
        // `IMG_0001.CR3.xmp` is IMG_0001.CR3's; Lightroom's `IMG_0001.xmp` is every file of
        // that stem in its folder.
        let mut by_file: std::collections::HashMap<std::path::PathBuf, EntryId> =
            std::collections::HashMap::new();
        let mut by_stem: std::collections::HashMap<std::path::PathBuf, EntryId> =
            std::collections::HashMap::new();
        for id in self.cull.ids() {
            let Some(photo) = self.cull.get(id) else {
                continue;
            };
            for f in photo.item.files() {
                by_file.insert(f.to_path_buf(), id);
                by_stem.insert(lowercase(&f.with_extension("")), id);
            }
        }
        let mut asked = std::collections::HashSet::new();
        for sidecar in changed {
            let photo = sidecar.with_extension("");
            let id = by_file
                .get(&photo)
                .or_else(|| by_stem.get(&lowercase(&photo)));
            if let Some(&id) = id
                && asked.insert(id)
                && let Some(p) = self.cull.get(id)
            {
                self.tasks
                    .import_queue
                    .push_back((id, p.item.primary.clone()));
            }
        }
    }

    fn poll_catalog(&mut self) {
        let drained = self.tasks.catalog.reports.drain(CATALOG_REPORTS);
        let mut outside: Vec<String> = Vec::new();
        for report in drained.items {
            match report {
                CatalogReport::Imported {
                    tag,
                    decision,
                    error,
                    outside: edited,
                } => {
                    self.tasks.imports_in_flight = self.tasks.imports_in_flight.saturating_sub(1);
                    if edited && let Some(p) = self.cull.get(tag) {
                        outside.push(
                            p.item
                                .primary
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default(),
                        );
                    }
                    self.cull.imported(tag, decision, error);
                }
                CatalogReport::Decided { tag, seq, result } => {
                    if result.is_ok() {
                        self.decisions_durable += 1;
                    }
                    let ack = DecisionAck {
                        id: tag,
                        seq,
                        result,
                    };
                    if let Some(failed) = self.cull.acknowledge(ack) {
                        self.notices.push(failed);
                    }
                }
                CatalogReport::SidecarFailed { tag, error } => {
                    self.cull.sidecar_failed(tag, error);
                }
                // The chip's ★ says it once the analysis is read again.
                CatalogReport::PersonStarred { .. } => self.load_analysis(),
                CatalogReport::ClockSet { body, offset_s } => {
                    self.notices.push(format!(
                        "{body}: clock corrected {} — bursts, scenes and shooting order follow",
                        darkroom_library::clock::offset_words(offset_s)
                    ));
                    self.load_analysis();
                }
                CatalogReport::Problem(p) => self.notices.push(p),
            }
        }
        if !outside.is_empty() {
            self.notices.push(outside_words(&outside));
        }
        if drained.ended || !self.tasks.catalog.client.alive() {
            if !self.tasks.catalog_gone {
                self.tasks.catalog_gone = true;
                let died = self.tasks.catalog.reports.died();
                self.tasks.outbox.clear();
                self.cull
                    .abandon_pending(&format!("{died}: the decision was not saved"));
                self.notices.push(died);
            }
            // Nothing in flight will come back.
            self.tasks.imports_in_flight = 0;
        }
    }

    /// The window's close button (or the window manager's close): kept open while decisions
    /// are saving, saying so; closed once they are durable. Asked again meanwhile, the window
    /// asks whether to lose them.
    fn poll_close(&mut self, ctx: &egui::Context) {
        let requested = ctx.input(|i| i.viewport().close_requested());
        // Keys pressed in the frame the close came in are decisions about to be made (the
        // frame's `ui` makes them): the window waits for them too.
        let viewer = self.over_photo();
        let keys =
            requested && ctx.input(|i| !super::keymap::pressed(&i.events, viewer).is_empty());
        let saved = !keys && self.saved();
        // A copy from the card stops only when the photographer says so: the next ingest
        // finishes what it leaves.
        let copying = self.windows.ingest.copying();
        let closing = &mut self.ui_state.closing;
        if requested {
            match *closing {
                Closing::Now | Closing::Forced => {}
                Closing::AskStopIngest | Closing::StoppingIngest => {
                    ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                }
                // Once the photographer chose to stop (or not wait for) the copy, it is not
                // asked about again.
                Closing::No if copying => {
                    *closing = Closing::AskStopIngest;
                    ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                }
                _ if saved => *closing = Closing::Now,
                Closing::No => {
                    *closing = Closing::Saving;
                    ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                }
                Closing::Saving | Closing::Asking => {
                    *closing = Closing::Asking;
                    ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
                }
            }
        } else if *closing == Closing::StoppingIngest && !copying {
            // The copy has stopped: the window closes as it does with decisions saving.
            *closing = if saved { Closing::Now } else { Closing::Saving };
            if saved {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        } else if *closing == Closing::Forced
            || (matches!(*closing, Closing::Saving | Closing::Asking) && saved)
        {
            *closing = Closing::Now;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        if matches!(
            *closing,
            Closing::Saving | Closing::Asking | Closing::AskStopIngest | Closing::StoppingIngest
        ) {
            ctx.request_repaint_after(Duration::from_millis(50));
        }
    }

    fn poll_pictures(&mut self, ctx: &egui::Context) {
        // A frame uploads at most about this many pixels: one photo's own pixels go up a few
        // tiles a frame, and pictures that came together wait their turn. The frame a step
        // comes in draws the next photo from what is up already, so it uploads no more than a
        // few thumbnails: a bigger upload would only delay the step on screen (on lavapipe an
        // 8 MP upload can take 30 ms).
        // A hidden window calls `logic` alone, its last frame's keys still in the input: they
        // are read in the first call of a pass only.
        let pass = ctx.cumulative_pass_nr();
        let new_pass = self.ui_state.pictures_pass.replace(pass) != Some(pass);
        let viewer = self.over_photo();
        let step = new_pass
            && ctx.input(|i| {
                super::keymap::pressed(&i.events, viewer)
                    .iter()
                    .any(|a| a.moves())
            });
        // Stopped on a photo whose own pixels are going up, the person waits for them: they go
        // up in fewer, longer frames.
        let waited = self
            .cull
            .selected_id()
            .is_some_and(|id| self.gallery.full_going_up(id));
        let budget = match (step, waited) {
            (true, _) => STEP_UPLOAD_PIXELS,
            (false, true) => WAITED_UPLOAD_PIXELS,
            (false, false) => UPLOAD_PIXELS,
        };
        let mut uploaded = 0;
        while uploaded < budget {
            let done = match self.tasks.thumbs.next_done() {
                None => break,
                Some(Ok(done)) => done,
                Some(Err(died)) => {
                    self.notices.push(died);
                    break;
                }
            };
            // Outside a step frame a picture may go past the budget (the first always goes).
            let px = pixels_of(&done);
            if px > budget.saturating_sub(uploaded) && (step || uploaded > 0) {
                self.tasks.thumbs.hold(done);
                break;
            }
            uploaded += self.take_picture(ctx, done);
        }
        // A tile goes up if it fits what is left of the frame's pixels (outside a step frame
        // the first always): the rows a zoomed loupe shows before any whole photo's.
        loop {
            let room = match uploaded {
                0 if !step => usize::MAX,
                _ => budget.saturating_sub(uploaded),
            };
            if room == 0 {
                break;
            }
            let px = match self.gallery.upload_part_tile(ctx, FULL_PIXELS, room) {
                Some(px) => Some(px),
                None if self.gallery.parts_waiting() => None,
                None => self
                    .gallery
                    .upload_full_tile(ctx, FULL_PIXELS, CLIPPING_PIXELS, room),
            };
            let Some(px) = px else {
                break;
            };
            uploaded += px;
        }
        // What this frame left waits for the next: ask for it.
        if step || uploaded >= budget || self.gallery.uploading() || self.tasks.thumbs.holding() {
            ctx.request_repaint();
        }
    }

    /// One picture from the pool into its photo's slot; the pixels it uploads now.
    fn take_picture(&mut self, ctx: &egui::Context, done: super::workers::ThumbDone) -> usize {
        let mut pixels = 0;
        {
            let Some((pictures, spares)) = self.gallery.slot_and_spares(done.id) else {
                // Asked for by a folder no longer open.
                return 0;
            };
            let name = |what: &str| super::pictures::texture_name(done.id, what);
            let picture = match done.result {
                Ok(Made::Full(made)) => {
                    let FullMade {
                        faces,
                        size,
                        tiles,
                        histogram,
                        clipping,
                        peaking,
                    } = *made;
                    (pictures.faces, pictures.subject) = face_tiles(ctx, done.id, faces);
                    self.gallery.upload_full(FullUpload {
                        id: done.id,
                        size,
                        histogram,
                        clipping,
                        peaking,
                        tiles: TilesUp::new(tiles),
                    });
                    return 0;
                }
                Ok(Made::FullPart(part)) => {
                    if pictures.full.waiting() {
                        self.gallery.upload_part(PartUpload {
                            id: done.id,
                            size: part.size,
                            tiles: TilesUp::new(part.tiles),
                        });
                    }
                    return 0;
                }
                Ok(Made::Facts(facts)) => {
                    pictures.facts = super::pictures::Slot::Ready(*facts);
                    return 0;
                }
                Ok(Made::Faces(faces)) => {
                    (pictures.faces, pictures.subject) = face_tiles(ctx, done.id, faces);
                    return 0;
                }
                Ok(Made::Skipped) => {
                    // Asked for again if a view still wants it (only a full resolution and
                    // a loupe picture are ever skipped).
                    if done.want == Want::Full {
                        pictures.full = Full::None;
                        pictures.full_part = None;
                        if matches!(pictures.faces, Faces::Requested) {
                            pictures.faces = Faces::None;
                        }
                    } else {
                        pictures.loupe = Picture::None;
                    }
                    return 0;
                }
                Ok(Made::Picture { side, image }) => {
                    pixels = image.size[0] * image.size[1];
                    let texture = spares.texture(
                        ctx,
                        name(&side.to_string()),
                        image,
                        egui::TextureOptions::LINEAR,
                    );
                    (side, Picture::Ready(texture))
                }
                // The preview stays on screen; the loupe says why it is not sharper.
                Err(err) if matches!(done.want, Want::Full | Want::Faces) => {
                    if done.want == Want::Full {
                        pictures.full = Full::Failed(err.clone());
                        pictures.full_part = None;
                    }
                    pictures.faces = Faces::Failed(err);
                    return 0;
                }
                // The line of facts says so; the photo is not marked unreadable for it.
                Err(err) if done.want == Want::Facts => {
                    pictures.facts = super::pictures::Slot::Failed(err);
                    return 0;
                }
                Err(err) => {
                    self.cull.set_error(done.id, err.clone());
                    let Want::Side(side) = done.want else {
                        return 0;
                    };
                    (side, Picture::Failed(err))
                }
            };
            let was = match picture {
                (LOUPE_SIDE, p) => std::mem::replace(&mut pictures.loupe, p),
                (_, p) => std::mem::replace(&mut pictures.thumb, p),
            };
            if let Picture::Ready(texture) = was {
                spares.put(texture);
            }
        }
        pixels
    }

    /// What the pictures are made in: the loupe's plan from the person's pace (`pace`), or
    /// compare's panes; only the photo shown and its neighbours keep their loupe pictures
    /// (`LOUPE_KEPT` on each side) and, of those, the photo shown and the next their own
    /// pixels; compare keeps its panes'. Run after the keys of a frame too, so the jobs the
    /// frame's views ask for are in the plan before a worker looks.
    pub(super) fn plan_pictures(&mut self, ctx: &egui::Context) {
        use darkroom_index::culling::View;
        let at = self.cull.selected;
        let now = Duration::from_secs_f64(ctx.input(|i| i.time).max(0.0));
        let loupe = self.cull.view == View::Loupe;
        let shown = if loupe {
            self.cull.selected_id().map(|id| (id, at))
        } else {
            None
        };
        self.ui_state.pace.observe(shown, now);
        let panes = if self.cull.view == View::Compare {
            self.comparison.panes(&self.cull)
        } else {
            Vec::new()
        };
        let screen_up = shown.is_some_and(|(id, _)| {
            self.gallery
                .get(id)
                .is_some_and(|p| p.loupe.ready().is_some())
        });
        let cull = &self.cull;
        let costs = super::pace::Costs {
            thumb: self.tasks.thumbs.thumb_cost(),
            full: self.tasks.thumbs.full_cost(),
        };
        let mut plan = self
            .ui_state
            .pace
            .plan(now, !self.zoom.is_fit(), screen_up, costs, |k| {
                at.checked_add_signed(k).and_then(|v| cull.visible_id(v))
            });
        plan.pictures.extend(
            panes
                .iter()
                .map(|&id| (id, super::workers::Want::Side(LOUPE_SIDE))),
        );
        // While the photo shown waits for its own pixels, the pool makes only what comes
        // before them, and less until they are decoded.
        // Asked for now or before, and not yet here (unless the full thread is gone).
        let awaited = shown
            .map(|(id, _)| id)
            .filter(|id| plan.full.contains(id))
            .and_then(|id| Some((id, self.gallery.get(id)?)))
            .filter(|(_, p)| {
                p.full.waiting() || (matches!(p.full, Full::None) && !self.tasks.thumbs.full_gone())
            });
        let hold_from = awaited.map(|(id, _)| {
            if self.tasks.thumbs.decoded(id) || self.gallery.full_made(id) {
                plan.before_full
            } else {
                plan.while_decoding
            }
        });
        // Where a zoomed loupe looks: its photo's rows there are decoded before the rest.
        let view = match (shown, self.zoom.scale, self.ui_state.loupe_pane) {
            (Some((id, _)), Some(scale), Some(pane)) if scale > 0.0 => Some(ZoomedView {
                id,
                center: self.zoom.center,
                extent: pane.size() * ctx.pixels_per_point() / scale,
            }),
            _ => None,
        };
        self.tasks.thumbs.look_at(view);
        self.tasks.thumbs.plan(&plan.pictures, hold_from);
        self.ui_state.plan = plan;
        let around = |from: usize, to: usize| {
            (from..=to)
                .filter_map(|v| self.cull.visible_id(v))
                .chain(panes.iter().copied())
                .collect::<Vec<_>>()
        };
        let keep = around(at.saturating_sub(LOUPE_KEPT), at + LOUPE_KEPT + 1);
        self.gallery.keep_loupe_pictures(&keep);
        // The photo shown and the next in the direction of travel.
        let keep = if self.ui_state.pace.direction() < 0 {
            around(at.saturating_sub(FULL_KEPT), at)
        } else {
            around(at, at + FULL_KEPT)
        };
        self.gallery.keep_full(&keep);
        self.tasks.thumbs.want_full(&keep);
    }

    /// Read the folder's analysis from the index rows (after the scan, after an index job).
    pub(super) fn load_analysis(&mut self) {
        if self.cull.is_empty() {
            return;
        }
        self.tasks.analysis = Some(super::workers::load_analysis(
            self.cull.generation(),
            self.cull.photos(),
            self.env.catalog_path.clone(),
            darkroom_index::Thresholds {
                scenes: self.cull_settings.scenes,
                ..Default::default()
            },
            self.env.wake.clone(),
        ));
    }

    fn poll_analysis(&mut self) {
        match take_answer(&mut self.tasks.analysis) {
            None => {}
            Some(Ok((generation, Ok(folder)))) => {
                self.cull
                    .set_analysis(generation, folder.photos, folder.names);
            }
            Some(Ok((_, Err(e)))) => self.problems.push(format!("cannot read the index: {e}")),
            Some(Err(died)) => self.notices.push(died),
        }
    }

    fn poll_index(&mut self) {
        let Some(run) = &mut self.tasks.indexing else {
            return;
        };
        // The answer first: every failure the job reported came before it, so none is left
        // behind in the slot once the job is let go.
        let answer = run.task.answer();
        let (mut failures, mut first_pass) = (Vec::new(), false);
        run.live.update(|l| {
            failures = std::mem::take(&mut l.failures);
            first_pass = l.first_pass;
        });
        self.problems.extend(failures);
        let first_pass_now = first_pass && !std::mem::replace(&mut run.first_pass_read, true);
        let Some(answer) = answer else {
            if first_pass_now {
                // Every photo's faces are in: the proposal's first pass, while the subjects
                // are looked for.
                self.gallery.forget_faces();
                self.load_analysis();
            }
            return;
        };
        self.tasks.indexing = None;
        // Rows written again may have dropped a subject the loupe looked for: O may ask again
        // (but not for the photo a look is on now).
        self.subject_looks.asked.clear();
        self.subject_looks
            .asked
            .extend(self.subject_looks.looking.iter().cloned());
        // The close-ups and the marks are made again from the new rows.
        self.gallery.forget_faces();
        self.load_analysis();
        self.index_summary = Some(match answer {
            Ok(Ok(s)) if s.cancelled => {
                format!("Indexing cancelled · {} photos done", s.indexed)
            }
            Ok(Ok(s)) => format!(
                "Indexed · {} photos · {} faces{}",
                s.indexed + s.skipped,
                s.faces,
                if s.failed.is_empty() {
                    String::new()
                } else {
                    format!(" · {} failed", s.failed.len())
                }
            ),
            Ok(Err(e)) => format!("Indexing failed: {e}"),
            Err(died) => {
                self.notices.push(died.clone());
                format!("Indexing failed: {died}")
            }
        });
    }

    /// The loupe's look for a subject: its answer read, and the next one started while the
    /// subject overlay is on (O) over a photo the index did not look in (the index looks only
    /// where the subject can change a decision).
    fn poll_subject_look(&mut self) {
        if let Some(answer) = take_answer(&mut self.tasks.subject_look) {
            let asked_for = self.subject_looks.looking.take();
            match answer {
                Ok(super::workers::SubjectAnswer { found: Ok(_), .. }) => {
                    // The overlay and the verdict come from the row just written.
                    self.gallery.forget_faces();
                    self.load_analysis();
                }
                Ok(super::workers::SubjectAnswer {
                    photo,
                    found: Err(e),
                }) => {
                    // Not looked in: O asks again (after whatever the notice says is fixed).
                    self.subject_looks.asked.remove(&photo);
                    self.subject_looks.stopped = true;
                    self.notices
                        .push(format!("cannot find the subject: {e}: {}", photo.display()));
                }
                Err(died) => {
                    if let Some(photo) = asked_for {
                        self.subject_looks.asked.remove(&photo);
                    }
                    self.subject_looks.stopped = true;
                    self.notices.push(died);
                }
            }
        }
        // A running index job may write the row again under a look: the look waits for it.
        // Nor before the analysis being read says whether the index looked.
        if self.tasks.subject_look.is_some()
            || self.tasks.indexing.is_some()
            || self.tasks.analysis.is_some()
            || self.subject_looks.stopped
            || !self.show_subject
            || self.cull.view != darkroom_index::culling::View::Loupe
        {
            return;
        }
        let Some(a) = self
            .cull
            .selected_id()
            .and_then(|id| self.cull.get(id))
            .and_then(|p| p.analysis.as_ref())
        else {
            return;
        };
        if a.judged_by_faces || a.subject_sought || self.subject_looks.asked.contains(&a.path) {
            return;
        }
        let (StatusSource::Live(backend), Some(models_dir)) = (&self.status, &self.env.models_dir)
        else {
            return;
        };
        let request = super::workers::SubjectRequest {
            pin: backend.pin(),
            models_dir: models_dir.clone(),
            catalog: self.env.catalog_path.clone(),
            photo: a.path.clone(),
            inference_threads: self.knobs.threads_in_effect,
        };
        self.subject_looks.asked.insert(a.path.clone());
        self.subject_looks.looking = Some(a.path.clone());
        self.tasks.subject_look =
            Some(super::workers::seek_subject(request, self.env.wake.clone()));
    }

    fn poll_models(&mut self) {
        let Some(env) = super::handle::models_env(&self.env) else {
            return;
        };
        // A detector that was just installed can be chosen in Settings right away.
        if let Some(rows) = self.windows.models.poll(&env) {
            refresh_detectors(&mut self.detectors, rows);
        }
    }

    fn poll_export(&mut self) {
        let ended = self.windows.export.poll(&self.env.wake);
        if self.windows.export.showing() && self.overlay == super::intent::Overlay::None {
            self.overlay = super::intent::Overlay::Export;
        }
        if matches!(ended, Some(super::windows::export::ExportEnded::Moved))
            && let Some(root) = self.cull.root.clone()
        {
            // The picks left this folder: show it as it is now.
            self.open(root);
        }
    }

    fn poll_ingest(&mut self) {
        use super::windows::ingest::IngestNews;
        let news = self
            .windows
            .ingest
            .poll(self.env.catalog_path.clone(), &self.env.wake);
        match news {
            Some(IngestNews::Landed(to, landed)) => self.show_landed(to, landed),
            Some(IngestNews::Ended) => {
                if let Some(outcome) = &self.windows.ingest.outcome {
                    let text = match outcome {
                        Ok(t) | Err(t) => format!("Ingest: {t}"),
                    };
                    self.notices.push(text);
                }
            }
            None => {}
        }
    }

    fn poll_settings_writer(&mut self) {
        let drained = self.tasks.saver_problems.drain(16);
        for p in drained.items {
            self.notices.push(p);
        }
        if drained.ended {
            self.notices.push(self.tasks.saver_problems.died());
        }
    }
}

fn refresh_detectors(
    detectors: &mut [super::windows::settings::DetectorChoice],
    rows: &[darkroom_models::CardStatus],
) {
    for d in detectors {
        d.installed = rows.iter().any(|r| {
            r.model_id == d.tier.model_id
                && matches!(r.state, darkroom_models::CardState::Ready { .. })
        });
    }
}

/// A photo's close-ups and subject overlay as textures (their pixels were made on the worker).
fn face_tiles(
    ctx: &egui::Context,
    id: darkroom_index::culling::EntryId,
    crops: super::workers::FaceCrops,
) -> (Faces, Option<egui::TextureHandle>) {
    let (crops, subject) = match crops {
        Ok(None) => return (Faces::NotIndexed, None),
        Err(e) => return (Faces::Failed(e), None),
        Ok(Some(c)) => (c.faces, c.subject),
    };
    let subject = subject.map(|image| {
        ctx.load_texture(
            format!("subject-{}-{}", id.generation(), id.index()),
            image,
            egui::TextureOptions::LINEAR,
        )
    });
    let faces = Faces::Ready(
        crops
            .into_iter()
            .enumerate()
            .map(|(k, c)| FaceTile {
                texture: ctx.load_texture(
                    format!("face-{}-{}-{k}", id.generation(), id.index()),
                    c.image,
                    egui::TextureOptions::NEAREST,
                ),
                sharpness: c.sharpness,
                eyes_closed: c.eyes_closed,
                eyes_sharpness: c.eyes_sharpness,
                eyes_soft: c.eyes_soft,
                center: c.center,
                person: c.person,
                expression: c.expression,
            })
            .collect(),
    );
    (faces, subject)
}

/// "Another program changed IMG_0001.CR3's rating or label: shown as it wrote it" (or "3
/// photos' …, first IMG_0001.CR3").
fn outside_words(names: &[String]) -> String {
    match names {
        [one] => format!("Another program changed {one}'s rating or label: shown as it wrote it"),
        [first, ..] => format!(
            "Another program changed the rating or label of {} photos, first {first}: shown as it wrote them",
            names.len()
        ),
        [] => String::new(),
    }
}

/// A path as a case-insensitive volume compares it.
fn lowercase(p: &std::path::Path) -> std::path::PathBuf {
    std::path::PathBuf::from(p.to_string_lossy().to_lowercase())
}

/// The pixels `done` uploads when taken (a photo's own pixels go up tile by tile, later).
fn pixels_of(done: &super::workers::ThumbDone) -> usize {
    match &done.result {
        Ok(Made::Picture { image, .. }) => image.size[0] * image.size[1],
        _ => 0,
    }
}
