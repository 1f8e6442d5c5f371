//! What the window has uploaded for each photo: its grid thumbnail, its loupe preview, its
//! full-resolution pixels (as tiles) and its face close-ups, as textures. Kept beside the culling state (which has no egui), one slot per
//! photo of the open folder, addressed by the same [`EntryId`].

use egui::TextureHandle;

use darkroom_index::culling::EntryId;

/// Which of a photo's pictures a pane drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drew {
    /// Its grid thumbnail, until its screen picture is made.
    Thumbnail,
    /// Its screen picture.
    Screen,
    /// Its own pixels where a zoomed loupe looks, its screen picture around them, while the
    /// rest is on its way.
    Part,
    /// Its own pixels.
    Full,
}

/// A photo's texture's name (egui's debugging names it so): `what` of photo `id`.
pub fn texture_name(id: EntryId, what: &str) -> String {
    format!("photo-{}-{}-{what}", id.generation(), id.index())
}

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

    /// Made (or failed) goes back to nothing, what was made returned; asked for is left to
    /// arrive.
    fn let_go(&mut self) -> Option<T> {
        match std::mem::take(self) {
            Slot::Ready(t) => Some(t),
            Slot::Requested => {
                *self = Slot::Requested;
                None
            }
            Slot::None | Slot::Failed(_) => None,
        }
    }
}

/// Textures of screen pictures and tiles let go, each kept for the next picture of its size,
/// oldest let go first past [`SPARE_BYTES`]. A texture made anew is memory used for the first
/// time: on lavapipe, an 8 MP upload into it took 16 ms for the write into wgpu's staging
/// memory and 16 for the copy, against 2 and 2 into memory used before.
pub struct Spares {
    textures: std::collections::VecDeque<TextureHandle>,
    bytes: usize,
    /// [`SPARE_BYTES`], but in tests.
    most: usize,
}

impl Default for Spares {
    fn default() -> Self {
        Spares {
            textures: Default::default(),
            bytes: 0,
            most: SPARE_BYTES,
        }
    }
}

/// A photo's tiles and a few screen pictures: a 24 MP photo's tiles are 96 MB.
pub const SPARE_BYTES: usize = 160 << 20;
/// Smaller textures (thumbnails, close-ups) are made anew.
const SPARE_AT_LEAST: usize = 1 << 20;

impl Spares {
    /// Keep `texture` for a later picture of its size.
    pub fn put(&mut self, texture: TextureHandle) {
        let bytes = texture_bytes(&texture);
        if bytes < SPARE_AT_LEAST {
            return;
        }
        self.bytes += bytes;
        self.textures.push_back(texture);
        while self.bytes > self.most {
            let Some(old) = self.textures.pop_front() else {
                break;
            };
            self.bytes = self.bytes.saturating_sub(texture_bytes(&old));
        }
    }

    /// `image` as a texture: into a spare one of its size if there is one (its pixels are all
    /// replaced), else a new one named `name`.
    pub fn texture(
        &mut self,
        ctx: &egui::Context,
        name: String,
        image: egui::ColorImage,
        options: egui::TextureOptions,
    ) -> TextureHandle {
        let spare = self.textures.iter().position(|t| t.size() == image.size);
        match spare.and_then(|i| self.textures.remove(i)) {
            Some(mut texture) => {
                self.bytes = self.bytes.saturating_sub(texture_bytes(&texture));
                texture.set_partial([0, 0], image, options);
                texture
            }
            None => ctx.load_texture(name, image, options),
        }
    }

    /// The textures kept now.
    pub fn count(&self) -> usize {
        self.textures.len()
    }

    fn clear(&mut self) {
        self.textures.clear();
        self.bytes = 0;
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
    /// The sharper eye's sharpness, where the eyes could be judged.
    pub eyes_sharpness: Option<f32>,
    pub eyes_soft: bool,
    /// The face's middle, as fractions of the photo's width and height (to zoom to it).
    pub center: egui::Pos2,
    /// Who it is, where the index's people clustering said.
    pub person: Option<i64>,
    /// What the face mesh measured, where it ran.
    pub expression: Option<darkroom_catalog::ExpressionRow>,
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
    /// The sharp edges of the photo's own pixels marked, the rest clear (Shift+F).
    pub peaking: TextureHandle,
}

/// The rows of a photo's own pixels a zoomed loupe shows, here before the rest: drawn over its
/// screen picture while its whole is on its way.
pub struct PartTiles {
    /// The photo's size in its own pixels.
    pub size: egui::Vec2,
    pub tiles: Vec<(egui::Rect, TextureHandle)>,
}

/// Tiles of a photo's own pixels on their way up, a few a frame: those not uploaded yet, and
/// those that are.
pub struct TilesUp {
    waiting: Vec<(egui::Rect, egui::ColorImage)>,
    uploaded: Vec<(egui::Rect, TextureHandle)>,
}

impl TilesUp {
    pub fn new(tiles: Vec<(egui::Rect, egui::ColorImage)>) -> Self {
        TilesUp {
            waiting: tiles,
            uploaded: Vec::new(),
        }
    }

