//! Builds the `agon:debate` component that the CLI carries inside itself.
//!
//! 1. `cargo build -p agon-component --target wasm32-unknown-unknown --profile wasm`
//!    into its own target directory (a nested cargo must not share the outer lock);
//! 2. wrap the core module as a component with wit-component;
//! 3. write `$OUT_DIR/agon.wasm`, which `src/engine.rs` embeds with `include_bytes!`.
//!
//! wasm32-unknown-unknown, not wasip2: the engine does no I/O, and this way the
//! component imports nothing at all.

use std::env;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result, bail};

fn main() -> Result<()> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let root = manifest
        .parent()
        .context("host-cli sits inside the workspace")?
        .to_path_buf();
    for watched in [
        "core/src",
        "core/Cargo.toml",
        "bindings/component",
        "wit",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    let target_dir = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("component");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(&root)
        .args([
            "build",
            "--quiet",
            "--package",
            "agon-component",
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            "wasm",
        ])
        .arg("--target-dir")
        .arg(&target_dir);
    // Flags meant for the outer (native) build must not leak into the wasm one.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
        "CARGO_BUILD_TARGET",
    ] {
        build.env_remove(var);
    }
    let status = build.status().context("running cargo for the component")?;
    if !status.success() {
        bail!(
            "building the agon component failed. If the wasm target is missing, run \
             `rustup target add wasm32-unknown-unknown` (scripts/setup does it for you)."
        );
    }
    let module_path = target_dir.join("wasm32-unknown-unknown/wasm/agon_component.wasm");
    let module = std::fs::read(&module_path)
        .with_context(|| format!("reading {}", module_path.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&module)
        .context("reading the component-type section of the core module")?
        .validate(true)
        .encode()
        .context("wrapping the core module as a component")?;
    let out = PathBuf::from(env::var("OUT_DIR")?).join("agon.wasm");
    std::fs::write(&out, component).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}
