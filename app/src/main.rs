//! `darkroom`: see the library crate (`darkroom_app`) for the window and the command line.
// A release build on Windows opens no console window behind the app.
#![cfg_attr(all(windows, not(debug_assertions)), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    darkroom_app::main_entry()
}
