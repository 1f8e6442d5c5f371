//! The index job started from the window.

use std::path::PathBuf;
use std::sync::Arc;

use darkroom_catalog::{Catalog, SidecarNaming};

use crate::gui::tasks::{Latest, Task, Waker};

/// Everything an index job from the window needs, gathered on the UI thread (no I/O there).
pub struct IndexRequest {
    pub pin: darkroom_engine::JobPin,
    pub models_dir: PathBuf,
    pub catalog: PathBuf,
    pub photos: Vec<PathBuf>,
    pub decode_threads: usize,
    pub inference_threads: usize,
    /// The detector's model_id (Settings' choice).
    pub detector: String,
    /// Whose verdict a face's eyes get (Settings' choice).
    pub eye_judge: darkroom_index::eyes::EyeJudge,
    /// What makes frames one scene (Settings): the second pass looks for the subject of the
    /// frames that compete in one.
    pub scenes: darkroom_index::scenes::SceneRules,
}

/// What a running index job has said so far, overwritten as it goes: the job never waits for
/// the window (a minimised window may not look for minutes).
#[derive(Default)]
pub struct IndexLive {
    pub to_index: usize,
    pub progress: Option<darkroom_index::Progress>,
    /// Photos that could not be indexed, for the window to take.
    pub failures: Vec<String>,
    /// Every photo's faces are in and the subjects are being looked for: the window reads the
    /// analysis then, not only at the end (the proposal's first pass).
    pub first_pass: bool,
}

/// The index job on a thread of its own: sessions from the pin taken when it was asked for,
/// its own catalog connection (SQLite WAL lets the catalog thread go on meanwhile). Progress goes
/// into `live`; only the end travels on the channel.
pub fn index_job(
    request: IndexRequest,
    control: Arc<darkroom_index::Control>,
    live: Latest<IndexLive>,
    wake: Waker,
) -> Task<Result<darkroom_index::Summary, String>> {
    Task::spawn("the index job", 1, wake, move |out| {
        let IndexRequest {
            pin,
            models_dir,
            catalog,
            photos,
            decode_threads,
            inference_threads,
            detector,
            eye_judge,
            scenes,
        } = request;
        let result = (|| -> anyhow::Result<darkroom_index::Summary> {
            let sessions = job_sessions(models_dir, inference_threads)?;
            let mut models = darkroom_index::open_models(&sessions, &pin, Some(detector), None)?;
            let mut catalog = Catalog::open(&catalog, SidecarNaming::default())?;
            let config = darkroom_index::JobConfig {
                photos,
                backend: pin.line.clone(),
                decode_threads,
                work_side: darkroom_index::job::WORK_SIDE,
                thresholds: darkroom_index::Thresholds {
                    eye_judge,
                    scenes,
                    ..Default::default()
                },
            };
            let summary = darkroom_index::job::run(
                &config,
                &mut models,
                &mut catalog,
                &control,
                &mut |event| {
                    live.update(|l| match event {
                        darkroom_index::Event::Started { to_index, .. } => l.to_index = to_index,
                        darkroom_index::Event::Progress(p) => l.progress = Some(p),
                        darkroom_index::Event::Failed { path, error } => {
                            l.failures.push(format!("{error}: {}", path.display()));
                        }
                        darkroom_index::Event::FirstPass { to_look } => {
                            l.to_index += to_look;
                            l.first_pass = true;
                        }
                        darkroom_index::Event::Indexed { .. }
                        | darkroom_index::Event::SubjectSought { .. } => {}
                    });
                    out.wake();
                },
            )?;
            Ok(summary)
        })();
        out.send(result.map_err(|e| format!("{e:#}")));
    })
}

/// Sessions for a job from the window: the models dir and the packages' bundled models, on the
/// process's runtime.
pub(super) fn job_sessions(
    models_dir: PathBuf,
    inference_threads: usize,
) -> anyhow::Result<darkroom_engine::Sessions> {
    let store = darkroom_engine::ModelStore::new(models_dir, darkroom_engine::CardSet::builtin()?)
        .with_bundled(darkroom_engine::paths::bundled_models_dirs());
    Ok(darkroom_engine::Sessions::new(
        crate::services::install_runtime(),
        store,
        inference_threads,
    )?)
}
