//! Model cards: what the engine knows about every model, read from `assets/models.toml`.
//!
//! A card says what a model is (role, family, numeric form), what it eats (input name, shape,
//! layout, colour order, normalisation), what it returns (the output contract) and which bytes
//! it is (file name, sha256, size). Cards are data; nothing else in the engine names a model.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::EngineError;

/// The built-in cards, compiled in so the binary never runs without them.
const BUILTIN_CARDS: &str = include_str!("../../assets/models.toml");

pub use crate::role::Role;

/// How the weights compute. Part of a model's identity (`model_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NumericForm {
    F32,
    Fp16,
    Int8,
}

impl NumericForm {
    fn id_suffix(self) -> &'static str {
        match self {
            NumericForm::F32 => "",
            NumericForm::Fp16 => "_f16",
            NumericForm::Int8 => "_i8",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layout {
    #[serde(rename = "NCHW")]
    Nchw,
    #[serde(rename = "NHWC")]
    Nhwc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    #[serde(rename = "RGB")]
    Rgb,
    #[serde(rename = "BGR")]
    Bgr,
    Grey,
}

impl Colour {
    pub fn channels(self) -> usize {
        match self {
            Colour::Rgb | Colour::Bgr => 3,
            Colour::Grey => 1,
        }
    }
}

/// How a photo becomes the model's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resize {
    /// Scale to fit, keep aspect, pad right and bottom (SCRFD).
    LetterboxTopLeft,
    /// Scale to fit, keep aspect, pad evenly (YOLO).
    LetterboxCentre,
    /// Scale to the input size, ignoring aspect.
    Stretch,
    /// 5-point similarity alignment to the ArcFace 112x112 template.
    #[serde(rename = "arcface_5point")]
    Arcface5point,
    /// 5-point similarity alignment to dlib's 150x150 face chip (`face::DLIB_TEMPLATE`).
    #[serde(rename = "dlib_5point")]
    Dlib5point,
    /// A square around one eye landmark.
    EyeCrop,
    /// A square about the face's box, 1.5× its longer side, turned upright by its eyes
    /// (MediaPipe's face mesh).
    FaceMesh,
    /// A square about one eye's corners, 2.3× their distance, the eye line level; the photo's
    /// right-hand eye mirrored (MediaPipe's iris model sees left eyes).
    EyeContour,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    pub name: String,
    /// Expected shape; the model may declare dynamic dimensions where this is concrete.
    pub shape: Vec<i64>,
    pub layout: Layout,
    pub colour: Colour,
    pub mean: Vec<f32>,
    pub std: Vec<f32>,
    pub resize: Resize,
}

impl InputSpec {
    /// (height, width) of the model input.
    pub fn hw(&self) -> (usize, usize) {
        let dims: Vec<usize> = self.shape.iter().map(|&d| d.max(1) as usize).collect();
        match (self.layout, dims.as_slice()) {
            (Layout::Nchw, [_, _, h, w]) => (*h, *w),
            (Layout::Nhwc, [_, h, w, _]) => (*h, *w),
            _ => (0, 0),
        }
    }
}

/// Class names: inline, or the name of a list in `[class_lists]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Classes {
    Inline(Vec<String>),
    Named(String),
}

