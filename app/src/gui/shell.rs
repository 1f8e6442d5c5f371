//! `darkroom [FOLDER]`: the eframe shell around [`DarkRoom`], and what is read before the
//! window opens. Everything slow starts in the background after the first frame is on its way.

use std::path::PathBuf;
use std::sync::mpsc::SyncSender;

use anyhow::Context;
use darkroom_engine::Backend;

use super::state::{DarkRoom, Setup, StatusSource};
use super::windows::settings::{DETECTOR_TIERS, DetectorChoice, EngineKnobs};
use super::{num_threads, workers};
use crate::services::AppSettings;

struct Window {
    app: DarkRoom,
    frames: u64,
    /// `--report-first-frame`: say when the first frame is on screen, then how the frames went
    /// while the work it deferred (the folder's scan and thumbnails, the engine's probe) ran
    /// beside them, then close.
    report_first_frame: bool,
    /// In that report: when the deferred work started, the last frame, the frames' intervals.
    busy: Option<BusyFrames>,
    /// `DARKROOM_LOG_FRAMES`: a line on stderr for each frame drawn (eframe draws none while
    /// the window is hidden), for the window test and for a report of a window that stopped.
    log_frames: bool,
}

/// The frames drawn while the deferred work starts up.
struct BusyFrames {
    since: std::time::Instant,
    last: std::time::Instant,
    intervals_ms: Vec<f64>,
}

/// How long the frames are watched after the first one, for `--report-first-frame`.
const BUSY_WATCH: std::time::Duration = std::time::Duration::from_millis(1500);

impl BusyFrames {
    /// "busy-frames N p50 p95 max" (ms between frames).
    fn line(&self) -> String {
        let mut v = self.intervals_ms.clone();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| {
            v.get(((v.len() as f64 * q).ceil() as usize).clamp(1, v.len().max(1)) - 1)
                .copied()
                .unwrap_or(0.0)
        };
        format!(
            "busy-frames {} {:.1} {:.1} {:.1}",
            v.len(),
            at(0.5),
            at(0.95),
            at(1.0)
        )
    }
}