    /// Upload the next tile waiting if it has at most `room` pixels, as texture `what`-k of
    /// photo `id`: the pixels uploaded (0 when none waited), None when it does not fit.
    fn upload_next(
        &mut self,
        (ctx, spares): (&egui::Context, &mut Spares),
        (id, what): (EntryId, &str),
        options: egui::TextureOptions,
        room: usize,
    ) -> Option<usize> {
        let Some((at, pixels)) = self.waiting.pop() else {
            return Some(0);
        };
        let px = pixels.size[0] * pixels.size[1];
        if px > room {
            self.waiting.push((at, pixels));
            return None;
        }
        let k = self.waiting.len();
        let name = texture_name(id, &format!("{what}-{k}"));
        let texture = spares.texture(ctx, name, pixels, options);
        self.uploaded.push((at, texture));
        Some(px)
    }

    fn done(&self) -> bool {
        self.waiting.is_empty()
    }
}

/// Those rows on their way up; drawn once all are up (a patchwork of them and the stretched
/// picture would be neither).
pub struct PartUpload {
    pub id: EntryId,
    pub size: egui::Vec2,
    pub tiles: TilesUp,
}

/// A photo's own pixels on their way up, a few tiles a frame (a 24 MP photo's in one frame
/// stalled it for 60–130 ms on lavapipe): its slot says `Requested` until the last tile is up.
pub struct FullUpload {
    pub id: EntryId,
    pub size: egui::Vec2,
    pub histogram: darkroom_library::histogram::Histogram,
    pub clipping: egui::ColorImage,
    pub peaking: egui::ColorImage,
    pub tiles: TilesUp,
}

#[derive(Default)]
pub struct Pictures {
    /// The frame a view last showed this photo's thumbnail or close-ups in.
    seen: u64,
    pub thumb: Picture,
    pub loupe: Picture,
    pub full: Full,
    /// What a zoomed loupe shows of its own pixels while `full` is on its way.
    pub full_part: Option<PartTiles>,
    /// The facts beside the photo (camera, lens, exposure, time).
    pub facts: Slot<darkroom_library::facts::Facts>,
    pub faces: Faces,
    /// The subject's mask as the index stored it, tinted (the loupe's O).
    pub subject: Option<TextureHandle>,
}

/// One slot per photo of the open folder.
#[derive(Default)]
pub struct Gallery {
    generation: u64,
    slots: Vec<Pictures>,
    /// Frames drawn: what a view shows is stamped with it.
    frame: u64,
    /// Photos' own pixels going up, oldest first.
    uploads: std::collections::VecDeque<FullUpload>,
    /// The rows zoomed loupes show, going up before any whole.
    parts: std::collections::VecDeque<PartUpload>,
    /// Tiles of photos' own pixels uploaded since the window opened.
    tiles_up: u64,
    pub spares: Spares,
}

fn texture_bytes(t: &TextureHandle) -> usize {
    let [w, h] = t.size();
    w * h * 4
}

impl Gallery {
    /// A new folder: the old folder's textures are let go.
    pub fn open(&mut self, generation: u64) {
        self.generation = generation;
        self.slots.clear();
        self.uploads.clear();
        self.parts.clear();
        self.spares.clear();
    }

    /// The rows a zoomed loupe shows came: they go up before any whole photo's tiles.
    pub fn upload_part(&mut self, part: PartUpload) {
        self.parts.push_back(part);
    }