/// What a model's outputs mean, so the decoder that reads them is chosen by data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "contract", rename_all = "snake_case", deny_unknown_fields)]
pub enum OutputContract {
    /// SCRFD with keypoints: score/bbox/kps heads per stride, `anchors_per_cell` anchors.
    ScrfdKps {
        strides: Vec<u32>,
        anchors_per_cell: u32,
        score_threshold: f32,
        nms_iou: f32,
    },
    /// CenterFace: on a grid a quarter of the input's size, a face-centre heatmap, the log of
    /// each face's height and width over 4, the centre's sub-cell offset and 5 landmarks as
    /// fractions of the face's size; four outputs in that order (1, 2, 2 and 10 channels).
    #[serde(rename = "centerface")]
    CenterFace { score_threshold: f32, nms_iou: f32 },
    /// One vector per input, L2-normalised by the engine. `same_person`: the cosine to a
    /// person's centre at which a face joins them, measured for this embedder on labelled faces
    /// (absent: the index's own threshold, which was measured for ArcFace-style embedders).
    Embedding {
        dim: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        same_person: Option<f32>,
    },
    /// Logits over `classes`, in this order.
    Classes { classes: Classes },
    /// YOLO segmentation: boxes + class scores + mask coefficients, and prototype masks. Either
    /// YOLOv8/11's `[1, 4 + classes + mask_protos, anchors]` (centre and size, before NMS) or an
    /// end-to-end export's `[1, detections, 6 + mask_protos]` (corners, score, class); the
    /// prototypes are `[1, mask_protos, H/4, W/4]`.
    YoloSeg {
        classes: Classes,
        mask_protos: usize,
        score_threshold: f32,
        nms_iou: f32,
        /// An instance's pixels: sigmoid(coefficients · prototypes) above this.
        mask_threshold: f32,
    },
    /// Salient-object maps (U²-Net): `maps` outputs of `[1, 1, H, W]` probabilities, the first
    /// the fused one that is read; the subject is where it is above `mask_threshold`.
    Salient { maps: usize, mask_threshold: f32 },
    /// Per-pixel logits over `classes`.
    Semantic { classes: Classes },
    /// A face mesh: `points` × (x, y, z) in the crop's pixels, then the logit that the crop
    /// holds a face.
    FaceMesh { points: usize },
    /// One eye: `contour` × (x, y, z) (lids, halos, brow), then `iris` × (x, y, z) (centre
    /// first), in the crop's pixels.
    Iris { contour: usize, iris: usize },
}

/// One model the app knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCard {
    pub family: String,
    pub role: Role,
    pub numeric_form: NumericForm,
    /// The dtype at the graph boundary (an fp16 graph may keep f32 IO).
    pub io_dtype: NumericForm,
    /// File name inside the models dir.
    pub file: String,
    /// Pinned content hash. None: not obtainable here; a user imports the file.
    pub sha256: Option<String>,
    pub size: Option<u64>,
    pub licence: String,
    pub source: String,
    /// A test fixture: never shipped in a package.
    pub fixture_only: bool,
    /// The `[[download]]` that provides this file, if it has a canonical upstream.
    pub download: Option<String>,
    /// The file's name inside that download when the download is an archive.
    pub member: Option<String>,
    /// The derived form (an id in `assets/model-forms.toml`) this file is, made by the release
    /// tool: the card is offered only while a release record for that form, with this file's
    /// hash and a passing verdict, is built in (the releases module).
    #[serde(default)]
    pub form: Option<String>,
    pub input: InputSpec,
    pub output: OutputContract,
}

impl ModelCard {
    /// `family` + numeric form: `scrfd_2.5g`, `scrfd_2.5g_i8`.
    pub fn model_id(&self) -> String {
        format!("{}{}", self.family, self.numeric_form.id_suffix())
    }
}

/// How a download is packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveKind {
    /// The download is the model file itself.
    File,
    Zip,
}

/// A file at a canonical upstream URL that provides one or more cards' files. It is pinned by
/// sha256 (and by size where the size is known here) before anything in it is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownloadSource {
    pub id: String,
    /// What a person is shown: "InsightFace buffalo_s pack".
    pub title: String,
    pub url: String,
    pub sha256: String,
    pub size: Option<u64>,
    pub archive: ArchiveKind,
    /// Shown, and accepted, before the download starts.
    pub licence: String,
}

