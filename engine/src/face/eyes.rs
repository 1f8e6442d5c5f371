//! Eye state: a grey square centred on each eye landmark, classified open or closed by an
//! eye-state model card (its class names say which logit is which).

use image::RgbImage;

use super::align::{Similarity, warp_affine_rgb};
use super::tensor::normalise_nchw;
use crate::cards::{OutputContract, Role};
use crate::error::EngineError;
use crate::sessions::ModelSession;

/// The crop's side as a fraction of the distance between the eyes.
pub const EYE_CROP_SIDE: f32 = 0.5;

/// Pixels between the two eye landmarks: how big the eyes are, for the crop and for whether
/// they are big enough to judge at all.
pub fn eye_distance(landmarks: &[[f32; 2]; 5]) -> f32 {
    let [l, r] = [landmarks[0], landmarks[1]];
    (l[0] - r[0]).hypot(l[1] - r[1])
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EyeState {
    Open,
    Closed,
}

/// One eye's verdict and the model's probability that it is open.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EyeReading {
    pub state: EyeState,
    pub p_open: f32,
}

pub struct EyeClassifier {
    session: ModelSession,
    open_class: usize,
    classes: usize,
    scratch: Vec<f32>,
}

impl EyeClassifier {
    pub fn new(session: ModelSession, classes: &[String]) -> Result<Self, EngineError> {
        let wrong_role = || EngineError::WrongRole {
            model_id: session.model_id(),
            wanted: Role::EyeState,
            actual: session.card.role,
        };
        if session.card.role != Role::EyeState
            || !matches!(session.card.output, OutputContract::Classes { .. })
        {
            return Err(wrong_role());
        }
        let open_class =
            classes
                .iter()
                .position(|c| c == "open")
                .ok_or_else(|| EngineError::Inference {
                    model_id: session.model_id(),
                    reason: format!("its classes {classes:?} name no \"open\""),
                })?;
        Ok(EyeClassifier {
            session,
            open_class,
            classes: classes.len(),
            scratch: Vec::new(),
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    /// The square around `centre` the model sees, `side` pixels of the photo, at its input size.
    pub fn crop(&self, img: &RgbImage, centre: [f32; 2], side: f32) -> RgbImage {
        let (size, _) = self.session.card.input.hw();
        let scale = side.max(1.0) / size as f32;
        // crop pixel (u, v) ← photo (centre - side/2 + u * scale)
        let to_src = Similarity {
            a: f64::from(scale),
            b: 0.0,
            tx: f64::from(centre[0] - side / 2.0),
            ty: f64::from(centre[1] - side / 2.0),
        };
        warp_affine_rgb(img, &to_src, size as u32)
    }

    /// Both eyes of a face with these landmarks (left eye first).
    pub fn classify_face(
        &mut self,
        img: &RgbImage,
        landmarks: &[[f32; 2]; 5],
    ) -> Result<[EyeReading; 2], EngineError> {
        let side = eye_distance(landmarks) * EYE_CROP_SIDE;
        let left = self.classify(&self.crop(img, landmarks[0], side))?;
        let right = self.classify(&self.crop(img, landmarks[1], side))?;
        Ok([left, right])
    }

    /// One crop at the model's input size.
    pub fn classify(&mut self, crop: &RgbImage) -> Result<EyeReading, EngineError> {
        normalise_nchw(crop, &self.session.card.input, &mut self.scratch);
        let input = std::mem::take(&mut self.scratch);
        let result = self.session.run(&input);
        self.scratch = input;
        let logits = result?
            .into_iter()
            .next()
            .map(|o| o.data)
            .filter(|d| d.len() == self.classes)
            .ok_or_else(|| EngineError::Inference {
                model_id: self.session.model_id(),
                reason: format!("expected {} logits", self.classes),
            })?;
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = logits.iter().map(|v| (v - max).exp()).collect();
        let p_open = exp[self.open_class] / exp.iter().sum::<f32>();
        Ok(EyeReading {
            state: if p_open >= 0.5 {
                EyeState::Open
            } else {
                EyeState::Closed
            },
            p_open,
        })
    }
}
