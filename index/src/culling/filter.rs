//! What the grid shows, in which order: the filter, bursts folded to their suggested frame,
//! the sorts, where a scene starts.

use crate::tags::SceneTag;
use darkroom_catalog::{ColourLabel, Flag, Label};

use super::photo::Photo;
use super::{Culling, View};

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

    pub(super) fn admits(self, photo: &Photo) -> bool {
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

impl Culling {
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

    /// A scene tag's chip: only its photos, again all.
    pub fn toggle_tag(&mut self, tag: SceneTag) {
        self.toggle_filter(Filter::Tag(tag));
    }

    /// The person's chip toggles their filter.
    pub fn toggle_person(&mut self, id: i64) {
        self.toggle_filter(Filter::Person(id));
    }

    /// `f` on, or back to all when it is on already.
    fn toggle_filter(&mut self, f: Filter) {
        self.set_filter(if self.filter == f { Filter::All } else { f });
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

    /// The scene that starts at grid position `v`, when one of two or more photos does (a
    /// scene of one is every single frame of a shoot of singles: a mark on each means nothing;
    /// shooting order only: sorted by sharpness, a scene is not together): its number from 1
    /// and its photos.
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
        (here.size >= 2 && before != Some(here.id)).then_some((here.id + 1, here.size))
    }
}
