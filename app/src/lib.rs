//! `darkroom`: the culling app's binary. `darkroom [FOLDER]` opens the window; subcommands are
//! the command line (probe, faces, decide, models, bench).

pub mod backend_cmd;
pub mod bench;
pub mod bench_first_frame;
pub mod bench_grid;
pub mod bench_index;
pub mod bench_thumbs;
pub mod cli;
pub mod decide_cmd;
pub mod faces_cmd;
pub mod gui;
pub mod index_cmd;
pub mod models_cmd;

use clap::Parser;

/// The binary's whole life: parse, dispatch, report an error once.
pub fn main_entry() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("darkroom: {err:#}");
            std::process::ExitCode::from(2)
        }
    }
}
