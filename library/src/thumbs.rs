//! Thumbnails: the largest embedded preview when it is big enough, else a decode of the file,
//! oriented and shrunk to fit a square; cached on disk in the XDG cache dir, keyed by path,
//! size, modification time and target size, written atomically.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use image::{DynamicImage, GenericImageView, RgbImage};
use sha2::{Digest, Sha256};

use crate::budget::Budget;
use crate::decode;
use crate::error::LibraryError;
use crate::formats;
use crate::preview;

/// Where a thumbnail came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Cache,
    EmbeddedPreview,
    Decoded,
}

#[derive(Debug, Clone)]
pub struct Thumbnail {
    pub image: RgbImage,
    pub source: Source,
}

/// A folder of cached thumbnails.
#[derive(Debug, Clone)]
pub struct ThumbCache {
    dir: PathBuf,
}

impl ThumbCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ThumbCache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cache file for `path` at `side` pixels, or an error if the photo cannot be stat'ed.
    pub fn key_path(&self, path: &Path, side: u32) -> Result<PathBuf, LibraryError> {
        let meta =
            std::fs::metadata(path).map_err(|e| LibraryError::io("cannot read", path, &e))?;
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut h = Sha256::new();
        h.update(path.as_os_str().as_encoded_bytes());
        h.update(meta.len().to_le_bytes());
        h.update(mtime.to_le_bytes());
        h.update(side.to_le_bytes());
        let key = hex::encode(h.finalize());
        Ok(self
            .dir
            .join(&key[..2])
            .join(format!("{}.jpg", &key[2..32])))
    }

    /// The thumbnail of `path` fitting `side`×`side`, from the cache if it is there.
    pub fn get(&self, path: &Path, side: u32) -> Result<Thumbnail, LibraryError> {
        self.get_then_store(path, side, |_| {})
    }

    /// As [`get`](Self::get), handing a thumbnail just made to `first` before it is written
    /// to the cache: whoever waits for it does not wait for the file write. What `first` gets
    /// is the cache's JPEG decoded again, the very pixels a later read of the cache gives, so
    /// a photo looks the same whichever way its picture came (and a snapshot test of it is the
    /// same on every run).
    pub fn get_then_store(
        &self,
        path: &Path,
        side: u32,
        first: impl FnOnce(&Thumbnail),
    ) -> Result<Thumbnail, LibraryError> {
        let cached = self.key_path(path, side)?;
        if let Some(image) = std::fs::read(&cached).ok().and_then(|b| read_back(&b)) {
            return Ok(Thumbnail {
                image,
                source: Source::Cache,
            });
        }
        let made = make(path, side)?;
        let Some((bytes, image)) = encode(&made.image) else {
            // Nothing to cache (an encoder that refused): the picture as made.
            first(&made);
            return Ok(made);
        };
        let thumb = Thumbnail {
            image,
            source: made.source,
        };
        first(&thumb);
        // A cache that cannot be written costs speed, not the thumbnail.
        let _ = store(&cached, &bytes);
        Ok(thumb)
    }
}

/// The cache's quality: a thumbnail or a 2,048 px loupe picture is looked at, never edited.
const CACHE_QUALITY: i32 = 85;

/// The cache file's bytes for `img`, and those bytes decoded again.
fn encode(img: &RgbImage) -> Option<(Vec<u8>, RgbImage)> {
    let bytes = crate::jpeg::encode(img, CACHE_QUALITY)?;
    let back = read_back(&bytes)?;
    Some((bytes, back))
}

/// A cache file's picture; None when it is not one (a damaged file is made again).
fn read_back(bytes: &[u8]) -> Option<RgbImage> {
    let budget = Budget::start();
    let decoded = crate::jpeg::decode(bytes, &budget, |w, h| (w, h))?;
    Some(decoded.image.into_rgb8())
}

/// Build a thumbnail without the cache, within the default budget.
pub fn make(path: &Path, side: u32) -> Result<Thumbnail, LibraryError> {
    make_within(path, side, &Budget::start())
}

