//! The instance segmenter (YOLO-seg): letterbox, run, then boxes and class scores → NMS per
//! class → each kept box's mask coefficients × the prototypes, cropped to its box, read at the
//! size asked for.

use image::RgbImage;

use super::Mask;
use super::sample::bilinear;
use crate::cards::{OutputContract, Resize};
use crate::error::EngineError;
use crate::face::{Fitted, letterbox_centre, nms, normalise_nchw};
use crate::sessions::{ModelSession, Output};

/// One thing found, in the photo's pixel coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Index into the card's class list.
    pub class_id: usize,
    pub class: String,
    pub score: f32,
    /// [x0, y0, x1, y1] in the photo.
    pub bbox: [f32; 4],
    pub mask: Mask,
}

/// What the decode needs to know of the model and of how the photo was fitted to it.
#[derive(Debug, Clone)]
pub struct YoloSegDecode {
    pub classes: Vec<String>,
    pub mask_protos: usize,
    pub score_threshold: f32,
    pub nms_iou: f32,
    pub mask_threshold: f32,
    /// The model input's (width, height).
    pub input: (usize, usize),
}

/// A candidate before NMS, in the input's pixels.
struct Candidate {
    bbox: [f32; 4],
    score: f32,
    class_id: usize,
    coefficients: Vec<f32>,
}

pub struct InstanceSegmenter {
    session: ModelSession,
    decode: YoloSegDecode,
}

