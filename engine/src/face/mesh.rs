//! Points on a face: MediaPipe's face mesh (468 points) on a crop about each detected face, and
//! its iris model on a crop about each eye the mesh finds. Crops are made here, as MediaPipe's
//! graphs make them, so the points land where the models were trained to put them.

use image::{RgbImage, imageops};

use super::Face;
use super::align::{Similarity, warp_affine_rgb};
use crate::cards::{InputSpec, OutputContract, Resize, Role};
use crate::error::EngineError;
use crate::sessions::{ModelSession, Output};

/// The mesh's crop: the face box's longer side times this (MediaPipe's detection-to-ROI).
pub const MESH_CROP_SCALE: f32 = 1.5;
/// The iris model's crop: the eye's corner-to-corner distance times this.
pub const EYE_CROP_SCALE: f32 = 2.3;

/// The mesh's points at each eye's corners, the photo's left-hand eye first: (start, end) of a
/// line that runs left to right in an upright face.
pub const EYE_CORNERS: [(usize, usize); 2] = [(33, 133), (362, 263)];

/// What a model sees and how its pixels map back to the photo.
#[derive(Debug, Clone)]
pub struct LandmarkCrop {
    pub pixels: RgbImage,
    /// Crop coordinates (not mirrored) → photo coordinates.
    pub to_photo: Similarity,
    /// The crop is the photo's pixels mirrored left to right.
    pub mirrored: bool,
}

impl LandmarkCrop {
    /// A `size`² square of side `side` photo pixels centred on `centre`, turned by `angle`
    /// (radians, the crop's x axis along that direction in the photo).
    pub fn square(
        img: &RgbImage,
        centre: [f32; 2],
        side: f32,
        angle: f32,
        size: u32,
        mirrored: bool,
    ) -> LandmarkCrop {
        let scale = f64::from(side.max(1.0)) / f64::from(size);
        let (sin, cos) = f64::from(angle).sin_cos();
        let (a, b) = (scale * cos, scale * sin);
        let half = f64::from(size) / 2.0;
        let to_photo = Similarity {
            a,
            b,
            tx: f64::from(centre[0]) - (a * half - b * half),
            ty: f64::from(centre[1]) - (b * half + a * half),
        };
        let mut pixels = warp_affine_rgb(img, &to_photo, size);
        if mirrored {
            imageops::flip_horizontal_in_place(&mut pixels);
        }
        LandmarkCrop {
            pixels,
            to_photo,
            mirrored,
        }
    }

    /// A point the model put at (x, y) in the crop it saw, unmirrored into the crop's own frame.
    pub fn unmirror(&self, x: f32, y: f32) -> [f32; 2] {
        if self.mirrored {
            [self.pixels.width() as f32 - x, y]
        } else {
            [x, y]
        }
    }

    /// A point of the crop's own (unmirrored) frame in the photo.
    pub fn to_photo(&self, p: [f32; 2]) -> [f32; 2] {
        let q = self.to_photo.apply([f64::from(p[0]), f64::from(p[1])]);
        [q[0] as f32, q[1] as f32]
    }

    /// The input tensor as the card says: NHWC (or NCHW) floats, (pixel − mean) / std.
    pub fn tensor(&self, spec: &InputSpec, out: &mut Vec<f32>) {
        nhwc_or_nchw(&self.pixels, spec, out);
    }
}

fn nhwc_or_nchw(img: &RgbImage, spec: &InputSpec, out: &mut Vec<f32>) {
    match spec.layout {
        crate::cards::Layout::Nchw => super::normalise_nchw(img, spec, out),
        crate::cards::Layout::Nhwc => {
            out.clear();
            let inv: Vec<f32> = spec.std.iter().map(|s| 1.0 / s).collect();
            out.extend(
                img.as_raw()
                    .chunks_exact(3)
                    .flat_map(|p| [0, 1, 2].map(|c| (p[c] as f32 - spec.mean[c]) * inv[c])),
            );
        }
    }
}

