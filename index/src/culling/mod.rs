//! The culling state, with no egui and no I/O: the folder's photos, the filter, the selection,
//! decisions and their undo history, the views' navigation. The window draws it and sends what
//! it returns (decision jobs) to the catalog thread; results come back through the methods here,
//! each carrying the [`EntryId`] it was asked for, so a result for another folder finds nothing.
//! Here: the folder's photos and their ids; `filter` (what the grid shows, in which order),
//! `selection` (and the sets compare takes), `decisions` (pending, acknowledged, undone),
//! `proposal`, `analysis` (what the index knows: people, tags, bodies), `photo` (one photo and
//! its jobs); their unit tests, which need no renderer, in `tests`.

mod analysis;
mod decisions;
mod filter;
#[cfg(any(test, feature = "test-fixtures"))]
pub mod fixtures;
mod photo;
mod proposal;
mod selection;
#[cfg(test)]
mod tests;

pub use analysis::PersonRow;
pub use filter::Filter;
pub use photo::{DecisionAck, DecisionJob, Edit, Photo};
pub use selection::SelectHow;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use darkroom_catalog::Decision;
use darkroom_library::Item;
use decisions::Undoable;
use proposal::Proposal;

/// One photo of one opened folder: its position in that folder's list, and which opening
/// (generation) of a folder it belongs to. Opening a folder starts a new generation, so an id
/// from before never addresses a photo after, even at the same position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryId {
    generation: u64,
    index: usize,
}

impl EntryId {
    pub fn generation(self) -> u64 {
        self.generation
    }
    pub fn index(self) -> usize {
        self.index
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Grid,
    Loupe,
    Compare,
    /// People across a burst: a row per person, a column per frame.
    People,
}

pub struct Culling {
    generation: u64,
    pub root: Option<PathBuf>,
    entries: Vec<Photo>,
    /// Every entry's primary file: a photo is never listed twice.
    known: std::collections::HashSet<PathBuf>,
    /// Indices into the entries, in the order shown.
    pub visible: Vec<usize>,
    /// Position in `visible`: the photo the keys move and the loupe shows.
    pub selected: usize,
    /// Photos selected with it (entry indices, so a filter change keeps them); empty: the
    /// selected photo alone.
    selection: BTreeSet<usize>,
    /// Where a Shift range starts (an entry index).
    anchor: Option<usize>,
    pub view: View,
    pub filter: Filter,
    /// For each decision made in this folder, newest last: (photo, its decision before) for
    /// every photo it changed — a decision on a selection, or an applied proposal, is one
    /// step. It starts empty with each folder: undo never reaches into a folder no longer open.
    undo: Vec<Vec<Undoable>>,
    /// What each answered change found (its "before"), by sequence number: what an undo puts
    /// back.
    answered_before: HashMap<u64, Decision>,
    /// The next decision job's sequence number (never reused, across folders too).
    next_seq: u64,
    /// Show the sharpest first.
    pub sort_by_sharpness: bool,
    /// Shooting order: capture times on the shoot's clock (each body's correction applied).
    pub sort_by_time: bool,
    /// Bursts show as their suggested frame until opened (B).
    pub expanded_bursts: HashSet<usize>,
    /// People's names, by person id.
    pub person_names: HashMap<i64, String>,
    /// Decisions sent for this folder and not yet acknowledged (the window asks every frame).
    in_flight: usize,
    /// The people strip's rows, made when the analysis arrives (the strip is drawn every frame).
    people: Vec<PersonRow>,
    proposal: Option<Proposal>,
}

impl Default for Culling {
    fn default() -> Self {
        Culling {
            generation: 0,
            root: None,
            entries: Vec::new(),
            known: Default::default(),
            visible: Vec::new(),
            selected: 0,
            selection: BTreeSet::new(),
            anchor: None,
            view: View::Grid,
            filter: Filter::All,
            undo: Vec::new(),
            answered_before: HashMap::new(),
            next_seq: 1,
            sort_by_sharpness: false,
            sort_by_time: false,
            expanded_bursts: HashSet::new(),
            person_names: HashMap::new(),
            in_flight: 0,
            people: Vec::new(),
            proposal: None,
        }
    }
}

impl Culling {
    /// A new, empty folder: a new generation, so nothing asked for before lands here.
    pub fn open(&mut self, root: PathBuf) -> u64 {
        self.generation += 1;
        self.root = Some(root);
        self.entries.clear();
        self.known.clear();
        self.visible.clear();
        self.undo.clear();
        self.answered_before.clear();
        self.selected = 0;
        self.selection.clear();
        self.anchor = None;
        self.proposal = None;
        self.view = View::Grid;
        self.expanded_bursts.clear();
        self.person_names.clear();
        self.people.clear();
        // The old folder's acknowledgements find nothing now: nothing of this one is in flight.
        self.in_flight = 0;
        if matches!(self.filter, Filter::Person(_)) {
            self.filter = Filter::All;
        }
        self.generation
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn entries(&self) -> &[Photo] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The id of the photo at `index` of this folder.
    pub fn id(&self, index: usize) -> EntryId {
        EntryId {
            generation: self.generation,
            index,
        }
    }

    pub fn ids(&self) -> impl Iterator<Item = EntryId> + '_ {
        (0..self.entries.len()).map(|i| self.id(i))
    }

    /// The photo `id` names, if it is of the folder open now.
    pub fn get(&self, id: EntryId) -> Option<&Photo> {
        (id.generation == self.generation)
            .then(|| self.entries.get(id.index))
            .flatten()
    }

    fn get_mut(&mut self, id: EntryId) -> Option<&mut Photo> {
        if id.generation != self.generation {
            return None;
        }
        self.entries.get_mut(id.index)
    }

    /// A photo the scan found; shown once `refilter` runs.
    pub fn push(&mut self, item: Item) -> EntryId {
        self.known.insert(item.primary.clone());
        self.entries.push(Photo::new(item));
        self.id(self.entries.len() - 1)
    }

    /// As [`Culling::push`], unless the photo is already here (the scan and the ingest can
    /// both report a photo that landed while the folder was being read).
    pub fn push_new(&mut self, item: Item) -> Option<EntryId> {
        (!self.known.contains(&item.primary)).then(|| self.push(item))
    }

    pub fn photos(&self) -> Vec<PathBuf> {
        self.entries
            .iter()
            .map(|e| e.item.primary.clone())
            .collect()
    }

    /// The selected photo's index into the entries.
    pub fn selected_index(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    pub fn selected_id(&self) -> Option<EntryId> {
        self.selected_index().map(|i| self.id(i))
    }

    /// The id of what is shown at position `v` of the visible list.
    pub fn visible_id(&self, v: usize) -> Option<EntryId> {
        self.visible.get(v).map(|&i| self.id(i))
    }
}
