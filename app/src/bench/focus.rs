//! `darkroom bench-focus PHOTO…`: how well the focus measures see blur whose truth is known.
//! Each photo (at the analysis's 1,024 px) is blurred in series — the whole frame with a
//! Gaussian (σ 0.5–4) and with motion (3–15 px), only the subject, only the background, only
//! the eyes — and measured as the index measures it. Reports, per measure: the rank
//! correlation of focus with blur strength; the share of subject-only blurs called "subject
//! soft"; the share of eye-only blurs (eyes ≥ 16 px apart) called "eyes soft"; background-only
//! blurs called "subject soft"; and originals called soft at all (docs/SUBJECT-FOCUS.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use darkroom_engine::face::eye_distance;
use darkroom_engine::image_io;
use darkroom_index::{Models, Thresholds, analysis, focus, luma};
use image::RgbImage;
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON instead of lines.
    #[arg(long)]
    json: bool,
    #[arg(required = true)]
    photos: Vec<PathBuf>,
}

/// Gaussian blurs of the whole frame, σ in the analysis's pixels.
const SIGMAS: &[f32] = &[0.5, 1.0, 1.5, 2.0, 3.0, 4.0];
/// Horizontal motion blurs of the whole frame, in pixels.
const MOTION: &[u32] = &[3, 5, 9, 15];
/// The blur of a part (subject, background, eyes): a photographer's clear miss.
const PART_SIGMA: f32 = 2.0;
/// The bars (issue 25).
const BAR_CORRELATION: f64 = 0.9;
const BAR_CAUGHT: f64 = 0.9;
const BAR_FALSE_SOFT: f64 = 0.05;

#[derive(Debug, Serialize)]
struct PhotoRow {
    path: PathBuf,
    /// Spearman's ρ of sharpness against blur strength (original first), negated: 1 is a
    /// perfect ranking.
    gaussian_correlation: f64,
    motion_correlation: f64,
    /// Subject-only blur: None without a subject.
    subject_caught: Option<bool>,
    /// Background-only blur called "subject soft".
    background_false_soft: Option<bool>,
    /// Eye-only blurs, per face whose eyes can be judged: caught or not.
    eyes_caught: Vec<bool>,
    /// Per such face: its eyes' figure over its face's, as shot and with the eyes blurred (what
    /// `Thresholds::eyes_to_face_at_least` is set from).
    eyes_to_face: Vec<(f32, f32)>,
    /// The original called "subject soft" or "eyes soft".
    original_soft: bool,
}

#[derive(Debug, Serialize)]
struct Summary {
    photos: usize,
    gaussian_correlation_min: f64,
    motion_correlation_min: f64,
    subject_caught: (usize, usize),
    background_false_soft: (usize, usize),
    eyes_caught: (usize, usize),
    originals_soft: (usize, usize),
    bars_met: bool,
}

/// What the index measures on one rendition of a photo.
struct Measured {
    sharpness: f32,
    subject_soft: Option<bool>,
    /// Per original face: eyes soft, where judged.
    eyes_soft: Vec<Option<bool>>,
    /// Per original face: the eyes' figure over the face's, where judged.
    eyes_to_face: Vec<Option<f32>>,
}

