//! A session's settings on the CPU floor (graph optimisation level × intra-op threads) and the
//! rule that picks them from measurements. The best level depends on the model *and* the CPU
//! (one CPU ran an embedder 3× slower at the highest level, and a detector 1.7× faster), so
//! nothing here guesses: the ladder times a small grid in a worker process (its `tune`
//! module) and [`choose`] ranks what it measured. A leaf: placements carry
//! the result and the sessions apply it.

use serde::{Deserialize, Serialize};

/// ONNX Runtime's graph optimisation levels worth measuring. `Disable` is never faster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptLevel {
    /// Constant folding and redundant-node removal.
    Basic,
    /// Plus the complex fusions (GELU, attention, Conv+activation) on the CPU provider.
    Extended,
    /// Plus the layout transforms (NCHWc): everything ONNX Runtime has.
    All,
}

impl OptLevel {
    /// The grid's levels, in the order they are measured.
    pub const MEASURED: [OptLevel; 3] = [OptLevel::Basic, OptLevel::Extended, OptLevel::All];

    pub fn name(self) -> &'static str {
        match self {
            OptLevel::Basic => "basic",
            OptLevel::Extended => "extended",
            OptLevel::All => "all",
        }
    }
}

impl std::fmt::Display for OptLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How one session is built on the CPU floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SessionSettings {
    pub level: OptLevel,
    /// ONNX Runtime intra-op threads, at least 1.
    pub threads: usize,
}

impl SessionSettings {
    /// What an untuned session gets: the highest level, at the given thread count.
    pub fn untuned(threads: usize) -> Self {
        SessionSettings {
            level: OptLevel::All,
            threads: threads.max(1),
        }
    }
}

impl std::fmt::Display for SessionSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.threads == 1 { "" } else { "s" };
        write!(f, "{} · {} thread{s}", self.level, self.threads)
    }
}

/// Two settings within this fraction of the fastest are a tie, and the tie goes to fewer
/// threads: the decoder and the UI want the cores, and a 3% win is inside the noise of a
/// shared machine.
pub const NEAR_TIE: f64 = 0.05;
/// Timed runs per setting after one warm-up; the median is ranked.
pub const TIMED_RUNS: usize = 5;

/// One setting's measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub settings: SessionSettings,
    pub build_ms: f64,
    pub runs_ms: Vec<f64>,
    pub median_ms: f64,
}

impl Measured {
    pub fn new(settings: SessionSettings, build_ms: f64, runs_ms: Vec<f64>) -> Self {
        let median_ms = median(&runs_ms);
        Measured {
            settings,
            build_ms,
            runs_ms,
            median_ms,
        }
    }

    /// Finite, positive and with runs behind it: a timing that can be ranked.
    pub fn is_sound(&self) -> bool {
        self.settings.threads > 0
            && !self.runs_ms.is_empty()
            && self.median_ms.is_finite()
            && self.median_ms > 0.0
    }
}

