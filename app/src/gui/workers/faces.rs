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
    /// What the face mesh measured, where it ran.
    pub expression: Option<darkroom_catalog::ExpressionRow>,
}

/// What the index says to show over a photo in the loupe: its faces' close-ups and its
/// subject's mask, as an overlay (O).
pub struct Closeups {
    pub faces: Vec<FaceCrop>,
    /// The subject's mask at its stored size, the subject tinted, the rest clear.
    pub subject: Option<egui::ColorImage>,
}

/// A photo's close-ups: None when the photo is not indexed.
pub type FaceCrops = Result<Option<Closeups>, String>;

/// The subject overlay's tint: what the focus was measured in.
pub const SUBJECT_TINT: egui::Color32 = egui::Color32::from_rgba_premultiplied(110, 26, 26, 110);

/// The stored subject mask as an overlay (None when its bits do not fit its size).
fn subject_overlay(s: &darkroom_catalog::SubjectRow) -> Option<egui::ColorImage> {
    let mask = darkroom_engine::subject::Mask::from_packed(s.mask_width, s.mask_height, &s.mask)?;
    let pixels = mask
        .as_bytes()
        .iter()
        .map(|&p| {
            if p != 0 {
                SUBJECT_TINT
            } else {
                egui::Color32::TRANSPARENT
            }
        })
        .collect();
    Some(egui::ColorImage::new(
        [s.mask_width as usize, s.mask_height as usize],
        pixels,
    ))
}

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
    let mut crops = indexed
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
                expression: f.expression,
            }
        })
        .collect::<Vec<_>>();
    // Left to right as they stand in the photo (the detector lists them in its own order), so
    // the strip reads like the photo.
    crops.sort_by(|a, b| {
        a.center
            .x
            .total_cmp(&b.center.x)
            .then(a.center.y.total_cmp(&b.center.y))
    });
    Ok(Some(Closeups {
        faces: crops,
        subject: indexed.subject.as_ref().and_then(subject_overlay),
    }))
}
