//! A transcript in the form asked for: Markdown, JSON, or the JSON as YAML.

use anyhow::Result;

use crate::engine::{Council, Runtime};
use crate::output::Kind;
use crate::sessions::{self, SessionDir};
use crate::{bad, journal};

/// The council's transcript in `format`. YAML is the JSON transcript, re-encoded.
pub fn document(council: &mut Council<'_>, format: Kind) -> Result<String> {
    match format {
        Kind::Markdown => council.transcript_markdown(),
        Kind::Json => council.transcript_json(),
        Kind::Yaml => yaml(&council.transcript_json()?),
    }
}

pub fn yaml(json: &str) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    Ok(serde_yaml_ng::to_string(&value)?)
}

/// A session's transcript in `format`: the stored render, or rendered from
/// the journal when the run never ended.
pub fn session_document(id: &str, format: Kind) -> Result<String> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let stored = |name: &str| std::fs::read_to_string(session.dir.join(name)).ok();
    let found = match format {
        Kind::Markdown => stored(sessions::TRANSCRIPT_MD),
        Kind::Json => stored(sessions::TRANSCRIPT_JSON),
        Kind::Yaml => stored(sessions::TRANSCRIPT_JSON).map(|json| yaml(&json)).transpose()?,
    };
    if let Some(text) = found {
        return Ok(text);
    }
    let mut runtime = Runtime::load()?;
    let mut opened = journal::open(&mut runtime, &session.journal(), None)?;
    document(&mut opened.council, format)
}
