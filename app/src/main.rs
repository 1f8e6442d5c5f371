//! `darkroom`: the culling app's binary. Until the GUI lands this is the command line: runtime
//! probe, face detection, model import and the benchmark.

mod backend_cmd;
mod bench;
mod cli;
mod decide_cmd;
mod faces_cmd;
mod models_cmd;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("darkroom: {err:#}");
            std::process::ExitCode::from(2)
        }
    }
}