pub fn main(a: Args) -> anyhow::Result<ExitCode> {
    let sessions = crate::services::sessions(None)?;
    let (backend, wait) = crate::services::start(sessions.store().clone(), false)?;
    backend.wait_ready(wait);
    let pin = backend.pin();
    let mut models = darkroom_index::open_models(&sessions, &pin, None, None)?;
    if models.segmenters.id().is_none() {
        bail!(
            "no segmenter installed in {}",
            sessions.store().dir().display()
        );
    }
    let t = Thresholds::default();
    let mut rows = Vec::new();
    for path in &a.photos {
        let img = image_io::load_rgb(path)?;
        rows.push(photo(path.clone(), &analysis_size(&img), &mut models, &t)?);
    }
    let count = |f: &dyn Fn(&PhotoRow) -> Vec<bool>| {
        let all: Vec<bool> = rows.iter().flat_map(f).collect();
        (all.iter().filter(|&&b| b).count(), all.len())
    };
    let share = |(n, of): (usize, usize)| if of == 0 { 1.0 } else { n as f64 / of as f64 };
    let min = |f: &dyn Fn(&PhotoRow) -> f64| rows.iter().map(f).fold(f64::INFINITY, f64::min);
    let subject_caught = count(&|r| r.subject_caught.into_iter().collect());
    let eyes_caught = count(&|r| r.eyes_caught.clone());
    let originals_soft = count(&|r| vec![r.original_soft]);
    let background_false_soft = count(&|r| r.background_false_soft.into_iter().collect());
    let gaussian = min(&|r| r.gaussian_correlation);
    let motion = min(&|r| r.motion_correlation);
    let summary = Summary {
        photos: rows.len(),
        gaussian_correlation_min: gaussian,
        motion_correlation_min: motion,
        bars_met: gaussian >= BAR_CORRELATION
            && motion >= BAR_CORRELATION
            && share(subject_caught) >= BAR_CAUGHT
            && share(eyes_caught) >= BAR_CAUGHT
            && share(originals_soft) <= BAR_FALSE_SOFT,
        subject_caught,
        background_false_soft,
        eyes_caught,
        originals_soft,
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"photos": rows, "summary": summary}))?
        );
    } else {
        for r in &rows {
            println!(
                "{}: ρ gaussian {:.2}, motion {:.2} · subject blur {} · background blur {} · eye blurs caught {}/{} · original {}",
                r.path.display(),
                r.gaussian_correlation,
                r.motion_correlation,
                r.subject_caught
                    .map_or("-", |c| if c { "caught" } else { "missed" }),
                r.background_false_soft
                    .map_or("-", |f| if f { "called soft" } else { "fine" }),
                r.eyes_caught.iter().filter(|&&c| c).count(),
                r.eyes_caught.len(),
                if r.original_soft {
                    "called soft"
                } else {
                    "fine"
                }
            );
        }
        let s = &summary;
        println!(
            "{} photos · rank correlation min: gaussian {:.2}, motion {:.2} (bar {BAR_CORRELATION}) · subject-only caught {}/{} · eye-only caught {}/{} (bar {BAR_CAUGHT}) · background-only called soft {}/{} · originals called soft {}/{} (bar {BAR_FALSE_SOFT}) · bars {}",
            s.photos,
            s.gaussian_correlation_min,
            s.motion_correlation_min,
            s.subject_caught.0,
            s.subject_caught.1,
            s.eyes_caught.0,
            s.eyes_caught.1,
            s.background_false_soft.0,
            s.background_false_soft.1,
            s.originals_soft.0,
            s.originals_soft.1,
            if s.bars_met { "met" } else { "NOT met" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The photo at the analysis's scale, where blur strengths are given.
fn analysis_size(img: &RgbImage) -> RgbImage {
    let long = img.width().max(img.height());
    if long <= focus::PHOTO_SIDE {
        return img.clone();
    }
    let s = focus::PHOTO_SIDE as f32 / long as f32;
    darkroom_engine::face::resize_bilinear(
        img,
        ((img.width() as f32 * s).round() as u32).max(1),
        ((img.height() as f32 * s).round() as u32).max(1),
    )
}

fn photo(
    path: PathBuf,
    img: &RgbImage,
    models: &mut Models,
    t: &Thresholds,
) -> anyhow::Result<PhotoRow> {
    let (w, h) = img.dimensions();
    let faces = models.detector.detect(img)?;
    let subject = models
        .segmenters
        .find(img, w, h)
        .map_err(anyhow::Error::msg)?
        .map(|s| s.mask);
    let mut measure = |img: &RgbImage| -> anyhow::Result<Measured> {
        let small = focus::at_photo_side(&luma::of(img));
        let (lw, lh) = small.dimensions();
        let subject_soft = match models
            .segmenters
            .find(img, lw, lh)
            .map_err(anyhow::Error::msg)?
        {
            Some(s) => {
                let f = focus::subject(&small, &s.mask);
                f.subject
                    .map(|v| analysis::subject_soft(v, f.background, t))
            }
            None => None,
        };
        let eyes: Vec<Option<(f32, f32)>> = faces
            .iter()
            .map(|f| {
                (eye_distance(&f.landmarks) >= t.eyes_min_distance_px)
                    .then(|| focus::eyes(img, f.bbox, &f.landmarks))
                    .flatten()
                    .map(|e| (e, focus::face(img, f.bbox)))
            })
            .collect();
        Ok(Measured {
            sharpness: focus::laplacian_variance(&small),
            subject_soft,
            eyes_soft: eyes
                .iter()
                .map(|e| e.map(|(e, f)| analysis::eyes_soft(Some(e), f, t)))
                .collect(),
            eyes_to_face: eyes
                .iter()
                .map(|e| e.map(|(e, f)| e / f.max(1e-6)))
                .collect(),
        })
    };
    let original = measure(img)?;
    let mut gaussian = vec![original.sharpness];
    for &s in SIGMAS {
        gaussian.push(measure(&image::imageops::blur(img, s))?.sharpness);
    }
    let mut motion = vec![original.sharpness];
    for &len in MOTION {
        motion.push(measure(&motion_blur(img, len))?.sharpness);
    }
    let blurred = image::imageops::blur(img, PART_SIGMA);
    let (mut subject_caught, mut background_false_soft) = (None, None);
    if let Some(mask) = &subject {
        let inside = composite(img, &blurred, |x, y| mask.get(x, y));
        subject_caught = measure(&inside)?.subject_soft;
        let outside = composite(img, &blurred, |x, y| !mask.get(x, y));
        background_false_soft = measure(&outside)?.subject_soft;
    }
    let (mut eyes_caught, mut eyes_to_face) = (Vec::new(), Vec::new());
    for (k, f) in faces.iter().enumerate() {
        if original.eyes_soft.get(k).copied().flatten().is_none() {
            continue;
        }
        let half = eye_distance(&f.landmarks) * 0.3;
        let near = |x: u32, y: u32| {
            f.landmarks[..2].iter().any(|[ex, ey]| {
                (x as f32 + 0.5 - ex).abs() <= half && (y as f32 + 0.5 - ey).abs() <= half
            })
        };
        let eyes = measure(&composite(img, &blurred, near))?;
        eyes_caught.push(eyes.eyes_soft.get(k).copied().flatten() == Some(true));
        if let (Some(a), Some(b)) = (
            original.eyes_to_face.get(k).copied().flatten(),
            eyes.eyes_to_face.get(k).copied().flatten(),
        ) {
            eyes_to_face.push((a, b));
        }
    }
    Ok(PhotoRow {
        path,
        gaussian_correlation: -spearman(&gaussian),
        motion_correlation: -spearman(&motion),
        subject_caught,
        background_false_soft,
        eyes_caught,
        eyes_to_face,
        original_soft: original.subject_soft == Some(true)
            || original.eyes_soft.contains(&Some(true)),
    })
}

/// `sharp` where `take` is false, `soft` where it is true.
fn composite(sharp: &RgbImage, soft: &RgbImage, take: impl Fn(u32, u32) -> bool) -> RgbImage {
    RgbImage::from_fn(sharp.width(), sharp.height(), |x, y| {
        if take(x, y) {
            *soft.get_pixel(x, y)
        } else {
            *sharp.get_pixel(x, y)
        }
    })
}

/// A horizontal box blur of `len` pixels: a camera moving sideways during the exposure.
fn motion_blur(img: &RgbImage, len: u32) -> RgbImage {
    let (w, h) = img.dimensions();
    let half = (len / 2) as i64;
    RgbImage::from_fn(w, h, |x, y| {
        let mut sum = [0u32; 3];
        let mut n = 0u32;
        for dx in -half..=half {
            let xx = (x as i64 + dx).clamp(0, w as i64 - 1) as u32;
            let p = img.get_pixel(xx, y);
            for c in 0..3 {
                sum[c] += u32::from(p[c]);
            }
            n += 1;
        }
        image::Rgb(sum.map(|s| (s / n) as u8))
    })
}

/// Spearman's ρ between the position in `values` (blur strength, rising) and the values.
fn spearman(values: &[f32]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut rank = vec![0.0f64; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0;
        for &k in &order[i..=j] {
            rank[k] = r;
        }
        i = j + 1;
    }
    let mean = (n - 1) as f64 / 2.0;
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (k, &r) in rank.iter().enumerate() {
        let (a, b) = (k as f64 - mean, r - mean);
        cov += a * b;
        va += a * a;
        vb += b * b;
    }
    if va == 0.0 || vb == 0.0 {
        0.0
    } else {
        cov / (va * vb).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkroom_engine::subject::Mask;

    #[test]
    fn spearman_ranks_a_falling_series_as_minus_one() {
        assert!((spearman(&[9.0, 7.0, 5.0, 1.0]) + 1.0).abs() < 1e-9);
        assert!((spearman(&[1.0, 2.0, 3.0]) - 1.0).abs() < 1e-9);
        let mostly = spearman(&[9.0, 7.0, 8.0, 1.0]);
        assert!(mostly < -0.7 && mostly > -1.0, "{mostly}");
    }

    #[test]
    fn a_mask_picks_which_pixels_are_blurred() {
        let sharp = RgbImage::from_pixel(4, 1, image::Rgb([0, 0, 0]));
        let soft = RgbImage::from_pixel(4, 1, image::Rgb([9, 9, 9]));
        let mask = Mask::from_fn(4, 1, |x, _| x >= 2);
        let mixed = composite(&sharp, &soft, |x, y| mask.get(x, y));
        assert_eq!(mixed.get_pixel(1, 0)[0], 0);
        assert_eq!(mixed.get_pixel(2, 0)[0], 9);
        assert_eq!(motion_blur(&soft, 5).get_pixel(0, 0)[0], 9);
    }
}