impl DownloadSource {
    /// The last path segment of the URL: the name a mirror serves it under.
    pub fn file_name(&self) -> &str {
        self.url.rsplit('/').next().unwrap_or(&self.url)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CardsFile {
    model: Vec<ModelCard>,
    #[serde(default)]
    download: Vec<DownloadSource>,
    #[serde(default)]
    class_lists: BTreeMap<String, Vec<String>>,
}

/// All known cards, by model_id, with class lists resolved.
#[derive(Debug, Clone)]
pub struct CardSet {
    cards: Vec<ModelCard>,
    downloads: Vec<DownloadSource>,
    class_lists: BTreeMap<String, Vec<String>>,
}

impl CardSet {
    /// The cards compiled into the binary.
    pub fn builtin() -> Result<Self, EngineError> {
        Self::parse(BUILTIN_CARDS, "assets/models.toml (built in)")
    }

    /// Parse a cards file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, EngineError> {
        let file: CardsFile = toml::from_str(text).map_err(|e| EngineError::CardsInvalid {
            reason: e.to_string(),
            origin: origin.to_owned(),
        })?;
        let set = CardSet {
            cards: file.model,
            downloads: file.download,
            class_lists: file.class_lists,
        };
        set.validate(origin)?;
        Ok(set)
    }

    fn validate(&self, origin: &str) -> Result<(), EngineError> {
        let invalid = |reason: String| EngineError::CardsInvalid {
            reason,
            origin: origin.to_owned(),
        };
        let is_hash = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit());
        let mut sources = std::collections::BTreeSet::new();
        for d in &self.downloads {
            if !sources.insert(d.id.as_str()) {
                return Err(invalid(format!("download {} appears twice", d.id)));
            }
            if !is_hash(&d.sha256) {
                return Err(invalid(format!(
                    "download {}: sha256 must be 64 hex digits",
                    d.id
                )));
            }
            if !d.url.starts_with("https://") {
                return Err(invalid(format!("download {}: url must be https", d.id)));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for card in &self.cards {
            let id = card.model_id();
            if !seen.insert(id.clone()) {
                return Err(invalid(format!("model_id {id} appears twice")));
            }
            let channels = card.input.colour.channels();
            if card.input.mean.len() != channels || card.input.std.len() != channels {
                return Err(invalid(format!(
                    "{id}: mean/std need {channels} values for {:?} input",
                    card.input.colour
                )));
            }
            if card.input.std.contains(&0.0) {
                return Err(invalid(format!("{id}: std must not be zero")));
            }
            if card.input.hw() == (0, 0) {
                return Err(invalid(format!(
                    "{id}: input shape does not match its layout"
                )));
            }
            if let Some(h) = &card.sha256
                && !is_hash(h)
            {
                return Err(invalid(format!("{id}: sha256 must be 64 hex digits")));
            }
            if let Some(source) = &card.download {
                let Some(d) = self.downloads.iter().find(|d| &d.id == source) else {
                    return Err(invalid(format!("{id}: unknown download {source}")));
                };
                match (d.archive, &card.member) {
                    (ArchiveKind::Zip, None) => {
                        return Err(invalid(format!(
                            "{id}: download {source} is an archive; name the member"
                        )));
                    }
                    (ArchiveKind::File, Some(_)) => {
                        return Err(invalid(format!(
                            "{id}: download {source} is a plain file; it has no member"
                        )));
                    }
                    _ => {}
                }
            } else if card.member.is_some() {
                return Err(invalid(format!("{id}: member without a download")));
            }
            if let Some(classes) = card.classes_ref()
                && let Classes::Named(name) = classes
                && !self.class_lists.contains_key(name)
            {
                return Err(invalid(format!("{id}: unknown class list {name}")));
            }
        }
        Ok(())
    }

    pub fn iter(&self) -> impl Iterator<Item = &ModelCard> {
        self.cards.iter()
    }

    pub fn get(&self, model_id: &str) -> Result<&ModelCard, EngineError> {
        self.cards
            .iter()
            .find(|c| c.model_id() == model_id)
            .ok_or_else(|| EngineError::UnknownModel {
                model_id: model_id.to_owned(),
            })
    }

    pub fn downloads(&self) -> &[DownloadSource] {
        &self.downloads
    }

    /// The download that provides a card's file, if it names one.
    pub fn download_of(&self, card: &ModelCard) -> Option<&DownloadSource> {
        let id = card.download.as_deref()?;
        self.downloads.iter().find(|d| d.id == id)
    }

    /// Cards for one role, in file order (which is smallest-first for detectors).
    pub fn by_role(&self, role: Role) -> impl Iterator<Item = &ModelCard> {
        self.cards.iter().filter(move |c| c.role == role)
    }

    /// A card's class names in order, if its contract has classes.
    pub fn classes(&self, card: &ModelCard) -> Option<Vec<String>> {
        match card.classes_ref()? {
            Classes::Inline(v) => Some(v.clone()),
            Classes::Named(name) => self.class_lists.get(name).cloned(),
        }
    }
}

impl ModelCard {
    fn classes_ref(&self) -> Option<&Classes> {
        match &self.output {
            OutputContract::Classes { classes }
            | OutputContract::YoloSeg { classes, .. }
            | OutputContract::Semantic { classes } => Some(classes),
            OutputContract::ScrfdKps { .. }
            | OutputContract::CenterFace { .. }
            | OutputContract::Embedding { .. }
            | OutputContract::Salient { .. }
            | OutputContract::FaceMesh { .. }
            | OutputContract::Iris { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_cards_parse_and_cover_every_role() {
        let set = CardSet::builtin().expect("built-in cards parse");
        for role in [
            Role::Detector,
            Role::Embedder,
            Role::EyeState,
            Role::Segmenter,
            Role::Scene,
            Role::FaceMesh,
            Role::Iris,
        ] {
            assert!(set.by_role(role).count() > 0, "no card for {role}");
        }
        let ids: Vec<String> = set.iter().map(ModelCard::model_id).collect();
        for id in [
            "scrfd_500m",
            "scrfd_2.5g",
            "scrfd_10g",
            "w600k_mbf",
            "fr_feature",
            "fr_eye",
        ] {
            assert!(ids.iter().any(|i| i == id), "missing card {id}");
        }
        let seg = set.get("yolo_seg").expect("yolo card");
        assert_eq!(set.classes(seg).map(|c| c.len()), Some(80));
        let scene = set.get("ade20k_scene").expect("scene card");
        assert_eq!(set.classes(scene).map(|c| c.len()), Some(150));
        let eye = set.get("fr_eye").expect("eye card");
        assert_eq!(
            set.classes(eye),
            Some(vec!["closed".to_owned(), "open".to_owned()])
        );
    }

    #[test]
    fn numeric_form_is_part_of_model_id() {
        let set = CardSet::builtin().expect("built-in cards parse");
        let mut card = set.get("scrfd_2.5g").expect("card").clone();
        card.numeric_form = NumericForm::Int8;
        assert_eq!(card.model_id(), "scrfd_2.5g_i8");
        card.numeric_form = NumericForm::Fp16;
        assert_eq!(card.model_id(), "scrfd_2.5g_f16");
    }

    #[test]
    fn malformed_cards_are_refused_with_the_origin() {
        let dup = BUILTIN_CARDS.replace("family = \"scrfd_10g\"", "family = \"scrfd_2.5g\"");
        let err = CardSet::parse(&dup, "dup.toml").expect_err("duplicate ids refused");
        assert!(err.to_string().contains("appears twice"), "{err}");
        assert!(err.to_string().ends_with("dup.toml"), "{err}");

        let bad_hash = BUILTIN_CARDS.replace(
            "20b8a951fb1cf0afb32c3704ee3c08ee792ac90ebe2b4db79e7250e49ed2976c",
            "xyz",
        );
        let err = CardSet::parse(&bad_hash, "hash.toml").expect_err("bad hash refused");
        assert!(err.to_string().contains("64 hex digits"), "{err}");

        let err = CardSet::parse("model = 3", "junk.toml").expect_err("junk refused");
        assert!(matches!(err, EngineError::CardsInvalid { .. }));
    }

    #[test]
    fn downloads_are_checked_against_the_cards_that_name_them() {
        let set = CardSet::builtin().expect("built-in cards parse");
        let det = set.get("scrfd_500m").expect("card");
        let pack = set.download_of(det).expect("a download");
        assert_eq!(pack.file_name(), "buffalo_s.zip");
        assert_eq!(det.member.as_deref(), Some("det_500m.onnx"));
        assert!(
            set.download_of(set.get("scrfd_10g").expect("card"))
                .is_none()
        );

        let refuse = |text: String, needle: &str| {
            let err = CardSet::parse(&text, "t.toml").expect_err(needle);
            assert!(err.to_string().contains(needle), "{err}");
        };
        refuse(
            BUILTIN_CARDS.replace(
                "download = \"insightface_buffalo_s\"\nmember = \"det_500m.onnx\"",
                "download = \"nowhere\"\nmember = \"det_500m.onnx\"",
            ),
            "unknown download nowhere",
        );
        refuse(
            BUILTIN_CARDS.replace("member = \"det_500m.onnx\"\n", ""),
            "name the member",
        );
        refuse(
            BUILTIN_CARDS.replace(
                "url = \"https://github.com/deepinsight",
                "url = \"http://github.com/deepinsight",
            ),
            "must be https",
        );
    }
}
