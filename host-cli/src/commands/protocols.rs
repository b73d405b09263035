//! `agon protocols`: every protocol the engine offers, then your own
//! (agon.toml's `[protocols]`); `--show NAME` prints one's document.

use agon_cli::cli::DocumentFormat;
use agon_cli::config::Config;
use agon_cli::engine::{Runtime, wit};
use agon_cli::runner::spec::configured;
use agon_cli::{bad, protocol_file, safe_eprintln, safe_println};
use anyhow::Result;

use super::exit;

pub fn protocols(config: &Config, show: Option<&str>, format: DocumentFormat) -> Result<u8> {
    let mut runtime = Runtime::load()?;
    if let Some(name) = show {
        return show_document(&mut runtime, config, name, format);
    }
    let documents: Vec<String> = runtime.protocol_documents()?.into_iter().map(|(name, _)| name).collect();
    for p in runtime.protocols()? {
        describe(&p);
        if documents.contains(&p.name) {
            safe_println!("{:<22}a protocol document: agon protocols --show {}", "", p.name);
        }
    }
    let mut code = exit::OK;
    if !config.protocols.is_empty() {
        let at = config.path.as_ref().map_or("agon.toml".into(), |p| p.display().to_string());
        safe_println!("\nYour protocols ({at}):");
        for (name, entry) in &config.protocols {
            match configured(&mut runtime, config, name, &entry.file) {
                Ok(own) => {
                    describe(&own.checked.info);
                    safe_println!("{:<22}file: {}", "", own.file.display());
                }
                // One broken file does not hide the others; the exit status tells.
                Err(e) => {
                    safe_println!("{name:<22}(unusable; see below)");
                    safe_eprintln!("agon: {e:#}");
                    code = exit::BAD_INPUT;
                }
            }
        }
    }
    Ok(code)
}

/// A protocol's line, and its details indented below it.
fn describe(p: &wit::ProtocolInfo) {
    safe_println!("{:<22}{}", p.name, p.summary);
    let seats = match p.max_seats {
        Some(max) if max == p.min_seats => format!("{max} seats"),
        Some(max) => format!("{} to {max} seats", p.min_seats),
        None => format!("{} or more seats", p.min_seats),
    };
    let sides = if p.sides.is_empty() { String::new() } else { format!(" ({})", p.sides.join(", ")) };
    let rounds = if p.max_rounds == 1 {
        format!("one pass ({})", p.round_unit)
    } else {
        format!("rounds: {} by default, at most {} (a round: {})", p.default_rounds, p.max_rounds, p.round_unit)
    };
    safe_println!("{:<22}{seats}{sides} · {rounds}", "");
    for o in &p.options {
        let default = if o.default.is_empty() { "required".to_string() } else { format!("default {}", o.default) };
        safe_println!("{:<22}protocol.{} ({default}): {}", "", o.name, o.help);
    }
}

/// `--show NAME`: your own protocol's document first (as the engine
/// normalized it), else a built-in's as it ships. A path (a protocol's name
/// has no `/` or `.`) is a document file's, checked and normalized: the way
/// to turn a TOML or YAML document into JSON for the page or an SDK.
fn show_document(runtime: &mut Runtime, config: &Config, name: &str, format: DocumentFormat) -> Result<u8> {
    let document: serde_json::Value = if name.contains(['/', '\\', '.']) {
        protocol_file::load(runtime, std::path::Path::new(name))?.map_err(bad)?.checked.document
    } else if let Some(entry) = config.protocols.get(name) {
        configured(runtime, config, name, &entry.file)?.checked.document
    } else if let Some((_, text)) = runtime.protocol_documents()?.into_iter().find(|(n, _)| n == name) {
        // As it ships, in its own order, when JSON is asked for.
        if format == DocumentFormat::Json {
            safe_println!("{}", text.trim_end());
            return Ok(exit::OK);
        }
        serde_json::from_str(&text)?
    } else if runtime.protocols()?.iter().any(|p| p.name == name) {
        return Err(bad(format!(
            "{name} is built into the engine as code: the protocol format cannot say it yet (see the book's \
             \"Write your own protocol\", docs/src/own-protocol.md); `agon protocols` marks the ones that are documents"
        )));
    } else {
        return Err(bad(format!("no protocol named '{name}' (see `agon protocols`)")));
    };
    let format = match format {
        DocumentFormat::Json => "json",
        DocumentFormat::Toml => "toml",
        DocumentFormat::Yaml => "yaml",
    };
    let text = protocol_file::render(&document, format).map_err(|e| bad(format!("{name} as {format}: {e}")))?;
    safe_println!("{}", text.trim_end());
    Ok(exit::OK)
}
