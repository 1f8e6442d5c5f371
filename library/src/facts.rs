//! The facts a photographer reads beside the photo: camera, lens, focal length, shutter,
//! aperture, ISO and capture time. Tags are decoded by kamadak-exif, never here; this module
//! only says where the EXIF is: the file itself for JPEG, TIFF-based RAWs (CR2, NEF, ARW, DNG,
//! ORF, PEF), PNG, WebP and HEIF; a CR3's CMT1/CMT2 TIFF blocks and a RAF's preview (found by
//! `preview`); for any other RAW, its largest embedded preview's EXIF, which cameras copy from
//! the file's.

use std::io::{Cursor, Read};
use std::path::Path;

use exif::{Exif, Field, In, Value};

use crate::af::{self, Af};
use crate::error::LibraryError;
use crate::formats;
use crate::preview;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub camera: Option<String>,
    pub lens: Option<String>,
    pub focal_mm: Option<f64>,
    /// Exposure time in seconds, as the camera wrote it (numerator, denominator).
    pub shutter: Option<(u32, u32)>,
    pub aperture: Option<f64>,
    pub iso: Option<u32>,
    /// DateTimeOriginal as "YYYY-MM-DD HH:MM:SS" (the camera's clock, no zone).
    pub taken: Option<String>,
    /// Exposure compensation (ExposureBiasValue), EV; an exposure bracket steps through it.
    pub exposure_bias: Option<f64>,
    /// ExposureMode says "auto bracket": the camera shot this frame as part of a bracket.
    pub auto_bracket: bool,
    /// The body's serial number (BodySerialNumber): two bodies of one model told apart.
    pub serial: Option<String>,
    /// The EXIF orientation (1–8: how the photo is turned and flipped for showing).
    pub orientation: Option<u16>,
    /// Where the camera focused, from its maker notes; None where they hold no AF record.
    pub af: Option<Af>,
}

// EXIF tag numbers (CIPA DC-008): matched by number, since a CR3's CMT2 block holds the EXIF
// IFD's tags in its IFD0, where the reader files them under the TIFF context.
const MAKE: u16 = 0x010F;
const MODEL: u16 = 0x0110;
const EXPOSURE_TIME: u16 = 0x829A;
const F_NUMBER: u16 = 0x829D;
const ISO: u16 = 0x8827;
const DATE_TIME_ORIGINAL: u16 = 0x9003;
const EXPOSURE_BIAS: u16 = 0x9204;
const FOCAL_LENGTH: u16 = 0x920A;
const EXPOSURE_MODE: u16 = 0xA402;
const BODY_SERIAL_NUMBER: u16 = 0xA431;
/// ExposureMode's value for "auto bracket" (0 auto, 1 manual, 2 auto bracket).
const EXPOSURE_MODE_AUTO_BRACKET: u32 = 2;
const LENS_MODEL: u16 = 0xA434;
const ORIENTATION: u16 = 0x0112;
const MAKER_NOTE: u16 = 0x927C;
const PIXEL_X_DIMENSION: u16 = 0xA002;
const PIXEL_Y_DIMENSION: u16 = 0xA003;

impl Facts {
    pub fn is_empty(&self) -> bool {
        *self == Facts::default()
    }

    /// The body that took the photo, as one shoot tells its cameras apart: "Canon EOS R6
    /// #012345" where the serial is known, else the camera alone; None without a camera. The
    /// key a clock correction is kept under.
    pub fn body(&self) -> Option<String> {
        let camera = self.camera.as_deref()?;
        Some(match self.serial.as_deref().map(str::trim) {
            Some(serial) if !serial.is_empty() => format!("{camera} #{serial}"),
            _ => camera.to_owned(),
        })
    }

    /// What is known, in the order photographers read it: "Canon EOS R6 · RF24-105mm F4 L IS
    /// USM · 105 mm · 1/250 s · f/4 · ISO 400 · 2020-10-27 13:40:12".
    pub fn line(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(self.camera.clone());
        parts.extend(self.lens.clone());
        parts.extend(self.focal_mm.map(|f| format!("{} mm", trim(f, 1))));
        parts.extend(self.shutter.map(shutter_words));
        parts.extend(self.aperture.map(|a| format!("f/{}", trim(a, 1))));
        parts.extend(self.iso.map(|i| format!("ISO {i}")));
        parts.extend(
            self.exposure_bias
                .filter(|b| b.abs() >= 0.05)
                .map(|b| format!("{}{} EV", if b > 0.0 { "+" } else { "−" }, trim(b.abs(), 1))),
        );
        parts.extend(self.auto_bracket.then(|| "bracket".to_owned()));
        parts.extend(self.taken.clone());
        parts.join(" · ")
    }

