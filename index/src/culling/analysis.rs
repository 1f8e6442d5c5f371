//! What the index knows of the folder: each photo's analysis, its people (named by the user),
//! its scene tags and camera bodies.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::tags::SceneTag;
use crate::{PhotoAnalysis, cull};

use super::{Culling, EntryId};

/// A person in this folder, for the people strip.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonRow {
    pub person: i64,
    pub photos: usize,
    /// Their first face: the photo and its box (fractions of the photo).
    pub face: (EntryId, [f32; 4]),
    /// A key person (starred).
    pub key: bool,
    /// In at least half of the folder's photos with faces, not starred: starring them is
    /// suggested.
    pub suggested: bool,
}

impl Culling {
    /// The folder's analysis arrived (for `generation`); photos not in it are not indexed.
    pub fn set_analysis(
        &mut self,
        generation: u64,
        photos: Vec<PhotoAnalysis>,
        names: HashMap<i64, String>,
    ) -> bool {
        if generation != self.generation {
            return false;
        }
        self.person_names = names;
        let mut by_path: HashMap<PathBuf, PhotoAnalysis> =
            photos.into_iter().map(|a| (a.path.clone(), a)).collect();
        for e in &mut self.entries {
            e.analysis = by_path.remove(&e.item.primary);
        }
        self.people = self.count_people();
        if let Some(rules) = self.proposal_rules() {
            // The proposal follows what the index knows now.
            let _ = self.propose(rules);
        }
        self.refilter();
        true
    }

    /// Name person `id` (empty: forget the name). Returns the name to record.
    pub fn name_person(&mut self, id: i64, name: &str) -> Option<String> {
        let name = name.trim();
        if name.is_empty() {
            self.person_names.remove(&id);
            None
        } else {
            self.person_names.insert(id, name.to_owned());
            Some(name.to_owned())
        }
    }

    pub fn person_label(&self, id: i64) -> String {
        cull::person_label(&self.person_names, id)
    }

    /// People in this folder, most photos first.
    pub fn people(&self) -> &[PersonRow] {
        &self.people
    }

    fn count_people(&self) -> Vec<PersonRow> {
        cull::people(self.entries.iter().map(|e| e.analysis.as_ref()))
            .into_iter()
            .map(|c| PersonRow {
                person: c.person,
                photos: c.photos,
                face: (self.id(c.first), c.face),
                key: c.key,
                suggested: c.suggested,
            })
            .collect()
    }

    /// The camera bodies of this folder's indexed photos: each with its photos and its clock
    /// correction, by name.
    pub fn bodies(&self) -> Vec<(String, usize, f64)> {
        cull::bodies(self.entries.iter().filter_map(|e| e.analysis.as_ref()))
    }

    /// The scene tags in this folder and how many photos have each, most first.
    pub fn tag_counts(&self) -> Vec<(SceneTag, usize)> {
        cull::tag_counts(self.entries.iter().filter_map(|e| e.analysis.as_ref()))
    }
}