fn check(
    session: &ModelSession,
    role: Role,
    resize: Resize,
    contract_ok: bool,
) -> Result<(), EngineError> {
    if session.card.role != role {
        return Err(EngineError::WrongRole {
            model_id: session.model_id(),
            wanted: role,
            actual: session.card.role,
        });
    }
    if session.card.input.resize != resize || !contract_ok || session.card.input.mean.len() < 3 {
        return Err(EngineError::Inference {
            model_id: session.model_id(),
            reason: format!(
                "its card does not describe a {role} model (input resized by {:?}, output {:?})",
                session.card.input.resize, session.card.output
            ),
        });
    }
    Ok(())
}

fn output<'a>(
    outputs: &'a [Output],
    i: usize,
    len: usize,
    model_id: &str,
) -> Result<&'a [f32], EngineError> {
    outputs
        .get(i)
        .map(|o| o.data.as_slice())
        .filter(|d| d.len() == len)
        .ok_or_else(|| EngineError::Inference {
            model_id: model_id.to_owned(),
            reason: format!("output {i} does not have {len} values"),
        })
}

/// One crop through a session, its tensor made in `scratch` (kept for the next crop).
fn run_crop(
    session: &mut ModelSession,
    scratch: &mut Vec<f32>,
    crop: &LandmarkCrop,
) -> Result<Vec<Output>, EngineError> {
    crop.tensor(&session.card.input, scratch);
    session.run(scratch)
}

/// The mesh on one face.
#[derive(Debug, Clone)]
pub struct MeshPoints {
    /// Each point in the crop's upright frame (x, y and depth z, in its pixels): what the
    /// expression is measured on, since the face's roll is taken out.
    pub upright: Vec<[f32; 3]>,
    /// The same points in the photo's pixels (x, y).
    pub photo: Vec<[f32; 2]>,
    /// The model's probability that the crop holds a face.
    pub face_score: f32,
}

pub struct FaceMesh {
    session: ModelSession,
    points: usize,
    scratch: Vec<f32>,
}

