//! The loupe's face close-ups: the indexed faces cut out of the photo at 100 %, from the
//! full-resolution decode the picture pool makes anyway.

use std::path::Path;

use darkroom_catalog::Catalog;
use image::RgbImage;

/// One face as the loupe's close-up strip shows it: a crop at 100% (the photo's own pixels).
pub struct FaceCrop {
    /// In egui's pixels already (made on the worker).
    pub image: egui::ColorImage,
    pub sharpness: f32,
    pub eyes_closed: Option<bool>,
    /// The sharper eye's sharpness on the face's scale, where the eyes could be judged.
    pub eyes_sharpness: Option<f32>,
    /// Its eyes softer than the face (the focus on the nose, ears or hair).
    pub eyes_soft: bool,
    /// The face's middle, as fractions of the photo's size.
    pub center: egui::Pos2,
    /// Who it is, where the index's people clustering said.
    pub person: Option<i64>,
}

/// A photo's close-ups: None when the photo is not indexed.
pub type FaceCrops = Result<Option<Vec<FaceCrop>>, String>;

/// Crops of at most this many pixels a side: a close-up, not the photo again.
pub const FACE_CROP_MAX: u32 = 256;

/// The faces the index found in `photo`, cut at 100 % out of `img`, the photo's own pixels as
/// the full-resolution view decoded them (one decode serves both): the rows read through a
/// read-only catalog connection. None when the photo is not indexed.
pub fn crops_of(img: &RgbImage, photo: &Path, catalog: &Path) -> FaceCrops {
    let Some(catalog) = Catalog::open_read_only(catalog).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let Some(indexed) = catalog.photo_index(photo).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    // Boxes are in the indexed full size; a RAW's preview (or its JPEG twin) may differ.
    let k = img.width() as f32 / indexed.width.max(1) as f32;
    let crops = indexed
        .faces
        .iter()
        .map(|f| {
            let bbox = f.bbox.map(|v| v * k);
            let [left, top, side] = darkroom_library::geometry::face_square(
                bbox,
                img.width(),
                img.height(),
                FACE_CROP_MAX as f32,
            );
            let crop = image::imageops::crop_imm(img, left, top, side, side).to_image();
            let (cx, cy) = ((bbox[0] + bbox[2]) / 2.0, (bbox[1] + bbox[3]) / 2.0);
            FaceCrop {
                image: super::pixels_of(&crop),
                sharpness: f.sharpness,
                eyes_closed: f.eyes_closed,
                eyes_sharpness: f.eyes_sharpness,
                eyes_soft: darkroom_index::analysis::eyes_soft(
                    f.eyes_sharpness,
                    f.sharpness,
                    &darkroom_index::Thresholds::default(),
                ),
                center: egui::pos2(
                    cx / img.width().max(1) as f32,
                    cy / img.height().max(1) as f32,
                ),
                person: f.person,
            }
        })
        .collect();
    Ok(Some(crops))
}
