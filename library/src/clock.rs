//! Capture times as a shoot's clock: EXIF's "YYYY:MM:DD HH:MM:SS" to seconds and back (no
//! zone, proleptic Gregorian, as cameras write them), and the clock corrections photographers
//! type ("+1h3m", "-63m", "-01:03:00", "3780s", "3780").

/// "YYYY:MM:DD HH:MM:SS" (or "YYYY-MM-DD HH:MM:SS") → seconds since 1970 on that clock.
pub fn seconds_of(text: &str) -> Option<i64> {
    let exif: String = text
        .char_indices()
        .map(|(i, c)| {
            if (i == 4 || i == 7) && c == '-' {
                ':'
            } else {
                c
            }
        })
        .collect();
    crate::preview::parse_exif_datetime(&exif).map(|s| s as i64)
}

/// Seconds since 1970 → year, month, day, hour, minute, second.
pub fn fields_of(seconds: i64) -> [u32; 6] {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    [
        y.clamp(0, 9999) as u32,
        m as u32,
        d as u32,
        (rest / 3_600) as u32,
        (rest % 3_600 / 60) as u32,
        (rest % 60) as u32,
    ]
}

/// Seconds since 1970 → "YYYY:MM:DD HH:MM:SS", EXIF's form (19 characters).
pub fn exif_text(seconds: i64) -> String {
    let [y, mo, d, h, mi, s] = fields_of(seconds);
    format!("{y:04}:{mo:02}:{d:02} {h:02}:{mi:02}:{s:02}")
}

/// A correction as typed: a sign, then hours/minutes/seconds ("1h3m", "63m", "3780s",
/// "1h 3m 5s") or a clock ("01:03:00", "63:00" is minutes and seconds) or plain seconds.
pub fn parse_offset(text: &str) -> Option<f64> {
    let t = text.trim();
    let (sign, rest) = match t.strip_prefix('-').or_else(|| t.strip_prefix('−')) {
        Some(r) => (-1.0, r),
        None => (1.0, t.strip_prefix('+').unwrap_or(t)),
    };
    let rest = rest.trim();
    if rest.is_empty() {
        return None;
    }
    let seconds = if rest.contains(':') {
        let parts: Vec<f64> = rest
            .split(':')
            .map(|p| p.trim().parse::<f64>().ok().filter(|v| *v >= 0.0))
            .collect::<Option<_>>()?;
        match parts[..] {
            [m, s] => m * 60.0 + s,
            [h, m, s] => h * 3_600.0 + m * 60.0 + s,
            _ => return None,
        }
    } else if let Ok(s) = rest.parse::<f64>() {
        s
    } else {
        // Numbers each followed by a unit word: "1h3m", "1 h 3 min" (what `offset_words`
        // writes reads back).
        let mut total = 0.0;
        let mut number = String::new();
        let mut unit = String::new();
        let mut any = false;
        let mut take = |number: &mut String, unit: &mut String| -> Option<()> {
            let scale = match unit.to_ascii_lowercase().as_str() {
                "h" | "hr" | "hrs" | "hour" | "hours" => 3_600.0,
                "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
                "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
                _ => return None,
            };
            total += number.parse::<f64>().ok()? * scale;
            number.clear();
            unit.clear();
            any = true;
            Some(())
        };
        for c in rest.chars().filter(|c| !c.is_whitespace()) {
            if c.is_ascii_digit() || c == '.' {
                if !unit.is_empty() {
                    take(&mut number, &mut unit)?;
                }
                number.push(c);
            } else if c.is_alphabetic() {
                unit.push(c);
            } else {
                return None;
            }
        }
        if !unit.is_empty() {
            take(&mut number, &mut unit)?;
        }
        if !number.is_empty() || !any {
            return None;
        }
        total
    };
    seconds.is_finite().then_some(sign * seconds)
}

/// A correction as people read it: "+1 h 3 min", "−45 s", "none".
pub fn offset_words(seconds: f64) -> String {
    if seconds == 0.0 {
        return "none".to_owned();
    }
    let sign = if seconds < 0.0 { "−" } else { "+" };
    let total = seconds.abs().round() as u64;
    let (h, m, s) = (total / 3_600, total % 3_600 / 60, total % 60);
    let mut parts = Vec::new();
    if h > 0 {
        parts.push(format!("{h} h"));
    }
    if m > 0 {
        parts.push(format!("{m} min"));
    }
    if s > 0 || parts.is_empty() {
        parts.push(format!("{s} s"));
    }
    format!("{sign}{}", parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_go_to_seconds_and_back() {
        for text in [
            "2020:10:27 13:40:12",
            "2000:02:29 00:00:00",
            "1999:12:31 23:59:59",
            "2026:12:03 04:05:06",
        ] {
            let s = seconds_of(text).expect(text);
            assert_eq!(exif_text(s), text);
        }
        assert_eq!(seconds_of("1970-01-01 01:00:00"), Some(3_600));
        assert_eq!(
            exif_text(seconds_of("2020:12:31 23:30:00").expect("t") + 3_780),
            "2021:01:01 00:33:00",
            "across a year"
        );
        assert_eq!(seconds_of("    :  :     :  :  "), None);
    }

    #[test]
    fn corrections_read_as_photographers_type_them() {
        for (text, want) in [
            ("+1h3m", 3_780.0),
            ("1h 3m", 3_780.0),
            ("-63m", -3_780.0),
            ("−63m", -3_780.0),
            ("3780s", 3_780.0),
            ("3780", 3_780.0),
            ("-01:03:00", -3_780.0),
            ("63:00", 3_780.0),
            ("+0.5s", 0.5),
        ] {
            assert_eq!(parse_offset(text), Some(want), "{text}");
        }
        for bad in ["", "+", "1x", "1h3", "a:b", "1:2:3:4", "-"] {
            assert_eq!(parse_offset(bad), None, "{bad}");
        }
        assert_eq!(offset_words(3_780.0), "+1 h 3 min");
        assert_eq!(offset_words(-45.0), "−45 s");
        assert_eq!(offset_words(0.0), "none");
        for seconds in [3_780.0, -45.0, 7_205.0, -60.0] {
            assert_eq!(
                parse_offset(&offset_words(seconds)),
                Some(seconds),
                "read back"
            );
        }
    }
}
