//! Naming patterns: folders and file names made from a photo's capture time, camera, original
//! name and number, the job's name and a sequence. A pattern is text with tokens in braces,
//! `/` between folders, e.g. `{year}/{date}_{job}/{job}_{seq:4}`; the original extension is
//! kept. Values are made safe for every file system a card or drive may carry (no separators,
//! no `..`, none of Windows' reserved characters); a missing value is a word that says so.

use std::path::{Path, PathBuf};

/// A token of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    /// `{date}`: YYYY-MM-DD.
    Date,
    Year,
    Month,
    Day,
    /// `{time}`: HHMMSS.
    Time,
    Camera,
    Serial,
    /// The original file name without its extension.
    Name,
    /// The digits that end the original name (IMG_0042 → 0042).
    Number,
    Job,
    /// The sequence number, zero-padded to this many digits.
    Seq(usize),
}

/// The tokens a pattern may hold, for the error that names a wrong one.
pub const TOKENS: &[&str] = &[
    "date", "year", "month", "day", "time", "camera", "serial", "name", "number", "job", "seq",
    "seq:N",
];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("unknown token {{{0}}} in the naming pattern (known: {tokens})", tokens = TOKENS.join(", "))]
    UnknownToken(String),
    #[error("a brace is not closed in the naming pattern: {0}")]
    Unclosed(String),
    #[error("the naming pattern makes no file name: {0}")]
    Empty(String),
}

/// A parsed naming pattern: folders, then the file's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    components: Vec<Vec<Part>>,
}

