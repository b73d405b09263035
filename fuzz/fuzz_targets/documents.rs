//! cargo fuzz target: see agon_core::fuzzing::document.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| agon_core::fuzzing::document(data));
