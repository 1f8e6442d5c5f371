//! The culling state, with no egui and no I/O: the folder's photos, the filter, the selection,
//! decisions and their undo history, the views' navigation. The window draws it and sends what
//! it returns (decision jobs) to the catalog thread; results come back through the methods here,
//! each carrying the [`EntryId`] it was asked for, so a result for another folder finds nothing.
//! (Longer than most files here: about half of it is its unit tests, which need no renderer.)

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use darkroom_catalog::{Change, ColourLabel, Decision, Flag, Label};
use darkroom_index::proposal::{self, Candidate};
use darkroom_index::tags::SceneTag;
use darkroom_index::{PhotoAnalysis, ProposalRules, Proposed};
use darkroom_library::Item;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Picks,
    Rejects,
    Unflagged,
    MinStars(u8),
    Label(ColourLabel),
    /// Photos with this person in them.
    Person(i64),
    /// Photos the scene model tagged so (sky, water, …).
    Tag(SceneTag),
}

impl Filter {
    pub fn describe(self) -> String {
        match self {
            Filter::All => "all".into(),
            Filter::Picks => "picks".into(),
            Filter::Rejects => "rejects".into(),
            Filter::Unflagged => "unflagged".into(),
            Filter::MinStars(n) => format!("{n}+ stars"),
            Filter::Label(c) => format!("{} label", c.xmp_name().to_lowercase()),
            Filter::Person(id) => format!("person {id}"),
            Filter::Tag(t) => t.word().to_owned(),
        }
    }

    fn admits(self, photo: &Photo) -> bool {
        let d = &photo.decision;
        match self {
            Filter::All => true,
            Filter::Picks => d.flag == Flag::Pick,
            Filter::Rejects => d.flag == Flag::Reject,
            Filter::Unflagged => d.flag == Flag::Unflagged,
            Filter::MinStars(n) => d.stars >= n,
            Filter::Label(c) => d.label == Some(Label::Colour(c)),
            Filter::Person(id) => photo
                .analysis
                .as_ref()
                .is_some_and(|a| a.people.iter().any(|(p, _)| *p == Some(id))),
            Filter::Tag(t) => photo
                .analysis
                .as_ref()
                .is_some_and(|a| a.tags.iter().any(|(tag, _)| *tag == t)),
        }
    }
}

/// What the culling state knows of one photo.
#[derive(Debug, Clone)]
pub struct Photo {
    pub item: Item,
    /// What the index says (None: not indexed).
    pub analysis: Option<PhotoAnalysis>,
    /// What is shown: the durable decision with the changes still on their way made on it.
    pub decision: Decision,
    /// What the catalog (or the photo's sidecar, when it was imported) last said.
    durable: Decision,
    /// The catalog has answered for this photo (its import, or a change that imported it);
    /// until then its decision is not known, and it shows as loading, never as blank.
    pub loaded: bool,
    /// Changes sent and not yet answered, oldest first: their sequence numbers and what each
    /// is shown as.
    pending: Vec<(u64, Change)>,
    pub error: Option<String>,
}

impl Photo {
    fn new(item: Item) -> Self {
        Photo {
            item,
            analysis: None,
            decision: Decision::default(),
            durable: Decision::default(),
            loaded: false,
            pending: Vec::new(),
            error: None,
        }
    }

    /// Sent to the catalog, not yet acknowledged as durable ("saving…").
    pub fn pending(&self) -> bool {
        !self.pending.is_empty()
    }

    fn refresh(&mut self) {
        self.decision = self
            .pending
            .iter()
            .fold(self.durable.clone(), |d, (_, c)| c.applied_to(&d));
    }

    /// Takes change `seq` off the pending list; false when it was not on it.
    fn settle(&mut self, seq: u64) -> bool {
        let before = self.pending.len();
        self.pending.retain(|(s, _)| *s != seq);
        self.pending.len() != before
    }

    pub fn file_name(&self) -> String {
        self.item
            .primary
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// What a decision job asks of the catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// A change as pressed (the flag, the stars or the label).
    Change(Change),
    /// Undo: put back what change `of` replaced.
    Revert { of: u64 },
}

/// A decision on every file of one photo, for the catalog thread.
#[derive(Debug, Clone)]
pub struct DecisionJob {
    pub id: EntryId,
    /// Names this job in its answer and in a later undo.
    pub seq: u64,
    pub files: Vec<PathBuf>,
    pub edit: Edit,
}

/// The catalog thread's answer: durable in the catalog with the photo's decision before and
/// after, or failed (nothing recorded) and why.
#[derive(Debug, Clone)]
pub struct DecisionAck {
    pub id: EntryId,
    pub seq: u64,
    pub result: Result<(Decision, Decision), String>,
}

/// One photo's part of an undo step: the change, and what the photo showed before it (until
/// the catalog's answer says what it really had).
#[derive(Debug, Clone)]
struct Undoable {
    id: EntryId,
    seq: u64,
    change: Change,
    before: Decision,
}

/// A person in this folder, for the people strip.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonRow {
    pub person: i64,
    pub photos: usize,
    /// Their first face: the photo and its box (fractions of the photo).
    pub face: (EntryId, [f32; 4]),
}

/// How a click or a shifted arrow changes the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectHow {
    /// This photo alone.
    Only,
    /// Add or remove this photo (Ctrl+click).
    Toggle,
    /// Everything from the anchor to this photo (Shift+click, Shift+arrows).
    Range,
}

/// An auto-cull proposal for the folder open now, until applied or discarded.
#[derive(Debug, Clone)]
struct Proposal {
    rules: ProposalRules,
    /// One entry per photo of the folder.
    proposed: Vec<Option<Proposed>>,
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