    /// Upload the next tile of rows waiting if it has at most `room` pixels; with the last,
    /// the rows are drawn from this frame on. The pixels uploaded; None when nothing waits or
    /// the tile does not fit.
    pub fn upload_part_tile(
        &mut self,
        ctx: &egui::Context,
        options: egui::TextureOptions,
        room: usize,
    ) -> Option<usize> {
        loop {
            let id = self.parts.front()?.id;
            // Only while its whole is on its way: after, or let go, the rows are not wanted.
            if !self.get(id).is_some_and(|p| p.full.waiting()) {
                if let Some(up) = self.parts.pop_front() {
                    self.spare_tiles(up.tiles.uploaded);
                }
                continue;
            }
            let up = self.parts.front_mut()?;
            let px = up
                .tiles
                .upload_next((ctx, &mut self.spares), (id, "part"), options, room)?;
            let done = up.tiles.done();
            self.tiles_up += u64::from(px > 0);
            if !done {
                return Some(px);
            }
            let up = self.parts.pop_front()?;
            let part = PartTiles {
                size: up.size,
                tiles: up.tiles.uploaded,
            };
            let Some(p) = self.get_mut(id) else {
                self.spare_tiles(part.tiles);
                return Some(px);
            };
            if let Some(earlier) = p.full_part.replace(part) {
                self.spare_tiles(earlier.tiles);
            }
            return Some(px);
        }
    }

    /// A photo's own pixels came: they go up a few tiles a frame ([`upload_full_tile`]).
    ///
    /// [`upload_full_tile`]: Self::upload_full_tile
    pub fn upload_full(&mut self, upload: FullUpload) {
        self.uploads.push_back(upload);
    }

    /// Whether rows a zoomed loupe shows wait to go up (before any whole photo's tiles).
    pub fn parts_waiting(&self) -> bool {
        !self.parts.is_empty()
    }

    /// Tiles of photos' own pixels uploaded since the window opened.
    pub fn tiles_up(&self) -> u64 {
        self.tiles_up
    }

    /// Whether photo `id`'s own pixels are made and going up.
    pub fn full_made(&self, id: EntryId) -> bool {
        self.uploads.iter().any(|up| up.id == id)
    }

    /// Whether photo `id`'s own pixels are the next to go up.
    pub fn full_going_up(&self, id: EntryId) -> bool {
        self.parts.is_empty() && self.uploads.front().is_some_and(|up| up.id == id)
    }

    /// Whether a photo's own pixels are still going up.
    pub fn uploading(&self) -> bool {
        !self.uploads.is_empty() || !self.parts.is_empty()
    }

    /// Upload the next tile waiting if it has at most `room` pixels (`tiles` its texture
    /// options, `clipping` the mask's); the photo's slot is ready once its last tile is up.
    /// The pixels uploaded; None when nothing waits or the next tile does not fit.
    pub fn upload_full_tile(
        &mut self,
        ctx: &egui::Context,
        tiles: egui::TextureOptions,
        clipping: egui::TextureOptions,
        room: usize,
    ) -> Option<usize> {
        loop {
            let id = self.uploads.front()?.id;
            if !self.get(id).is_some_and(|p| p.full.waiting()) {
                if let Some(up) = self.uploads.pop_front() {
                    self.spare_tiles(up.tiles.uploaded);
                }
                continue;
            }
            let up = self.uploads.front_mut()?;
            let px = up
                .tiles
                .upload_next((ctx, &mut self.spares), (id, "full"), tiles, room)?;
            let done = up.tiles.done();
            self.tiles_up += u64::from(px > 0);
            if !done {
                return Some(px);
            }
            // With the last tile, the clipping mask (at most 2,048 px long): the photo is
            // ready in this frame, not the next.
            let up = self.uploads.pop_front()?;
            let px = px
                + up.clipping.size[0] * up.clipping.size[1]
                + up.peaking.size[0] * up.peaking.size[1];
            let name = texture_name(id, "clipping");
            let mask = self.spares.texture(ctx, name, up.clipping, clipping);
            let name = texture_name(id, "peaking");
            let peaking = self.spares.texture(ctx, name, up.peaking, clipping);
            let full = FullTiles {
                size: up.size,
                tiles: up.tiles.uploaded,
                histogram: up.histogram,
                clipping: mask,
                peaking,
            };
            let Some(p) = self.get_mut(id) else {
                self.spare_full(full);
                return Some(px);
            };
            let part = p.full_part.take();
            p.full = Slot::Ready(full);
            if let Some(part) = part {
                self.spare_tiles(part.tiles);
            }
            return Some(px);
        }
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
        for texture in self.keep_only(keep, |p| &mut p.loupe) {
            self.spares.put(texture);
        }
    }