impl eframe::App for Window {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        let (durable, closing) = (self.app.decisions_durable, self.app.closing());
        self.app.logic(ctx);
        if self.log_frames {
            // What the window has shown as saved, for the window test that kills it.
            if self.app.decisions_durable != durable {
                eprintln!("darkroom: durable {}", self.app.decisions_durable);
            }
            if self.app.closing() != closing {
                eprintln!(
                    "darkroom: closing {:?} with {} unsaved",
                    self.app.closing(),
                    self.app.unsaved()
                );
            }
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frames += 1;
        if self.log_frames {
            eprintln!("darkroom: frame {}", self.frames);
        }
        if self.report_first_frame {
            use std::io::Write;
            let now = std::time::Instant::now();
            let mut out = std::io::stdout();
            // eframe presents a frame before it asks for the next one: reaching the second
            // means the first is on screen. This frame starts the deferred work; the frames
            // after it are drawn while that work runs.
            if self.frames == 2 {
                let _ = writeln!(out, "first-frame");
                let _ = out.flush();
                self.busy = Some(BusyFrames {
                    since: now,
                    last: now,
                    intervals_ms: Vec::new(),
                });
            } else if let Some(busy) = self.busy.as_mut() {
                busy.intervals_ms
                    .push((now - busy.last).as_secs_f64() * 1e3);
                busy.last = now;
                if now - busy.since >= BUSY_WATCH {
                    let _ = writeln!(out, "{}", busy.line());
                    let _ = out.flush();
                    self.busy = None;
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            }
            ui.ctx().request_repaint();
        }
        self.app.ui(ui);
    }
}

/// Load the runtime, hash the models and start the probe (CPU work, after the first frame),
/// answering on `answer` with the engine or why it did not start.
pub fn start_engine(
    models: PathBuf,
    inference_dir: PathBuf,
    answer: SyncSender<Result<Backend, String>>,
) {
    let result = darkroom_engine::CardSet::builtin()
        .map(|cards| {
            darkroom_engine::ModelStore::new(models, cards)
                .with_bundled(darkroom_engine::paths::bundled_models_dirs())
        })
        .map_err(anyhow::Error::from)
        .and_then(|store| crate::services::start_in(store, inference_dir, false))
        .map(|(backend, _)| backend)
        .map_err(|e| format!("{e:#}"));
    let _ = answer.send(result);
}

/// The detector tiers and which are installed (in the models dir or a package's folder, as the
/// store finds them), looked up before the window opens.
pub fn detector_choices(models: &std::path::Path) -> Vec<DetectorChoice> {
    let Ok(cards) = darkroom_engine::CardSet::builtin() else {
        return Vec::new();
    };
    let store = darkroom_engine::ModelStore::new(models, cards)
        .with_bundled(darkroom_engine::paths::bundled_models_dirs());
    use darkroom_engine::releases::{builtin_detector_recall, builtin_refusal};
    DETECTOR_TIERS
        .iter()
        .map(|t| {
            let card = store.cards().get(t.model_id).ok();
            DetectorChoice {
                tier: *t,
                installed: card.is_some_and(|c| store.is_present(c)),
                released: card.is_some_and(|c| builtin_refusal(c).is_none()),
                recall: card.and_then(builtin_detector_recall).map(|r| r.words()),
            }
        })
        .collect()
}

pub fn run(
    folder: Option<PathBuf>,
    report_first_frame: bool,
) -> anyhow::Result<std::process::ExitCode> {
    let data = darkroom_engine::paths::data_dir()
        .context("no data directory: set DARKROOM_DATA_DIR or HOME")?;
    let thumb_cache = crate::services::thumb_cache_dir()?;
    let settings_file = data.join("settings.json");
    let (settings, settings_problem) = AppSettings::load(&settings_file);
    let mut notices: Vec<String> = settings_problem.into_iter().collect();
    let inference_dir =
        darkroom_engine::paths::inference_dir().context("no inference directory: set HOME")?;
    let backend_settings = darkroom_engine::ladder::BackendSettings::load(&inference_dir)
        .unwrap_or_else(|e| {
            notices.push(e.to_string());
            Default::default()
        });
    let models = crate::services::models_dir(None)?;
    let detectors = detector_choices(&models);
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let models_dir = models.clone();
    let engine_dir = inference_dir.clone();
    let start = move || {
        let spawned = std::thread::Builder::new()
            .name("darkroom-engine-start".into())
            .spawn(move || start_engine(models, engine_dir, tx));
        // A thread that cannot start drops the sender: the window says the start stopped.
        drop(spawned);
    };
    let setup = Setup {
        folder,
        catalog: data.join("catalog.sqlite"),
        thumb_cache,
        naming: settings.naming,
        words: settings.sidecar_words,
        write_to_cards: settings.write_to_cards,
        recent: settings.recent,
        status: StatusSource::Starting(rx),
        thumb_threads: num_threads(),
        knobs: EngineKnobs::resolve(backend_settings),
        settings_file: Some(settings_file),
        inference_dir: Some(inference_dir),
        pick_folder: workers::system_folder_dialog(),
        on_first_frame: vec![Box::new(start)],
        detector_saved: settings.detector.clone(),
        detectors,
        blurry_below: settings
            .blurry_below
            .unwrap_or(darkroom_index::Thresholds::default().blurry_below),
        culling: settings.culling,
        model_mirror: darkroom_models::ModelManager::mirror_from_env(),
        models_dir: Some(models_dir),
        notices,
    };
    let log_frames = std::env::var_os("DARKROOM_LOG_FRAMES").is_some();
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("DarkRoom")
            .with_inner_size([1280.0, 820.0]),
        ..Default::default()
    };
    eframe::run_native(
        "DarkRoom",
        options,
        Box::new(move |cc| {
            Ok(Box::new(Window {
                app: DarkRoom::new(&cc.egui_ctx, setup),
                frames: 0,
                report_first_frame,
                busy: None,
                log_frames,
            }))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    Ok(std::process::ExitCode::SUCCESS)
}