    pub fn picks(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.decision.flag == Flag::Pick)
            .count()
    }

    /// The picked photos' items, in folder order.
    pub fn pick_items(&self) -> Vec<Item> {
        self.entries
            .iter()
            .filter(|e| e.decision.flag == Flag::Pick)
            .map(|e| e.item.clone())
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

    pub fn refilter(&mut self) {
        let current = self.selected_index();
        let filter = self.filter;
        let entries = &self.entries;
        self.visible = (0..entries.len())
            .filter(|&i| filter.admits(&entries[i]))
            .collect();
        if filter == Filter::All {
            // A burst shows as its suggested frame until it is opened. Filters show every
            // frame they match: a pick inside a burst must never hide.
            let expanded = &self.expanded_bursts;
            self.visible.retain(|&i| {
                entries[i]
                    .analysis
                    .as_ref()
                    .and_then(|a| a.burst.as_ref())
                    .is_none_or(|b| b.suggested || expanded.contains(&b.id))
            });
        }
        if self.sort_by_time {
            // Corrected capture times; photos not indexed or without a time keep their order
            // after them.
            let time = |i: usize| {
                entries[i]
                    .analysis
                    .as_ref()
                    .and_then(|a| a.clock.corrected())
                    .unwrap_or(f64::INFINITY)
            };
            self.visible.sort_by(|&a, &b| time(a).total_cmp(&time(b)));
        }
        if self.sort_by_sharpness {
            // Sharpest first; photos not indexed keep their order after them.
            let sharpness = |i: usize| {
                entries[i]
                    .analysis
                    .as_ref()
                    .map_or(f32::NEG_INFINITY, |a| a.sharpness)
            };
            self.visible
                .sort_by(|&a, &b| sharpness(b).total_cmp(&sharpness(a)));
        }
        self.selected = current
            .and_then(|c| self.visible.iter().position(|&i| i == c))
            .unwrap_or(0)
            .min(self.visible.len().saturating_sub(1));
        if self.visible.is_empty() {
            // Nothing to look at closely: back to the grid, which says why it is empty.
            self.view = View::Grid;
        }
    }

    pub fn set_filter(&mut self, f: Filter) {
        self.filter = f;
        self.refilter();
    }

    /// The person's chip toggles their filter.
    /// A scene tag's chip: only its photos, again all.
    pub fn toggle_tag(&mut self, tag: SceneTag) {
        let f = if self.filter == Filter::Tag(tag) {
            Filter::All
        } else {
            Filter::Tag(tag)
        };
        self.set_filter(f);
    }

    /// The scene tags in this folder and how many photos have each, most first.
    pub fn tag_counts(&self) -> Vec<(SceneTag, usize)> {
        let mut counts: BTreeMap<SceneTag, usize> = BTreeMap::new();
        for a in self.entries.iter().filter_map(|e| e.analysis.as_ref()) {
            for (tag, _) in &a.tags {
                *counts.entry(*tag).or_default() += 1;
            }
        }
        let mut list: Vec<_> = counts.into_iter().collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        list
    }

    pub fn toggle_person(&mut self, id: i64) {
        let f = if self.filter == Filter::Person(id) {
            Filter::All
        } else {
            Filter::Person(id)
        };
        self.set_filter(f);
    }

    /// Move to the photo `by` places on in the visible list, stopping at its ends; it is
    /// selected alone.
    pub fn step(&mut self, by: isize) {
        if let Some(v) = self.stepped(by) {
            self.select(v, SelectHow::Only);
        }
    }

    /// Shift+arrows: move by `by` and select everything from the anchor to there.
    pub fn extend(&mut self, by: isize) {
        if let Some(v) = self.stepped(by) {
            self.select(v, SelectHow::Range);
        }
    }

    fn stepped(&self, by: isize) -> Option<usize> {
        let n = self.visible.len();
        (n > 0).then(|| (self.selected as isize + by).clamp(0, n as isize - 1) as usize)
    }

    /// Select what is shown at position `v` (a click).
    pub fn select_visible(&mut self, v: usize) {
        self.select(v, SelectHow::Only);
    }

    /// Select what is shown at position `v`, alone, toggled into the selection, or as the end
    /// of a range from the anchor. The photo at `v` becomes the one the keys move from.
    pub fn select(&mut self, v: usize, how: SelectHow) {
        let Some(&entry) = self.visible.get(v) else {
            return;
        };
        let current = self.selected_index();
        match how {
            SelectHow::Only => {
                self.selection.clear();
                self.anchor = Some(entry);
            }
            SelectHow::Toggle => {
                if self.selection.is_empty()
                    && let Some(c) = current
                {
                    self.selection.insert(c);
                }
                self.anchor = Some(entry);
                if self.selection.remove(&entry) {
                    // Taken out: the keys go on from the nearest photo still selected, so the
                    // current photo is always one of the selection.
                    let nearest = (0..self.visible.len())
                        .filter(|&w| self.selection.contains(&self.visible[w]))
                        .min_by_key(|&w| w.abs_diff(v));
                    if let Some(w) = nearest {
                        self.selected = w;
                        if self.selection.len() == 1 {
                            self.selection.clear();
                        }
                        return;
                    }
                } else {
                    self.selection.insert(entry);
                }
            }
            SelectHow::Range => {
                let anchor = self.anchor.or(current).unwrap_or(entry);
                let from = self.visible.iter().position(|&i| i == anchor).unwrap_or(v);
                let (a, b) = (from.min(v), from.max(v));
                self.selection = self.visible[a..=b].iter().copied().collect();
                self.anchor = Some(anchor);
            }
        }
        self.selected = v;
        if self.selection.len() == 1 && self.selection.contains(&entry) {
            // One photo selected is the selected photo.
            self.selection.clear();
        }
    }

    /// Ctrl+A: every photo shown.
    pub fn select_all(&mut self) {
        self.selection = self.visible.iter().copied().collect();
        self.anchor = self.visible.first().copied();
        if self.selection.len() == 1 {
            self.selection.clear();
        }
    }

    /// Whether the photo at entry index `i` is selected (the current photo always is).
    pub fn is_selected(&self, i: usize) -> bool {
        self.selection.contains(&i) || self.selected_index() == Some(i)
    }

    /// The photos a decision applies to: the selection as shown, or the selected photo.
    pub fn targets(&self) -> Vec<usize> {
        let shown: Vec<usize> = self
            .visible
            .iter()
            .copied()
            .filter(|i| self.selection.contains(i))
            .collect();
        if shown.is_empty() {
            self.selected_index().into_iter().collect()
        } else {
            shown
        }
    }

    /// How many photos a decision would apply to.
    pub fn selection_len(&self) -> usize {
        self.targets().len()
    }

    /// Whether `test` holds for every photo a decision would apply to (a toggle on a mixed
    /// selection turns on).
    pub fn targets_all(&self, test: impl Fn(&Decision) -> bool) -> bool {
        let targets = self.targets();
        !targets.is_empty() && targets.iter().all(|&i| test(&self.entries[i].decision))
    }

    pub fn toggle_loupe(&mut self) {
        self.view = if self.view == View::Grid && !self.visible.is_empty() {
            View::Loupe
        } else {
            View::Grid
        };
    }

    /// Where photo `id` is shown (its position in the visible list), if it is.
    pub fn position_of(&self, id: EntryId) -> Option<usize> {
        if id.generation() != self.generation {
            return None;
        }
        self.visible.iter().position(|&i| i == id.index())
    }

    /// C: compare, which needs two photos to show. Returns the set to compare side by side:
    /// the selection (its first photo becomes the one shown, alone, so a decision in compare
    /// is one pane's), else the shown photo's burst (opened, so each frame can be stepped to),
    /// else its scene (a photo in no burst is compared with its set-up's others), else nothing:
    /// the photo shown and the next.
    pub fn compare(&mut self) -> Vec<EntryId> {
        let in_burst = self
            .selected_index()
            .and_then(|i| self.entries[i].analysis.as_ref())
            .is_some_and(|a| a.burst.as_ref().is_some_and(|b| b.size >= 2));
        if self.targets().len() < 2 && !in_burst {
            let scene = self.shown_scene();
            if scene.len() >= 2 {
                return self.compare_these(scene);
            }
        }
        self.look_across(View::Compare)
    }

    /// The shown photo's scene: its photos shown, in the grid's order.
    fn shown_scene(&self) -> Vec<usize> {
        let scene = self
            .selected_index()
            .and_then(|i| self.entries[i].analysis.as_ref())
            .and_then(|a| a.scene.as_ref())
            .map(|s| s.id);
        let Some(scene) = scene else {
            return Vec::new();
        };
        self.visible
            .iter()
            .copied()
            .filter(|&i| {
                self.entries[i]
                    .analysis
                    .as_ref()
                    .and_then(|a| a.scene.as_ref())
                    .is_some_and(|s| s.id == scene)
            })
            .collect()
    }

    /// Compare these photos (entry indices), the first one shown.
    fn compare_these(&mut self, members: Vec<usize>) -> Vec<EntryId> {
        self.view = View::Compare;
        if let Some(first) = members.first().and_then(|&m| self.position_of(self.id(m))) {
            self.select(first, SelectHow::Only);
        }
        members.into_iter().map(|i| self.id(i)).collect()
    }

    /// E: the people across the selection or the burst (or the photo and the next), a row per
    /// person and a column per frame; the same set compare takes.
    pub fn people_across(&mut self) -> Vec<EntryId> {
        self.look_across(View::People)
    }

    fn look_across(&mut self, view: View) -> Vec<EntryId> {
        let selected = self.targets();
        if selected.len() >= 2 {
            self.view = view;
            if let Some(first) = self.position_of(self.id(selected[0])) {
                self.select(first, SelectHow::Only);
            }
            return selected.into_iter().map(|i| self.id(i)).collect();
        }
        let burst = self
            .selected_index()
            .and_then(|i| self.entries[i].analysis.as_ref())
            .and_then(|a| a.burst.as_ref())
            .filter(|b| b.size >= 2)
            .map(|b| b.id);
        let Some(burst) = burst else {
            // The photo and the next, where there is a next.
            if self.visible.len() >= 2 {
                self.view = view;
            }
            return Vec::new();
        };
        self.view = view;
        if self.expanded_bursts.insert(burst) {
            self.refilter();
        }
        let in_burst = |i: &usize| {
            self.entries[*i]
                .analysis
                .as_ref()
                .and_then(|a| a.burst.as_ref())
                .is_some_and(|b| b.id == burst)
        };
        let frames: Vec<usize> = self.visible.iter().copied().filter(in_burst).collect();
        frames.into_iter().map(|i| self.id(i)).collect()
    }

    /// Shift+C: compare the shown photo's whole scene (its photos shown, the first nine), bursts
    /// and all; a photo in no scene of two compares as C does.
    pub fn compare_scene(&mut self) -> Vec<EntryId> {
        let scene = self.shown_scene();
        if scene.len() < 2 {
            return self.compare();
        }
        self.compare_these(scene)
    }

    /// The scene that starts at grid position `v`, when one does (shooting order only: sorted
    /// by sharpness, a scene is not together): its number from 1 and its photos.
    pub fn scene_starts_at(&self, v: usize) -> Option<(usize, usize)> {
        if self.sort_by_sharpness {
            return None;
        }
        let scene_of = |v: usize| {
            let i = *self.visible.get(v)?;
            self.entries[i].analysis.as_ref()?.scene.as_ref()
        };
        let here = scene_of(v)?;
        let before = v.checked_sub(1).and_then(scene_of).map(|s| s.id);
        (before != Some(here.id)).then_some((here.id + 1, here.size))
    }

    /// How many open proposals give each reason, while a proposal is shown.
    pub fn proposal_reasons(
        &self,
    ) -> std::collections::BTreeMap<darkroom_index::proposal::ReasonKind, usize> {
        let mut counts = std::collections::BTreeMap::new();
        if let Some(p) = &self.proposal {
            for i in 0..p.proposed.len() {
                if let Some(proposed) = self.proposed(i) {
                    for r in proposed.reasons() {
                        *counts.entry(r.kind()).or_default() += 1;
                    }
                }
            }
        }
        counts
    }

    /// B: open or close the selected photo's burst.
    pub fn toggle_burst(&mut self) {
        let burst = self
            .selected_index()
            .and_then(|i| self.entries[i].analysis.as_ref())
            .and_then(|a| a.burst.as_ref())
            .map(|b| b.id);
        if let Some(id) = burst {
            if !self.expanded_bursts.remove(&id) {
                self.expanded_bursts.insert(id);
            }
            self.refilter();
        }
    }

    pub fn toggle_sort_by_sharpness(&mut self) {
        self.sort_by_sharpness = !self.sort_by_sharpness;
        self.sort_by_time = false;
        self.refilter();
    }

    /// T: shooting order on the shoot's clock, or back to the folder's order.
    pub fn toggle_sort_by_time(&mut self) {
        self.sort_by_time = !self.sort_by_time;
        self.sort_by_sharpness = false;
        self.refilter();
    }

    /// A selection of two photos: the current one (whose clock is trusted) and the other.
    pub fn selected_pair(&self) -> Option<(&Photo, &Photo)> {
        if self.selection.len() != 2 {
            return None;
        }
        let current = *self.visible.get(self.selected)?;
        if !self.selection.contains(&current) {
            return None;
        }
        let other = *self.selection.iter().find(|&&i| i != current)?;
        Some((&self.entries[current], &self.entries[other]))
    }

    /// The camera bodies of this folder's indexed photos: each with its photos and its clock
    /// correction, by name.
    pub fn bodies(&self) -> Vec<(String, usize, f64)> {
        let mut bodies: BTreeMap<String, (usize, f64)> = BTreeMap::new();
        for a in self.entries.iter().filter_map(|e| e.analysis.as_ref()) {
            if let Some(body) = &a.clock.body {
                let entry = bodies.entry(body.clone()).or_insert((0, a.clock.offset_s));
                entry.0 += 1;
            }
        }
        bodies.into_iter().map(|(b, (n, o))| (b, n, o)).collect()
    }

    /// Decide for the selected photos (one step of undo): shown at once as pending, durable
    /// when the catalog acknowledges each. Returns the jobs to send (none: nothing selected or
    /// nothing changed). A photo whose import has not answered yet is sent the change too:
    /// the catalog makes it on what the photo really has.
    pub fn decide(&mut self, change: Change) -> Vec<DecisionJob> {
        let changes = self
            .targets()
            .into_iter()
            .filter(|&i| {
                let p = &self.entries[i];
                !p.loaded || change.applied_to(&p.decision) != p.decision
            })
            .map(|i| (self.id(i), change.clone()))
            .collect();
        self.record(changes)
    }

    /// Make `changes` one step of undo and mark each pending.
    fn record(&mut self, changes: Vec<(EntryId, Change)>) -> Vec<DecisionJob> {
        let mut step = Vec::new();
        let mut jobs = Vec::new();
        for (id, change) in changes {
            let Some(before) = self.get(id).map(|p| p.decision.clone()) else {
                continue;
            };
            let Some(job) = self.mark_pending(id, change.clone(), Edit::Change(change.clone()))
            else {
                continue;
            };
            step.push(Undoable {
                id,
                seq: job.seq,
                change,
                before,
            });
            jobs.push(job);
        }
        if !step.is_empty() {
            self.undo.push(step);
        }
        jobs
    }

    /// Undo this folder's last decision (every photo it changed). Returns the jobs that
    /// restore them: each puts back, in the catalog, what its change replaced there.
    pub fn undo(&mut self) -> Vec<DecisionJob> {
        let Some(step) = self.undo.pop() else {
            return Vec::new();
        };
        step.into_iter()
            .rev()
            .filter_map(|u| {
                let before = self.answered_before.get(&u.seq).unwrap_or(&u.before);
                let shown = u.change.undone_to(before);
                self.mark_pending(u.id, shown, Edit::Revert { of: u.seq })
            })
            .collect()
    }

    /// Propose decisions for the folder from what the index knows. Err: nothing to go on.
    pub fn propose(&mut self, rules: ProposalRules) -> Result<(usize, usize), &'static str> {
        if self.entries.iter().all(|e| e.analysis.is_none()) {
            return Err("nothing in this folder is indexed yet: index it first (Ctrl+I)");
        }
        let candidates: Vec<Candidate<'_>> = self
            .entries
            .iter()
            .map(|e| Candidate {
                analysis: e.analysis.as_ref(),
                decision: &e.decision,
            })
            .collect();
        let proposed = proposal::propose(&candidates, &rules);
        self.proposal = Some(Proposal { rules, proposed });
        Ok(self.proposal_counts().unwrap_or_default())
    }

    /// What the proposal says for entry `i`; nothing once the photographer decided it.
    pub fn proposed(&self, i: usize) -> Option<Proposed> {
        let p = self.proposal.as_ref()?.proposed.get(i).cloned().flatten()?;
        let photo = self.entries.get(i)?;
        // A photo whose import has not answered may have a decision another tool made.
        (photo.loaded && !proposal::decided(&photo.decision)).then_some(p)
    }

    /// (picks, rejects) proposed and still open, while a proposal is shown.
    pub fn proposal_counts(&self) -> Option<(usize, usize)> {
        let p = self.proposal.as_ref()?;
        let open: Vec<Option<Proposed>> = (0..p.proposed.len()).map(|i| self.proposed(i)).collect();
        Some(proposal::counts(&open))
    }

    pub fn proposal_rules(&self) -> Option<ProposalRules> {
        self.proposal.as_ref().map(|p| p.rules.clone())
    }

    /// The proposal becomes real decisions, one step of undo; photos decided since it was
    /// made keep their decision.
    pub fn apply_proposal(&mut self) -> Vec<DecisionJob> {
        let changes: Vec<(EntryId, Change)> = (0..self.entries.len())
            .filter_map(|i| Some((self.id(i), Change::Flag(self.proposed(i)?.flag))))
            .collect();
        self.proposal = None;
        self.record(changes)
    }

    pub fn discard_proposal(&mut self) {
        self.proposal = None;
    }

    /// Show `shown` on photo `id` until the catalog answers job `edit`, which this returns.
    fn mark_pending(&mut self, id: EntryId, shown: Change, edit: Edit) -> Option<DecisionJob> {
        let seq = self.next_seq;
        let photo = self.get_mut(id)?;
        photo.pending.push((seq, shown));
        photo.refresh();
        let files = photo.item.files().map(Path::to_path_buf).collect();
        self.next_seq += 1;
        self.in_flight += 1;
        Some(DecisionJob {
            id,
            seq,
            files,
            edit,
        })
    }

    /// The job never reached the catalog thread: show what is really recorded, and why.
    pub fn send_failed(&mut self, job: DecisionJob, error: String) {
        if let Some(photo) = self.get_mut(job.id)
            && photo.settle(job.seq)
        {
            photo.refresh();
            photo.error = Some(error);
            self.in_flight = self.in_flight.saturating_sub(1);
        }
    }

    /// The catalog answered a decision: durable, showing what the photo now has; or failed,
    /// showing what is durable, and the words for a notice that names the photo. Nothing for a
    /// folder no longer open.
    pub fn acknowledge(&mut self, ack: DecisionAck) -> Option<String> {
        let photo = self.get_mut(ack.id)?;
        if !photo.settle(ack.seq) {
            return None;
        }
        let failed = match ack.result {
            Ok((before, after)) => {
                photo.durable = after;
                photo.loaded = true;
                self.answered_before.insert(ack.seq, before);
                None
            }
            Err(why) => {
                let words = format!("the decision on {} was not saved: {why}", photo.file_name());
                photo.error = Some(words.clone());
                Some(words)
            }
        };
        let photo = self.get_mut(ack.id)?;
        photo.refresh();
        self.in_flight = self.in_flight.saturating_sub(1);
        failed
    }

    /// What the catalog (or a sidecar another tool wrote) says about a photo. The catalog
    /// answers in the order it was asked, so this is the durable decision as of now; changes
    /// still on their way are shown on top of it. None: the import failed, and what the photo
    /// has is still not known (it goes on showing as loading, with the error).
    pub fn imported(&mut self, id: EntryId, decision: Option<Decision>, error: Option<String>) {
        if let Some(photo) = self.get_mut(id) {
            if let Some(decision) = decision {
                photo.durable = decision;
                photo.loaded = true;
                photo.refresh();
            }
            if error.is_some() {
                photo.error = error;
            }
        }
    }

    /// A sidecar of the photo could not be read or written (the catalog has the decision).
    pub fn sidecar_failed(&mut self, id: EntryId, error: String) {
        if let Some(photo) = self.get_mut(id) {
            photo.error = Some(error);
        }
    }

    /// Nothing sent will be answered (the catalog thread is gone): every photo shows what is
    /// durable, and why its decision is not.
    pub fn abandon_pending(&mut self, why: &str) {
        for photo in &mut self.entries {
            if photo.pending() {
                photo.pending.clear();
                photo.refresh();
                photo.error = Some(why.to_owned());
            }
        }
        self.in_flight = 0;
    }

    /// How many decisions are sent and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Photos whose import has not answered yet.
    pub fn loading(&self) -> usize {
        self.entries.iter().filter(|p| !p.loaded).count()
    }

    /// A picture or a close-up could not be made.
    pub fn set_error(&mut self, id: EntryId, error: String) {
        if let Some(photo) = self.get_mut(id) {
            photo.error = Some(error);
        }
    }

    pub fn all_acknowledged(&self) -> bool {
        self.in_flight == 0
    }

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
        self.person_names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("Person {id}"))
    }

    /// People in this folder, most photos first.
    pub fn people(&self) -> &[PersonRow] {
        &self.people
    }

    fn count_people(&self) -> Vec<PersonRow> {
        let mut people: BTreeMap<i64, (usize, usize, [f32; 4])> = BTreeMap::new();
        for (i, e) in self.entries.iter().enumerate() {
            let Some(a) = &e.analysis else { continue };
            let mut seen = Vec::new();
            for (p, b) in &a.people {
                if let Some(p) = *p
                    && !seen.contains(&p)
                {
                    seen.push(p);
                    people.entry(p).or_insert((0, i, *b)).0 += 1;
                }
            }
        }
        let mut list: Vec<_> = people
            .into_iter()
            .map(|(person, (photos, i, b))| PersonRow {
                person,
                photos,
                face: (self.id(i), b),
            })
            .collect();
        list.sort_by(|a, b| b.photos.cmp(&a.photos).then(a.person.cmp(&b.person)));
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkroom_index::BurstPlace;
    use darkroom_library::ItemKind;

    fn item(name: &str) -> Item {
        Item {
            primary: PathBuf::from(format!("/shoot/{name}.jpg")),
            twin: None,
            kind: ItemKind::Raster,
        }
    }

    fn folder(n: usize) -> Culling {
        let mut c = Culling::default();
        c.open(PathBuf::from("/shoot"));
        for i in 0..n {
            c.push(item(&format!("IMG_{i:04}")));
        }
        c.refilter();
        // Every import answered: nothing recorded yet.
        for i in 0..n {
            c.imported(c.id(i), Some(Decision::default()), None);
        }
        c
    }

    /// The catalog's answer to `job`, as if it found `before` there.
    fn answer(job: &DecisionJob, before: &Decision) -> DecisionAck {
        let Edit::Change(change) = &job.edit else {
            panic!("a change");
        };
        DecisionAck {
            id: job.id,
            seq: job.seq,
            result: Ok((before.clone(), change.applied_to(before))),
        }
    }

    fn analysis(
        c: &Culling,
        i: usize,
        sharpness: f32,
        burst: Option<(usize, bool)>,
    ) -> PhotoAnalysis {
        PhotoAnalysis {
            path: c.entries()[i].item.primary.clone(),
            detector: "scrfd_2.5g".into(),
            sharpness,
            blurry: false,
            faces: 1,
            eyes_closed: false,
            people: vec![(Some(7 + (i % 2) as i64), [0.1, 0.1, 0.3, 0.3])],
            burst: burst.map(|(id, suggested)| BurstPlace {
                id,
                position: 1,
                size: 2,
                suggested,
            }),
            judged_by_faces: true,
            subject: None,
            eyes_soft: false,
            closed_eyes: Vec::new(),
            soft_eyes: Vec::new(),
            scene: None,
            set: None,
            tones: None,
            tags: Vec::new(),
            clock: Default::default(),
        }
    }

    fn one(jobs: Vec<DecisionJob>) -> DecisionJob {
        assert_eq!(jobs.len(), 1, "one photo changed");
        jobs.into_iter().next().expect("one job")
    }

    fn pick() -> Change {
        Change::Flag(Flag::Pick)
    }

    fn red() -> Change {
        Change::Label(Some(Label::Colour(ColourLabel::Red)))
    }

    #[test]
    fn selection_moves_stop_at_the_ends() {
        let mut c = folder(5);
        c.step(-1);
        assert_eq!(c.selected, 0);
        c.step(3);
        assert_eq!(c.selected, 3);
        c.step(10);
        assert_eq!(c.selected, 4);
        c.select_visible(9);
        assert_eq!(c.selected, 4, "a position past the end is ignored");
        let mut empty = folder(0);
        empty.step(1);
        empty.toggle_loupe();
        assert_eq!(empty.view, View::Grid, "no loupe on nothing");
        assert_eq!(empty.selected_id(), None);
    }

    #[test]
    fn compare_takes_the_selection_or_the_burst_and_steps_past_the_pinned_photo() {
        use crate::gui::comparison::Comparison;
        let mut c = folder(5);
        c.select(1, SelectHow::Only);
        c.select(3, SelectHow::Range);
        let set = c.compare();
        assert_eq!(set, vec![c.id(1), c.id(2), c.id(3)], "the selection");
        assert_eq!(c.view, View::Compare);
        assert_eq!(
            (c.selected, c.selection_len()),
            (1, 1),
            "a decision is one pane's"
        );
        let mut cmp = Comparison::default();
        cmp.start(set);
        assert_eq!(cmp.panes(&c), vec![c.id(1), c.id(2), c.id(3)]);
        assert_eq!(cmp.step(&c, 1), Some(2), "→ goes to the next pane");
        c.select(3, SelectHow::Only);
        assert_eq!(cmp.step(&c, 1), None, "and stops at the last");
        cmp.toggle_pin(c.id(3));
        assert_eq!(
            cmp.panes(&c),
            vec![c.id(3), c.id(1), c.id(2)],
            "the pinned pane comes first"
        );

        // No set: the pinned photo beside the one shown; → steps past the pinned one.
        let mut pair = Comparison::default();
        pair.start(Vec::new());
        c.select(0, SelectHow::Only);
        assert_eq!(
            pair.panes(&c),
            vec![c.id(0), c.id(1)],
            "the photo and the next"
        );
        pair.toggle_pin(c.id(1));
        assert_eq!(pair.panes(&c), vec![c.id(1), c.id(0)]);
        assert_eq!(pair.step(&c, 1), Some(2), "past the pinned photo");

        // A burst shown as its suggested frame: compare opens it and shows every frame.
        let gen_ = c.generation();
        let rows = vec![
            analysis(&c, 2, 10.0, Some((1, false))),
            analysis(&c, 3, 90.0, Some((1, true))),
            analysis(&c, 4, 50.0, Some((1, false))),
        ];
        assert!(c.set_analysis(gen_, rows, HashMap::new()));
        c.view = View::Grid;
        c.select(2, SelectHow::Only);
        assert_eq!(
            c.selected_index(),
            Some(3),
            "the suggested frame stands for the burst"
        );
        assert_eq!(c.compare(), vec![c.id(2), c.id(3), c.id(4)]);
        assert_eq!(c.visible, vec![0, 1, 2, 3, 4], "the burst is open");
        assert_eq!(
            c.selected_index(),
            Some(3),
            "still the frame that was shown"
        );
    }

    #[test]
    fn compare_needs_two_photos() {
        let mut c = folder(1);
        c.compare();
        assert_eq!(c.view, View::Grid);
        let mut c = folder(2);
        c.compare();
        assert_eq!(c.view, View::Compare);
    }

    #[test]
    fn a_decision_is_pending_until_acknowledged_and_undo_restores_it() {
        let mut c = folder(3);
        c.step(2);
        let job = one(c.decide(pick()));
        assert_eq!(job.id, c.id(2));
        assert_eq!(job.files, vec![PathBuf::from("/shoot/IMG_0002.jpg")]);
        assert_eq!(job.edit, Edit::Change(pick()));
        assert!(c.entries()[2].pending());
        assert!(
            c.decide(pick()).is_empty(),
            "the same decision again changes nothing"
        );
        assert_eq!(c.acknowledge(answer(&job, &Decision::default())), None);
        assert!(c.all_acknowledged());
        let undo = one(c.undo());
        assert_eq!(undo.id, c.id(2));
        assert_eq!(undo.edit, Edit::Revert { of: job.seq });
        assert_eq!(c.entries()[2].decision, Decision::default());
        assert!(c.undo().is_empty(), "nothing more");
    }

    #[test]
    fn an_older_acknowledgement_never_shows_the_older_decision_again() {
        let mut c = folder(1);
        let reject = one(c.decide(Change::Flag(Flag::Reject)));
        let red_job = one(c.decide(red()));
        c.acknowledge(answer(&reject, &Decision::default()));
        let p = &c.entries()[0];
        assert!(p.pending(), "the red label is still on its way");
        assert_eq!(p.decision.label, Some(Label::Colour(ColourLabel::Red)));
        assert_eq!(p.decision.flag, Flag::Reject);
        let rejected = Change::Flag(Flag::Reject).applied_to(&Decision::default());
        c.acknowledge(answer(&red_job, &rejected));
        assert!(!c.entries()[0].pending());
        assert_eq!(c.entries()[0].decision, red().applied_to(&rejected));
    }

    /// Pressed before the photo's import answered: shown as a change on what the photo has,
    /// and what the catalog finds there (another tool's stars and label) is kept.
    #[test]
    fn a_change_before_the_import_lands_on_what_the_photo_really_has() {
        let mut c = Culling::default();
        c.open(PathBuf::from("/shoot"));
        c.push(item("IMG_0000"));
        c.push(item("IMG_0001"));
        c.refilter();
        assert_eq!(c.loading(), 2);
        assert!(!c.entries()[0].loaded, "not known yet: shown as loading");
        let job = one(c.decide(pick()));
        assert!(
            c.decide(pick()).len() == 1,
            "not known to be picked already: sent again (the catalog decides)"
        );
        let theirs = Decision {
            flag: Flag::Unflagged,
            stars: 5,
            label: Some(Label::Colour(ColourLabel::Blue)),
        };
        // The import answers after the change was sent: the pick is shown on its stars.
        c.imported(c.id(0), Some(theirs.clone()), None);
        assert!(c.entries()[0].loaded);
        assert_eq!(c.entries()[0].decision, pick().applied_to(&theirs));
        c.acknowledge(answer(&job, &theirs));
        assert_eq!(c.entries()[0].decision.stars, 5);
        // Undo puts back what the catalog found, not the blank the window had.
        c.undo();
        c.undo();
        assert_eq!(c.entries()[0].decision, theirs);
        // An import that failed says why and leaves the photo unknown, never blank.
        c.imported(c.id(1), None, Some("database is locked".into()));
        assert!(!c.entries()[1].loaded);
        assert_eq!(c.entries()[1].error.as_deref(), Some("database is locked"));
        assert_eq!(c.loading(), 1);
    }

    #[test]
    fn a_failed_write_shows_what_is_durable_and_names_the_photo() {
        let mut c = folder(1);
        let job = one(c.decide(Change::Stars(3)));
        let notice = c.acknowledge(DecisionAck {
            id: job.id,
            seq: job.seq,
            result: Err("database is locked".into()),
        });
        let notice = notice.expect("a notice");
        assert!(
            notice.contains("IMG_0000.jpg") && notice.contains("database is locked"),
            "{notice}"
        );
        assert_eq!(c.entries()[0].decision, Decision::default());
        assert!(c.all_acknowledged());
    }

    #[test]
    fn decisions_the_catalog_will_never_answer_show_what_is_durable() {
        let mut c = folder(2);
        let first = one(c.decide(Change::Stars(4)));
        c.acknowledge(answer(&first, &Decision::default()));
        one(c.decide(pick()));
        c.abandon_pending("the catalog thread stopped unexpectedly: the decision was not saved");
        let p = &c.entries()[0];
        assert!(!p.pending() && c.all_acknowledged());
        assert_eq!((p.decision.flag, p.decision.stars), (Flag::Unflagged, 4));
        assert!(p.error.as_deref().is_some_and(|e| e.contains("not saved")));
    }

    #[test]
    fn a_decision_that_cannot_be_sent_shows_what_is_recorded_and_why() {
        let mut c = folder(1);
        let job = one(c.decide(pick()));
        c.send_failed(job, "the catalog writer stopped".into());
        let p = &c.entries()[0];
        assert_eq!(p.decision, Decision::default());
        assert!(!p.pending());
        assert_eq!(p.error.as_deref(), Some("the catalog writer stopped"));
    }

    #[test]
    fn a_folder_switch_leaves_nothing_to_undo_and_drops_old_results() {
        let mut a = folder(6);
        a.step(5);
        let job = one(a.decide(pick()));
        let old = job.id;
        a.open(PathBuf::from("/other"));
        a.push(item("ONLY"));
        a.refilter();
        assert!(
            a.undo().is_empty(),
            "undo never reaches the folder that was closed"
        );
        assert_eq!(
            a.acknowledge(answer(&job, &Decision::default())),
            None,
            "an acknowledgement for the old folder finds nothing"
        );
        a.imported(
            EntryId { index: 0, ..old },
            Some(Decision::default()),
            Some("x".into()),
        );
        assert!(a.entries()[0].error.is_none());
        assert!(!a.entries()[0].loaded);
        assert!(a.get(EntryId { index: 0, ..old }).is_none());
        assert!(a.get(a.id(0)).is_some());
        assert!(!a.set_analysis(old.generation(), Vec::new(), HashMap::new()));
    }

    #[test]
    fn filters_admit_what_they_name() {
        let mut c = folder(4);
        c.decide(pick());
        c.step(1);
        c.decide(Change::Flag(Flag::Reject));
        c.step(1);
        c.decide(Change::Stars(4));
        c.decide(red());
        c.set_filter(Filter::Picks);
        assert_eq!(c.visible, vec![0]);
        c.set_filter(Filter::Rejects);
        assert_eq!(c.visible, vec![1]);
        c.set_filter(Filter::Unflagged);
        assert_eq!(c.visible, vec![2, 3]);
        c.set_filter(Filter::MinStars(3));
        assert_eq!(c.visible, vec![2]);
        c.set_filter(Filter::Label(ColourLabel::Red));
        assert_eq!(c.visible, vec![2]);
        assert_eq!(
            c.selected_index(),
            Some(2),
            "the selection follows its photo"
        );
        c.set_filter(Filter::Label(ColourLabel::Blue));
        assert!(c.visible.is_empty());
        assert!(
            c.decide(pick()).is_empty(),
            "nothing selected, nothing decided"
        );
    }

    #[test]
    fn scene_tags_are_counted_and_a_chip_filters_by_its_tag_and_a_scene_compares_whole() {
        use darkroom_index::analysis::ScenePlace;
        let mut c = folder(4);
        let gen_ = c.generation();
        let tagged = |i: usize, tags: &[SceneTag], scene: usize| PhotoAnalysis {
            tags: tags.iter().map(|&t| (t, 0.2)).collect(),
            scene: Some(ScenePlace {
                id: scene,
                position: 1,
                size: if scene == 0 { 3 } else { 1 },
            }),
            ..analysis(&c, i, 80.0, None)
        };
        let rows = vec![
            tagged(0, &[SceneTag::Sky, SceneTag::Water], 0),
            tagged(1, &[SceneTag::Sky], 0),
            tagged(2, &[SceneTag::Person], 0),
            tagged(3, &[], 1),
        ];
        assert!(c.set_analysis(gen_, rows, HashMap::new()));
        assert_eq!(
            c.tag_counts(),
            vec![
                (SceneTag::Sky, 2),
                (SceneTag::Water, 1),
                (SceneTag::Person, 1)
            ]
        );
        c.toggle_tag(SceneTag::Sky);
        assert_eq!(c.visible, vec![0, 1]);
        assert_eq!(c.filter.describe(), "sky");
        c.toggle_tag(SceneTag::Water);
        assert_eq!(c.visible, vec![0]);
        c.toggle_tag(SceneTag::Water);
        assert_eq!(c.filter, Filter::All);
        assert_eq!(c.visible, vec![0, 1, 2, 3]);
        // Where each scene starts in the grid, and Shift+C on one compares it whole.
        assert_eq!(c.scene_starts_at(0), Some((1, 3)));
        assert_eq!(c.scene_starts_at(1), None);
        assert_eq!(c.scene_starts_at(3), Some((2, 1)));
        c.select_visible(1);
        let set = c.compare_scene();
        assert_eq!(c.view, View::Compare);
        assert_eq!(set, vec![c.id(0), c.id(1), c.id(2)]);
        assert_eq!(c.selected, 0, "the scene's first photo is shown");
        // C on a photo in no burst opens its scene too; on a scene of one, the photo and the next.
        c.view = View::Grid;
        c.select_visible(2);
        assert_eq!(c.compare(), vec![c.id(0), c.id(1), c.id(2)]);
        c.view = View::Grid;
        c.select_visible(3);
        assert_eq!(c.compare(), Vec::new());
        assert_eq!(c.view, View::Compare);
    }

    #[test]
    fn bursts_stack_under_all_and_open_with_b_people_filter_sort_by_sharpness() {
        let mut c = folder(4);
        let gen_ = c.generation();
        let rows = vec![
            analysis(&c, 0, 10.0, Some((1, false))),
            analysis(&c, 1, 90.0, Some((1, true))),
            analysis(&c, 2, 50.0, None),
        ];
        assert!(c.set_analysis(gen_, rows, HashMap::from([(7, "Ada".to_owned())])));
        assert_eq!(
            c.visible,
            vec![1, 2, 3],
            "the burst shows as its suggested frame"
        );
        c.select_visible(0);
        c.toggle_burst();
        assert_eq!(c.visible, vec![0, 1, 2, 3]);
        c.toggle_sort_by_sharpness();
        assert_eq!(
            c.visible,
            vec![1, 2, 0, 3],
            "sharpest first, not indexed last"
        );
        c.toggle_person(8);
        assert_eq!(c.visible, vec![1], "person 8 is in photo 1 only");
        c.toggle_person(8);
        assert_eq!(c.filter, Filter::All);
        let people = c.people();
        assert_eq!(people[0].person, 7);
        assert_eq!(people[0].photos, 2);
        assert_eq!(c.person_label(7), "Ada");
        assert_eq!(c.name_person(8, "  "), None);
        assert_eq!(c.name_person(8, " Bo "), Some("Bo".into()));
        assert_eq!(c.person_label(8), "Bo");
    }

    #[test]
    fn shift_and_ctrl_select_and_a_decision_on_five_is_one_undo_step() {
        let mut c = folder(8);
        c.step(1);
        c.extend(2);
        assert_eq!(c.targets(), vec![1, 2, 3], "Shift+→ twice from the anchor");
        c.select(5, SelectHow::Range);
        assert_eq!(c.targets(), vec![1, 2, 3, 4, 5]);
        assert_eq!(c.selected, 5, "the keys move on from the end of the range");
        let jobs = c.decide(pick());
        assert_eq!(jobs.len(), 5);
        assert!((1..=5).all(|i| c.entries()[i].decision.flag == Flag::Pick));
        let undone = c.undo();
        assert_eq!(undone.len(), 5, "one step undoes all five");
        assert!(
            c.entries()
                .iter()
                .all(|e| e.decision == Decision::default())
        );
        assert!(c.undo().is_empty());

        c.select(6, SelectHow::Toggle);
        assert_eq!(
            c.targets(),
            vec![1, 2, 3, 4, 5, 6],
            "Ctrl+click adds to the selection"
        );
        c.select(5, SelectHow::Toggle);
        assert_eq!(c.targets(), vec![1, 2, 3, 4, 6], "and takes away");
        assert!(
            c.is_selected(c.visible[c.selected]) && c.selected != 5,
            "the current photo stays one of the selection"
        );
        c.select(2, SelectHow::Toggle);
        assert_eq!(
            c.selected, 1,
            "the nearest still selected, the first of a tie"
        );
        c.step(1);
        assert_eq!(c.targets(), vec![2], "a plain move selects one photo");
        c.select(0, SelectHow::Range);
        assert_eq!(c.selection_len(), 3);
        c.set_filter(Filter::Picks);
        assert!(
            c.targets().is_empty(),
            "no pick is shown: a decision reaches nothing hidden"
        );
    }

    #[test]
    fn a_toggle_on_a_mixed_selection_turns_on_for_all() {
        let mut c = folder(3);
        one(c.decide(red()));
        c.select(2, SelectHow::Range);
        assert!(!c.targets_all(|d| d.label == Some(Label::Colour(ColourLabel::Red))));
        let jobs = c.decide(red());
        assert_eq!(jobs.len(), 2, "the one already red is not sent again");
        assert!(c.targets_all(|d| d.label == Some(Label::Colour(ColourLabel::Red))));
    }

    /// A reason set aside stays aside when the analysis comes again (the scene controls moved,
    /// an index job ended) and the proposal is made anew from it.
    #[test]
    fn t_sorts_by_corrected_capture_time_and_a_pair_gives_the_shown_photo_first() {
        use darkroom_index::analysis::CaptureClock;
        let mut c = folder(3);
        let gen_ = c.generation();
        let timed = |c: &Culling, i: usize, body: &str, at: f64, offset_s: f64| PhotoAnalysis {
            clock: CaptureClock {
                body: Some(body.into()),
                captured_at: Some(at),
                offset_s,
            },
            ..analysis(c, i, 50.0, None)
        };
        // Photo 2's body runs an hour slow, corrected: it was taken between 0 and 1.
        let rows = vec![
            timed(&c, 0, "A", 100.0, 0.0),
            timed(&c, 1, "A", 300.0, 0.0),
            timed(&c, 2, "B", 200.0 - 3_600.0, 3_600.0),
        ];
        assert!(c.set_analysis(gen_, rows, HashMap::new()));
        assert_eq!(c.visible, [0, 1, 2], "folder order");
        c.toggle_sort_by_time();
        assert_eq!(c.visible, [0, 2, 1], "shooting order on one clock");
        assert_eq!(
            c.bodies(),
            [("A".to_owned(), 2, 0.0), ("B".to_owned(), 1, 3_600.0)]
        );
        c.toggle_sort_by_sharpness();
        assert!(!c.sort_by_time, "one order at a time");
        c.toggle_sort_by_sharpness();
        assert_eq!(c.visible, [0, 1, 2]);

        assert!(c.selected_pair().is_none(), "one photo is no pair");
        c.select_visible(0);
        c.extend(1);
        let (shown, other) = c.selected_pair().expect("a pair");
        assert_eq!(shown.item.primary, c.entries()[1].item.primary);
        assert_eq!(other.item.primary, c.entries()[0].item.primary);
    }

    #[test]
    fn a_refined_proposal_stays_refined_when_the_analysis_is_read_again() {
        use darkroom_index::proposal::ReasonKind;
        let mut c = folder(3);
        let gen_ = c.generation();
        let rows = |c: &Culling| {
            vec![
                PhotoAnalysis {
                    eyes_closed: true,
                    closed_eyes: vec![0],
                    ..analysis(c, 0, 90.0, None)
                },
                analysis(c, 1, 10.0, None),
                analysis(c, 2, 90.0, None),
            ]
        };
        let first = rows(&c);
        c.set_analysis(gen_, first, HashMap::new());
        assert_eq!(c.propose(rules()), Ok((0, 2)));
        let mut refined = rules();
        refined.without.insert(ReasonKind::EyesClosed);
        assert_eq!(c.propose(refined), Ok((0, 1)));
        assert_eq!(c.proposed(0), None);
        let again = rows(&c);
        assert!(c.set_analysis(gen_, again, HashMap::new()));
        assert_eq!(c.proposal_counts(), Some((0, 1)), "still refined");
        assert!(
            c.proposal_rules()
                .is_some_and(|r| r.without.contains(&ReasonKind::EyesClosed))
        );
        assert_eq!(c.proposed(0), None);
        assert_eq!(
            c.proposed(1).map(|p| p.reason().kind()),
            Some(ReasonKind::Blurry)
        );
    }

    #[test]
    fn the_proposal_never_touches_a_decided_photo_applies_in_one_step_and_undoes_in_one() {
        let mut c = folder(4);
        assert!(
            c.propose(rules()).is_err(),
            "nothing indexed, nothing proposed"
        );
        let gen_ = c.generation();
        let rows = vec![
            analysis(&c, 0, 10.0, Some((1, false))),
            analysis(&c, 1, 90.0, Some((1, true))),
            analysis(&c, 2, 5.0, None),
            analysis(&c, 3, 5.0, None),
        ];
        c.set_analysis(gen_, rows, HashMap::new());
        c.select_visible(c.visible.iter().position(|&i| i == 3).expect("shown"));
        one(c.decide(Change::Stars(2)));
        assert_eq!(c.propose(rules()), Ok((1, 2)));
        assert_eq!(c.proposed(1).map(|p| p.flag), Some(Flag::Pick));
        assert_eq!(c.proposed(0).map(|p| p.flag), Some(Flag::Reject));
        assert_eq!(c.proposed(3), None, "stars given: never proposed for");
        // Decided while the proposal is shown: it drops out of it.
        c.select_visible(c.visible.iter().position(|&i| i == 2).expect("shown"));
        one(c.decide(pick()));
        assert_eq!(c.proposal_counts(), Some((1, 1)));
        let jobs = c.apply_proposal();
        assert_eq!(jobs.len(), 2);
        assert_eq!(c.entries()[0].decision.flag, Flag::Reject);
        assert_eq!(c.entries()[1].decision.flag, Flag::Pick);
        assert_eq!(
            c.entries()[2].decision.flag,
            Flag::Pick,
            "the photographer's"
        );
        assert_eq!(c.entries()[3].decision.stars, 2);
        assert_eq!(c.proposal_counts(), None, "applied: gone");
        assert_eq!(c.undo().len(), 2, "one step");
        assert_eq!(c.entries()[0].decision, Decision::default());
        assert_eq!(c.entries()[1].decision, Decision::default());
        assert_eq!(
            c.entries()[2].decision.flag,
            Flag::Pick,
            "not part of that step"
        );
        c.propose(rules()).expect("indexed");
        c.discard_proposal();
        assert_eq!(c.proposed(1), None);
    }

    fn rules() -> ProposalRules {
        ProposalRules::new(darkroom_index::Strictness::Balanced, 1, 40.0)
    }
}
