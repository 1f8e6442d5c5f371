//! What the window has uploaded for each photo: its grid thumbnail, its loupe preview, its
//! full-resolution pixels (as tiles) and its face close-ups, as textures. Kept beside the culling state (which has no egui), one slot per
//! photo of the open folder, addressed by the same [`EntryId`].

use egui::TextureHandle;

use super::culling::EntryId;

/// What a photo's slot holds: nothing yet, asked for, here, or why it could not be made.
#[derive(Default)]
pub enum Slot<T> {
    #[default]
    None,
    Requested,
    Ready(T),
    Failed(String),
}

impl<T> Slot<T> {
    /// Asked for and not yet here.
    pub fn waiting(&self) -> bool {
        matches!(self, Slot::Requested)
    }

    pub fn ready(&self) -> Option<&T> {
        match self {
            Slot::Ready(t) => Some(t),
            _ => None,
        }
    }

    /// Made (or failed) goes back to nothing; asked for is left to arrive.
    fn let_go(&mut self) {
        if matches!(self, Slot::Ready(_) | Slot::Failed(_)) {
            *self = Slot::None;
        }
    }
}

pub type Picture = Slot<TextureHandle>;

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
    /// The face's middle, as fractions of the photo's width and height (to zoom to it).
    pub center: egui::Pos2,
    /// Who it is, where the index's people clustering said.
    pub person: Option<i64>,
}

/// A photo at its own resolution for the loupe's 100 %, and what was read of its pixels: its
/// histogram and where it clips.
pub type Full = Slot<FullTiles>;

pub struct FullTiles {
    /// The photo's size in its own pixels.
    pub size: egui::Vec2,
    /// Tiles small enough for any GPU's texture limit, each with the rectangle of the photo's
    /// pixels it holds.
    pub tiles: Vec<(egui::Rect, TextureHandle)>,
    pub histogram: darkroom_library::histogram::Histogram,
    /// Blown-out pixels red, crushed ones blue, the rest clear: laid over the photo (J).
    pub clipping: TextureHandle,
}

#[derive(Default)]
pub struct Pictures {
    pub thumb: Picture,
    pub loupe: Picture,
    pub full: Full,
    /// The facts beside the photo (camera, lens, exposure, time).
    pub facts: Slot<darkroom_library::facts::Facts>,
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
        self.keep_only(keep, |p| &mut p.loupe);
    }

    /// Let go of every full-resolution photo but those of `keep` (a 24 MP photo's tiles are
    /// 96 MB); as with the loupe pictures, one on its way is left to arrive.
    pub fn keep_full(&mut self, keep: &[EntryId]) {
        self.keep_only(keep, |p| &mut p.full);
    }

    /// Let go of one slot of every photo not in `keep`.
    fn keep_only<T>(&mut self, keep: &[EntryId], slot: impl Fn(&mut Pictures) -> &mut Slot<T>) {
        let generation = self.generation;
        for (i, s) in self.slots.iter_mut().enumerate() {
            if !keep
                .iter()
                .any(|id| id.generation() == generation && id.index() == i)
            {
                slot(s).let_go();
            }
        }
    }

    /// How many full-resolution photos are held now.
    pub fn full_pictures(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.full.ready().is_some())
            .count()
    }

    /// How many loupe pictures are held now.
    pub fn loupe_pictures(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.loupe.ready().is_some())
            .count()
    }

    /// The close-ups are made again from the index's new rows.
    pub fn forget_faces(&mut self) {
        for s in &mut self.slots {
            s.faces = Faces::None;
        }
    }
}
