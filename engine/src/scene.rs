//! The scene model role: a semantic segmentation network trained on ADE20K (150 classes) says
//! what each pixel of the photo is, and the share of the frame each class covers becomes the
//! photo's tags (sky, water, building, person, vegetation…). The weights are the user's (the
//! card is `ade20k_scene`; nothing is bundled). The photo is stretched to the card's input; the
//! output is either logits, `[1, classes, h, w]` (150, or 151 with "other" first), or a class
//! map, `[1, h, w]` or `[1, 1, h, w]`, of class numbers as floats.

use image::RgbImage;

use crate::cards::{OutputContract, Resize};
use crate::error::EngineError;
use crate::face::stretched_nchw;
use crate::role::Role;
use crate::sessions::{ModelSession, Output};

pub struct SceneParser {
    session: ModelSession,
    classes: Vec<String>,
}

/// The share of the frame one class covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    pub class: String,
    pub share: f32,
}

impl SceneParser {
    pub fn new(session: ModelSession, classes: Vec<String>) -> Result<Self, EngineError> {
        if session.card.role != Role::Scene {
            return Err(EngineError::WrongRole {
                model_id: session.model_id(),
                wanted: Role::Scene,
                actual: session.card.role,
            });
        }
        let mismatch = |reason: String| EngineError::CardMismatch {
            model_id: session.model_id(),
            reason,
        };
        if session.card.input.resize != Resize::Stretch {
            return Err(mismatch(format!(
                "its input is resized by {:?}, the scene decode reads a stretched photo",
                session.card.input.resize
            )));
        }
        if !matches!(session.card.output, OutputContract::Semantic { .. }) {
            return Err(mismatch("its output contract is not semantic".to_owned()));
        }
        if classes.is_empty() {
            return Err(mismatch("its class list is empty".to_owned()));
        }
        Ok(SceneParser { session, classes })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    /// Each class's share of the photo, largest first; classes it does not cover are left out.
    pub fn coverage(&mut self, img: &RgbImage) -> Result<Vec<Coverage>, EngineError> {
        let tensor = stretched_nchw(img, &self.session.card.input);
        let outputs = self.session.run(&tensor)?;
        let first = outputs
            .into_iter()
            .next()
            .ok_or_else(|| EngineError::Inference {
                model_id: self.session.model_id(),
                reason: "no output".to_owned(),
            })?;
        decode(&first, &self.classes).map_err(|reason| EngineError::Inference {
            model_id: self.session.model_id(),
            reason,
        })
    }
}

/// The coverage a scene model's first output says, with `classes` its class list. Err says why
/// the output is not one the decode reads.
pub fn decode(output: &Output, classes: &[String]) -> Result<Vec<Coverage>, String> {
    let n = classes.len();
    let dims: Vec<usize> = output.shape.clone();
    let mut counts = vec![0u64; n];
    let pixels = match dims.as_slice() {
        // Logits: the class with the highest score wins each pixel.
        [1, c, h, w] if *c == n || *c == n + 1 => {
            let plane = h * w;
            if output.data.len() != c * plane {
                return Err(format!(
                    "{} values for a {dims:?} output",
                    output.data.len()
                ));
            }
            // 151 channels: ADE20K's "other" comes first and is no class of the list.
            let skip = usize::from(*c == n + 1);
            for p in 0..plane {
                let best = (0..*c)
                    .max_by(|&a, &b| {
                        output.data[a * plane + p].total_cmp(&output.data[b * plane + p])
                    })
                    .unwrap_or(0);
                if best >= skip {
                    counts[best - skip] += 1;
                }
            }
            plane
        }
        // A class map: each pixel's class number.
        [1, h, w] | [1, 1, h, w] => {
            let plane = h * w;
            if output.data.len() != plane {
                return Err(format!(
                    "{} values for a {dims:?} output",
                    output.data.len()
                ));
            }
            for &v in &output.data {
                let k = v.round();
                if k >= 0.0 && (k as usize) < n {
                    counts[k as usize] += 1;
                }
            }
            plane
        }
        _ => {
            return Err(format!(
                "output {dims:?} is neither logits [1, {n}, h, w] nor a class map [1, h, w]"
            ));
        }
    };
    let mut out: Vec<Coverage> = counts
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(k, &c)| Coverage {
            class: classes[k].clone(),
            share: c as f32 / pixels.max(1) as f32,
        })
        .collect();
    out.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then_with(|| a.class.cmp(&b.class))
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes() -> Vec<String> {
        ["wall", "building", "sky"].map(String::from).to_vec()
    }

    #[test]
    fn logits_and_class_maps_give_the_same_coverage() {
        // 2×2: sky, sky, building, wall.
        let logits = Output {
            name: "out".into(),
            shape: vec![1, 3, 2, 2],
            data: vec![
                0.0, 0.0, 0.0, 5.0, // wall
                0.0, 0.0, 5.0, 0.0, // building
                5.0, 5.0, 0.0, 0.0, // sky
            ],
        };
        let want = vec![
            Coverage {
                class: "sky".into(),
                share: 0.5,
            },
            Coverage {
                class: "building".into(),
                share: 0.25,
            },
            Coverage {
                class: "wall".into(),
                share: 0.25,
            },
        ];
        assert_eq!(decode(&logits, &classes()), Ok(want.clone()));
        let map = Output {
            name: "out".into(),
            shape: vec![1, 2, 2],
            data: vec![2.0, 2.0, 1.0, 0.0],
        };
        assert_eq!(decode(&map, &classes()), Ok(want));
        // 151 channels: "other" first, left out.
        let with_other = Output {
            name: "out".into(),
            shape: vec![1, 4, 1, 2],
            data: vec![9.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0],
        };
        let c = decode(&with_other, &classes()).expect("decodes");
        assert_eq!(
            c,
            vec![Coverage {
                class: "sky".into(),
                share: 0.5
            }]
        );
        let wrong = Output {
            name: "out".into(),
            shape: vec![1, 7, 2, 2],
            data: vec![0.0; 28],
        };
        assert!(decode(&wrong, &classes()).is_err());
    }
}
