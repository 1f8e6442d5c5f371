//! The photo the keys move and the photos selected with it; compare and people across take
//! their set from here.

use darkroom_catalog::Decision;

use super::photo::Photo;
use super::{Culling, EntryId, View};

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

impl Culling {
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
}
