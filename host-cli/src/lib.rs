//! The `agon` command-line host: runs the embedded agon component with
//! wasmtime and performs the model calls it asks for.

pub mod batch;
pub mod cli;
pub mod config;
pub mod doctor;
pub mod engine;
pub mod export;
pub mod host;
pub mod prices;
pub mod provider;
pub mod sessions;
pub mod spec_args;
pub mod view;
