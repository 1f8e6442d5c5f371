//! The face detectors: letterbox, run, decode, NMS, map back. SCRFD's score/bbox/kps heads per
//! stride, or CenterFace's heatmap, sizes, offsets and landmarks on a quarter-size grid; which
//! one is the card's output contract.

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
    heads: Heads,
    score_threshold: f32,
    nms_iou: f32,
}

/// How the outputs are read.
enum Heads {
    Scrfd { strides: Vec<u32>, anchors: u32 },
    CenterFace,
}

/// Which head an output is, from its last dimension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Head {
    Score,
    Bbox,
    Kps,
}

/// CenterFace's grid is a quarter of its input.
const CENTERFACE_STRIDE: usize = 4;

/// Candidate boxes before NMS, in the model input's pixels.
#[derive(Default)]
struct Candidates {
    boxes: Vec<[f32; 4]>,
    scores: Vec<f32>,
    kps: Vec<[[f32; 2]; 5]>,
}

impl FaceDetector {
    pub fn new(session: ModelSession) -> Result<Self, EngineError> {
        let (heads, score_threshold, nms_iou) = match session.card.output.clone() {
            OutputContract::ScrfdKps {
                strides,
                anchors_per_cell,
                score_threshold,
                nms_iou,
            } => (
                Heads::Scrfd {
                    strides,
                    anchors: anchors_per_cell,
                },
                score_threshold,
                nms_iou,
            ),
            OutputContract::CenterFace {
                score_threshold,
                nms_iou,
            } => (Heads::CenterFace, score_threshold, nms_iou),
            _ => {
                return Err(EngineError::WrongRole {
                    model_id: session.model_id(),
                    wanted: crate::cards::Role::Detector,
                    actual: session.card.role,
                });
            }
        };
        Ok(FaceDetector {
            session,
            heads,
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
        let found = match &self.heads {
            Heads::Scrfd { strides, anchors } => self.scrfd(outputs, strides, *anchors)?,
            Heads::CenterFace => self.centerface(outputs)?,
        };
        let inv = 1.0 / prepared.scale;
        let (w, h) = (prepared.width as f32, prepared.height as f32);
        let faces = nms(&found.boxes, &found.scores, self.nms_iou)
            .into_iter()
            .map(|i| {
                let b = found.boxes[i];
                Face {
                    bbox: [
                        (b[0] * inv).clamp(0.0, w),
                        (b[1] * inv).clamp(0.0, h),
                        (b[2] * inv).clamp(0.0, w),
                        (b[3] * inv).clamp(0.0, h),
                    ],
                    score: found.scores[i],
                    landmarks: found.kps[i].map(|[x, y]| [x * inv, y * inv]),
                    embedding: None,
                }
            })
            .collect();
        Ok(faces)
    }

    fn bad(&self, reason: String) -> EngineError {
        EngineError::Inference {
            model_id: self.session.model_id(),
            reason,
        }
    }

    fn scrfd(
        &self,
        outputs: &[Output],
        strides: &[u32],
        anchors: u32,
    ) -> Result<Candidates, EngineError> {
        let (in_h, in_w) = self.session.card.input.hw();
        let mut found = Candidates::default();
        for &stride in strides {
            let fw = in_w / stride as usize;
            let fh = in_h / stride as usize;
            let rows = fw * fh * anchors as usize;
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
                        self.bad(format!(
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
                let cell = row / anchors as usize;
                let cx = (cell % fw) as f32 * s;
                let cy = (cell / fw) as f32 * s;
                let b = &bbox.data[row * 4..row * 4 + 4];
                found
                    .boxes
                    .push([cx - b[0] * s, cy - b[1] * s, cx + b[2] * s, cy + b[3] * s]);
                found.scores.push(sc);
                let k = &kp.data[row * 10..row * 10 + 10];
                let mut pts = [[0.0f32; 2]; 5];
                for (i, p) in pts.iter_mut().enumerate() {
                    *p = [cx + k[2 * i] * s, cy + k[2 * i + 1] * s];
                }
                found.kps.push(pts);
            }
        }
        Ok(found)
    }

    /// CenterFace's heads, as its authors' decoder reads them: a cell over the threshold is a
    /// face centred at the cell plus its offset, sized by the exponent of its scale.
    fn centerface(&self, outputs: &[Output]) -> Result<Candidates, EngineError> {
        let (in_h, in_w) = self.session.card.input.hw();
        let (gh, gw) = (in_h / CENTERFACE_STRIDE, in_w / CENTERFACE_STRIDE);
        let stride = CENTERFACE_STRIDE as f32;
        let cells = gh * gw;
        let [heat, scale, offset, marks] = outputs else {
            return Err(self.bad(format!("{} outputs, CenterFace has 4", outputs.len())));
        };
        for (o, channels) in [heat, scale, offset, marks]
            .into_iter()
            .zip(crate::sessions::CENTERFACE_CHANNELS)
        {
            if o.data.len() != cells * channels as usize {
                return Err(self.bad(format!(
                    "output {} has {} values, a {gw}×{gh} grid of {channels} channels has {}",
                    o.name,
                    o.data.len(),
                    cells * channels as usize
                )));
            }
        }
        let at = |o: &Output, channel: usize, cell: usize| o.data[channel * cells + cell];
        let (w, h) = (in_w as f32, in_h as f32);
        let mut found = Candidates::default();
        for (cell, &score) in heat.data.iter().enumerate() {
            if score <= self.score_threshold {
                continue;
            }
            let (x, y) = ((cell % gw) as f32, (cell / gw) as f32);
            let face_h = at(scale, 0, cell).exp() * stride;
            let face_w = at(scale, 1, cell).exp() * stride;
            let cy = (y + at(offset, 0, cell) + 0.5) * stride;
            let cx = (x + at(offset, 1, cell) + 0.5) * stride;
            let x0 = (cx - face_w / 2.0).clamp(0.0, w);
            let y0 = (cy - face_h / 2.0).clamp(0.0, h);
            found
                .boxes
                .push([x0, y0, (x0 + face_w).min(w), (y0 + face_h).min(h)]);
            found.scores.push(score);
            let mut pts = [[0.0f32; 2]; 5];
            for (j, p) in pts.iter_mut().enumerate() {
                *p = [
                    at(marks, 2 * j + 1, cell) * face_w + x0,
                    at(marks, 2 * j, cell) * face_h + y0,
                ];
            }
            found.kps.push(pts);
        }
        Ok(found)
    }
}