    /// Let go of every full-resolution photo but those of `keep` (a 24 MP photo's tiles are
    /// 96 MB); as with the loupe pictures, one being made is left to arrive, but one whose
    /// tiles are going up stops going up (asked for again if a view wants it).
    pub fn keep_full(&mut self, keep: &[EntryId]) {
        for full in self.keep_only(keep, |p| &mut p.full) {
            self.spare_full(full);
        }
        let (slots, generation) = (&mut self.slots, self.generation);
        let mut dropped = Vec::new();
        self.uploads.retain_mut(|up| {
            let kept = keep.contains(&up.id);
            if !kept {
                if up.id.generation() == generation
                    && let Some(p) = slots.get_mut(up.id.index())
                {
                    p.full = Slot::None;
                }
                dropped.append(&mut up.tiles.uploaded);
            }
            kept
        });
        // Rows shown ahead of a whole no longer on its way, or of a photo let go, go with it.
        self.parts.retain_mut(|up| {
            let kept = keep.contains(&up.id);
            if !kept {
                dropped.append(&mut up.tiles.uploaded);
            }
            kept
        });
        for p in &mut self.slots {
            if !p.full.waiting()
                && let Some(part) = p.full_part.take()
            {
                dropped.extend(part.tiles);
            }
        }
        self.spare_tiles(dropped);
    }

    /// Let go of one slot of every photo not in `keep`; what they held.
    fn keep_only<T>(
        &mut self,
        keep: &[EntryId],
        slot: impl Fn(&mut Pictures) -> &mut Slot<T>,
    ) -> Vec<T> {
        let generation = self.generation;
        let mut let_go = Vec::new();
        for (i, s) in self.slots.iter_mut().enumerate() {
            if !keep
                .iter()
                .any(|id| id.generation() == generation && id.index() == i)
            {
                let_go.extend(slot(s).let_go());
            }
        }
        let_go
    }

    /// The textures of tiles let go, kept for the next ones of their sizes.
    fn spare_tiles(&mut self, tiles: Vec<(egui::Rect, TextureHandle)>) {
        for (_, texture) in tiles {
            self.spares.put(texture);
        }
    }

    /// A photo's own pixels let go: their textures kept for the next ones of their sizes.
    fn spare_full(&mut self, full: FullTiles) {
        self.spare_tiles(full.tiles);
        self.spares.put(full.clipping);
        self.spares.put(full.peaking);
    }

    /// Photo `id`'s slot and the spare textures, for a picture that came.
    pub fn slot_and_spares(&mut self, id: EntryId) -> Option<(&mut Pictures, &mut Spares)> {
        if id.generation() != self.generation {
            return None;
        }
        let slot = self.slots.get_mut(id.index())?;
        Some((slot, &mut self.spares))
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

    /// A new frame: what the views show in it is stamped with it.
    pub fn next_frame(&mut self) {
        self.frame += 1;
    }

    /// A view shows photo `id`'s thumbnail or close-ups in this frame: it is kept.
    pub fn seen(&mut self, id: EntryId) {
        let frame = self.frame;
        if let Some(p) = self.get_mut(id) {
            p.seen = frame;
        }
    }

    /// The bytes of every thumbnail and face close-up held now.
    pub fn small_bytes(&self) -> usize {
        self.slots.iter().map(small_bytes_of).sum()
    }

    /// Keep thumbnails and close-ups within `budget` bytes: the photos seen longest ago let go
    /// first, never one shown in this frame (made again from the disk cache when scrolled
    /// back to). Scrolling a folder of 20,000 photos holds no more than a budget's worth.
    pub fn keep_small_within(&mut self, budget: usize) {
        let mut total = self.small_bytes();
        if total <= budget {
            return;
        }
        let frame = self.frame;
        let mut old: Vec<(u64, usize)> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, p)| p.seen < frame && small_bytes_of(p) > 0)
            .map(|(i, p)| (p.seen, i))
            .collect();
        old.sort_unstable();
        for (_, i) in old {
            if total <= budget {
                break;
            }
            let p = &mut self.slots[i];
            total -= small_bytes_of(p);
            p.thumb.let_go();
            if matches!(
                p.faces,
                Faces::Ready(_) | Faces::Failed(_) | Faces::NotIndexed
            ) {
                p.faces = Faces::None;
            }
        }
    }

    /// The close-ups are made again from the index's new rows.
    pub fn forget_faces(&mut self) {
        for s in &mut self.slots {
            s.faces = Faces::None;
        }
    }
}

