//! What a face is doing, measured on its mesh and its eyes' points: how open each eye is,
//! how much it smiles, where it looks and how its head is turned. The measures are geometry
//! (ratios in the crops' upright frames, so a face's size and roll do not change them); what
//! counts as closed, smiling or looking away is [`ExpressionRules`], data calibrated on faces a
//! person labelled (docs/EXPRESSIONS.md).

use image::RgbImage;
use serde::{Deserialize, Serialize};

use super::Face;
use super::mesh::{EyePoints, FaceMesh, IrisModel, MeshPoints};
use crate::error::EngineError;

/// Mesh points the measures read (MediaPipe's numbering).
mod at {
    /// The face's outline at the cheeks, the photo's left then right.
    pub const CHEEKS: (usize, usize) = (234, 454);
    /// The top of the forehead and the chin.
    pub const BROW_CHIN: (usize, usize) = (10, 152);
    /// The mouth's corners, left then right.
    pub const MOUTH_CORNERS: (usize, usize) = (61, 291);
    /// The inner lips' middles, upper then lower.
    pub const LIPS: (usize, usize) = (13, 14);
}

/// The iris model's lid points: an upper-lid point over its lower-lid partner.
const LID_PAIRS: [(usize, usize); 3] = [(11, 3), (12, 4), (13, 5)];
const CORNERS: (usize, usize) = (0, 8);

/// An eye's radius as a share of its corner-to-corner width: how far the iris moves for a turn.
const EYEBALL_RADIUS: f32 = 0.43;

/// One face's expression.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Expression {
    /// Each eye's lid gap over its width, the photo's left-hand eye first.
    pub eye_open: [f32; 2],
    /// The mouth corners' lift over the lips' middle plus its widening, in mouth widths.
    pub smile: f32,
    /// Where the eyes look, in degrees from the camera: yaw (+ to the photo's right) and pitch
    /// (+ down); the head's turn and the irises' offset together.
    pub gaze: [f32; 2],
    /// The head's turn in degrees: yaw (+ nose to the photo's right), pitch (+ face down).
    pub head: [f32; 2],
}

/// An eye's state, from its openness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Openness {
    Closed,
    Half,
    Open,
}

/// What the measures mean: thresholds as data.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpressionRules {
    /// An eye under this openness is closed …
    pub closed_below: f32,
    /// … and under this, half closed.
    pub half_below: f32,
    /// A face at or over this smile smiles.
    pub smile_from: f32,
    /// Eyes whose gaze turns this many degrees or more to either side look away …
    pub away_from_deg: f32,
    /// … and so do eyes this many degrees or more above or below `level_pitch_deg`.
    pub away_pitch_from_deg: f32,
    /// The gaze pitch the mesh reads on a face looking straight at the camera (its depth
    /// axis leans: frontal faces read about this much "down").
    pub level_pitch_deg: f32,
    /// A head turned this far (yaw) shows too little of its far eye to judge it.
    pub profile_from_deg: f32,
    /// The mesh's probability that its crop holds a face, under which it judges nothing.
    pub mesh_face_from: f32,
}

/// Calibrated on the 70 labelled faces of assets/corpus/expressions.toml (`darkroom
/// bench-expressions`; docs/EXPRESSIONS.md): open eyes read 0.21–0.45, closed ones 0.08–0.18
/// where the mesh sees the lids meet.
pub const EXPRESSION_RULES: ExpressionRules = ExpressionRules {
    closed_below: 0.15,
    half_below: 0.2,
    smile_from: 0.09,
    away_from_deg: 15.0,
    away_pitch_from_deg: 20.0,
    level_pitch_deg: 6.0,
    profile_from_deg: 45.0,
    mesh_face_from: 0.5,
};

impl ExpressionRules {
    pub fn openness(&self, value: f32) -> Openness {
        if value < self.closed_below {
            Openness::Closed
        } else if value < self.half_below {
            Openness::Half
        } else {
            Openness::Open
        }
    }

    /// Both eyes' states, the photo's left-hand eye first. An eye on the far side of a head
    /// turned into profile is judged by the near one.
    pub fn eyes(&self, e: &Expression) -> [Openness; 2] {
        let [l, r] = e.eye_open;
        let yaw = e.head[0];
        // Turned to the photo's right, the right-hand eye is the far one.
        let seen = if yaw >= self.profile_from_deg {
            [l, l]
        } else if yaw <= -self.profile_from_deg {
            [r, r]
        } else {
            e.eye_open
        };
        seen.map(|v| self.openness(v))
    }

    /// Both eyes closed, or one closed and the other not open: a blink.
    pub fn blinking(&self, e: &Expression) -> bool {
        matches!(
            self.eyes(e),
            [Openness::Closed, Openness::Closed | Openness::Half]
                | [Openness::Half, Openness::Closed]
        )
    }

    pub fn smiling(&self, e: &Expression) -> bool {
        e.smile >= self.smile_from
    }

    pub fn looking_away(&self, e: &Expression) -> bool {
        e.gaze[0].abs() >= self.away_from_deg
            || (e.gaze[1] - self.level_pitch_deg).abs() >= self.away_pitch_from_deg
    }
}

fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// An eye's lid gap over its width.
pub fn eye_openness(eye: &EyePoints) -> f32 {
    let c = &eye.contour;
    let width = dist(c[CORNERS.0], c[CORNERS.1]).max(1e-3);
    let gap: f32 = LID_PAIRS.iter().map(|&(u, l)| dist(c[u], c[l])).sum();
    gap / (LID_PAIRS.len() as f32 * width)
}

