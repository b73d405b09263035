//! Builds the `agon:debate` component.
//!
//! 1. `cargo build -p agon-component --target wasm32-unknown-unknown --profile wasm`
//!    into its own target directory (a nested cargo must not share the outer lock);
//! 2. wrap the core module as a component with wit-component.
//!
//! wasm32-unknown-unknown, not wasip2: the engine does no I/O, and this way the
//! component imports nothing at all. Used by host-cli's build script (which
//! embeds the result) and by `cargo run -p xtask -- component` (for the SDKs).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Paths whose change means the component must be rebuilt: the sources, and
/// the root manifest and lockfile (the `wasm` profile and the versions of
/// every dependency live there).
pub const SOURCES: &[&str] = &["core/src", "core/Cargo.toml", "bindings/component", "wit", "Cargo.toml", "Cargo.lock"];

/// Build the component from the workspace at `root`, using `target_dir` for the
/// nested build, and return its bytes.
pub fn build_component(root: &Path, target_dir: &Path, cargo: Option<OsString>) -> Result<Vec<u8>> {
    let mut build = Command::new(cargo.unwrap_or_else(|| "cargo".into()));
    build
        .current_dir(root)
        .args(["build", "--quiet", "--package", "agon-component", "--target", "wasm32-unknown-unknown"])
        .args(["--profile", "wasm", "--target-dir"])
        .arg(target_dir);
    // Flags meant for an outer (native) build must not leak into the wasm one.
    for var in
        ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "RUSTC_WORKSPACE_WRAPPER", "RUSTC_WRAPPER", "CARGO_BUILD_TARGET"]
    {
        build.env_remove(var);
    }
    // Panic locations name source files; without remapping, the component
    // would carry this machine's paths and differ from one checkout to another.
    let mut rustflags = vec![format!("--remap-path-prefix={}=/agon", root.display())];
    if let Some(cargo_home) = cargo_home() {
        rustflags.push(format!("--remap-path-prefix={}=/cargo", cargo_home.display()));
    }
    build.env("CARGO_ENCODED_RUSTFLAGS", rustflags.join("\u{1f}"));
    let status = build.status().context("running cargo for the component")?;
    if !status.success() {
        bail!(
            "building the agon component failed. If the wasm target is missing, run \
             `rustup target add wasm32-unknown-unknown` (scripts/setup.sh does it for you)."
        );
    }
    let module_path = target_dir.join("wasm32-unknown-unknown/wasm/agon_component.wasm");
    let module = std::fs::read(&module_path).with_context(|| format!("reading {}", module_path.display()))?;
    wit_component::ComponentEncoder::default()
        .module(&module)
        .context("reading the component-type section of the core module")?
        .validate(true)
        .encode()
        .context("wrapping the core module as a component")
}

/// Where cargo keeps the registry sources: `$CARGO_HOME`, else `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
}

/// The workspace root, from this crate's manifest directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rebuild_triggers_exist_and_cover_the_root_manifest() {
        let root = workspace_root();
        for path in SOURCES {
            assert!(root.join(path).exists(), "{path} is watched but not there");
        }
        for shaping in ["Cargo.toml", "Cargo.lock"] {
            assert!(SOURCES.contains(&shaping), "a change to {shaping} must rebuild the component");
        }
    }
}
