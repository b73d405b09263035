//! `cargo run -p xtask -- component [--report] [--output PATH]`: build the
//! engine's component (default `target/agon.wasm`), or with `--report` the
//! report's (`target/agon-report.wasm`), without building the CLI and its wasmtime.
//!
//! `cargo run -p xtask -- catalog --from API_JSON --package P --snapshot DATE [--check]`:
//! write catalog/models.json from a models.dev catalog in api.json's shape,
//! trimmed by agon-catalog's rule (what `scripts/refresh-catalog.py` runs).

use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("component") => {
            let root = xtask::workspace_root();
            let (mut part, mut output) = (xtask::Part::Engine, None);
            while let Some(flag) = args.next() {
                match flag.as_str() {
                    "--output" | "-o" => output = Some(PathBuf::from(args.next().expect("--output needs a path"))),
                    "--report" => part = xtask::Part::Report,
                    other => anyhow::bail!("unknown flag {other}"),
                }
            }
            let output = output.unwrap_or_else(|| {
                root.join(match part {
                    xtask::Part::Engine => "target/agon.wasm",
                    xtask::Part::Report => "target/agon-report.wasm",
                })
            });
            // Where host-cli's build script builds it too: one wasm build, not two.
            let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
            let bytes = xtask::build_part(part, &root, &target.join("component"), None)?;
            if let Some(dir) = output.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&output, &bytes)?;
            println!("{} ({} bytes)", output.display(), bytes.len());
            Ok(())
        }
        Some("catalog") => catalog(args),
        _ => anyhow::bail!(
            "usage: cargo run -p xtask -- component [--report] [--output PATH]\n       \
cargo run -p xtask -- catalog --from API_JSON --package P --snapshot DATE [--check]"
        ),
    }
}

fn catalog(mut args: impl Iterator<Item = String>) -> anyhow::Result<()> {
    let (mut from, mut package, mut snapshot, mut check) = (None, None, None, false);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--from" => from = args.next(),
            "--package" => package = args.next(),
            "--snapshot" => snapshot = args.next(),
            "--check" => check = true,
            other => anyhow::bail!("unknown flag {other}"),
        }
    }
    let (Some(from), Some(package), Some(snapshot)) = (from, package, snapshot) else {
        anyhow::bail!("catalog needs --from, --package and --snapshot");
    };
    let api: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&from)?)?;
    let trimmed = agon_catalog::trim(&api).map_err(|e| anyhow::anyhow!("{from}: {e}"))?;
    for note in &trimmed.notes {
        eprintln!("note: {note}");
    }
    if !trimmed.problems.is_empty() {
        anyhow::bail!("{}", trimmed.problems.join("\n"));
    }
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for key in trimmed.models.keys() {
        *counts.entry(key.split_once('/').map_or(key.as_str(), |(p, _)| p)).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(p, n)| format!("{p} {n}")).collect();
    eprintln!("{} models ({}); left out: {} not text chat", trimmed.models.len(), summary.join(", "), trimmed.left_out);
    let text = agon_catalog::render(&agon_catalog::Header { package, snapshot }, &trimmed.models);
    let out = xtask::workspace_root().join("catalog/models.json");
    if check {
        if std::fs::read_to_string(&out).ok().as_deref() != Some(text.as_str()) {
            anyhow::bail!(
                "catalog/models.json is not what this snapshot and corrections.json give: rerun without --check"
            );
        }
        eprintln!("catalog/models.json is up to date");
        return Ok(());
    }
    std::fs::write(&out, text)?;
    eprintln!("wrote catalog/models.json");
    Ok(())
}
