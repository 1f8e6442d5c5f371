//! The corpus manifest (`assets/corpus/*.toml`): real photographs by path and sha256, split
//! into a calibration and an evaluation set by group, each with the derived views that widen
//! the size bands. Loading it fails closed: a count that does not add up, a group on both
//! sides, a missing photo or one whose bytes differ from its hash is an error, never a skip.

use std::path::{Path, PathBuf};

use image::RgbImage;
use serde::Deserialize;

/// Why a corpus manifest cannot be used: the gate fails closed on each.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{what}: {cause}: {}", path.display())]
    Read {
        what: &'static str,
        cause: std::io::Error,
        path: PathBuf,
    },
    #[error("the corpus manifest is invalid: {cause}: {}", path.display())]
    Parse { cause: String, path: PathBuf },
    #[error("{0}")]
    View(String),
    #[error("{what}: {}", path.display())]
    Invalid { what: String, path: PathBuf },
}

fn invalid(what: String, path: &Path) -> CorpusError {
    CorpusError::Invalid {
        what,
        path: path.to_path_buf(),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    counts: Counts,
    #[serde(default)]
    photo: Vec<PhotoEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Counts {
    calibration: usize,
    evaluation: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhotoEntry {
    pub path: String,
    pub sha256: String,
    pub source: String,
    pub licence: String,
    pub group: String,
    pub set: String,
    #[serde(default = "full_only")]
    pub views: Vec<String>,
}

fn full_only() -> Vec<String> {
    vec!["full".to_owned()]
}

/// One set of a manifest, every photo checked against its hash.
#[derive(Debug)]
pub struct Corpus {
    pub manifest: PathBuf,
    pub manifest_sha256: String,
    pub set: String,
    pub photos: Vec<CorpusPhoto>,
}

#[derive(Debug)]
pub struct CorpusPhoto {
    pub entry: PhotoEntry,
    pub file: PathBuf,
    pub views: Vec<View>,
}

/// What the gate runs on besides the photo itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    Full,
    /// The photo scaled by this factor at the top-left of a black canvas of its own size.
    Canvas(f32),
    /// An N×N grid of crops.
    Tiles(u32),
}

impl View {
    pub fn parse(text: &str) -> Result<View, CorpusError> {
        if text == "full" {
            return Ok(View::Full);
        }
        if let Some(s) = text.strip_prefix("canvas:") {
            let s: f32 = s
                .parse()
                .map_err(|e| CorpusError::View(format!("view {text}: {e}")))?;
            if !(s > 0.0 && s < 1.0) {
                return Err(CorpusError::View(format!(
                    "view {text}: a canvas scale is between 0 and 1"
                )));
            }
            return Ok(View::Canvas(s));
        }
        if let Some(n) = text.strip_prefix("tiles:") {
            let n: u32 = n
                .parse()
                .map_err(|e| CorpusError::View(format!("view {text}: {e}")))?;
            if !(2..=8).contains(&n) {
                return Err(CorpusError::View(format!(
                    "view {text}: tiles are 2 to 8 a side"
                )));
            }
            return Ok(View::Tiles(n));
        }
        Err(CorpusError::View(format!(
            "unknown view {text} (full, canvas:S, tiles:N)"
        )))
    }

    pub fn name(&self) -> String {
        match self {
            View::Full => "full".to_owned(),
            View::Canvas(s) => format!("canvas:{s}"),
            View::Tiles(n) => format!("tiles:{n}"),
        }
    }

    /// The view's images, each with how its pixels map back onto the photo. The resize is the
    /// detector's own (PIL's antialiased bilinear), as the release tool's calibration makes it.
    pub fn apply(&self, photo: &RgbImage) -> Vec<(RgbImage, ToPhoto)> {
        let (w, h) = photo.dimensions();
        match *self {
            View::Full => vec![(photo.clone(), ToPhoto::IDENTITY)],
            View::Canvas(s) => {
                let sw = ((w as f32 * s).round() as u32).max(1);
                let sh = ((h as f32 * s).round() as u32).max(1);
                let small = darkroom_engine::face::resize_bilinear(photo, sw, sh);
                let mut canvas = RgbImage::new(w, h);
                image::imageops::replace(&mut canvas, &small, 0, 0);
                vec![(
                    canvas,
                    ToPhoto {
                        sx: w as f32 / sw as f32,
                        sy: h as f32 / sh as f32,
                        dx: 0.0,
                        dy: 0.0,
                    },
                )]
            }
            View::Tiles(n) => {
                let mut out = Vec::new();
                for ty in 0..n {
                    for tx in 0..n {
                        let (x0, y0) = (tx * w / n, ty * h / n);
                        let (x1, y1) = ((tx + 1) * w / n, (ty + 1) * h / n);
                        let tile =
                            image::imageops::crop_imm(photo, x0, y0, x1 - x0, y1 - y0).to_image();
                        out.push((
                            tile,
                            ToPhoto {
                                dx: x0 as f32,
                                dy: y0 as f32,
                                ..ToPhoto::IDENTITY
                            },
                        ));
                    }
                }
                out
            }
        }
    }
}

/// View pixels → photo pixels: `photo = view · s + d`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToPhoto {
    pub sx: f32,
    pub sy: f32,
    pub dx: f32,
    pub dy: f32,
}

impl ToPhoto {
    pub const IDENTITY: ToPhoto = ToPhoto {
        sx: 1.0,
        sy: 1.0,
        dx: 0.0,
        dy: 0.0,
    };

    pub fn point(&self, [x, y]: [f32; 2]) -> [f32; 2] {
        [x * self.sx + self.dx, y * self.sy + self.dy]
    }

    pub fn bbox(&self, b: [f32; 4]) -> [f32; 4] {
        let [x0, y0] = self.point([b[0], b[1]]);
        let [x1, y1] = self.point([b[2], b[3]]);
        [x0, y0, x1, y1]
    }
}

impl Corpus {
    /// Load `set` of the manifest at `path`, photos under `root`, each checked by sha256.
    pub fn load(path: &Path, set: &str, root: &Path) -> Result<Corpus, CorpusError> {
        let bytes = std::fs::read(path).map_err(|cause| CorpusError::Read {
            what: "cannot read the corpus manifest",
            cause,
            path: path.to_path_buf(),
        })?;
        let parse = |cause: String| CorpusError::Parse {
            cause,
            path: path.to_path_buf(),
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| parse(e.to_string()))?;
        let file: ManifestFile = toml::from_str(text).map_err(|e| parse(e.to_string()))?;
        for (name, declared) in [
            ("calibration", file.counts.calibration),
            ("evaluation", file.counts.evaluation),
        ] {
            let listed = file.photo.iter().filter(|p| p.set == name).count();
            if listed != declared {
                return Err(invalid(
                    format!("the manifest declares {declared} {name} photos and lists {listed}"),
                    path,
                ));
            }
        }
        if let Some(p) = file
            .photo
            .iter()
            .find(|p| p.set != "calibration" && p.set != "evaluation")
        {
            return Err(invalid(
                format!(
                    "photo {} is in set {:?} (calibration or evaluation)",
                    p.path, p.set
                ),
                path,
            ));
        }
        let mut sides: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
            Default::default();
        for p in &file.photo {
            sides.entry(&p.group).or_default().insert(&p.set);
        }
        let both: Vec<&str> = sides
            .iter()
            .filter(|(_, s)| s.len() > 1)
            .map(|(g, _)| *g)
            .collect();
        if !both.is_empty() {
            return Err(invalid(
                format!("groups on both sides of the split: {}", both.join(", ")),
                path,
            ));
        }
        let mut photos = Vec::new();
        for entry in file.photo.into_iter().filter(|p| p.set == set) {
            let file = root.join(&entry.path);
            let data = std::fs::read(&file).map_err(|cause| CorpusError::Read {
                what: "a manifest photo is missing",
                cause,
                path: file.clone(),
            })?;
            let found = darkroom_engine::store::sha256_hex(&data);
            if !found.eq_ignore_ascii_case(&entry.sha256) {
                return Err(invalid(
                    format!(
                        "a manifest photo's bytes differ from its sha256 (found {found}, the manifest says {})",
                        entry.sha256
                    ),
                    &file,
                ));
            }
            let views = entry
                .views
                .iter()
                .map(|v| View::parse(v))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| invalid(format!("photo {}: {e}", entry.path), path))?;
            photos.push(CorpusPhoto { entry, file, views });
        }
        if photos.is_empty() {
            return Err(invalid(format!("the manifest's {set} set is empty"), path));
        }
        Ok(Corpus {
            manifest: path.to_path_buf(),
            manifest_sha256: darkroom_engine::store::sha256_hex(&bytes),
            set: set.to_owned(),
            photos,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_parse_and_refuse_nonsense() {
        assert_eq!(View::parse("full").ok(), Some(View::Full));
        assert_eq!(View::parse("canvas:0.25").ok(), Some(View::Canvas(0.25)));
        assert_eq!(View::parse("tiles:2").ok(), Some(View::Tiles(2)));
        for bad in ["canvas:2", "canvas:x", "tiles:1", "zoom:2"] {
            assert!(View::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn view_coordinates_map_back_onto_the_photo() {
        let photo = RgbImage::new(401, 300);
        let (img, to) = View::Canvas(0.5).apply(&photo).remove(0);
        assert_eq!(img.dimensions(), (401, 300));
        let [x, y] = to.point([100.0, 50.0]);
        assert!((x - 100.0 * 401.0 / 201.0).abs() < 0.01, "{x}");
        assert!((y - 100.0).abs() < 0.01, "{y}");
        let tiles = View::Tiles(2).apply(&photo);
        assert_eq!(tiles.len(), 4);
        let (tile, to) = &tiles[3];
        assert_eq!(tile.dimensions(), (201, 150));
        assert_eq!(to.point([1.0, 2.0]), [201.0, 152.0]);
    }
}
