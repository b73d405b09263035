//! The subcommands, one file per command or family; `main.rs` only parses
//! the command line and dispatches here.

pub mod batch;
pub mod cost;
pub mod doctor;
pub mod document;
pub mod drive;
pub mod models;
pub mod protocols;
pub mod replay;
pub mod resume;
pub mod run;
pub mod sessions;
pub mod spec;

/// Exit codes, documented in the book (docs/src/cli.md).
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILURE: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const DEGRADED: u8 = 3;
    pub const JUDGE_FAILED: u8 = 4;
    pub const NO_QUORUM: u8 = 5;
    pub const COST_LIMIT: u8 = 6;
    pub const INTERRUPTED: u8 = 130;
}
