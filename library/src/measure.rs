//! What a benchmark reports, one way for every `bench-*` command: timings summed up by
//! nearest-rank quantiles, and this process's memory.

/// A set of timings (milliseconds), summed up.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quantiles {
    pub count: usize,
    pub min_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Quantiles {
    /// The nearest-rank quantiles of `ms` (the smallest sample with at least that share of the
    /// samples at or below it); None for no samples. NaN samples sort last.
    pub fn of(ms: &[f64]) -> Option<Quantiles> {
        if ms.is_empty() {
            return None;
        }
        let mut s = ms.to_vec();
        s.sort_by(f64::total_cmp);
        let at = |q: f64| s[((s.len() as f64 * q).ceil() as usize).clamp(1, s.len()) - 1];
        Some(Quantiles {
            count: s.len(),
            min_ms: s[0],
            p50_ms: at(0.50),
            p95_ms: at(0.95),
            p99_ms: at(0.99),
            max_ms: s[s.len() - 1],
        })
    }

    /// As [`Quantiles::of`], every figure NaN for no samples (a bench's table says "NaN").
    pub fn or_nan(ms: &[f64]) -> Quantiles {
        Quantiles::of(ms).unwrap_or(Quantiles {
            count: 0,
            min_ms: f64::NAN,
            p50_ms: f64::NAN,
            p95_ms: f64::NAN,
            p99_ms: f64::NAN,
            max_ms: f64::NAN,
        })
    }
}

/// The median of `samples` by nearest rank (the lower middle of an even count); None for none.
pub fn median<T: Copy + PartialOrd>(samples: &[T]) -> Option<T> {
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    s.get(s.len().checked_sub(1)? / 2).copied()
}

/// A memory figure of this process from /proc/self/status (`VmHWM`: the most ever resident;
/// `VmRSS`: resident now), in MiB; None where there is no such file (not Linux).
pub fn status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let ms: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let q = Quantiles::of(&ms).expect("samples");
        assert_eq!(
            (q.count, q.min_ms, q.p50_ms, q.p95_ms, q.p99_ms, q.max_ms),
            (20, 1.0, 10.0, 19.0, 20.0, 20.0)
        );
        assert_eq!(Quantiles::of(&[]), None);
        assert!(Quantiles::or_nan(&[]).p95_ms.is_nan());
        assert_eq!(median(&[3, 1, 2]), Some(2));
        assert_eq!(median(&[4, 1, 3, 2]), Some(2));
        assert_eq!(median::<u32>(&[]), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_a_resident_size() {
        let now = status_mib("VmRSS").expect("VmRSS");
        let peak = status_mib("VmHWM").expect("VmHWM");
        assert!(now > 0.0 && peak >= now, "{now} {peak}");
        assert_eq!(status_mib("NoSuchField"), None);
    }
}
