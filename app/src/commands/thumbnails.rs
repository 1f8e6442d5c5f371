//! `darkroom thumbnails FOLDER`: scan a folder and make every item's grid thumbnail and loupe
//! preview into the window's cache (after an import, from a script, before a trip offline),
//! reading each item's capture time as the index would. One line per item, and per problem;
//! exit status 1 when any item failed, so a script can tell.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use darkroom_library::scan::{ScanEvent, scan};
use darkroom_library::thumbs::{Source, ThumbCache};
use darkroom_library::{Item, preview};
use serde::Serialize;

use crate::services::{LOUPE_SIDE, THUMB_SIDE, thumb_cache_dir};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder (scanned recursively, as the window does).
    folder: PathBuf,
    /// The thumbnail cache (default: the window's, <cache dir>/thumbs).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// One JSON object a line instead of text.
    #[arg(long)]
    json: bool,
}

/// What happened to one item, or to one file the scan could not take.
#[derive(Debug, Serialize)]
struct Line {
    /// The file shown (a RAW's JPEG twin, when it has one).
    file: PathBuf,
    /// The frame's other file: the RAW behind a shown JPEG twin.
    #[serde(skip_serializing_if = "Option::is_none")]
    also: Option<PathBuf>,
    /// "WxH from embedded preview|decode", or the error; absent for a scan problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    thumbnail: Option<Result<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loupe: Option<Result<String, String>>,
    /// EXIF DateTimeOriginal (+ sub-seconds) as "YYYY-MM-DD HH:MM:SS.sss", camera clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    captured_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_error: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cache = ThumbCache::new(match &args.cache {
        Some(dir) => dir.clone(),
        None => thumb_cache_dir()?,
    });
    let mut failed = 0usize;
    let mut items = 0usize;
    let cancel = AtomicBool::new(false);
    scan(&args.folder, &cancel, &mut |event| {
        let line = match event {
            ScanEvent::Item(item) => {
                items += 1;
                item_line(&cache, &item)
            }
            ScanEvent::Error(e) => Line {
                file: e.path().to_path_buf(),
                also: None,
                thumbnail: None,
                loupe: None,
                captured_at: None,
                scan_error: Some(e.cause()),
            },
        };
        let ok = line.scan_error.is_none()
            && matches!(line.thumbnail, Some(Ok(_)))
            && matches!(line.loupe, Some(Ok(_)));
        if !ok {
            failed += 1;
        }
        print_line(&line, args.json);
        true
    });
    if !args.json {
        println!("{items} items, {failed} with problems");
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn item_line(cache: &ThumbCache, item: &Item) -> Line {
    let file = item.display_file();
    let make = |side: u32| {
        cache
            .get(file, side)
            .map(|t| {
                let from = match t.source {
                    Source::Cache => "cache",
                    Source::EmbeddedPreview => "embedded preview",
                    Source::Decoded => "decode",
                };
                format!("{}x{} from {from}", t.image.width(), t.image.height())
            })
            .map_err(|e| e.cause())
    };
    Line {
        file: file.to_path_buf(),
        also: item.files().find(|f| *f != file).map(Path::to_path_buf),
        thumbnail: Some(make(THUMB_SIDE)),
        loupe: Some(make(LOUPE_SIDE)),
        captured_at: captured_at(&item.primary),
        scan_error: None,
    }
}

/// The capture time of the frame's primary file (a RAW's, if there is one).
fn captured_at(path: &Path) -> Option<String> {
    let bytes = darkroom_library::regular::read_photo(path).ok()?;
    preview::capture_time(&bytes).map(format_time)
}

/// Seconds on the camera's clock as "YYYY-MM-DD HH:MM:SS.sss" (civil from days, Hinnant).
fn format_time(t: f64) -> String {
    let whole = t.floor() as i64;
    let millis = ((t - t.floor()) * 1000.0).round() as i64;
    let (days, secs) = (whole.div_euclid(86_400), whole.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{millis:03}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

fn print_line(line: &Line, json: bool) {
    if json {
        match serde_json::to_string(line) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("darkroom thumbnails: {e}: {}", line.file.display()),
        }
        return;
    }
    let show = |r: &Option<Result<String, String>>| match r {
        Some(Ok(s)) => s.clone(),
        Some(Err(e)) => format!("FAILED: {e}"),
        None => String::new(),
    };
    match &line.scan_error {
        Some(e) => println!("{e}: {}", line.file.display()),
        None => println!(
            "{}: thumbnail {}; loupe {}; taken {}",
            line.file.display(),
            show(&line.thumbnail),
            show(&line.loupe),
            line.captured_at.as_deref().unwrap_or("unknown"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::format_time;

    #[test]
    fn capture_times_print_as_the_camera_wrote_them() {
        // 2021:05:12 12:21:21 + 0.92 (the Canon R6 file in exiv2's test data).
        assert_eq!(format_time(1_620_822_081.92), "2021-05-12 12:21:21.920");
        assert_eq!(format_time(0.0), "1970-01-01 00:00:00.000");
        assert_eq!(format_time(951_782_400.0), "2000-02-29 00:00:00.000");
    }
}
