//! Exposure and misfires, from the tones the index measured on each photo (`looks`): a frame
//! nearly all black (a lens cap, a flash that did not fire), nearly all white, with more of it
//! clipped than the strictness allows, or with no subject and no detail (the ground, a
//! defocused wall). The limits are data, one row per strictness in the proposal's table.

use darkroom_catalog::LookRow;
use serde::{Deserialize, Serialize};

/// What one strictness calls a misfire or an exposure to reject.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExposureRules {
    /// A frame this share black (luma ≤ `looks::BLACK_LEVEL`) or more is a misfire.
    pub black_at_least: f32,
    /// A frame this share white (luma ≥ `looks::WHITE_LEVEL`) or more is a misfire.
    pub white_at_least: f32,
    /// A frame with more than this share clipped (a channel at 255) is badly exposed; None:
    /// clipping alone is never a reason.
    pub clipped_above: Option<f32>,
    /// A frame with no face and no sharp subject is a misfire below this sharpness…
    pub no_detail_sharpness_below: f32,
    /// …and this contrast (the luma's standard deviation as a share of its range).
    pub no_detail_contrast_below: f32,
}

/// The rows of the proposal's strictness table (`proposal::STRICTNESS`). Black and white are
/// measured on luma levels well inside the ends (`looks`), so a share of 95% is a frame with
/// nothing in it, not a low-key portrait; clipping a quarter of a frame loses a bride's dress.
pub const LENIENT: ExposureRules = ExposureRules {
    black_at_least: 0.98,
    white_at_least: 0.98,
    clipped_above: None,
    no_detail_sharpness_below: 5.0,
    no_detail_contrast_below: 0.08,
};
pub const BALANCED: ExposureRules = ExposureRules {
    black_at_least: 0.95,
    white_at_least: 0.95,
    clipped_above: Some(0.5),
    no_detail_sharpness_below: 10.0,
    no_detail_contrast_below: 0.12,
};
pub const STRICT: ExposureRules = ExposureRules {
    black_at_least: 0.9,
    white_at_least: 0.9,
    clipped_above: Some(0.25),
    no_detail_sharpness_below: 15.0,
    no_detail_contrast_below: 0.15,
};

/// What is wrong with a frame's exposure, with the measure that says so.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum Misfire {
    /// Nearly all black: the share that is.
    Black { share: f32 },
    /// Nearly all white.
    White { share: f32 },
    /// No face, no sharp subject, no detail.
    NoDetail { sharpness: f32, contrast: f32 },
}

/// A frame clipped past the limit (not a misfire: the photo may still be the one).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Clipped {
    pub share: f32,
}

/// What the exposure rules find in a frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Verdict {
    pub misfire: Option<Misfire>,
    pub clipped: Option<Clipped>,
}

/// The frame judged: `sharpness` the photo's, `judged_subject` whether a face or a sharp
/// subject gives it one.
pub fn judge(
    look: &LookRow,
    sharpness: f32,
    judged_subject: bool,
    rules: &ExposureRules,
) -> Verdict {
    let misfire = if look.black >= rules.black_at_least {
        Some(Misfire::Black { share: look.black })
    } else if look.white >= rules.white_at_least {
        Some(Misfire::White { share: look.white })
    } else if !judged_subject
        && sharpness < rules.no_detail_sharpness_below
        && look.contrast < rules.no_detail_contrast_below
    {
        Some(Misfire::NoDetail {
            sharpness,
            contrast: look.contrast,
        })
    } else {
        None
    };
    let clipped = rules
        .clipped_above
        .filter(|&limit| look.clipped > limit)
        .map(|_| Clipped {
            share: look.clipped,
        });
    Verdict { misfire, clipped }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: ExposureRules = BALANCED;

    fn look(black: f32, white: f32, clipped: f32, contrast: f32) -> LookRow {
        LookRow {
            black,
            white,
            clipped,
            contrast,
            ..LookRow::default()
        }
    }

    #[test]
    fn black_white_and_featureless_frames_are_misfires_and_clipping_is_its_own_reason() {
        let v = |l: LookRow, sharp: f32, subject: bool| judge(&l, sharp, subject, &RULES);
        assert_eq!(
            v(look(0.97, 0.0, 0.0, 0.02), 0.5, false).misfire,
            Some(Misfire::Black { share: 0.97 })
        );
        assert_eq!(
            v(look(0.0, 0.96, 0.96, 0.02), 0.5, false),
            Verdict {
                misfire: Some(Misfire::White { share: 0.96 }),
                clipped: Some(Clipped { share: 0.96 })
            }
        );
        assert_eq!(
            v(look(0.1, 0.0, 0.0, 0.05), 3.0, false).misfire,
            Some(Misfire::NoDetail {
                sharpness: 3.0,
                contrast: 0.05
            })
        );
        // A face, a sharp subject, detail or contrast: not a misfire.
        assert_eq!(v(look(0.1, 0.0, 0.0, 0.05), 3.0, true), Verdict::default());
        assert_eq!(
            v(look(0.1, 0.0, 0.0, 0.05), 30.0, false),
            Verdict::default()
        );
        assert_eq!(v(look(0.1, 0.0, 0.0, 0.3), 3.0, false), Verdict::default());
        // A dark photo that is not black, a bright one with some clipping: fine.
        assert_eq!(v(look(0.8, 0.0, 0.0, 0.2), 50.0, false), Verdict::default());
        assert_eq!(
            v(look(0.0, 0.5, 0.45, 0.2), 50.0, false),
            Verdict::default()
        );
        let lenient = ExposureRules {
            clipped_above: None,
            ..RULES
        };
        assert_eq!(
            judge(&look(0.0, 0.5, 0.9, 0.2), 50.0, false, &lenient).clipped,
            None
        );
    }
}
