//! What compare shows: a set of photos side by side (a selection, a burst), or the photo shown
//! and the next; the one pinned as the best so far, which stays in the first pane while the
//! others change; and the panes whose zoom is their own (unlocked) rather than the shared one.
//! No egui beyond the zoom's geometry, no I/O.

use std::collections::HashMap;

use super::culling::{Culling, EntryId};
use super::zoom::Zoom;

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
