//! What the window has uploaded for each photo: its grid thumbnail, its loupe preview and its
//! face close-ups, as textures. Kept beside the culling state (which has no egui), one slot per
//! photo of the open folder, addressed by the same [`EntryId`].

use egui::TextureHandle;

use super::culling::EntryId;

#[derive(Default)]
pub enum Picture {
    #[default]
    None,
    Requested,
    Ready(TextureHandle),
    Failed(String),
}

impl Picture {
    /// Asked for and not yet here.
    pub fn waiting(&self) -> bool {
        matches!(self, Picture::Requested)
    }
}

/// A photo's faces for the loupe's close-up strip.
#[derive(Default)]
pub enum Faces {
    #[default]
    None,
    Requested,
    /// Not indexed yet.
    NotIndexed,
    Ready(Vec<FaceTile>),
    Failed(String),
}

pub struct FaceTile {
    pub texture: TextureHandle,
    pub sharpness: f32,
    pub eyes_closed: Option<bool>,
}

#[derive(Default)]
pub struct Pictures {
    pub thumb: Picture,
    pub loupe: Picture,
    pub faces: Faces,
}

/// One slot per photo of the open folder.
#[derive(Default)]
pub struct Gallery {
    generation: u64,
    slots: Vec<Pictures>,
}

impl Gallery {
    /// A new folder: the old folder's textures are let go.
    pub fn open(&mut self, generation: u64) {
        self.generation = generation;
        self.slots.clear();
    }

    /// Room for the photo `id` names (photos arrive in order).
    pub fn push(&mut self, id: EntryId) {
        debug_assert_eq!(id.index(), self.slots.len());
        if id.generation() == self.generation {
            self.slots.push(Pictures::default());
        }
    }

    pub fn get(&self, id: EntryId) -> Option<&Pictures> {
        (id.generation() == self.generation)
            .then(|| self.slots.get(id.index()))
            .flatten()
    }

    pub fn get_mut(&mut self, id: EntryId) -> Option<&mut Pictures> {
        if id.generation() != self.generation {
            return None;
        }
        self.slots.get_mut(id.index())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Pictures> {
        self.slots.iter()
    }

    /// Let go of every loupe picture but those of `keep`: a loupe picture is up to 2,048² RGBA
    /// (16 MB), so stepping through a shoot must not keep one per photo seen. A picture on its
    /// way is left to arrive; the next call lets it go if it is no longer wanted.
    pub fn keep_loupe_pictures(&mut self, keep: &[EntryId]) {
        for (i, s) in self.slots.iter_mut().enumerate() {
            let wanted = keep
                .iter()
                .any(|id| id.generation() == self.generation && id.index() == i);
            if !wanted && matches!(s.loupe, Picture::Ready(_) | Picture::Failed(_)) {
                s.loupe = Picture::None;
            }
        }
    }

    /// How many loupe pictures are held now.
    pub fn loupe_pictures(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| matches!(s.loupe, Picture::Ready(_)))
            .count()
    }

    /// The close-ups are made again from the index's new rows.
    pub fn forget_faces(&mut self) {
        for s in &mut self.slots {
            s.faces = Faces::None;
        }
    }
}
