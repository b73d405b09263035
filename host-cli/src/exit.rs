//! Exit codes, documented in the book (docs/src/cli.md).

pub const OK: u8 = 0;
pub const FAILURE: u8 = 1;
pub const BAD_INPUT: u8 = 2;
pub const DEGRADED: u8 = 3;
pub const JUDGE_FAILED: u8 = 4;
pub const NO_QUORUM: u8 = 5;
pub const COST_LIMIT: u8 = 6;
pub const INTERRUPTED: u8 = 130;
