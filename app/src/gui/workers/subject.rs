//! The loupe's look for a photo's subject: the index looks only where the subject can change a
//! decision, so a frame alone has none until the person asks (`O`). The segmenter on one photo,
//! on a thread of its own, its verdict recorded in the catalog for the file it was asked for.

use std::path::PathBuf;

use darkroom_catalog::{Catalog, SidecarNaming};

use crate::gui::tasks::{Task, Waker};

/// Everything a look needs, gathered on the UI thread (no I/O there).
pub struct SubjectRequest {
    pub pin: darkroom_engine::JobPin,
    pub models_dir: PathBuf,
    pub catalog: PathBuf,
    pub photo: PathBuf,
    pub inference_threads: usize,
}

/// A look's answer: the photo it was asked for, and whether a subject was found in it.
pub struct SubjectAnswer {
    pub photo: PathBuf,
    pub found: Result<bool, String>,
}

pub fn seek_subject(request: SubjectRequest, wake: Waker) -> Task<SubjectAnswer> {
    Task::spawn("the subject's look", 1, wake, move |out| {
        let SubjectRequest {
            pin,
            models_dir,
            catalog,
            photo,
            inference_threads,
        } = request;
        let found = (|| -> anyhow::Result<bool> {
            let sessions = super::index::job_sessions(models_dir, inference_threads)?;
            let mut segmenters = darkroom_index::models::open_segmenters(&sessions, &pin)?;
            if segmenters.id().is_none() {
                anyhow::bail!("no subject segmenter is installed (the Models window has U²-Netp)");
            }
            let mut catalog = Catalog::open(&catalog, SidecarNaming::default())?;
            darkroom_index::job::seek_subject_of(
                &photo,
                darkroom_index::job::WORK_SIDE,
                &mut segmenters,
                &mut catalog,
            )
            .map_err(anyhow::Error::msg)
        })();
        out.send(SubjectAnswer {
            photo,
            found: found.map_err(|e| format!("{e:#}")),
        });
    })
}
