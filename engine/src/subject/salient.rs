//! The salient-object segmenter (U²-Net): the photo stretched to the input, the fused map read
//! back at the size asked for.

use image::RgbImage;

use super::Mask;
use super::sample::bilinear;
use crate::cards::{OutputContract, Resize};
use crate::error::EngineError;
use crate::face::stretched_nchw;
use crate::sessions::ModelSession;

pub struct SalientSegmenter {
    session: ModelSession,
    mask_threshold: f32,
}

/// The fused map and what it became.
#[derive(Debug, Clone)]
pub struct Salient {
    /// The model's probabilities, `map_width`×`map_height`, row by row.
    pub map: Vec<f32>,
    pub map_width: usize,
    pub map_height: usize,
    /// Where the map is above the card's threshold, at the size asked for.
    pub mask: Mask,
}

impl SalientSegmenter {
    pub fn new(session: ModelSession) -> Result<Self, EngineError> {
        super::check_card(&session, Resize::Stretch)?;
        let OutputContract::Salient { mask_threshold, .. } = session.card.output else {
            return Err(super::other_contract(&session, "salient"));
        };
        Ok(SalientSegmenter {
            session,
            mask_threshold,
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    /// The photo's subject as a mask of `width`×`height` over the whole photo.
    pub fn segment(
        &mut self,
        img: &RgbImage,
        width: u32,
        height: u32,
    ) -> Result<Salient, EngineError> {
        let spec = &self.session.card.input;
        let (h, w) = spec.hw();
        let tensor = stretched_nchw(img, spec);
        let outputs = self.session.run(&tensor)?;
        let fused = outputs
            .into_iter()
            .next()
            .filter(|o| o.data.len() == w * h)
            .ok_or_else(|| EngineError::Inference {
                model_id: self.session.model_id(),
                reason: format!("the first map is not {w}×{h}"),
            })?;
        let map = fused.data;
        let sx = w as f32 / width.max(1) as f32;
        let sy = h as f32 / height.max(1) as f32;
        let mask = Mask::from_fn(width, height, |x, y| {
            let u = (x as f32 + 0.5) * sx;
            let v = (y as f32 + 0.5) * sy;
            bilinear(&map, w, h, u, v) > self.mask_threshold
        });
        Ok(Salient {
            map,
            map_width: w,
            map_height: h,
            mask,
        })
    }
}
