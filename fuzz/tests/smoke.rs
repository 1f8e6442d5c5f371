//! The fuzz run CI makes: every target for a few CPU-seconds from the real seeds (the long
//! run is `scripts/fuzz`, its numbers in docs/FUZZING.md). It must find nothing; a finding's
//! input is left in the findings folder and named in the failure.

use std::path::{Path, PathBuf};
use std::time::Duration;

use darkroom_fuzz::runner::{self, Config};
use darkroom_fuzz::seeds;
use darkroom_fuzz::targets::Target;

fn seed_dirs() -> Vec<PathBuf> {
    let assets = std::env::var_os("DARKROOM_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets-cache"));
    let set = assets.join("exiv2/test-data");
    assert!(
        set.is_dir(),
        "exiv2 test data missing in {}: run scripts/fetch-assets",
        set.display()
    );
    vec![set, assets.join("photos")]
}

#[test]
fn a_short_fuzz_run_of_every_target_finds_nothing() {
    // CPU-seconds per target: this, times the two workers.
    let seconds = std::env::var("FUZZ_SMOKE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.5);
    let out = tempfile::tempdir().expect("tempdir");
    let dirs = seed_dirs();
    let mut found = Vec::new();
    for target in Target::ALL {
        let seeds = seeds::load(target, &dirs).expect("seeds");
        let config = Config {
            target,
            seconds,
            jobs: 2,
            start: 0x5EED,
            out: out.path().to_path_buf(),
            slow: Duration::from_secs(1),
            hang: Duration::from_secs(10),
        };
        let report = runner::run(&config, &seeds).expect("fuzz run");
        println!(
            "{}: {} execs from {} seeds in {:.1} s",
            target.name(),
            report.execs,
            report.seeds,
            report.wall_seconds
        );
        assert!(
            report.execs > 100,
            "{}: only {} execs",
            target.name(),
            report.execs
        );
        found.extend(report.findings);
    }
    if !found.is_empty() {
        // Keep the inputs where a person can get at them.
        let keep = out.keep();
        panic!(
            "fuzzing found {} problems (inputs in {}):\n{found:#?}",
            found.len(),
            keep.display()
        );
    }
}
