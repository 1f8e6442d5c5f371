//! The views, one file each, as `*_ui` functions: they read the window's state and push
//! [`Intent`](super::intent::Intent)s; none changes the state or does I/O.

pub mod across;
pub mod badge;
pub mod closing;
pub mod compare;
pub mod empty;
pub mod grid;
pub mod histogram;
pub mod index_row;
pub mod loupe;
pub mod notices;
pub mod people;
pub mod photo;
pub mod proposal_bar;
pub mod top_bar;