fn small_bytes_of(p: &Pictures) -> usize {
    let thumb = p.thumb.ready().map_or(0, texture_bytes);
    let faces = match &p.faces {
        Faces::Ready(tiles) => tiles.iter().map(|t| texture_bytes(&t.texture)).sum(),
        _ => 0,
    };
    thumb + faces
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkroom_index::culling::Culling;

    /// A gallery open on a folder of `n` photos, and their ids.
    fn gallery_of(n: usize) -> (Gallery, Vec<EntryId>) {
        let mut cull = Culling::default();
        let generation = cull.open("/shoot".into());
        let mut g = Gallery::default();
        g.open(generation);
        let ids = (0..n)
            .map(|i| {
                let id = cull.push(darkroom_library::Item {
                    primary: format!("/shoot/{i}.jpg").into(),
                    twin: None,
                    kind: darkroom_library::ItemKind::Raster,
                });
                g.push(id);
                id
            })
            .collect();
        (g, ids)
    }

    #[test]
    fn a_texture_let_go_takes_the_next_picture_of_its_size() {
        let ctx = egui::Context::default();
        let (mut g, ids) = gallery_of(3);
        let screen = |shade| egui::ColorImage::filled([1024, 683], egui::Color32::from_gray(shade));
        let options = egui::TextureOptions::LINEAR;
        let first = g.spares.texture(&ctx, "a".into(), screen(10), options);
        let first_id = first.id();
        if let Some(p) = g.get_mut(ids[0]) {
            p.loupe = Slot::Ready(first);
        }
        // Moved on: the first photo's screen picture is let go, its texture kept.
        g.keep_loupe_pictures(&ids[1..]);
        assert!(g.get(ids[0]).is_some_and(|p| p.loupe.ready().is_none()));
        assert_eq!(g.spares.count(), 1);
        ctx.tex_manager().write().take_delta().clear();
        // The next picture of its size goes into it, every pixel replaced; another size
        // is a texture of its own.
        let next = g.spares.texture(&ctx, "b".into(), screen(200), options);
        assert_eq!(next.id(), first_id, "the texture let go was not taken");
        assert_eq!(g.spares.count(), 0);
        let mut delta = ctx.tex_manager().write().take_delta();
        assert_eq!(delta.set.len(), 1, "one texture written");
        let writes: Vec<_> = delta.set.get(&first_id).into_iter().flatten().collect();
        assert!(
            matches!(writes[..], [d] if d.pos == Some([0, 0])
                && [d.image.width(), d.image.height()] == [1024, 683]),
            "not one whole write into the texture let go"
        );
        // What a renderer would upload: applied, not dropped.
        delta.clear();
        let other = g.spares.texture(
            &ctx,
            "c".into(),
            egui::ColorImage::filled([683, 1024], egui::Color32::GRAY),
            options,
        );
        assert_ne!(other.id(), first_id);
        // Past the bytes kept, the oldest go; small textures are not kept at all.
        g.spares.most = 3 * 1024 * 683 * 4;
        let kept: Vec<_> = (0..4)
            .map(|k| g.spares.texture(&ctx, format!("s{k}"), screen(k), options))
            .collect();
        let oldest = kept[0].id();
        for t in kept {
            g.spares.put(t);
        }
        assert_eq!(g.spares.count(), 3);
        assert!(g.spares.textures.iter().all(|t| t.id() != oldest));
        g.spares.put(ctx.load_texture(
            "thumb",
            egui::ColorImage::filled([256, 171], egui::Color32::GRAY),
            options,
        ));
        assert_eq!(g.spares.count(), 3, "a thumbnail kept");
        ctx.tex_manager().write().take_delta().clear();
    }

    #[test]
    fn thumbnails_stay_within_the_budget_and_what_is_on_screen_stays() {
        let ctx = egui::Context::default();
        let (mut g, ids) = gallery_of(20);
        let tile = egui::ColorImage::filled([64, 64], egui::Color32::GRAY);
        let each = 64 * 64 * 4;
        // Scrolled past in frames 0..20, one photo a frame; the last four on screen now.
        for (f, id) in ids.iter().enumerate() {
            g.seen(*id);
            if let Some(p) = g.get_mut(*id) {
                p.thumb = Slot::Ready(ctx.load_texture(
                    format!("t{f}"),
                    tile.clone(),
                    Default::default(),
                ));
            }
            g.next_frame();
        }
        for id in &ids[16..] {
            g.seen(*id);
        }
        assert_eq!(g.small_bytes(), 20 * each);
        g.keep_small_within(6 * each);
        assert_eq!(g.small_bytes(), 6 * each);
        let kept: Vec<usize> = (0..20)
            .filter(|&i| g.get(ids[i]).is_some_and(|p| p.thumb.ready().is_some()))
            .collect();
        assert_eq!(kept, vec![14, 15, 16, 17, 18, 19], "the most recently seen");
        // A budget smaller than the screen: what is on screen stays anyway.
        g.keep_small_within(each);
        assert_eq!(g.small_bytes(), 4 * each);
    }
}