impl InstanceSegmenter {
    /// `classes`: the card's class names in order (the card set resolves a named list).
    pub fn new(session: ModelSession, classes: Vec<String>) -> Result<Self, EngineError> {
        super::check_card(&session, Resize::LetterboxCentre)?;
        let OutputContract::YoloSeg {
            mask_protos,
            score_threshold,
            nms_iou,
            mask_threshold,
            ..
        } = session.card.output
        else {
            return Err(super::other_contract(&session, "yolo_seg"));
        };
        let (h, w) = session.card.input.hw();
        Ok(InstanceSegmenter {
            session,
            decode: YoloSegDecode {
                classes,
                mask_protos,
                score_threshold,
                nms_iou,
                mask_threshold,
                input: (w, h),
            },
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    /// Every instance in the photo, best first, masks `width`×`height` over the whole photo.
    pub fn segment(
        &mut self,
        img: &RgbImage,
        width: u32,
        height: u32,
    ) -> Result<Vec<Instance>, EngineError> {
        let (w, h) = self.decode.input;
        let (canvas, fitted) = letterbox_centre(img, w as u32, h as u32);
        let mut tensor = Vec::new();
        normalise_nchw(&canvas, &self.session.card.input, &mut tensor);
        let outputs = self.session.run(&tensor)?;
        self.decode
            .decode(&outputs, &fitted, width, height)
            .map_err(|reason| EngineError::Inference {
                model_id: self.session.model_id(),
                reason,
            })
    }
}

impl YoloSegDecode {
    /// Read the two outputs: the 3-D detections and the 4-D prototypes, in either order.
    pub fn decode(
        &self,
        outputs: &[Output],
        fitted: &Fitted,
        width: u32,
        height: u32,
    ) -> Result<Vec<Instance>, String> {
        let protos = outputs
            .iter()
            .find(|o| o.shape.len() == 4)
            .ok_or("no 4-D prototype output")?;
        let detections = outputs
            .iter()
            .find(|o| o.shape.len() == 3)
            .ok_or("no 3-D detection output")?;
        let nm = self.mask_protos;
        let [_, pn, ph, pw] = protos.shape[..] else {
            return Err("prototypes are not 4-D".to_owned());
        };
        if pn != nm || protos.data.len() != nm * ph * pw {
            return Err(format!(
                "prototypes {:?}, the card has {nm} of them",
                protos.shape
            ));
        }
        let candidates = self.candidates(detections)?;
        let boxes: Vec<[f32; 4]> = candidates.iter().map(|c| c.bbox).collect();
        let scores: Vec<f32> = candidates.iter().map(|c| c.score).collect();
        // Per class, as Ultralytics does: a person in front of a car is two instances.
        let mut kept: Vec<usize> = Vec::new();
        let mut classes: Vec<usize> = candidates.iter().map(|c| c.class_id).collect();
        classes.sort_unstable();
        classes.dedup();
        for class in classes {
            let of_class: Vec<usize> = (0..candidates.len())
                .filter(|&i| candidates[i].class_id == class)
                .collect();
            let b: Vec<[f32; 4]> = of_class.iter().map(|&i| boxes[i]).collect();
            let s: Vec<f32> = of_class.iter().map(|&i| scores[i]).collect();
            kept.extend(nms(&b, &s, self.nms_iou).into_iter().map(|k| of_class[k]));
        }
        kept.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let plane = ph * pw;
        let (in_w, in_h) = (self.input.0 as f32, self.input.1 as f32);
        // A mask pixel's centre → the input's pixels.
        let sx = fitted.width as f32 / width.max(1) as f32;
        let sy = fitted.height as f32 / height.max(1) as f32;
        let to_input = |x: u32, y: u32| {
            (
                (x as f32 + 0.5) * sx * fitted.scale + fitted.pad_x,
                (y as f32 + 0.5) * sy * fitted.scale + fitted.pad_y,
            )
        };
        let mut logits = vec![0.0f32; plane];
        let mut out = Vec::with_capacity(kept.len());
        for i in kept {
            let c = &candidates[i];
            logits.fill(0.0);
            for (k, &coef) in c.coefficients.iter().enumerate() {
                let proto = &protos.data[k * plane..(k + 1) * plane];
                for (l, &p) in logits.iter_mut().zip(proto) {
                    *l += coef * p;
                }
            }
            // sigmoid(l) > t  ⇔  l > logit(t): compare logits, no exponentials per pixel.
            let t = self.mask_threshold.clamp(1e-6, 1.0 - 1e-6);
            let cut = (t / (1.0 - t)).ln();
            let b = c.bbox;
            let mask = Mask::from_fn(width, height, |x, y| {
                let (u, v) = to_input(x, y);
                u >= b[0]
                    && u < b[2]
                    && v >= b[1]
                    && v < b[3]
                    && bilinear(&logits, pw, ph, u * pw as f32 / in_w, v * ph as f32 / in_h) > cut
            });
            let back =
                |v: f32, pad: f32, max: u32| ((v - pad) / fitted.scale).clamp(0.0, max as f32);
            out.push(Instance {
                class_id: c.class_id,
                class: self
                    .classes
                    .get(c.class_id)
                    .cloned()
                    .unwrap_or_else(|| format!("class {}", c.class_id)),
                score: c.score,
                bbox: [
                    back(b[0], fitted.pad_x, fitted.width),
                    back(b[1], fitted.pad_y, fitted.height),
                    back(b[2], fitted.pad_x, fitted.width),
                    back(b[3], fitted.pad_y, fitted.height),
                ],
                mask,
            });
        }
        Ok(out)
    }

    /// Candidates over the score threshold from either layout.
    fn candidates(&self, det: &Output) -> Result<Vec<Candidate>, String> {
        let nm = self.mask_protos;
        let nc = self.classes.len();
        let [_, a, b] = det.shape[..] else {
            return Err("detections are not 3-D".to_owned());
        };
        let mut found = Vec::new();
        if a == 4 + nc + nm {
            // YOLOv8/11: one column per anchor; rows cx, cy, w, h, class scores, coefficients.
            let at = |row: usize, col: usize| det.data[row * b + col];
            for col in 0..b {
                let (class_id, score) = (0..nc)
                    .map(|k| (k, at(4 + k, col)))
                    .max_by(|x, y| x.1.total_cmp(&y.1))
                    .unwrap_or((0, 0.0));
                if score <= self.score_threshold {
                    continue;
                }
                let (cx, cy, w, h) = (at(0, col), at(1, col), at(2, col), at(3, col));
                found.push(Candidate {
                    bbox: [cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0],
                    score,
                    class_id,
                    coefficients: (0..nm).map(|k| at(4 + nc + k, col)).collect(),
                });
            }
        } else if b == 6 + nm {
            // End-to-end exports (YOLO26): one row per detection; x0, y0, x1, y1, score, class,
            // coefficients. Already one box per object, but NMS costs nothing on a few rows.
            for row in det.data.chunks_exact(b) {
                let score = row[4];
                if score <= self.score_threshold || row[5] < 0.0 {
                    continue;
                }
                found.push(Candidate {
                    bbox: [row[0], row[1], row[2], row[3]],
                    score,
                    class_id: row[5].round() as usize,
                    coefficients: row[6..].to_vec(),
                });
            }
        } else {
            return Err(format!(
                "detections {:?}: neither [1, {}, anchors] (4 + {nc} classes + {nm} coefficients) nor [1, n, {}]",
                det.shape,
                4 + nc + nm,
                6 + nm
            ));
        }
        Ok(found)
    }
}
