//! Aligned crop → L2-normalised embedding.

use image::RgbImage;

use super::align::{ARCFACE_TEMPLATE, DLIB_TEMPLATE, Similarity, warp_affine_rgb};
use super::tensor::normalise_nchw;
use crate::cards::{OutputContract, Resize};
use crate::error::EngineError;
use crate::sessions::ModelSession;

/// The five points' template an alignment names, and the crop side it is written for.
fn template_of(resize: Resize) -> Option<([[f32; 2]; 5], f32)> {
    match resize {
        Resize::Arcface5point => Some((ARCFACE_TEMPLATE, 112.0)),
        Resize::Dlib5point => Some((DLIB_TEMPLATE, 150.0)),
        _ => None,
    }
}

pub struct FaceEmbedder {
    session: ModelSession,
    dim: usize,
    scratch: Vec<f32>,
}

/// Cosine similarity of two vectors (1 for identical directions).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot = a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

impl FaceEmbedder {
    pub fn new(session: ModelSession) -> Result<Self, EngineError> {
        let OutputContract::Embedding { dim, .. } = session.card.output else {
            return Err(EngineError::WrongRole {
                model_id: session.model_id(),
                wanted: crate::cards::Role::Embedder,
                actual: session.card.role,
            });
        };
        let (h, w) = session.card.input.hw();
        if template_of(session.card.input.resize).is_none() || h != w || h == 0 {
            return Err(EngineError::Inference {
                model_id: session.model_id(),
                reason: format!(
                    "an embedder takes a square crop aligned by five points (arcface_5point or \
                     dlib_5point); the card says {:?} at {h}x{w}",
                    session.card.input.resize
                ),
            });
        }
        Ok(FaceEmbedder {
            session,
            dim,
            scratch: Vec::new(),
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    /// The cosine to a person's centre at which a face joins them, where this embedder's card
    /// states one.
    pub fn same_person(&self) -> Option<f32> {
        match self.session.card.output {
            OutputContract::Embedding { same_person, .. } => same_person,
            _ => None,
        }
    }

    pub fn sha256(&self) -> &str {
        &self.session.sha256
    }

    /// The aligned crop the embedder sees for a face with these landmarks.
    pub fn align(&self, img: &RgbImage, landmarks: &[[f32; 2]; 5]) -> RgbImage {
        let (size, _) = self.session.card.input.hw();
        let (template, side) =
            template_of(self.session.card.input.resize).unwrap_or((ARCFACE_TEMPLATE, 112.0));
        let k = size as f32 / side;
        let template = template.map(|[x, y]| [x * k, y * k]);
        let to_crop = Similarity::estimate(landmarks, &template);
        warp_affine_rgb(img, &to_crop.inverse(), size as u32)
    }

    /// Embed the face with these landmarks; the result has unit length.
    pub fn embed(
        &mut self,
        img: &RgbImage,
        landmarks: &[[f32; 2]; 5],
    ) -> Result<Vec<f32>, EngineError> {
        let crop = self.align(img, landmarks);
        self.embed_aligned(&crop)
    }

    /// The input tensor an aligned crop makes and the model's output for it as it comes
    /// (not normalised): what the release gate holds against the reference runtime.
    pub fn run_raw(&mut self, crop: &RgbImage) -> Result<(Vec<f32>, Vec<f32>), EngineError> {
        let mut input = Vec::new();
        normalise_nchw(crop, &self.session.card.input, &mut input);
        let output = self
            .session
            .run_batch(1, &input)?
            .into_iter()
            .next()
            .map(|o| o.data)
            .unwrap_or_default();
        Ok((input, output))
    }

    pub fn embed_aligned(&mut self, crop: &RgbImage) -> Result<Vec<f32>, EngineError> {
        let mut all = self.embed_aligned_batch(std::slice::from_ref(crop))?;
        Ok(all.pop().unwrap_or_default())
    }

    /// Whether [`FaceEmbedder::embed_all`] runs a photo's faces together (the model's input
    /// batch is free) or one run a face.
    pub fn batches(&self) -> bool {
        self.session.dynamic_batch()
    }

    /// Embed every face of one photo, in order: in runs of up to [`MAX_BATCH`] faces when the
    /// model takes a batch, else one run a face. Each result has unit length.
    pub fn embed_all(
        &mut self,
        img: &RgbImage,
        landmarks: &[[[f32; 2]; 5]],
    ) -> Result<Vec<Vec<f32>>, EngineError> {
        let step = if self.batches() { MAX_BATCH } else { 1 };
        let mut out = Vec::with_capacity(landmarks.len());
        for chunk in landmarks.chunks(step) {
            let crops: Vec<RgbImage> = chunk.iter().map(|lm| self.align(img, lm)).collect();
            out.extend(self.embed_aligned_batch(&crops)?);
        }
        Ok(out)
    }

    fn embed_aligned_batch(&mut self, crops: &[RgbImage]) -> Result<Vec<Vec<f32>>, EngineError> {
        let mut input = std::mem::take(&mut self.scratch);
        input.clear();
        let mut one = Vec::new();
        for crop in crops {
            normalise_nchw(crop, &self.session.card.input, &mut one);
            input.extend_from_slice(&one);
        }
        let result = self.session.run_batch(crops.len(), &input);
        self.scratch = input;
        let data = result?
            .into_iter()
            .next()
            .map(|o| o.data)
            .unwrap_or_default();
        if data.len() != self.dim * crops.len() {
            return Err(EngineError::Inference {
                model_id: self.session.model_id(),
                reason: format!(
                    "{} embedding values for {} faces, the card says {} each",
                    data.len(),
                    crops.len(),
                    self.dim
                ),
            });
        }
        Ok(data
            .chunks_exact(self.dim)
            .map(|v| {
                let mut v = v.to_vec();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    for x in &mut v {
                        *x /= norm;
                    }
                }
                v
            })
            .collect())
    }
}

/// Faces per embedder run when the model takes a batch: a crowd of 100 is four runs, and a
/// run's input stays under 5 MB.
pub const MAX_BATCH: usize = 32;
