//! The folder's analysis from the index rows, read with a read-only catalog connection.

use std::path::PathBuf;

use darkroom_catalog::Catalog;

use crate::gui::tasks::{Task, Waker};

/// A folder's analysis and the names people were given.
pub struct FolderAnalysis {
    pub photos: Vec<darkroom_index::PhotoAnalysis>,
    pub names: std::collections::HashMap<i64, String>,
}

/// The analysis of folder `generation`, as it answers.
pub type AnalysisAnswer = (u64, Result<FolderAnalysis, String>);

/// The folder's analysis from the index rows (bursts need every photo's row at once), read on a
/// thread of its own with its own catalog connection.
pub fn load_analysis(
    generation: u64,
    photos: Vec<PathBuf>,
    catalog: PathBuf,
    thresholds: darkroom_index::Thresholds,
    wake: Waker,
) -> Task<AnalysisAnswer> {
    Task::spawn("the folder's analysis", 1, wake, move |out| {
        let result = (|| -> Result<FolderAnalysis, String> {
            let Some(catalog) = Catalog::open_read_only(&catalog).map_err(|e| e.to_string())?
            else {
                // Nothing was ever recorded: nothing is indexed.
                return Ok(FolderAnalysis {
                    photos: Vec::new(),
                    names: Default::default(),
                });
            };
            let indexed = catalog.indexed_of(&photos).map_err(|e| e.to_string())?;
            let names = darkroom_index::cull::person_names(&catalog, &indexed)
                .map_err(|e| e.to_string())?;
            Ok(FolderAnalysis {
                photos: darkroom_index::analyse(&indexed, &thresholds),
                names,
            })
        })();
        out.send((generation, result));
    })
}
