//! Builds the `agon:debate` component from the workspace's sources (or, built
//! from a packed crate, takes the one it carries: `build/component.rs`) into
//! `$OUT_DIR/agon.wasm.deflate` (carried for `agon component`), copies the
//! model catalog to `$OUT_DIR/models.json`, then compiles the component ahead
//! of time, so that no run of `agon` ever compiles:
//!
//! - `agon.native.cwasm`: machine code for the target's baseline CPU (not the
//!   build machine's: a binary built here runs on any CPU of its target);
//! - `agon.pulley.cwasm.deflate`: bytecode for Pulley, wasmtime's portable
//!   interpreter, loaded only if the native code is refused; deflated, since
//!   it is rarely needed (1.3 MB, 0.5 MB deflated).
//!
//! `src/engine.rs` embeds all three with `include_bytes!`.

use std::env;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

// The report component is built for the SDKs (xtask), not for `agon`.
#[allow(dead_code)]
#[path = "build/component.rs"]
mod component;
#[path = "src/engine_config.rs"]
mod engine_config;
#[path = "build/packed_relocations.rs"]
mod packed_relocations;

fn main() -> anyhow::Result<()> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    println!("cargo:rerun-if-changed=src/engine_config.rs");
    println!("cargo:rerun-if-changed=build/packed_relocations.rs");
    println!("cargo:rerun-if-changed=build/component.rs");
    println!("cargo::rustc-check-cfg=cfg(agon_bundled)");
    packed_relocations::request();
    let source = component::Source::of(&manifest);
    // The compiled component is cached by content (see `precompile`): beside the
    // wasm build, in AGON_COMPONENT_DIR if the builder names one
    // (scripts/package-cli.sh does, so that the packed crate's verification,
    // in a target directory of its own, compiles the component no second
    // time), else in the workspace's target directory; a packed crate without
    // it keeps its cache in this build's own folder.
    println!("cargo:rerun-if-env-changed=AGON_COMPONENT_DIR");
    let given_dir = env::var_os("AGON_COMPONENT_DIR").map(PathBuf::from);
    let (component, cache) = match &source {
        component::Source::Workspace(root) => {
            for watched in component::SOURCES {
                println!("cargo:rerun-if-changed={}", root.join(watched).display());
            }
            let target_dir = given_dir.unwrap_or_else(|| {
                env::var_os("CARGO_TARGET_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| root.join("target"))
                    .join("component")
            });
            (component::build_component(root, &target_dir, env::var_os("CARGO"))?, target_dir.join("precompiled"))
        }
        component::Source::Bundled(dir) => {
            // src/engine.rs reads the WIT from bundled/wit/ then.
            println!("cargo::rustc-cfg=agon_bundled");
            let file = dir.join(component::BUNDLED_COMPONENT);
            println!("cargo:rerun-if-changed={}", file.display());
            let bytes = std::fs::read(&file).map_err(|e| {
                anyhow::anyhow!("{}: {e}; a packed agon-cli carries the component it was packed with", file.display())
            })?;
            let cache = match given_dir {
                Some(dir) => dir.join("precompiled"),
                None => PathBuf::from(env::var("OUT_DIR")?).join("precompiled"),
            };
            (bytes, cache)
        }
    };
    let out = PathBuf::from(env::var("OUT_DIR")?);
    // Carried only for `agon component`, which writes it out: deflated.
    std::fs::write(out.join("agon.wasm.deflate"), miniz_oxide::deflate::compress_to_vec(&component, 9))?;

    // The model catalog (`src/catalog.rs` embeds it), and its snapshot for `agon --version`.
    let catalog_file = source.catalog();
    println!("cargo:rerun-if-changed={}", catalog_file.display());
    let catalog =
        std::fs::read_to_string(&catalog_file).map_err(|e| anyhow::anyhow!("{}: {e}", catalog_file.display()))?;
    std::fs::write(out.join("models.json"), &catalog)?;
    println!("cargo:rustc-env=AGON_CATALOG_SNAPSHOT={}", snapshot_of(&catalog));

    // Cargo's TARGET is the triple the binary is for; the pointer width and
    // byte order pick the Pulley flavour that matches it.
    let target = env::var("TARGET")?;
    let pulley =
        match (env::var("CARGO_CFG_TARGET_POINTER_WIDTH")?.as_str(), env::var("CARGO_CFG_TARGET_ENDIAN")?.as_str()) {
            ("32", "little") => "pulley32",
            ("32", _) => "pulley32be",
            (_, "little") => "pulley64",
            _ => "pulley64be",
        };
    println!("cargo:rustc-env=AGON_PULLEY_TARGET={pulley}");
    let portable = precompile(&component, pulley, &cache)?;
    std::fs::write(out.join("agon.pulley.cwasm.deflate"), miniz_oxide::deflate::compress_to_vec(&portable, 9))?;
    // A target Cranelift cannot compile for gets the Pulley code in both places.
    let native = precompile(&component, &target, &cache).or_else(|_| precompile(&component, pulley, &cache))?;
    std::fs::write(out.join("agon.native.cwasm"), native)?;
    Ok(())
}

/// "models.dev 2026-08-18": the catalog's source and snapshot date, read
/// from the head of its JSON (a build script without a JSON parser).
fn snapshot_of(catalog: &str) -> String {
    let field = |name: &str| {
        let start = catalog.find(&format!("\"{name}\": \""))? + name.len() + 5;
        catalog[start..].split('"').next().map(str::to_string)
    };
    match (field("source"), field("snapshot")) {
        (Some(source), Some(date)) => format!("{source} {date}"),
        _ => "unknown".to_string(),
    }
}

/// The component compiled for `target` with wasmtime's defaults and no CPU
/// features beyond the target's baseline (an explicit target turns off the
/// detection of the build machine's CPU).
///
/// Kept in `cache` under a hash of the component and of everything wasmtime
/// says makes compiled code compatible (its version, settings and target):
/// clippy, test, release and packaging builds of one checkout, and other
/// checkouts sharing the target directory, then compile each component once.
fn precompile(component: &[u8], target: &str, cache: &Path) -> anyhow::Result<Vec<u8>> {
    let mut config = wasmtime::Config::new();
    config.target(target)?;
    engine_config::shared(&mut config);
    let engine = wasmtime::Engine::new(&config)?;
    let mut key = DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut key);
    component.hash(&mut key);
    let path = cache.join(format!("{target}-{:016x}.cwasm", key.finish()));
    if let Ok(compiled) = std::fs::read(&path) {
        return Ok(compiled);
    }
    let compiled = engine.precompile_component(component)?;
    // Written whole under a scratch name, then renamed: a build killed midway
    // never leaves a partial file that a later build would take.
    std::fs::create_dir_all(cache)?;
    let scratch = path.with_extension(format!("{}.partial", std::process::id()));
    std::fs::write(&scratch, &compiled)?;
    std::fs::rename(&scratch, &path)?;
    Ok(compiled)
}
