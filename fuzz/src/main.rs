//! `darkroom-fuzz run --target T --seconds S --seeds DIR...`: mutate real files at one of
//! DarkRoom's parsers for S seconds on each of `--jobs` threads; one JSON report on stdout,
//! findings under `--out`. `replay` writes (and runs) the input of one state.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use darkroom_fuzz::runner::{self, Config};
use darkroom_fuzz::targets::Target;
use darkroom_fuzz::{mutate, seeds};

#[derive(Parser)]
#[command(name = "darkroom-fuzz")]
enum Cli {
    /// Fuzz one target (or all of them, one after the other).
    Run {
        #[arg(long, value_enum)]
        target: Option<Target>,
        /// Seconds per target (CPU seconds: this times --jobs).
        #[arg(long)]
        seconds: f64,
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        #[arg(long, required = true)]
        seeds: Vec<PathBuf>,
        #[arg(long, default_value = "fuzz-findings")]
        out: PathBuf,
        /// The first state (hex); runs from one start are the same inputs.
        #[arg(long, default_value = "d4a7c0ffee", value_parser = hex_u64)]
        start: u64,
    },
    /// Write the input of one state to a file and run it once.
    Replay {
        #[arg(long, value_enum)]
        target: Target,
        #[arg(long, value_parser = hex_u64)]
        state: u64,
        #[arg(long, required = true)]
        seeds: Vec<PathBuf>,
        #[arg(long)]
        write: PathBuf,
    },
}

fn hex_u64(s: &str) -> Result<u64, String> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| e.to_string())
}

fn main() -> anyhow::Result<ExitCode> {
    match Cli::parse() {
        Cli::Run {
            target,
            seconds,
            jobs,
            seeds: dirs,
            out,
            start,
        } => {
            let targets = target.map_or(Target::ALL.to_vec(), |t| vec![t]);
            let mut found = 0;
            for target in targets {
                let seeds = seeds::load(target, &dirs)?;
                let config = Config {
                    target,
                    seconds,
                    jobs: jobs.max(1),
                    start,
                    out: out.clone(),
                    slow: Duration::from_secs(1),
                    hang: Duration::from_secs(10),
                };
                let report = runner::run(&config, &seeds)?;
                found += report.findings.len();
                println!("{}", serde_json::to_string(&report)?);
            }
            Ok(if found == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Cli::Replay {
            target,
            state,
            seeds: dirs,
            write,
        } => {
            let seeds = seeds::load(target, &dirs)?;
            let data = mutate::input(&seeds, state);
            std::fs::write(&write, &data)
                .map_err(|e| anyhow::anyhow!("cannot write: {e}: {}", write.display()))?;
            let result = target.run(&data, state);
            println!("{}: {result:?}", write.display());
            Ok(if result.is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}