/// The iris's offset from the eye's middle, in eye widths: x (+ to the photo's right), y (+ down).
pub fn iris_offset(eye: &EyePoints) -> [f32; 2] {
    let c = &eye.contour;
    let (a, b) = (c[CORNERS.0], c[CORNERS.1]);
    let width = dist(a, b).max(1e-3);
    let lids: f32 = LID_PAIRS
        .iter()
        .map(|&(u, l)| (c[u][1] + c[l][1]) / 2.0)
        .sum::<f32>()
        / LID_PAIRS.len() as f32;
    let mid = [(a[0] + b[0]) / 2.0, lids];
    [
        (eye.iris[0][0] - mid[0]) / width,
        (eye.iris[0][1] - mid[1]) / width,
    ]
}

impl Expression {
    pub fn measure(mesh: &MeshPoints, eyes: &[EyePoints; 2]) -> Expression {
        let p = |i: usize| mesh.upright[i];
        let xy = |i: usize| [p(i)[0], p(i)[1]];
        let (cl, cr) = at::CHEEKS;
        let yaw = (p(cr)[2] - p(cl)[2])
            .atan2(p(cr)[0] - p(cl)[0])
            .to_degrees();
        let (brow, chin) = at::BROW_CHIN;
        let pitch = (p(chin)[2] - p(brow)[2])
            .atan2(p(chin)[1] - p(brow)[1])
            .to_degrees();
        let (ml, mr) = at::MOUTH_CORNERS;
        let (up, low) = at::LIPS;
        let mouth = dist(xy(ml), xy(mr)).max(1e-3);
        let face = dist(xy(cl), xy(cr)).max(1e-3);
        let lift = ((p(up)[1] + p(low)[1]) - (p(ml)[1] + p(mr)[1])) / 2.0 / mouth;
        // A relaxed mouth is about 0.4 of the cheek-to-cheek width; a smile widens it.
        let smile = lift + (mouth / face - 0.4);
        let offsets = eyes.each_ref().map(iris_offset);
        let turn = |o: f32| (o / EYEBALL_RADIUS).clamp(-1.0, 1.0).asin().to_degrees();
        let eye_yaw = (turn(offsets[0][0]) + turn(offsets[1][0])) / 2.0;
        let eye_pitch = (turn(offsets[0][1]) + turn(offsets[1][1])) / 2.0;
        Expression {
            eye_open: eyes.each_ref().map(eye_openness),
            smile,
            gaze: [yaw + eye_yaw, pitch + eye_pitch],
            head: [yaw, pitch],
        }
    }
}

/// The mesh and the iris model together: what each face is doing.
pub struct ExpressionReader {
    pub mesh: FaceMesh,
    pub iris: IrisModel,
}

impl ExpressionReader {
    /// The two models' ids joined by '+', as the catalog records them.
    pub fn model_id(&self) -> String {
        format!("{}+{}", self.mesh.model_id(), self.iris.model_id())
    }

    /// The expression of a face the detector found; None when the mesh sees no face in its
    /// crop (a false detection, a face hidden by a hand).
    pub fn read(
        &mut self,
        img: &RgbImage,
        face: &Face,
        rules: &ExpressionRules,
    ) -> Result<Option<Expression>, EngineError> {
        let crop = self.mesh.crop(img, face);
        let mesh = self.mesh.run(&crop)?;
        if mesh.face_score < rules.mesh_face_from {
            return Ok(None);
        }
        let eyes = self.iris.eyes_of(img, &mesh)?;
        Ok(Some(Expression::measure(&mesh, &eyes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eye(gap: f32, iris_x: f32) -> EyePoints {
        let mut contour = vec![[32.0, 32.0]; 71];
        contour[0] = [20.0, 32.0];
        contour[8] = [44.0, 32.0];
        for (u, l) in LID_PAIRS {
            contour[u] = [32.0, 32.0 - gap / 2.0];
            contour[l] = [32.0, 32.0 + gap / 2.0];
        }
        EyePoints {
            contour,
            iris: [[32.0 + iris_x, 32.0]; 5],
            side: 64.0,
        }
    }

    #[test]
    fn openness_is_the_lid_gap_over_the_width() {
        assert!((eye_openness(&eye(6.0, 0.0)) - 0.25).abs() < 1e-6);
        assert_eq!(EXPRESSION_RULES.openness(0.25), Openness::Open);
        assert_eq!(EXPRESSION_RULES.openness(0.17), Openness::Half);
        assert_eq!(EXPRESSION_RULES.openness(0.05), Openness::Closed);
    }

    #[test]
    fn an_iris_off_centre_is_a_gaze_off_the_camera() {
        assert_eq!(iris_offset(&eye(6.0, 0.0)), [0.0, 0.0]);
        let o = iris_offset(&eye(6.0, 4.8));
        assert!((o[0] - 0.2).abs() < 1e-6, "{o:?}");
    }

    #[test]
    fn a_far_eye_in_profile_is_judged_by_the_near_one() {
        let e = Expression {
            eye_open: [0.3, 0.02],
            smile: 0.0,
            gaze: [0.0, 0.0],
            head: [60.0, 0.0],
        };
        assert_eq!(EXPRESSION_RULES.eyes(&e), [Openness::Open; 2]);
        assert!(!EXPRESSION_RULES.blinking(&e));
        let frontal = Expression {
            head: [0.0, 0.0],
            ..e
        };
        assert_eq!(
            EXPRESSION_RULES.eyes(&frontal),
            [Openness::Open, Openness::Closed]
        );
    }
}
