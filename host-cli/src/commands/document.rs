//! A transcript in the format asked for.

use agon_cli::cli::Format;
use agon_cli::output;
use anyhow::Result;

/// The transcript in the asked-for form. YAML is the JSON transcript, re-encoded.
pub fn document(council: &mut agon_cli::engine::Council<'_>, format: Format) -> Result<String> {
    match format {
        Format::Markdown => council.transcript_markdown(),
        Format::Json => council.transcript_json(),
        Format::Yaml => yaml(&council.transcript_json()?),
    }
}

pub fn kind(format: Format) -> output::Kind {
    match format {
        Format::Markdown => output::Kind::Markdown,
        Format::Json => output::Kind::Json,
        Format::Yaml => output::Kind::Yaml,
    }
}

pub fn yaml(json: &str) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    Ok(serde_yaml_ng::to_string(&value)?)
}
