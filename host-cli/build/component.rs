//! Where the `agon:debate` component comes from when `agon` is built.
//!
//! - **In the workspace** (a clone): built from the sources, by
//!   [`build_component`]:
//!   1. `cargo build -p agon-component --target wasm32-unknown-unknown --profile wasm`
//!      into its own target directory (a nested cargo must not share the outer lock);
//!   2. the core module wrapped as a component with wit-component.
//! - **From a `.crate`** (`cargo install agon-cli`): the workspace is not
//!   there, so the component built when the crate was packed, carried in
//!   `bundled/` with the model catalog it was packed with ([`Source::Bundled`]).
//!
//! wasm32-unknown-unknown, not wasip2: the engine does no I/O, and this way the
//! component imports nothing at all. This file is host-cli's build script's,
//! and xtask's (`cargo run -p xtask -- component`, for the SDKs) by path: one
//! copy, inside the package that needs it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Paths, relative to the workspace, whose change means the component must
/// be rebuilt: the sources, and the root manifest and lockfile (the `wasm`
/// profile and the versions of every dependency live there).
pub const SOURCES: &[&str] = &["core/src", "core/Cargo.toml", "bindings/component", "wit", "Cargo.toml", "Cargo.lock"];

/// The folder of a packed crate that carries the component and the catalog.
pub const BUNDLED: &str = "bundled";
/// The component, in [`BUNDLED`].
pub const BUNDLED_COMPONENT: &str = "agon.wasm";
/// The model catalog, in [`BUNDLED`] (in the workspace: `catalog/models.json`).
pub const BUNDLED_CATALOG: &str = "models.json";

/// Where host-cli's build takes the component and the catalog from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The workspace at this root: build the component from its sources.
    Workspace(PathBuf),
    /// A packed crate: its `bundled/` folder.
    Bundled(PathBuf),
}

impl Source {
    /// The workspace when host-cli sits in it (its parent holds the core and
    /// the component's crate), else the crate's own `bundled/` folder.
    pub fn of(manifest_dir: &Path) -> Source {
        match manifest_dir.parent() {
            Some(root)
                if root.join("core/src/lib.rs").is_file() && root.join("bindings/component/Cargo.toml").is_file() =>
            {
                Source::Workspace(root.to_path_buf())
            }
            _ => Source::Bundled(manifest_dir.join(BUNDLED)),
        }
    }

    /// The model catalog's file.
    pub fn catalog(&self) -> PathBuf {
        match self {
            Source::Workspace(root) => root.join("catalog/models.json"),
            Source::Bundled(dir) => dir.join(BUNDLED_CATALOG),
        }
    }
}

/// The components the workspace builds from one WIT package: the engine
/// (what `agon` runs) and the report (rendering and evaluation reports, for
/// the SDKs; `agon` renders with agon-core itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Engine,
    Report,
}

impl Part {
    /// The crate that is the part's core module.
    pub fn package(self) -> &'static str {
        match self {
            Part::Engine => "agon-component",
            Part::Report => "agon-report-component",
        }
    }

    /// The core module's file, as cargo names it.
    fn module(self) -> String {
        format!("{}.wasm", self.package().replace('-', "_"))
    }
}

/// Build the engine component from the workspace at `root`, using
/// `target_dir` for the nested build, and return its bytes.
pub fn build_component(root: &Path, target_dir: &Path, cargo: Option<OsString>) -> Result<Vec<u8>> {
    build_part(Part::Engine, root, target_dir, cargo)
}

/// Build one of the workspace's components (see [`build_component`]).
pub fn build_part(part: Part, root: &Path, target_dir: &Path, cargo: Option<OsString>) -> Result<Vec<u8>> {
    require_wasm_target(&std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))?;
    let mut build = Command::new(cargo.unwrap_or_else(|| "cargo".into()));
    build
        .current_dir(root)
        .args(["build", "--quiet", "--package", part.package(), "--target", "wasm32-unknown-unknown"])
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
            "building the agon component (cargo build -p {} --target wasm32-unknown-unknown) failed: its errors are above",
            part.package()
        );
    }
    let module_path = target_dir.join("wasm32-unknown-unknown/wasm").join(part.module());
    let module = std::fs::read(&module_path).with_context(|| format!("reading {}", module_path.display()))?;
    wit_component::ComponentEncoder::default()
        .module(&module)
        .context("reading the component-type section of the core module")?
        .validate(true)
        .encode()
        .context("wrapping the core module as a component")
}

/// What to run when Rust's wasm target is missing, said before cargo's own
/// "can't find crate for `core`". Only a rustup toolchain is checked: another
/// Rust's layout is its own, and cargo's error stands for it.
pub const MISSING_TARGET: &str = "agon's build compiles its engine to WebAssembly, and this Rust \
     has no wasm32-unknown-unknown target. Run\n\n    rustup target add wasm32-unknown-unknown\n\n\
     then the same command again.";

pub fn require_wasm_target(rustc: &std::ffi::OsStr) -> Result<()> {
    let Ok(out) = Command::new(rustc).args(["--print", "sysroot"]).output() else { return Ok(()) };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let rustup = sysroot.join("lib/rustlib/multirust-channel-manifest.toml").is_file();
    if out.status.success() && rustup && !sysroot.join("lib/rustlib/wasm32-unknown-unknown").is_dir() {
        bail!(MISSING_TARGET);
    }
    Ok(())
}

/// Where cargo keeps the registry sources: `$CARGO_HOME`, else `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
}