/// Build a thumbnail without the cache, within `budget`.
pub fn make_within(path: &Path, side: u32, budget: &Budget) -> Result<Thumbnail, LibraryError> {
    let raw = formats::is_raw(path);
    let data = if raw || formats::is_jpeg(path) {
        Some(
            crate::regular::read_photo(path)
                .map_err(|e| LibraryError::io("cannot read", path, &e))?,
        )
    } else {
        None
    };
    // A RAW shows its smallest preview that fills `side`, else its largest whatever its size
    // (there is nothing else to show); a JPEG's EXIF thumbnail only where it is big enough.
    let embedded = match data.as_deref().map(|d| preview::for_side(d, side)) {
        Some(Ok(p)) if raw || p.width.max(p.height) >= side => Some(p),
        Some(Err(why)) if raw => return Err(LibraryError::image(path, why)),
        _ => None,
    };
    let preview = embedded
        .zip(data.as_deref())
        .map(|(p, data)| decode::decode_bytes(&data[p.range.clone()], path, p.orientation, budget));
    // The thumbnail's size comes from the picture's whole size, not a scaled decode's (whose
    // sides are rounded up to whole pixels at each eighth).
    let (img, full_size, source) = match preview {
        Some(Ok(img)) => {
            let size = img.dimensions();
            (img, size, Source::EmbeddedPreview)
        }
        Some(Err(e)) if raw => return Err(e),
        // A JPEG decoded at an eighth in the DCT domain; anything it cannot do (CMYK, a broken
        // file) goes to the full decoder, which names the cause.
        _ => match data
            .as_deref()
            .and_then(|d| scaled_jpeg(d, path, side, budget))
        {
            Some((img, full_size)) => (img, full_size, Source::Decoded),
            None => {
                let img = match data.as_deref() {
                    // Declined at a scale: the general decoder has the bytes already read.
                    Some(jpeg) if formats::is_jpeg(path) => {
                        decode::decode_declined(jpeg, path, budget)?
                    }
                    _ => decode::load_oriented_within(path, budget)?,
                };
                let size = img.dimensions();
                (img, size, Source::Decoded)
            }
        },
    };
    Ok(Thumbnail {
        image: shrink(img, fit(full_size, side)),
        source,
    })
}

/// Shrink-on-load for JPEG: decode straight to the smallest DCT scale still at least `side`.
fn scaled_jpeg(
    data: &[u8],
    path: &Path,
    side: u32,
    budget: &Budget,
) -> Option<(DynamicImage, (u32, u32))> {
    if !formats::is_jpeg(path) {
        return None;
    }
    // A cut-off file goes to the full decoder, which reports it.
    decode::check_complete_jpeg(data, path).ok()?;
    // libjpeg-turbo at the smallest eighth still big enough: faster at ⅛ than our DC-only
    // decoder too (`darkroom bench-decoders`, docs/PERFORMANCE.md).
    decode::jpeg_scaled(data, budget, decode::long_edge_at_least(side))
}

/// A `(width, height)` picture fitted within `side`×`side`, the aspect kept to the nearest
/// pixel; as it is when it fits already.
fn fit((w, h): (u32, u32), side: u32) -> (u32, u32) {
    let long = w.max(h);
    if long <= side || long == 0 {
        return (w, h);
    }
    let scaled = |n: u32| {
        let n = (u64::from(n) * u64::from(side) + u64::from(long) / 2) / u64::from(long);
        u32::try_from(n).unwrap_or(side).max(1)
    };
    (scaled(w), scaled(h))
}

fn shrink(img: DynamicImage, (w, h): (u32, u32)) -> RgbImage {
    if img.width() <= w && img.height() <= h {
        return img.into_rgb8();
    }
    img.thumbnail_exact(w, h).into_rgb8()
}

fn store(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn the_size_is_the_whole_pictures_fitted_to_the_nearest_pixel() {
        assert_eq!(fit((457, 83), 256), (256, 46));
        assert_eq!(fit((320, 213), 256), (256, 170));
        assert_eq!(fit((300, 200), 256), (256, 171));
        assert_eq!(fit((4000, 6000), 2048), (1365, 2048));
        assert_eq!(fit((200, 100), 256), (200, 100), "small enough already");
        assert_eq!(fit((10000, 1), 256), (256, 1), "never a side of 0");
    }
}
