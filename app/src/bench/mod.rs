//! Benchmarks that print ratios measured side by side in one run (docs/PERFORMANCE.md), one
//! module per `bench-*` subcommand, each owning its clap arguments. They use `services` and
//! the window's public API; nothing here is used by the app itself.

pub mod first_frame;
pub mod grid;
pub mod index;
pub mod inference;
pub mod thumbs;
