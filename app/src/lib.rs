//! `darkroom`: the culling app's binary. `darkroom [FOLDER]` opens the window; subcommands are
//! the command line (probe, faces, decide, models, bench).

pub mod bench;
pub mod cli;
pub mod commands;
pub mod gui;
pub mod services;

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
