//! What is fuzzed, and what each target checks of the answer.

use darkroom_catalog::{ColourLabel, Decision, Flag, Label, xmp};
use darkroom_library::budget::{Budget, MAX_PIXELS};
use darkroom_library::{jpeg, jpeg_dc, preview};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// preview::largest and for_side on any bytes: every container's walk and the JPEG
    /// header probe.
    Preview,
    /// Capture time and orientation, from any container.
    Exif,
    /// The DC-only JPEG decoder.
    JpegDc,
    /// libjpeg-turbo at ⅛ and at full scale, as every decode path calls it: a picture it
    /// makes has the size the header said, scaled.
    JpegTurbo,
    /// XMP read and merge: a merge that succeeds must read back as the decision merged.
    Xmp,
}

impl Target {
    pub const ALL: [Target; 5] = [
        Target::Preview,
        Target::Exif,
        Target::JpegDc,
        Target::JpegTurbo,
        Target::Xmp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Preview => "preview",
            Target::Exif => "exif",
            Target::JpegDc => "jpeg-dc",
            Target::JpegTurbo => "jpeg-turbo",
            Target::Xmp => "xmp",
        }
    }

    /// Run one input; Err is a broken property (a panic is caught by the runner).
    pub fn run(self, data: &[u8], state: u64) -> Result<(), String> {
        match self {
            Target::Preview => check_preview(data),
            Target::Exif => {
                if let Some(t) = preview::capture_time(data)
                    && !t.is_finite()
                {
                    return Err(format!("capture time {t} is not finite"));
                }
                let _ = preview::orientation(data);
                let _ = preview::exif_orientation(data);
                Ok(())
            }
            Target::JpegDc => match jpeg_dc::decode(data, 1, &Budget::start()) {
                Ok(Some(img)) if img.width() == 0 || img.height() == 0 => {
                    Err("an empty picture decoded".to_owned())
                }
                _ => Ok(()),
            },
            Target::JpegTurbo => check_jpeg_turbo(data, state),
            Target::Xmp => check_xmp(data, state),
        }
    }
}

fn check_jpeg_turbo(data: &[u8], state: u64) -> Result<(), String> {
    // Half the inputs at full scale, half at an eighth: both of libjpeg-turbo's paths.
    let eighths = if state.is_multiple_of(2) { 8 } else { 1 };
    let at = |n: u32| (u64::from(n) * eighths).div_ceil(8) as u32;
    // Eight megapixels: a mutated header claiming 180 MP would decode (correctly) for seconds
    // and read as a slow input; what breaks a decoder breaks it at any size.
    let budget = Budget::new(8_000_000, darkroom_library::budget::MAX_DECODE_TIME);
    let Some(out) = jpeg::decode(data, &budget, |w, h| (at(w), at(h))) else {
        return Ok(());
    };
    let (w, h) = out.full_size;
    let want = (at(w), at(h));
    let made = (out.image.width(), out.image.height());
    if made.0 < want.0 || made.1 < want.1 || made.0 > w || made.1 > h {
        return Err(format!(
            "{w}x{h} asked at {eighths}/8 made {}x{}",
            made.0, made.1
        ));
    }
    Ok(())
}

fn check_preview(data: &[u8]) -> Result<(), String> {
    // A grid cell's choice (the smallest that fills 256 px) on the same terms as the loupe's.
    if let Ok(p) = preview::for_side(data, 256) {
        check_one(data, &p)?;
    }
    let Ok(p) = preview::largest(data) else {
        return Ok(());
    };
    check_one(data, &p)
}

fn check_one(data: &[u8], p: &preview::Preview) -> Result<(), String> {
    let bytes = data
        .get(p.range.clone())
        .ok_or_else(|| format!("preview range {:?} outside {} bytes", p.range, data.len()))?;
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err(format!("preview at {:?} is not a JPEG", p.range));
    }
    if u64::from(p.width) * u64::from(p.height) > MAX_PIXELS {
        return Err(format!("{}x{} preview over the budget", p.width, p.height));
    }
    if p.width.max(p.height) < preview::MIN_PREVIEW_LONG_EDGE {
        return Err(format!(
            "{}x{} preview under the minimum",
            p.width, p.height
        ));
    }
    Ok(())
}

/// The decision merged: drawn from the input's state, so a finding replays exactly.
pub fn decision(state: u64) -> Decision {
    let flag = [Flag::Unflagged, Flag::Pick, Flag::Reject][(state % 3) as usize];
    let stars = ((state >> 2) % 6) as u8;
    let label = match (state >> 5) % 7 {
        0 => None,
        6 => Some(Label::Other("Second pass".to_owned())),
        n => Some(Label::Colour(ColourLabel::ALL[(n - 1) as usize])),
    };
    Decision { flag, stars, label }
}

fn check_xmp(data: &[u8], state: u64) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let _ = xmp::read(&text);
    let want = decision(state.rotate_left(17));
    let Ok(merged) = xmp::merge(&text, &want, Default::default()) else {
        return Ok(());
    };
    let fields = xmp::read(&merged).map_err(|e| format!("merged packet does not read: {e}"))?;
    let got = fields.decision();
    if got != want.as_in_sidecar() {
        return Err(format!(
            "merged {:?}, read back {got:?}",
            want.as_in_sidecar()
        ));
    }
    Ok(())
}