    /// The exposure value the frame was shot at, ISO 100 equivalent (log2 of N²/t, less the
    /// ISO's stops above 100): frames of one bracket step through it. None without the time
    /// and the aperture.
    pub fn exposure_value(&self) -> Option<f64> {
        let (num, den) = self.shutter?;
        let t = f64::from(num) / f64::from(den.max(1));
        let n = self.aperture?;
        if t <= 0.0 || n <= 0.0 {
            return None;
        }
        let iso = f64::from(self.iso.unwrap_or(100).max(1));
        Some((n * n / t).log2() - (iso / 100.0).log2())
    }
}

/// `v` with at most `places` decimals and no trailing zeros: 4 → "4", 2.8 → "2.8".
fn trim(v: f64, places: usize) -> String {
    let s = format!("{v:.places$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// "1/250 s" under a second, "2 s" or "1.3 s" from one.
fn shutter_words((num, den): (u32, u32)) -> String {
    let seconds = f64::from(num) / f64::from(den.max(1));
    if seconds >= 1.0 || num == 0 {
        format!("{} s", trim(seconds, 1))
    } else {
        format!("1/{} s", (1.0 / seconds).round())
    }
}

/// The facts of the photo at `path`. A file with no EXIF anywhere has empty facts; only a
/// file that cannot be read is an error.
pub fn read(path: &Path) -> Result<Facts, LibraryError> {
    if !formats::is_raw(path) {
        // A JPEG's EXIF is at its start: the reader stops there, not 12 MB later.
        let file = crate::regular::open_photo(path)
            .map_err(|e| LibraryError::io("cannot read", path, &e))?;
        let found = tolerant(reader().read_from_container(&mut std::io::BufReader::new(file)));
        return Ok(facts_of(&found.into_iter().collect::<Vec<_>>(), &[]));
    }
    // A RAW's EXIF is in its first blocks (a CR3's CMT boxes within 64 KiB, a TIFF-based
    // RAW's IFDs): its head is read first, more only when the head names neither the camera
    // nor the time. The ingest's survey reads every file of a card this way before the first
    // byte is copied, at the card's speed: 256 KiB of 240 RAWs is 60 MB, 2 MiB would be 480.
    let mut file =
        crate::regular::open_photo(path).map_err(|e| LibraryError::io("cannot read", path, &e))?;
    let mut head = Vec::with_capacity(RAW_HEADS[0]);
    for &upto in RAW_HEADS {
        (&mut file)
            .take((upto - head.len()) as u64)
            .read_to_end(&mut head)
            .map_err(|e| LibraryError::io("cannot read", path, &e))?;
        let facts = from_bytes(&head, true);
        if head.len() < upto || facts.camera.is_some() && facts.taken.is_some() {
            return Ok(facts);
        }
    }
    let data =
        crate::regular::read_photo(path).map_err(|e| LibraryError::io("cannot read", path, &e))?;
    Ok(from_bytes(&data, true))
}

/// How much of a RAW is read for its facts, in turn, before the whole of it (exiv2's CR3 needs
/// 64 KiB, its DNG 16 KiB).
const RAW_HEADS: &[usize] = &[256 << 10, 2 << 20];

/// The facts in a file's bytes (`raw`: look in its previews too). Damaged EXIF gives what
/// could be read of it.
pub fn from_bytes(data: &[u8], raw: bool) -> Facts {
    let mut found: Vec<Exif> = Vec::new();
    found.extend(in_container(data));
    for block in preview::exif_blocks(data) {
        let Some(bytes) = data.get(block) else {
            continue;
        };
        if bytes.starts_with(&[0xFF, 0xD8]) {
            found.extend(in_container(bytes));
        } else {
            found.extend(tolerant(reader().read_raw(bytes.to_vec())));
        }
    }
    if found.is_empty()
        && raw
        && let Ok(p) = preview::largest(data)
        && let Some(jpeg) = data.get(p.range)
    {
        found.extend(in_container(jpeg));
    }
    let maker_blocks: Vec<&[u8]> = preview::maker_note_blocks(data)
        .into_iter()
        .filter_map(|r| data.get(r))
        .collect();
    facts_of(&found, &maker_blocks)
}

/// A reader that goes on past a damaged entry: it costs that entry, not the rest.
fn reader() -> exif::Reader {
    let mut r = exif::Reader::new();
    r.continue_on_error(true);
    r
}

fn tolerant(read: Result<Exif, exif::Error>) -> Option<Exif> {
    read.or_else(|e| e.distill_partial_result(|_| {})).ok()
}

fn in_container(data: &[u8]) -> Option<Exif> {
    tolerant(reader().read_from_container(&mut Cursor::new(data)))
}

/// `maker_blocks`: maker notes kept outside the EXIF, as TIFF blocks of their own (a CR3's).
fn facts_of(found: &[Exif], maker_blocks: &[&[u8]]) -> Facts {
    // The primary image's entry first, then any other (a CR3's EXIF block, a thumbnail's).
    let field = |number: u16| {
        let primary = found
            .iter()
            .flat_map(|e| e.fields())
            .find(|f| f.tag.number() == number && f.ifd_num == In::PRIMARY);
        primary.or_else(|| {
            found
                .iter()
                .flat_map(|e| e.fields())
                .find(|f| f.tag.number() == number)
        })
    };
    let make = field(MAKE).and_then(text);
    let model = field(MODEL).and_then(text);
    Facts {
        camera: camera(make, model),
        lens: field(LENS_MODEL).and_then(text),
        focal_mm: field(FOCAL_LENGTH)
            .and_then(rational)
            .map(|(n, d)| ratio(n, d)),
        shutter: field(EXPOSURE_TIME)
            .and_then(rational)
            .filter(|&(_, d)| d > 0),
        aperture: field(F_NUMBER)
            .and_then(rational)
            .map(|(n, d)| ratio(n, d))
            .filter(|a| *a > 0.0),
        iso: field(ISO)
            .and_then(|f| f.value.get_uint(0))
            .filter(|&i| i > 0),
        taken: field(DATE_TIME_ORIGINAL)
            .and_then(text)
            .and_then(|t| date(&t)),
        exposure_bias: field(EXPOSURE_BIAS).and_then(signed_ratio),
        auto_bracket: field(EXPOSURE_MODE)
            .and_then(|f| f.value.get_uint(0))
            .is_some_and(|m| m == EXPOSURE_MODE_AUTO_BRACKET),
        serial: field(BODY_SERIAL_NUMBER).and_then(text),
        orientation: field(ORIENTATION)
            .and_then(|f| f.value.get_uint(0))
            .and_then(|o| u16::try_from(o).ok())
            .filter(|o| (1..=8).contains(o)),
        af: af_of(found, maker_blocks, &field),
    }
}

/// The AF points in the maker notes: the EXIF's MakerNote, else a block of its own.
fn af_of<'a>(
    found: &'a [Exif],
    maker_blocks: &[&[u8]],
    field: &dyn Fn(u16) -> Option<&'a Field>,
) -> Option<Af> {
    let raw_text = |number| {
        field(number).and_then(|f| match &f.value {
            Value::Ascii(parts) => parts.first().map(|p| {
                String::from_utf8_lossy(p)
                    .trim_matches(|c: char| c == '\0' || c.is_whitespace())
                    .to_owned()
            }),
            _ => None,
        })
    };
    let make = raw_text(MAKE)?;
    let model = raw_text(MODEL).unwrap_or_default();
    let dimension = |number| field(number).and_then(|f| f.value.get_uint(0));
    let ctx = af::Context {
        make: &make,
        model: &model,
        exif_size: dimension(PIXEL_X_DIMENSION).zip(dimension(PIXEL_Y_DIMENSION)),
        orientation: field(ORIENTATION)
            .and_then(|f| f.value.get_uint(0))
            .and_then(|o| u8::try_from(o).ok())
            .and_then(image::metadata::Orientation::from_exif)
            .unwrap_or(image::metadata::Orientation::NoTransforms),
    };
    let in_exif = found.iter().find_map(|exif| {
        let note = exif.fields().find(|f| f.tag.number() == MAKER_NOTE)?;
        let Value::Undefined(bytes, offset) = &note.value else {
            return None;
        };
        af::read(
            &af::Note {
                tiff: exif.buf(),
                little: exif.little_endian(),
                start: usize::try_from(*offset).ok()?,
                len: bytes.len(),
                own_tiff: false,
            },
            &ctx,
        )
    });
    in_exif.or_else(|| {
        maker_blocks.iter().find_map(|block| {
            af::read(
                &af::Note {
                    tiff: block,
                    little: true,
                    start: 0,
                    len: block.len(),
                    own_tiff: true,
                },
                &ctx,
            )
        })
    })
}

fn ratio(n: u32, d: u32) -> f64 {
    f64::from(n) / f64::from(d.max(1))
}

fn text(f: &Field) -> Option<String> {
    let Value::Ascii(parts) = &f.value else {
        return None;
    };
    let s = String::from_utf8_lossy(parts.first()?);
    let s = s.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    (!s.is_empty()).then(|| s.to_owned())
}

fn signed_ratio(f: &Field) -> Option<f64> {
    match &f.value {
        Value::SRational(v) => v
            .first()
            .filter(|r| r.denom != 0)
            .map(|r| f64::from(r.num) / f64::from(r.denom)),
        Value::Rational(v) => v
            .first()
            .filter(|r| r.denom != 0)
            .map(|r| ratio(r.num, r.denom)),
        _ => None,
    }
}

fn rational(f: &Field) -> Option<(u32, u32)> {
    match &f.value {
        Value::Rational(v) => v.first().map(|r| (r.num, r.denom)),
        _ => None,
    }
}

/// "Canon" + "Canon EOS R6" → "Canon EOS R6"; "NIKON CORPORATION" + "NIKON D850" → "NIKON
/// D850"; "FUJIFILM" + "X-T4" → "FUJIFILM X-T4".
fn camera(make: Option<String>, model: Option<String>) -> Option<String> {
    match (make, model) {
        (Some(make), Some(model)) => {
            let brand = make.split_whitespace().next().unwrap_or("").to_lowercase();
            if model.to_lowercase().starts_with(&brand) {
                Some(model)
            } else {
                Some(format!("{make} {model}"))
            }
        }
        (make, model) => model.or(make),
    }
}

/// "2020:10:27 13:40:12" → "2020-10-27 13:40:12"; anything else (a blank "    :  :  ",
/// which cameras without a clock write) is not a date.
fn date(t: &str) -> Option<String> {
    let b = t.as_bytes().get(..19)?;
    let digit = |i: usize| b[i].is_ascii_digit();
    let shaped = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        .into_iter()
        .all(digit)
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b' '
        && b[13] == b':'
        && b[16] == b':';
    // All ASCII now, so the slices below fall on characters.
    shaped.then(|| format!("{}-{}-{}", &t[0..4], &t[5..7], &t[8..19]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_reads_as_photographers_write_it() {
        let f = Facts {
            camera: camera(Some("Canon".into()), Some("Canon EOS R6".into())),
            lens: Some("RF24-105mm F4 L IS USM".into()),
            focal_mm: Some(105.0),
            shutter: Some((1, 250)),
            aperture: Some(4.0),
            iso: Some(400),
            taken: date("2020:10:27 13:40:12"),
            exposure_bias: Some(-2.0 / 3.0),
            auto_bracket: true,
            serial: Some("012345".into()),
            orientation: None,
            af: None,
        };
        assert_eq!(
            f.line(),
            "Canon EOS R6 · RF24-105mm F4 L IS USM · 105 mm · 1/250 s · f/4 · ISO 400 · \
             −0.7 EV · bracket · 2020-10-27 13:40:12"
        );
        // f/4 at 1/250 s and ISO 400: log2(16 × 250) − 2.
        let ev = f.exposure_value().expect("time and aperture known");
        assert!((ev - (4000f64.log2() - 2.0)).abs() < 1e-9, "{ev}");
        assert_eq!(shutter_words((13, 10)), "1.3 s");
        assert_eq!(shutter_words((10, 4000)), "1/400 s");
        assert_eq!(trim(2.8, 1), "2.8");
        assert_eq!(
            camera(Some("FUJIFILM".into()), Some("X-T4".into())).as_deref(),
            Some("FUJIFILM X-T4")
        );
        assert_eq!(date("2020:10:27"), None);
        assert_eq!(date("    :  :     :  :  "), None);
        assert!(Facts::default().is_empty());
    }

    #[test]
    fn bytes_without_exif_have_no_facts_and_no_error() {
        assert!(from_bytes(b"not a photo", true).is_empty());
        assert!(from_bytes(&[0xFF, 0xD8, 0xFF, 0xE1, 0x00], false).is_empty());
    }
}
