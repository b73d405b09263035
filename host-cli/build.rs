//! Builds the `agon:debate` component (see xtask) into `$OUT_DIR/agon.wasm`,
//! which `src/engine.rs` embeds with `include_bytes!`.

use std::env;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

fn main() -> anyhow::Result<()> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let root = manifest.parent().expect("host-cli sits inside the workspace").to_path_buf();
    for watched in xtask::SOURCES {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    let target_dir =
        env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target")).join("component");
    let component = xtask::build_component(&root, &target_dir, env::var_os("CARGO"))?;
    // Hashed here, not at every start: the hash names the compiled-component cache entry.
    let digest: String = Sha256::digest(&component).iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=AGON_COMPONENT_SHA256={digest}");
    std::fs::write(PathBuf::from(env::var("OUT_DIR")?).join("agon.wasm"), component)?;
    Ok(())
}
