//! Shared pieces of agon's benchmarks: the canonical 5-seat, 5-round
//! rotating-challenger debate with scripted replies, which lives in the core
//! (`agon_core::workload`) so that the test command's instruction budget
//! measures the very same debate.

pub use agon_core::workload::{SEATS, reply, script, spec};
