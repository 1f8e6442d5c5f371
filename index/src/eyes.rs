//! Who judges a face's eyes, and what each face is doing. The face mesh (MediaPipe's, with its
//! iris model) measures every face's expression where it is installed; the eyes' verdict is the
//! mesh's unless the person chose the eye-state model (Settings, `darkroom index --eye-judge`),
//! and either stands in where the other cannot judge.

use std::time::Instant;

use darkroom_catalog::ExpressionRow;
use darkroom_engine::face::{
    EXPRESSION_RULES, Expression, ExpressionReader, EyeClassifier, Face, eye_distance,
};
use serde::{Deserialize, Serialize};

/// Which model's verdict `eyes_closed` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EyeJudge {
    /// The face mesh's lids (a blink: both eyes closed, or one closed and one half).
    #[default]
    Mesh,
    /// The eye-state model's two crops.
    Classifier,
}

impl EyeJudge {
    pub const ALL: [EyeJudge; 2] = [EyeJudge::Mesh, EyeJudge::Classifier];

    pub fn name(self) -> &'static str {
        match self {
            EyeJudge::Mesh => "mesh",
            EyeJudge::Classifier => "classifier",
        }
    }
}

impl std::str::FromStr for EyeJudge {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EyeJudge::ALL
            .into_iter()
            .find(|j| j.name() == s)
            .ok_or_else(|| format!("no eye judge {s:?} (mesh or classifier)"))
    }
}

/// The models that look at eyes, as a job opened them.
pub struct EyeModels<'a> {
    pub classifier: Option<&'a mut EyeClassifier>,
    pub mesh: Option<&'a mut ExpressionReader>,
    pub judge: EyeJudge,
}

/// One face's eyes and expression.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Judged {
    pub eyes_closed: Option<bool>,
    pub expression: Option<ExpressionRow>,
    /// Milliseconds in the mesh and in the eye-state model.
    pub mesh_ms: f64,
    pub classifier_ms: f64,
}

impl EyeModels<'_> {
    /// The model_id the catalog records as the eyes' judge: the chosen one where installed,
    /// else the other.
    pub fn judge_id(&self) -> Option<String> {
        let mesh = self.mesh.as_ref().map(|m| m.model_id());
        let classifier = self.classifier.as_ref().map(|c| c.model_id());
        match self.judge {
            EyeJudge::Mesh => mesh.or(classifier),
            EyeJudge::Classifier => classifier.or(mesh),
        }
    }

    pub fn mesh_id(&self) -> Option<String> {
        self.mesh.as_ref().map(|m| m.model_id())
    }

    /// Judge a face in `img` (its box and landmarks in `img`'s pixels). Eyes closer together
    /// than `min_distance` pixels are too small: nothing is guessed. `open_at_least` is the
    /// eye-state model's threshold on its mean probability of open.
    pub fn judge(
        &mut self,
        img: &image::RgbImage,
        face: &Face,
        min_distance: f32,
        open_at_least: f32,
    ) -> Result<Judged, String> {
        let mut out = Judged::default();
        if eye_distance(&face.landmarks) < min_distance {
            return Ok(out);
        }
        let mut by_mesh = None;
        if let Some(mesh) = self.mesh.as_deref_mut() {
            let t = Instant::now();
            let read = mesh
                .read(img, face, &EXPRESSION_RULES)
                .map_err(|e| e.to_string())?;
            out.mesh_ms = ms(t);
            by_mesh = read.map(|e| EXPRESSION_RULES.blinking(&e));
            out.expression = read.as_ref().map(expression_row);
        }
        let wants_classifier = self.judge == EyeJudge::Classifier || by_mesh.is_none();
        let mut by_classifier = None;
        if let Some(classifier) = self.classifier.as_deref_mut().filter(|_| wants_classifier) {
            let t = Instant::now();
            let [l, r] = classifier
                .classify_face(img, &face.landmarks)
                .map_err(|e| e.to_string())?;
            out.classifier_ms = ms(t);
            by_classifier = Some((l.p_open + r.p_open) / 2.0 < open_at_least);
        }
        out.eyes_closed = match self.judge {
            EyeJudge::Mesh => by_mesh.or(by_classifier),
            EyeJudge::Classifier => by_classifier.or(by_mesh),
        };
        Ok(out)
    }
}

pub fn expression_row(e: &Expression) -> ExpressionRow {
    ExpressionRow {
        eye_open: e.eye_open,
        smile: e.smile,
        gaze: e.gaze,
        head: e.head,
    }
}

/// The engine's view of a stored row, for the rules that read it.
pub fn expression_of(row: &ExpressionRow) -> Expression {
    Expression {
        eye_open: row.eye_open,
        smile: row.smile,
        gaze: row.gaze,
        head: row.head,
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
