//! What the commands, the benches and the window share: where things are, this process's
//! runtime, sessions, starting the backend, and the window's settings file (the CLI follows
//! its detector and blurry threshold). Nothing here imports a command or the window.

mod app_settings;
pub mod cull_settings;

use std::path::PathBuf;
use std::time::Duration;

pub use app_settings::{AppSettings, CullSettings};

use anyhow::Context;
use darkroom_engine::ladder::Launcher;
use darkroom_engine::{
    Backend, BackendConfig, CardSet, ModelStore, RuntimeOutcome, RuntimeSearch, Sessions, paths,
    runtime,
};

/// Grid thumbnails are made at this many pixels (the window's and `darkroom thumbnails`).
pub const THUMB_SIDE: u32 = 256;
/// Loupe previews are made at this many pixels (fit on a 4K screen is downscaled by egui).
pub const LOUPE_SIDE: u32 = 2048;

/// Where the window keeps its thumbnails (`darkroom thumbnails` fills the same cache).
pub fn thumb_cache_dir() -> anyhow::Result<PathBuf> {
    Ok(paths::cache_dir()
        .context("no cache directory: set DARKROOM_CACHE_DIR or HOME")?
        .join("thumbs"))
}

/// The hidden subcommand workers run as.
pub const WORKER_COMMAND: &str = "ladder-worker";

pub fn inference_dir() -> anyhow::Result<PathBuf> {
    paths::inference_dir()
        .context("no data directory for the probe cache: set DARKROOM_DATA_DIR or HOME")
}

/// This executable as a worker, loading exactly the library this process chose.
pub fn launcher(runtime: &RuntimeOutcome) -> anyhow::Result<Launcher> {
    let program = std::env::current_exe().context("cannot find this executable")?;
    let mut env = Vec::new();
    if let Some(lib) = &runtime.library {
        env.push((
            "DARKROOM_ORT_LIB".to_owned(),
            lib.to_string_lossy().into_owned(),
        ));
    }
    Ok(Launcher {
        program,
        prefix: vec![WORKER_COMMAND.to_owned()],
        env,
    })
}

/// Start the process's backend (returns at once; the probe runs in the background), and how
/// long a command may wait for it to report: a worker per rung plus the identity query.
pub fn start(store: ModelStore, reprobe: bool) -> anyhow::Result<(Backend, Duration)> {
    start_in(store, inference_dir()?, reprobe)
}

/// `start` with the probe cache and the engine's settings in `inference_dir`.
pub fn start_in(
    store: ModelStore,
    inference_dir: PathBuf,
    reprobe: bool,
) -> anyhow::Result<(Backend, Duration)> {
    let runtime = install_runtime();
    let mut config = BackendConfig::from_env(inference_dir, launcher(runtime)?)?;
    config.reprobe = reprobe;
    let wait = config.probe_limit * 8 + Duration::from_secs(30);
    Ok((Backend::start(runtime, store, config), wait))
}

/// Choose and install this process's runtime (once). A backend override of `tract`
/// (DARKROOM_BACKEND or the persisted setting) starts the process on tract.
pub fn install_runtime() -> &'static RuntimeOutcome {
    let mut search = RuntimeSearch::from_env(paths::data_dir().as_deref());
    let forced_tract = paths::inference_dir()
        .and_then(|dir| {
            darkroom_engine::ladder::backend::override_from(&dir)
                .ok()
                .flatten()
        })
        .is_some_and(|o| o.rung == darkroom_engine::Rung::Tract);
    search.force_tract |= forced_tract;
    runtime::install(&search)
}

/// The models dir from `--models`, else DARKROOM_MODELS, else the data dir.
pub fn models_dir(flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    flag.or_else(paths::models_dir)
        .context("no models directory: pass --models DIR or set DARKROOM_MODELS")
}

pub fn sessions(models: Option<PathBuf>) -> anyhow::Result<Sessions> {
    let runtime = install_runtime();
    let store = ModelStore::new(models_dir(models)?, CardSet::builtin()?)
        .with_bundled(darkroom_engine::paths::bundled_models_dirs());
    Ok(Sessions::new(
        runtime,
        store,
        darkroom_engine::sessions::default_threads(),
    )?)
}

/// The window's settings, which the command line follows where it has no flag of its own
/// (a problem reading them is said on stderr, and the defaults hold).
pub fn window_settings() -> AppSettings {
    let Some(dir) = darkroom_engine::paths::data_dir() else {
        return AppSettings::default();
    };
    let (settings, problem) = AppSettings::load(&dir.join("settings.json"));
    if let Some(problem) = problem {
        eprintln!("darkroom: {problem}");
    }
    settings
}

/// The catalog file: `--catalog`, else `<data dir>/catalog.sqlite`.
pub fn catalog_path(flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    flag.or_else(|| darkroom_engine::paths::data_dir().map(|d| d.join("catalog.sqlite")))
        .context("no data directory for the catalog: pass --catalog FILE or set DARKROOM_DATA_DIR")
}
