//! The photo's subject, for its focus: the largest person, animal or vehicle an instance
//! segmenter finds, else the salient object. Only a photo that its faces do not judge has one:
//! a face whose eyes can be judged is the subject of its photo, and its own focus and its eyes'
//! say more than a mask of the person around it (and the segmenter, the costliest model of the
//! job, runs only where it is the judge).

use darkroom_catalog::{FaceRow, SubjectRow};
use darkroom_engine::subject::{InstanceSegmenter, Mask, SalientSegmenter};
use image::{GrayImage, RgbImage};
use serde::{Deserialize, Serialize};

use crate::focus;

/// The classes (COCO's names) that make a subject: what a photographer focuses on.
pub const SUBJECT_CLASSES: &[&str] = &[
    "person",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
];

/// Whether a photo's faces judge it: one of them had its eyes measured (they were far enough
/// apart, the index job's `eyes_min_distance_px`). Such a photo gets no subject: the job does
/// not look for one, and measuring an older index's row again drops the one it stored.
pub fn judged_by_faces(faces: &[FaceRow]) -> bool {
    judged_by_eyes(faces.iter().map(|f| f.eyes_sharpness))
}

/// The same rule on the faces' eye-level focus alone, for a photo whose rows are not built yet
/// (the index job decides on it before it runs the segmenter).
pub fn judged_by_eyes(eyes: impl IntoIterator<Item = Option<f32>>) -> bool {
    eyes.into_iter().any(|e| e.is_some())
}

/// Which photos the index looks for a subject in. The segmenter is the job's costliest model
/// (U²-Netp: half a second a photo on two cores, more than the faces' models together), so by
/// default it runs only where its verdict can change a decision: a frame no face judges that
/// competes with others of its burst or scene. A frame alone keeps the photographer's eye
/// (the loupe looks on request, `O`), and a frame of a bracket or a pan is judged with its set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubjectScope {
    /// Frames no face judges in a burst or a scene of two or more, outside a set.
    #[default]
    Deciding,
    /// Every photo no face judges.
    Everywhere,
}

impl SubjectScope {
    pub const ALL: [SubjectScope; 2] = [SubjectScope::Deciding, SubjectScope::Everywhere];

    pub fn name(self) -> &'static str {
        match self {
            SubjectScope::Deciding => "deciding",
            SubjectScope::Everywhere => "everywhere",
        }
    }
}

impl std::str::FromStr for SubjectScope {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SubjectScope::ALL
            .into_iter()
            .find(|j| j.name() == s)
            .ok_or_else(|| format!("{s:?}: one of deciding, everywhere"))
    }
}

/// Stored masks are this many times smaller on a side than the analysis's luma.
pub const STORED_MASK_DIVISOR: u32 = 8;

/// The segmenters a job runs, from its pin; either may be absent.
#[derive(Default)]
pub struct Segmenters {
    pub instances: Option<InstanceSegmenter>,
    pub salient: Option<SalientSegmenter>,
}

/// A subject found: its mask at the size asked for, what it is and who found it.
#[derive(Debug, Clone)]
pub struct Subject {
    pub mask: Mask,
    /// The instance's class; None for the salient object.
    pub class: Option<String>,
    pub score: f32,
    pub segmenter: String,
}

impl Segmenters {
    /// The model_ids that run, joined by '+' (the index stamp's), or None when none does.
    pub fn id(&self) -> Option<String> {
        let ids: Vec<String> = self
            .instances
            .iter()
            .map(InstanceSegmenter::model_id)
            .chain(self.salient.iter().map(SalientSegmenter::model_id))
            .collect();
        (!ids.is_empty()).then(|| ids.join("+"))
    }

    /// The photo's subject, its mask `width`×`height` over the whole photo.
    pub fn find(
        &mut self,
        img: &RgbImage,
        width: u32,
        height: u32,
    ) -> Result<Option<Subject>, String> {
        if let Some(seg) = self.instances.as_mut() {
            let found = seg.segment(img, width, height).map_err(|e| e.to_string())?;
            let largest = found
                .into_iter()
                .filter(|i| SUBJECT_CLASSES.contains(&i.class.as_str()))
                .map(|i| (i.mask.area(), i))
                .filter(|(area, _)| *area > 0)
                .max_by_key(|(area, _)| *area);
            if let Some((_, i)) = largest {
                return Ok(Some(Subject {
                    mask: i.mask,
                    class: Some(i.class),
                    score: i.score,
                    segmenter: seg.model_id(),
                }));
            }
        }
        let Some(seg) = self.salient.as_mut() else {
            return Ok(None);
        };
        let salient = seg.segment(img, width, height).map_err(|e| e.to_string())?;
        if salient.mask.area() == 0 {
            return Ok(None);
        }
        // How sure the model is of its subject: the map's mean where it said "subject".
        let sx = salient.map_width as f32 / width.max(1) as f32;
        let sy = salient.map_height as f32 / height.max(1) as f32;
        let (mut sum, mut n) = (0f64, 0usize);
        for y in 0..height {
            for x in 0..width {
                if salient.mask.get(x, y) {
                    let u = (((x as f32 + 0.5) * sx) as usize).min(salient.map_width - 1);
                    let v = (((y as f32 + 0.5) * sy) as usize).min(salient.map_height - 1);
                    sum += f64::from(salient.map[v * salient.map_width + u]);
                    n += 1;
                }
            }
        }
        Ok(Some(Subject {
            mask: salient.mask,
            class: None,
            score: (sum / n.max(1) as f64) as f32,
            segmenter: seg.model_id(),
        }))
    }
}

/// The subject's row: its focus inside and outside on `luma` (at [`focus::PHOTO_SIDE`], the
/// mask the same size) and the mask stored small. None when the subject is too small to judge.
pub fn row(subject: &Subject, luma: &GrayImage) -> Option<SubjectRow> {
    let f = focus::subject(luma, &subject.mask);
    let sharpness = f.subject?;
    let (w, h) = (
        subject.mask.width.div_ceil(STORED_MASK_DIVISOR),
        subject.mask.height.div_ceil(STORED_MASK_DIVISOR),
    );
    let small = subject.mask.resized(w, h);
    Some(SubjectRow {
        segmenter: subject.segmenter.clone(),
        class: subject.class.clone(),
        score: subject.score,
        mask_width: w,
        mask_height: h,
        mask: small.packed(),
        sharpness,
        background: f.background,
    })
}
