//! `agon review`'s host side: the change's diff ([`diff`]) and the reports
//! CI reads ([`report`]). The review protocol, the merge and the verdict
//! are the core's ([`agon_core::review`]), so every host decides alike.

pub mod diff;
pub mod report;
pub mod verify;
