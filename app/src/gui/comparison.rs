//! What compare shows: a set of photos side by side (a selection, a burst), or the photo shown
//! and the next; the one pinned as the best so far, which stays in the first pane while the
//! others change; and the panes whose zoom is their own (unlocked) rather than the shared one.
//! No egui beyond the zoom's geometry, no I/O.

use std::collections::HashMap;

use super::zoom::Zoom;
use darkroom_index::culling::{Culling, EntryId};

/// At most this many panes at once (a burst of 12 shows its first 9).
pub const MAX_PANES: usize = 9;

#[derive(Default)]
pub struct Comparison {
    /// The photos compared, in the order they were shown; empty: the photo shown and the next.
    members: Vec<EntryId>,
    /// The best so far: the first pane, kept while the others change.
    pub pinned: Option<EntryId>,
    /// Panes zoomed and panned on their own; the others share the loupe's zoom.
    unlocked: HashMap<EntryId, Zoom>,
}

impl Comparison {
    /// Compare these photos (two or more), or, given fewer, the photo shown and the next.
    pub fn start(&mut self, members: Vec<EntryId>) {
        *self = Comparison::default();
        if members.len() >= 2 {
            self.members = members.into_iter().take(MAX_PANES).collect();
        }
    }

    pub fn clear(&mut self) {
        *self = Comparison::default();
    }

    /// Whether a set is compared (stepping moves between its panes), not just a pair.
    pub fn has_members(&self) -> bool {
        !self.members.is_empty()
    }

    /// The panes, in order: the pinned photo first, then the set; or, with no set, the photo
    /// shown (or, when it is the pinned one, the next) beside the pinned one or the next.
    pub fn panes(&self, cull: &Culling) -> Vec<EntryId> {
        if self.has_members() {
            let mut panes: Vec<_> = self.pinned.into_iter().collect();
            panes.extend(
                self.members
                    .iter()
                    .copied()
                    .filter(|&id| Some(id) != self.pinned && cull.get(id).is_some()),
            );
            return panes;
        }
        let at = cull.selected;
        match self.pinned {
            Some(pin) => {
                let other = if cull.visible_id(at) == Some(pin) {
                    cull.visible_id(at + 1)
                        .or(at.checked_sub(1).and_then(|v| cull.visible_id(v)))
                } else {
                    cull.visible_id(at)
                };
                std::iter::once(pin).chain(other).collect()
            }
            None => [at, at + 1]
                .into_iter()
                .filter_map(|v| cull.visible_id(v))
                .collect(),
        }
    }

    /// Where → or ← (`by`) goes from the photo shown: the next pane of the set; with no set,
    /// the next photo that is not the pinned one. None: nowhere further.
    pub fn step(&self, cull: &Culling, by: isize) -> Option<usize> {
        let at = cull.selected;
        if self.has_members() {
            let panes = self.panes(cull);
            let here = cull
                .selected_id()
                .and_then(|id| panes.iter().position(|&p| p == id));
            let to = match here {
                Some(k) => k.checked_add_signed(by)?,
                None => 0,
            };
            return panes.get(to).and_then(|&id| cull.position_of(id));
        }
        let mut v = at.checked_add_signed(by)?;
        if cull.visible_id(v).is_some() && cull.visible_id(v) == self.pinned {
            v = v.checked_add_signed(by)?;
        }
        cull.visible_id(v).map(|_| v)
    }

    /// Pin `id` as the best so far, or unpin it.
    pub fn toggle_pin(&mut self, id: EntryId) {
        self.pinned = if self.pinned == Some(id) {
            None
        } else {
            Some(id)
        };
    }

    /// Give pane `id` a zoom of its own (starting from the shared one), or lock it to the
    /// shared zoom again.
    pub fn toggle_lock(&mut self, id: EntryId, shared: Zoom) {
        if self.unlocked.remove(&id).is_none() {
            self.unlocked.insert(id, shared);
        }
    }

    pub fn is_unlocked(&self, id: EntryId) -> bool {
        self.unlocked.contains_key(&id)
    }

    /// The zoom pane `id` is drawn with.
    pub fn zoom_of(&self, id: EntryId, shared: &Zoom) -> Zoom {
        self.unlocked.get(&id).copied().unwrap_or(*shared)
    }

    /// The zoom a change in pane `id` moves: its own if unlocked, else none (the shared one).
    pub fn own_zoom(&mut self, id: EntryId) -> Option<&mut Zoom> {
        self.unlocked.get_mut(&id)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use darkroom_index::culling::fixtures::{analysis, folder};
    use darkroom_index::culling::{SelectHow, View};

    use super::*;

    #[test]
    fn compare_takes_the_selection_or_the_burst_and_steps_past_the_pinned_photo() {
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
}