pub fn median(runs: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The settings to use: the fastest median, except that anything within [`NEAR_TIE`] of it
/// with fewer threads wins (the fewest threads first, then the faster). None when nothing
/// sound was measured.
pub fn choose(measured: &[Measured]) -> Option<SessionSettings> {
    let sound = || measured.iter().filter(|m| m.is_sound());
    let best = sound().map(|m| m.median_ms).min_by(f64::total_cmp)?;
    sound()
        .filter(|m| m.median_ms <= best * (1.0 + NEAR_TIE))
        .min_by(|a, b| {
            a.settings
                .threads
                .cmp(&b.settings.threads)
                .then(a.median_ms.total_cmp(&b.median_ms))
        })
        .map(|m| m.settings)
}

/// Thread counts worth measuring up to `budget`: powers of two and the budget itself (a
/// 12-core budget measures 1, 2, 4, 8, 12).
pub fn thread_candidates(budget: usize) -> Vec<usize> {
    let budget = budget.max(1);
    let mut out: Vec<usize> = std::iter::successors(Some(1usize), |n| n.checked_mul(2))
        .take_while(|n| *n < budget)
        .collect();
    out.push(budget);
    out
}

/// The thread counts to tune over: the one a person set, else the candidates up to the job's
/// budget, [`thread_budget`].
pub fn thread_grid(explicit: Option<usize>) -> Vec<usize> {
    match explicit {
        Some(n) => vec![n.max(1)],
        None => thread_candidates(thread_budget()),
    }
}

/// The most intra-op threads a job's session may use: the physical cores but one, which the
/// index job's decoders need (a session that takes every core is faster alone and slower in
/// the job, where its spinning threads take the decoder's core: measured on 2 cores, two
/// threads ran the detector 1.7x faster alone and the whole job at 0.6 of its slower stage).
pub fn thread_budget() -> usize {
    num_cpus::get_physical().saturating_sub(1).max(1)
}

/// The grid: every measured level at each thread count.
pub fn grid(threads: &[usize]) -> Vec<SessionSettings> {
    threads
        .iter()
        .flat_map(|&threads| {
            OptLevel::MEASURED
                .iter()
                .map(move |&level| SessionSettings { level, threads })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(level: OptLevel, threads: usize, median_ms: f64) -> Measured {
        Measured::new(SessionSettings { level, threads }, 1.0, vec![median_ms])
    }

    #[test]
    fn the_fastest_wins() {
        let got = choose(&[
            m(OptLevel::Basic, 1, 28.3),
            m(OptLevel::Extended, 1, 29.2),
            m(OptLevel::All, 1, 85.2),
        ]);
        assert_eq!(
            got,
            Some(SessionSettings {
                level: OptLevel::Basic,
                threads: 1
            })
        );
        // The detector on the same CPU: the highest level, and two threads clearly faster.
        let got = choose(&[
            m(OptLevel::Basic, 1, 138.7),
            m(OptLevel::All, 1, 81.2),
            m(OptLevel::Basic, 2, 77.4),
            m(OptLevel::All, 2, 58.4),
        ]);
        assert_eq!(
            got,
            Some(SessionSettings {
                level: OptLevel::All,
                threads: 2
            })
        );
    }

    #[test]
    fn near_ties_go_to_fewer_threads() {
        // 2 threads are 3% faster: inside the tie band, so one thread is kept.
        let got = choose(&[
            m(OptLevel::All, 4, 20.0),
            m(OptLevel::All, 2, 19.4),
            m(OptLevel::All, 1, 20.3),
        ]);
        assert_eq!(got.map(|s| s.threads), Some(1));
        // 10% faster is not a tie.
        let got = choose(&[m(OptLevel::All, 1, 22.0), m(OptLevel::All, 2, 20.0)]);
        assert_eq!(got.map(|s| s.threads), Some(2));
        // Among ties at the same thread count, the faster level.
        let got = choose(&[
            m(OptLevel::Basic, 1, 20.4),
            m(OptLevel::Extended, 1, 20.1),
            m(OptLevel::All, 2, 20.0),
        ]);
        assert_eq!(
            got,
            Some(SessionSettings {
                level: OptLevel::Extended,
                threads: 1
            })
        );
    }

    #[test]
    fn unsound_timings_are_never_chosen() {
        let mut broken = m(OptLevel::Basic, 1, 1.0);
        broken.median_ms = f64::NAN;
        let empty = Measured::new(SessionSettings::untuned(1), 1.0, Vec::new());
        let zero = m(OptLevel::Extended, 1, 0.0);
        assert_eq!(choose(&[broken.clone(), empty.clone(), zero.clone()]), None);
        let got = choose(&[broken, empty, zero, m(OptLevel::All, 2, 50.0)]);
        assert_eq!(got, Some(SessionSettings::untuned(2)));
        assert_eq!(choose(&[]), None);
    }

    #[test]
    fn the_grid_spans_levels_and_thread_counts() {
        assert_eq!(thread_candidates(1), vec![1]);
        assert_eq!(thread_candidates(2), vec![1, 2]);
        assert_eq!(thread_candidates(12), vec![1, 2, 4, 8, 12]);
        assert_eq!(thread_candidates(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(thread_candidates(0), vec![1]);
        let g = grid(&[1, 2]);
        assert_eq!(g.len(), 6);
        assert!(g.contains(&SessionSettings {
            level: OptLevel::Extended,
            threads: 2
        }));
    }
}
