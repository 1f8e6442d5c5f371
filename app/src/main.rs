//! `darkroom`: see the library crate (`darkroom_app`) for the window and the command line.

fn main() -> std::process::ExitCode {
    darkroom_app::main_entry()
}
