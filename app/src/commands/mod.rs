//! The command line, one module per subcommand, each owning its clap arguments. They use
//! `services`; none imports another command or the CLI root.

pub mod backend;
pub mod clock;
pub mod decide;
pub mod export;
pub mod faces;
pub mod facts;
pub mod index;
pub mod ingest;
pub mod ladder_worker;
pub mod models;
pub mod parity;
pub mod people;
pub mod probe;
pub mod propose;
pub mod subject;
pub mod thumbnails;
