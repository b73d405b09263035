//! cargo fuzz target: see agon_core::fuzzing::session.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| agon_core::fuzzing::session(data));
