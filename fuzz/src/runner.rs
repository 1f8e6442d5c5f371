//! Workers that mutate and run, a watchdog for inputs that never finish, and the findings.

use std::os::unix::fs::FileExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::mutate::{Rng, input};
use crate::targets::Target;

pub struct Config {
    pub target: Target,
    pub seconds: f64,
    pub jobs: usize,
    /// The first state; each worker's stream follows from it.
    pub start: u64,
    /// Where findings and the workers' current states go.
    pub out: PathBuf,
    /// An input that takes longer than this is a finding; one that takes `hang` is cut off
    /// by the watchdog (the process exits).
    pub slow: Duration,
    pub hang: Duration,
}

#[derive(Debug, Serialize)]
pub struct Finding {
    pub kind: &'static str,
    pub state: String,
    pub message: String,
    pub file: PathBuf,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub target: Target,
    pub seeds: usize,
    pub execs: u64,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    pub slowest_ms: f64,
    pub findings: Vec<Finding>,
}

/// Write the input of `state` where a finding goes, and say so.
pub fn save(out: &Path, target: Target, kind: &'static str, state: u64, data: &[u8]) -> PathBuf {
    let file = out.join(format!("{}-{kind}-{state:016x}.bin", target.name()));
    if let Err(e) = std::fs::write(&file, data) {
        eprintln!(
            "darkroom-fuzz: cannot save a finding: {e}: {}",
            file.display()
        );
    }
    file
}

struct Worker {
    /// The state being run, and when it started (ms since the run began; 0 = idle).
    state: AtomicU64,
    since_ms: AtomicU64,
}

pub fn run(config: &Config, seeds: &[Vec<u8>]) -> anyhow::Result<Report> {
    std::fs::create_dir_all(&config.out)?;
    let began = Instant::now();
    let stop = AtomicBool::new(false);
    let workers: Vec<Worker> = (0..config.jobs)
        .map(|_| Worker {
            state: AtomicU64::new(0),
            since_ms: AtomicU64::new(0),
        })
        .collect();
    let deadline = Duration::from_secs_f64(config.seconds);
    let results: Vec<(u64, f64, f64, Vec<Finding>)> = std::thread::scope(|scope| {
        let (workers, stop) = (&workers, &stop);
        let (out, target, hang) = (&config.out, config.target, config.hang);
        scope.spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                let now = began.elapsed().as_millis() as u64;
                for w in workers {
                    let since = w.since_ms.load(Ordering::Relaxed);
                    if since > 0 && now.saturating_sub(since) > hang.as_millis() as u64 {
                        let state = w.state.load(Ordering::Relaxed);
                        let file = save(out, target, "hang", state, &input(seeds, state));
                        eprintln!(
                            "darkroom-fuzz: {} hangs on state {state:016x} (over {hang:?}): {}",
                            target.name(),
                            file.display()
                        );
                        // The input never returns: nothing to join, the process ends here.
                        #[allow(clippy::exit)]
                        std::process::exit(3);
                    }
                }
            }
        });
        let handles: Vec<_> = (0..config.jobs)
            .map(|j| {
                scope.spawn(move || -> anyhow::Result<(u64, f64, f64, Vec<Finding>)> {
                    let me = &workers[j];
                    let state_file = std::fs::File::create(
                        config
                            .out
                            .join(format!(".state-{}-{j}", config.target.name())),
                    )?;
                    let mut rng = Rng(config.start ^ (j as u64 + 1).wrapping_mul(0x9E37_79B9));
                    let (mut execs, mut busy, mut slowest) = (0u64, 0f64, 0f64);
                    let mut findings = Vec::new();
                    while began.elapsed() < deadline {
                        let state = rng.next_u64();
                        // What survives an abort: the state, replayable with `replay`.
                        state_file.write_at(&state.to_le_bytes(), 0)?;
                        let data = input(seeds, state);
                        me.state.store(state, Ordering::Relaxed);
                        let t0 = Instant::now();
                        me.since_ms
                            .store(began.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
                        let result =
                            catch_unwind(AssertUnwindSafe(|| config.target.run(&data, state)));
                        me.since_ms.store(0, Ordering::Relaxed);
                        let took = t0.elapsed();
                        execs += 1;
                        busy += took.as_secs_f64();
                        slowest = f64::max(slowest, took.as_secs_f64() * 1000.0);
                        let finding = match result {
                            Ok(Ok(())) if took > config.slow => {
                                Some(("slow", format!("took {took:?}")))
                            }
                            Ok(Ok(())) => None,
                            Ok(Err(broken)) => Some(("property", broken)),
                            Err(panic) => Some(("panic", panic_text(panic.as_ref()))),
                        };
                        if let Some((kind, message)) = finding {
                            let file = save(&config.out, config.target, kind, state, &data);
                            eprintln!(
                                "darkroom-fuzz: {} {kind} on state {state:016x}: {message}: {}",
                                config.target.name(),
                                file.display()
                            );
                            findings.push(Finding {
                                kind,
                                state: format!("{state:016x}"),
                                message,
                                file,
                            });
                        }
                    }
                    Ok((execs, busy, slowest, findings))
                })
            })
            .collect();
        let results = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a fuzz worker died")))
            })
            .collect::<anyhow::Result<Vec<_>>>();
        // The watchdog ends with the workers; the scope waits for it.
        stop.store(true, Ordering::Relaxed);
        results
    })?;
    let mut report = Report {
        target: config.target,
        seeds: seeds.len(),
        execs: 0,
        wall_seconds: began.elapsed().as_secs_f64(),
        cpu_seconds: 0.0,
        slowest_ms: 0.0,
        findings: Vec::new(),
    };
    for (execs, busy, slowest, findings) in results {
        report.execs += execs;
        report.cpu_seconds += busy;
        report.slowest_ms = report.slowest_ms.max(slowest);
        report.findings.extend(findings);
    }
    Ok(report)
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}
