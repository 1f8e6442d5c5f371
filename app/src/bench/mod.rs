//! Benchmarks that print ratios measured side by side in one run (docs/PERFORMANCE.md), one
//! module per `bench-*` subcommand, each owning its clap arguments. They use `services` and
//! the window's public API; nothing here is used by the app itself.

pub mod decisions;
pub mod decoders;
pub mod expressions;
pub mod first_frame;
pub mod focus;
pub mod grid;
pub mod index;
pub mod inference;
pub mod ingest;
pub mod loupe;
pub mod shoot;
pub mod thumbs;

use std::path::{Path, PathBuf};

use crate::gui::windows::settings::EngineKnobs;
use crate::gui::{Setup, StatusSource};

/// The engine's side of a headless window's start-up: held, the window waits for it forever
/// (Settings says "starting", which the grid and the loupe ignore).
pub type NoEngine = std::sync::mpsc::SyncSender<Result<darkroom_engine::Backend, String>>;

/// The window's set-up for a headless bench on `folder`, its catalog and cache named `name`
/// in `dir`: nothing persisted, no engine, no dialog.
pub fn headless_setup(dir: &Path, name: &str, folder: PathBuf) -> (Setup, NoEngine) {
    let (engine, rx) = std::sync::mpsc::sync_channel(1);
    let setup = Setup {
        folder: Some(folder),
        catalog: dir.join(format!("{name}.sqlite")),
        thumb_cache: dir.join(format!("{name}-thumbs")),
        naming: darkroom_catalog::SidecarNaming::WithExtension,
        words: Default::default(),
        write_to_cards: false,
        recent: Vec::new(),
        status: StatusSource::Starting(rx),
        thumb_threads: crate::gui::num_threads(),
        knobs: EngineKnobs::resolve(Default::default()),
        settings_file: None,
        inference_dir: None,
        pick_folder: std::sync::Arc::new(|_| None),
        on_first_frame: Vec::new(),
        models_dir: None,
        detectors: Vec::new(),
        detector_saved: None,
        blurry_below: 40.0,
        culling: Default::default(),
        model_mirror: None,
        notices: Vec::new(),
    };
    (setup, engine)
}

/// One headless frame (logic, then the UI) with these key presses; returns the tessellated
/// output's size so nothing is optimised away. With `gpu`, the frame's texture changes are
/// uploaded as a window would upload them before drawing (a bench that waits for a picture
/// then counts its upload); without, they are dropped.
pub fn headless_frame(
    ctx: &egui::Context,
    app: &mut crate::gui::DarkRoom,
    screen: egui::Vec2,
    keys: &[egui::Key],
    gpu: Option<&mut Uploader>,
) -> usize {
    let events = keys
        .iter()
        .map(|&key| egui::Event::Key {
            key,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        })
        .collect();
    // The window's clock is the wall's, as eframe's is: the loupe's pace is read from it.
    static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, screen)),
        events,
        time: Some(
            STARTED
                .get_or_init(std::time::Instant::now)
                .elapsed()
                .as_secs_f64(),
        ),
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| {
        app.logic(ui.ctx());
        app.ui(ui);
    });
    let meshes = ctx.tessellate(out.shapes, out.pixels_per_point);
    if let Some(gpu) = gpu {
        gpu.upload(&out.textures_delta);
    }
    out.textures_delta.clear();
    meshes.len()
}

/// Texture uploads on a real wgpu device (a GPU, else Mesa's lavapipe on the CPU), through
/// egui's own wgpu renderer: what eframe does with a frame's texture changes.
pub struct Uploader {
    state: eframe::egui_wgpu::RenderState,
    /// Each frame's upload that held a megapixel or more: the pixels uploaded, and how long
    /// the frame's uploads took, done on the device.
    pub pictures: Vec<(usize, std::time::Duration)>,
    /// The adapter's name and backend, for the report.
    pub adapter: String,
}

/// A picture this big is a loupe preview or a full photo, not a glyph or an icon.
const PICTURE_PIXELS: usize = 1_000_000;

impl Uploader {
    pub fn new() -> anyhow::Result<Self> {
        use anyhow::Context as _;
        let setup = eframe::egui_wgpu::WgpuSetup::CreateNew(
            eframe::egui_wgpu::WgpuSetupCreateNew::without_display_handle(),
        );
        let instance = pollster::block_on(setup.new_instance());
        let state = pollster::block_on(eframe::egui_wgpu::RenderState::create(
            &eframe::egui_wgpu::WgpuConfiguration {
                wgpu_setup: setup,
                ..Default::default()
            },
            &instance,
            None,
            eframe::egui_wgpu::RendererOptions::default(),
        ))
        .context("no wgpu adapter for texture uploads (Debian: mesa-vulkan-drivers)")?;
        let info = state.adapter.get_info();
        let adapter = format!("{} ({:?})", info.name, info.backend);
        Ok(Uploader {
            state,
            pictures: Vec::new(),
            adapter,
        })
    }

    fn upload(&mut self, delta: &egui::TexturesDelta) {
        let started = std::time::Instant::now();
        let mut pixels = 0;
        {
            let mut renderer = self.state.renderer.write();
            for (id, deltas) in &delta.set {
                for image in deltas {
                    pixels += image.image.width() * image.image.height();
                    renderer.update_texture(&self.state.device, &self.state.queue, *id, image);
                }
            }
            for id in &delta.free {
                renderer.free_texture(id);
            }
        }
        if delta.set.is_empty() {
            return;
        }
        // Done means on the device: submit, and wait for the queue.
        self.state.queue.submit(None);
        let _ = self
            .state
            .device
            .poll(eframe::egui_wgpu::wgpu::PollType::wait_indefinitely());
        if pixels >= PICTURE_PIXELS {
            self.pictures.push((pixels, started.elapsed()));
        }
    }
}