/// What a name is made from, per photo.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields {
    /// Capture time: year, month, day, hour, minute, second.
    pub taken: Option<[u32; 6]>,
    pub camera: Option<String>,
    pub serial: Option<String>,
    /// The original file name (with its extension).
    pub original: String,
    pub job: String,
    pub seq: u64,
}

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let mut components = Vec::new();
        for component in text.split(['/', '\\']) {
            let mut parts = Vec::new();
            let mut rest = component;
            while let Some(open) = rest.find('{') {
                if open > 0 {
                    parts.push(Part::Text(rest[..open].to_owned()));
                }
                let close = rest[open..]
                    .find('}')
                    .ok_or_else(|| PatternError::Unclosed(text.to_owned()))?;
                let token = &rest[open + 1..open + close];
                parts.push(token_part(token)?);
                rest = &rest[open + close + 1..];
            }
            if !rest.is_empty() {
                parts.push(Part::Text(rest.to_owned()));
            }
            if !parts.is_empty() {
                components.push(parts);
            }
        }
        if components.is_empty() {
            return Err(PatternError::Empty(text.to_owned()));
        }
        Ok(Pattern {
            text: text.to_owned(),
            components,
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The photo's new path, relative to the destination, its original extension kept.
    pub fn render(&self, f: &Fields) -> PathBuf {
        let original = Path::new(&f.original);
        let stem = original
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut path = PathBuf::new();
        let last = self.components.len() - 1;
        for (k, parts) in self.components.iter().enumerate() {
            let mut s = String::new();
            for p in parts {
                s.push_str(&value(p, f, &stem));
            }
            // A name leaves room for what a copy adds to it on the way: `-N` for a clash, the
            // sidecar's `.CR3.xmp`, and the temporary's `.NAME.PID-N.darkroom-part` — a file
            // system's 255 bytes are never hit half-way through an ingest.
            let room = if k == last { MAX_STEM } else { MAX_FOLDER };
            let mut s = safe(&capped(&s, room));
            if k == last
                && let Some(ext) = original.extension()
            {
                s.push('.');
                s.push_str(&safe(&ext.to_string_lossy()));
            }
            path.push(s);
        }
        path
    }
}

fn token_part(token: &str) -> Result<Part, PatternError> {
    Ok(match token {
        "date" => Part::Date,
        "year" => Part::Year,
        "month" => Part::Month,
        "day" => Part::Day,
        "time" => Part::Time,
        "camera" => Part::Camera,
        "serial" => Part::Serial,
        "name" => Part::Name,
        "number" => Part::Number,
        "job" => Part::Job,
        "seq" => Part::Seq(1),
        other => match other.strip_prefix("seq:").map(str::parse::<usize>) {
            Some(Ok(width)) if (1..=12).contains(&width) => Part::Seq(width),
            _ => return Err(PatternError::UnknownToken(other.to_owned())),
        },
    })
}

fn value(p: &Part, f: &Fields, stem: &str) -> String {
    let t = f.taken;
    let at = |i: usize, width: usize| {
        t.map_or_else(
            || "undated".to_owned(),
            |t| format!("{:0width$}", t[i], width = width),
        )
    };
    match p {
        Part::Text(s) => s.clone(),
        Part::Date => t.map_or_else(
            || "undated".to_owned(),
            |t| format!("{:04}-{:02}-{:02}", t[0], t[1], t[2]),
        ),
        Part::Year => at(0, 4),
        Part::Month => at(1, 2),
        Part::Day => at(2, 2),
        Part::Time => t.map_or_else(
            || "undated".to_owned(),
            |t| format!("{:02}{:02}{:02}", t[3], t[4], t[5]),
        ),
        Part::Camera => f.camera.clone().unwrap_or_else(|| "camera".to_owned()),
        Part::Serial => f.serial.clone().unwrap_or_else(|| "noserial".to_owned()),
        Part::Name => stem.to_owned(),
        Part::Number => {
            let digits: String = stem
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if digits.is_empty() {
                "0".to_owned()
            } else {
                digits
            }
        }
        Part::Job => f.job.clone(),
        Part::Seq(width) => format!("{:0width$}", f.seq, width = *width),
    }
}

/// Longest file name stem, in bytes (of the 255 a name may have).
const MAX_STEM: usize = 180;
/// Longest folder name, in bytes.
const MAX_FOLDER: usize = 240;

/// `s` cut to at most `max` bytes, on a character's boundary.
fn capped(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// Names Windows keeps for devices, with any extension (`con`, `NUL.txt`, `com1`): a file or
/// folder so named cannot be made there, or opens the device.
fn windows_device(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name).trim_end();
    let upper = base.to_ascii_uppercase();
    matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((upper.starts_with("COM") || upper.starts_with("LPT"))
            && upper.len() == 4
            && upper.chars().nth(3).is_some_and(|c| c.is_ascii_digit()))
}

/// A value made safe as one path component on Linux, Windows and a FAT card: separators,
/// Windows' reserved characters and control characters become `_`, no leading or trailing dots
/// or spaces, never empty, `.` or `..`, never a Windows device's name.
fn safe(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | '<' | '>' | ':' | '"' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let trimmed = cleaned.trim_matches(|c: char| c == '.' || c == ' ');
    if trimmed.is_empty() {
        "_".to_owned()
    } else if windows_device(trimmed) {
        format!("_{trimmed}")
    } else {
        trimmed.to_owned()
    }
}

/// New paths for items (each a path without its extension and the extensions it is written
/// with: a RAW+JPEG pair and its sidecars share one stem), none landing on a path `taken` says
/// is there or on another item's: a clash gets `-2`, `-3`, … on its stem. Nothing is
/// overwritten.
pub fn resolve(items: &[(PathBuf, Vec<String>)], taken: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut used: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (stem, extensions) in items {
        let with = |candidate: &Path, ext: &String| {
            let mut name = candidate.as_os_str().to_owned();
            if !ext.is_empty() {
                name.push(".");
                name.push(ext);
            }
            PathBuf::from(name)
        };
        let free = |candidate: &Path| {
            extensions.iter().all(|e| {
                let p = with(candidate, e);
                !used.contains(&p) && !taken(&p)
            })
        };
        let mut candidate = stem.clone();
        let mut n = 2;
        while !free(&candidate) {
            let mut name = stem.as_os_str().to_owned();
            name.push(format!("-{n}"));
            candidate = PathBuf::from(name);
            n += 1;
        }
        for e in extensions {
            used.insert(with(&candidate, e));
        }
        out.push(candidate);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Fields {
        Fields {
            taken: Some([2026, 6, 13, 14, 2, 35]),
            camera: Some("Canon EOS R6".into()),
            serial: Some("0123".into()),
            original: "IMG_0042.CR3".into(),
            job: "Smith wedding".into(),
            seq: 7,
        }
    }

    #[test]
    fn a_pattern_renders_each_token_and_keeps_the_extension() {
        let p = Pattern::parse("{year}/{date}_{job}/{job}_{seq:4}").expect("parses");
        assert_eq!(
            p.render(&fields()),
            PathBuf::from("2026/2026-06-13_Smith wedding/Smith wedding_0007.CR3")
        );
        let p = Pattern::parse("{camera}-{serial}/{time}_{name}_{number}_{month}{day}_{seq}")
            .expect("parses");
        assert_eq!(
            p.render(&fields()),
            PathBuf::from("Canon EOS R6-0123/140235_IMG_0042_0042_0613_7.CR3")
        );
    }

    #[test]
    fn windows_device_names_and_long_names_are_made_safe() {
        for name in ["con", "NUL", "com1", "Lpt9", "aux.jpg", "prn "] {
            assert!(safe(name).starts_with('_'), "{name}: {}", safe(name));
        }
        for name in ["console", "nullify", "com10", "COMET"] {
            assert_eq!(safe(name), name);
        }
        let p = Pattern::parse("{job}/{job}_{seq:3}").expect("parses");
        let f = Fields {
            job: "é".repeat(200),
            ..fields()
        };
        let path = p.render(&f);
        for c in path.components() {
            let n = c.as_os_str().len();
            assert!(n <= MAX_FOLDER, "{n} bytes");
        }
        let stem = path.file_stem().expect("a name").len();
        assert!(stem <= MAX_STEM, "{stem} bytes");
        // The temporary's name, at its longest, fits in 255 bytes.
        assert!(1 + stem + 4 + 1 + 20 + 1 + 20 + 14 + 4 <= 255);
    }

    #[test]
    fn missing_values_say_so_and_unsafe_ones_are_made_safe() {
        let f = Fields {
            taken: None,
            camera: None,
            serial: None,
            original: "DSC0001.JPG".into(),
            job: "../a:b|c?".into(),
            seq: 1,
        };
        let p = Pattern::parse("{date}/{camera}_{job}/{name}").expect("parses");
        assert_eq!(
            p.render(&f),
            PathBuf::from("undated/camera_.._a_b_c_/DSC0001.JPG")
        );
        let dots = Fields {
            job: "..".into(),
            ..f
        };
        assert_eq!(
            Pattern::parse("{job}/{name}")
                .expect("parses")
                .render(&dots),
            PathBuf::from("_/DSC0001.JPG")
        );
    }

    #[test]
    fn a_wrong_pattern_is_refused_with_its_reason() {
        assert_eq!(
            Pattern::parse("{date}/{nope}"),
            Err(PatternError::UnknownToken("nope".into()))
        );
        assert_eq!(
            Pattern::parse("{seq:0}"),
            Err(PatternError::UnknownToken("seq:0".into()))
        );
        assert!(matches!(
            Pattern::parse("{date"),
            Err(PatternError::Unclosed(_))
        ));
        assert!(matches!(Pattern::parse("//"), Err(PatternError::Empty(_))));
        let msg = PatternError::UnknownToken("nope".into()).to_string();
        assert!(msg.contains("{nope}") && msg.contains("seq:N"), "{msg}");
    }

    #[test]
    fn clashes_get_a_number_and_a_pair_keeps_one_stem() {
        let items = vec![
            (
                PathBuf::from("d/a"),
                vec!["CR3".to_owned(), "JPG".to_owned()],
            ),
            (PathBuf::from("d/a"), vec!["JPG".to_owned()]),
            (
                PathBuf::from("d/b"),
                vec!["CR3".to_owned(), "CR3.xmp".to_owned()],
            ),
        ];
        // d/b.CR3.xmp is on the disk already: the whole of b moves to -2.
        let taken = |p: &Path| p == Path::new("d/b.CR3.xmp");
        assert_eq!(
            resolve(&items, &taken),
            vec![
                PathBuf::from("d/a"),
                PathBuf::from("d/a-2"),
                PathBuf::from("d/b-2")
            ]
        );
    }
}