impl FaceMesh {
    pub fn new(session: ModelSession) -> Result<Self, EngineError> {
        let points = match session.card.output {
            OutputContract::FaceMesh { points } => points,
            _ => 0,
        };
        check(&session, Role::FaceMesh, Resize::FaceMesh, points > 0)?;
        Ok(FaceMesh {
            session,
            points,
            scratch: Vec::new(),
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    pub fn input_spec(&self) -> &InputSpec {
        &self.session.card.input
    }

    /// The square about `face` the mesh sees, turned so its eyes are level.
    pub fn crop(&self, img: &RgbImage, face: &Face) -> LandmarkCrop {
        let [x0, y0, x1, y1] = face.bbox;
        let side = (x1 - x0).max(y1 - y0) * MESH_CROP_SCALE;
        let [l, r] = [face.landmarks[0], face.landmarks[1]];
        let angle = (r[1] - l[1]).atan2(r[0] - l[0]);
        let (size, _) = self.session.card.input.hw();
        LandmarkCrop::square(
            img,
            [(x0 + x1) / 2.0, (y0 + y1) / 2.0],
            side,
            angle,
            size as u32,
            false,
        )
    }

    /// The model's raw outputs for a crop (the release gate compares these).
    pub fn run_raw(&mut self, crop: &LandmarkCrop) -> Result<Vec<Output>, EngineError> {
        run_crop(&mut self.session, &mut self.scratch, crop)
    }

    pub fn run(&mut self, crop: &LandmarkCrop) -> Result<MeshPoints, EngineError> {
        let outputs = self.run_raw(crop)?;
        let id = self.model_id();
        let coords = output(&outputs, 0, self.points * 3, &id)?;
        let logit = output(&outputs, 1, 1, &id)?[0];
        let upright: Vec<[f32; 3]> = coords.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
        let photo = upright
            .iter()
            .map(|p| crop.to_photo([p[0], p[1]]))
            .collect();
        Ok(MeshPoints {
            upright,
            photo,
            face_score: 1.0 / (1.0 + (-logit).exp()),
        })
    }
}

/// One eye as the iris model saw it, in its crop's upright, unmirrored frame (the eye line
/// level, the photo's left to the crop's left).
#[derive(Debug, Clone)]
pub struct EyePoints {
    /// 71 points: the lids (0 and 8 the corners, 1–7 the lower lid, 9–15 the upper), then the
    /// halos and the brow.
    pub contour: Vec<[f32; 2]>,
    /// The iris: its centre, then four points on its edge.
    pub iris: [[f32; 2]; 5],
    /// The crop's side in its pixels.
    pub side: f32,
}

pub struct IrisModel {
    session: ModelSession,
    contour: usize,
    scratch: Vec<f32>,
}

impl IrisModel {
    pub fn new(session: ModelSession) -> Result<Self, EngineError> {
        let (contour, iris) = match session.card.output {
            OutputContract::Iris { contour, iris } => (contour, iris),
            _ => (0, 0),
        };
        check(
            &session,
            Role::Iris,
            Resize::EyeContour,
            contour >= 16 && iris == 5,
        )?;
        Ok(IrisModel {
            session,
            contour,
            scratch: Vec::new(),
        })
    }

    pub fn model_id(&self) -> String {
        self.session.model_id()
    }

    pub fn input_spec(&self) -> &InputSpec {
        &self.session.card.input
    }

    /// The square about an eye whose corners run `start` → `end` (left to right in the photo);
    /// `mirrored` for the photo's right-hand eye.
    pub fn crop(
        &self,
        img: &RgbImage,
        start: [f32; 2],
        end: [f32; 2],
        mirrored: bool,
    ) -> LandmarkCrop {
        let (dx, dy) = (end[0] - start[0], end[1] - start[1]);
        let (size, _) = self.session.card.input.hw();
        LandmarkCrop::square(
            img,
            [(start[0] + end[0]) / 2.0, (start[1] + end[1]) / 2.0],
            dx.hypot(dy) * EYE_CROP_SCALE,
            dy.atan2(dx),
            size as u32,
            mirrored,
        )
    }

    /// Both eyes of a mesh, the photo's left-hand eye first.
    pub fn eyes_of(
        &mut self,
        img: &RgbImage,
        mesh: &MeshPoints,
    ) -> Result<[EyePoints; 2], EngineError> {
        let eye = |i: usize| {
            let (s, e) = EYE_CORNERS[i];
            (mesh.photo[s], mesh.photo[e])
        };
        let (ls, le) = eye(0);
        let (rs, re) = eye(1);
        let left = self.crop(img, ls, le, false);
        let right = self.crop(img, rs, re, true);
        Ok([self.run(&left)?, self.run(&right)?])
    }

    /// The model's raw outputs for a crop (the release gate compares these).
    pub fn run_raw(&mut self, crop: &LandmarkCrop) -> Result<Vec<Output>, EngineError> {
        run_crop(&mut self.session, &mut self.scratch, crop)
    }

    pub fn run(&mut self, crop: &LandmarkCrop) -> Result<EyePoints, EngineError> {
        let outputs = self.run_raw(crop)?;
        let id = self.model_id();
        let contour = output(&outputs, 0, self.contour * 3, &id)?;
        let iris = output(&outputs, 1, 15, &id)?;
        let point = |p: &[f32]| crop.unmirror(p[0], p[1]);
        let mut ring = [[0.0; 2]; 5];
        for (slot, p) in ring.iter_mut().zip(iris.chunks_exact(3)) {
            *slot = point(p);
        }
        Ok(EyePoints {
            contour: contour.chunks_exact(3).map(point).collect(),
            iris: ring,
            side: crop.pixels.width() as f32,
        })
    }
}
