//! The subcommands, one file per command or family; `main.rs` only parses
//! the command line and dispatches here.

pub mod batch;
pub mod compete_eval;
pub mod doctor;
pub mod drive;
pub mod eval;
pub mod follow_up;
pub mod manual;
pub mod models;
pub mod protocols;
pub mod replay;
pub mod resume;
pub mod review;
pub mod run;
pub mod sessions;
pub mod spec;

pub use agon_cli::exit;
