//! SCRFD: letterbox, run, decode the score/bbox/kps heads of each stride, NMS, map back.

use image::RgbImage;

use super::Face;
use super::nms::nms;
use super::tensor::{letterbox_scale, letterbox_top_left, normalise_nchw};
use crate::cards::OutputContract;
use crate::error::EngineError;
use crate::sessions::{ModelSession, Output};

/// A photo turned into the detector's input, with what is needed to map results back.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub tensor: Vec<f32>,
    pub scale: f32,
    pub width: u32,
    pub height: u32,
}

pub struct FaceDetector {
    session: ModelSession,
    strides: Vec<u32>,
    anchors: u32,
    score_threshold: f32,
    nms_iou: f32,
}

/// Which head an output is, from its last dimension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Head {
    Score,
    Bbox,
    Kps,
}

impl FaceDetector {
    pub fn new(session: ModelSession) -> Result<Self, EngineError> {
        let OutputContract::ScrfdKps {
            strides,
            anchors_per_cell,
            score_threshold,
            nms_iou,
        } = session.card.output.clone()
        else {
            return Err(EngineError::WrongRole {
                model_id: session.model_id(),
                wanted: crate::cards::Role::Detector,
                actual: session.card.role,
            });
        };
        Ok(FaceDetector {
            session,
            strides,
            anchors: anchors_per_cell,
            score_threshold,
            nms_iou,
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    pub fn sha256(&self) -> &str {
        &self.session.sha256
    }

    /// Detect faces in an upright RGB photo.
    pub fn detect(&mut self, img: &RgbImage) -> Result<Vec<Face>, EngineError> {
        let prepared = self.prepare(img);
        let outputs = self.infer(&prepared)?;
        self.decode(&outputs, &prepared)
    }

    /// The scale the letterbox applies to a photo of this size: a face's size at the model's
    /// input is its size in the photo times this.
    pub fn prepare_scale(&self, width: u32, height: u32) -> f32 {
        let (h, w) = self.session.card.input.hw();
        letterbox_scale(width, height, w as u32, h as u32)
    }

    /// Letterbox and normalise (no inference).
    pub fn prepare(&self, img: &RgbImage) -> Prepared {
        let spec = &self.session.card.input;
        let (h, w) = spec.hw();
        let (canvas, scale) = letterbox_top_left(img, w as u32, h as u32);
        let mut tensor = Vec::new();
        normalise_nchw(&canvas, spec, &mut tensor);
        Prepared {
            tensor,
            scale,
            width: img.width(),
            height: img.height(),
        }
    }

    pub fn infer(&mut self, prepared: &Prepared) -> Result<Vec<Output>, EngineError> {
        self.session.run(&prepared.tensor)
    }

    /// Decode the heads into faces in the photo's coordinates.
    pub fn decode(
        &self,
        outputs: &[Output],
        prepared: &Prepared,
    ) -> Result<Vec<Face>, EngineError> {
        let (in_h, in_w) = self.session.card.input.hw();
        let bad = |reason: String| EngineError::Inference {
            model_id: self.session.model_id(),
            reason,
        };
        let mut boxes: Vec<[f32; 4]> = Vec::new();
        let mut scores: Vec<f32> = Vec::new();
        let mut kps: Vec<[[f32; 2]; 5]> = Vec::new();
        for &stride in &self.strides {
            let fw = in_w / stride as usize;
            let fh = in_h / stride as usize;
            let rows = fw * fh * self.anchors as usize;
            // Heads are found by shape, not name: re-exported SCRFDs carry numeric names.
            let head = |kind: Head| -> Result<&Output, EngineError> {
                let width = match kind {
                    Head::Score => 1,
                    Head::Bbox => 4,
                    Head::Kps => 10,
                };
                outputs
                    .iter()
                    .find(|o| o.data.len() == rows * width && o.shape.last() == Some(&width))
                    .ok_or_else(|| {
                        bad(format!(
                            "no {width}-wide head with {rows} rows for stride {stride}"
                        ))
                    })
            };
            let score = head(Head::Score)?;
            let bbox = head(Head::Bbox)?;
            let kp = head(Head::Kps)?;
            let s = stride as f32;
            for (row, &sc) in score.data.iter().enumerate() {
                if sc < self.score_threshold {
                    continue;
                }
                let cell = row / self.anchors as usize;
                let cx = (cell % fw) as f32 * s;
                let cy = (cell / fw) as f32 * s;
                let b = &bbox.data[row * 4..row * 4 + 4];
                boxes.push([cx - b[0] * s, cy - b[1] * s, cx + b[2] * s, cy + b[3] * s]);
                scores.push(sc);
                let k = &kp.data[row * 10..row * 10 + 10];
                let mut pts = [[0.0f32; 2]; 5];
                for (i, p) in pts.iter_mut().enumerate() {
                    *p = [cx + k[2 * i] * s, cy + k[2 * i + 1] * s];
                }
                kps.push(pts);
            }
        }
        let inv = 1.0 / prepared.scale;
        let (w, h) = (prepared.width as f32, prepared.height as f32);
        let faces = nms(&boxes, &scores, self.nms_iou)
            .into_iter()
            .map(|i| {
                let b = boxes[i];
                Face {
                    bbox: [
                        (b[0] * inv).clamp(0.0, w),
                        (b[1] * inv).clamp(0.0, h),
                        (b[2] * inv).clamp(0.0, w),
                        (b[3] * inv).clamp(0.0, h),
                    ],
                    score: scores[i],
                    landmarks: kps[i].map(|[x, y]| [x * inv, y * inv]),
                    embedding: None,
                }
            })
            .collect();
        Ok(faces)
    }
}
