//! `cargo run -p xtask -- component [--output PATH]`: build agon.wasm
//! (default `target/agon.wasm`) without building the CLI and its wasmtime.

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("component") => {
            let root = xtask::workspace_root();
            let mut output = root.join("target/agon.wasm");
            while let Some(flag) = args.next() {
                match flag.as_str() {
                    "--output" | "-o" => output = PathBuf::from(args.next().expect("--output needs a path")),
                    other => anyhow::bail!("unknown flag {other}"),
                }
            }
            // Where host-cli's build script builds it too: one wasm build, not two.
            let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
            let bytes = xtask::build_component(&root, &target.join("component"), None)?;
            if let Some(dir) = output.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&output, &bytes)?;
            println!("{} ({} bytes)", output.display(), bytes.len());
            Ok(())
        }
        _ => anyhow::bail!("usage: cargo run -p xtask -- component [--output PATH]"),
    }
}
