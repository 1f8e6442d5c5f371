//! Background work for the window, one module per worker, each named, bounded and
//! cancellable, reporting through a [`Task`](super::tasks::Task) the window polls in `logic`:
//! the folder scan, the picture pool, the catalog thread, the settings writer, the folder
//! dialog, the index job, face close-ups, the folder's analysis, the model manager, the
//! export and the ingest. Every result carries the id it was asked for.

mod analysis;
mod catalog;
mod dialog;
mod export;
mod faces;
mod index;
mod ingest;
mod models;
mod pictures;
mod scan;
mod settings;
mod sidecar_watch;
mod subject;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub use analysis::{AnalysisAnswer, FolderAnalysis, load_analysis};
pub use catalog::{CatalogReport, CatalogRequest, CatalogThread, catalog_thread};
pub use dialog::{
    EXPORT_FOLDER, FolderAsk, INGEST_BACKUP, INGEST_CARD, INGEST_TO, MODELS_FOLDER, OPEN_FOLDER,
    PickFolder, pick_folder, system_folder_dialog,
};
pub use export::{export, export_plan};
pub use faces::{FACE_CROP_MAX, FaceCrop, FaceCrops};
pub use index::{IndexLive, IndexRequest, index_job};
pub use ingest::{Landed, ingest, ingest_plan};
pub use models::{ModelsMsg, ModelsRequest, models_job};
pub use pictures::{
    CLIPPING_SIDE, FULL_TILE, FullMade, FullPart, Made, PictureQueue, ThumbDone, ThumbJob,
    ThumbPool, Want, ZoomedView, thumb_pool, visible_rows,
};
pub use scan::scan;
pub use settings::{SaveMsg, settings_saver};
pub use sidecar_watch::{SidecarWatch, watch_sidecars};
pub use subject::{SubjectAnswer, SubjectRequest, seek_subject};

/// Set on drop: every worker checks it between units of work.
#[derive(Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// egui's pixels for an RGB image, made on a worker so the window only uploads.
pub fn pixels_of(img: &image::RgbImage) -> egui::ColorImage {
    egui::ColorImage::from_rgb([img.width() as usize, img.height() as usize], img.as_raw())
}
