//! agon-cli's integration tests, one module per concern, linked into one
//! binary: each separate test file linked the CLI and wasmtime again (40 links
//! per build). A file in this folder that is not declared here is not built;
//! `every_file_is_a_module` below fails then.
//!
//! One concern alone: `cargo test -p agon-cli --test cli local_model::`.

mod adr;
mod batch;
mod catalog_update;
mod closed_pipes;
mod compete_history;
mod component;
mod context_files;
mod continue_session;
mod conventions;
mod corrupt_sessions;
mod cost;
mod credentials;
mod default_council;
mod docs_commands;
mod doctor;
mod eval;
mod every_protocol;
mod hostile_replies;
mod human_seat;
mod journal_repair;
mod limits;
mod local_model;
mod mcp_http;
mod mcp_review;
mod mcp_stdio;
mod one_process;
mod pictures;
mod programs;
mod protocol_files;
mod providers;
mod reasoning_models;
mod review;
mod run_against_test_server;
mod seat_domains;
mod sessions;
mod sessions_faults;
mod small_fixes;
mod transport;
mod trust;
mod view;

/// Cargo no longer finds test files on its own (`autotests = false`): a new
/// file here must be declared above, or it would silently never run.
#[test]
fn every_file_is_a_module() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("main.rs");
    for entry in std::fs::read_dir(&here).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(module) = name.strip_suffix(".rs") else { continue };
        if module == "main" {
            continue;
        }
        assert!(declared.contains(&format!("\nmod {module};\n")), "tests/{name} is not declared in tests/main.rs");
    }
}
