//! The `agon` command-line host: runs the embedded agon component with
//! wasmtime and performs the model calls it asks for.

pub mod batch;
pub mod bounded;
pub mod catalog;
pub mod catalog_update;
pub mod cli;
pub mod closed_pipe;
pub mod compete_eval;
pub mod compete_history;
pub mod config;
pub mod context_files;
pub mod council;
pub mod discovery;
pub mod doctor;
pub mod engine;
mod engine_config;
pub mod eval_file;
pub mod exit;
pub mod export;
pub mod follow_up;
pub mod host;
pub mod journal;
pub mod lock;
mod mapped_code;
pub mod options;
pub mod output;
pub mod programs;
pub mod protocol_file;
pub mod provider;
pub mod request;
pub mod review;
pub mod runner;
pub mod sanitize;
pub mod sessions;
pub mod spec_request;
pub mod timings;
pub mod trust;
pub mod view;
pub mod words;

// build.rs's choice of packed relocations, here only so that its tests run.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../build/packed_relocations.rs"]
mod packed_relocations;

/// An error that is the user's input, not ours: one line, exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// A [`BadInput`] error.
pub fn bad(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(message.into()))
}
