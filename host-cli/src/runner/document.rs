//! A transcript in the form asked for: Markdown, JSON, or the JSON as YAML.

use anyhow::{Context, Result};

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

/// A kept transcript in the current format: one an earlier version kept
/// (format 1, results beside its own fields) is read through the engine's
/// migration, so every reader of it (show, export, the ADR) sees format 2.
fn current_format(json: String) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(&json).context("reading a kept transcript")?;
    if value["version"] == agon_core::TRANSCRIPT_VERSION {
        return Ok(json);
    }
    let transcript: agon_core::Transcript =
        serde_json::from_value(value).context("reading a transcript an earlier version kept")?;
    Ok(transcript.to_json())
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
    let stored_json = || stored(sessions::TRANSCRIPT_JSON).map(current_format).transpose();
    let found = match format {
        Kind::Markdown => stored(sessions::TRANSCRIPT_MD),
        Kind::Json => stored_json()?,
        Kind::Yaml => stored_json()?.map(|json| yaml(&json)).transpose()?,
    };
    if let Some(text) = found {
        return Ok(text);
    }
    let mut runtime = Runtime::load()?;
    let mut opened = journal::open(&mut runtime, &session.journal(), None)?;
    document(&mut opened.council, format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_an_earlier_version_kept_is_shown_in_the_current_format() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for case in ["round-robin-vote", "priority-vote-four-items", "red-blue-document"] {
            let format_1 = std::fs::read_to_string(root.join(format!("tests/format1/{case}.json"))).unwrap();
            let format_2 = std::fs::read_to_string(root.join(format!("tests/golden/{case}/transcript.json"))).unwrap();
            assert!(format_1.contains("\"version\": 1"), "{case}: the kept file is format 1");
            assert_eq!(current_format(format_1).unwrap(), format_2, "{case}");
            assert_eq!(current_format(format_2.clone()).unwrap(), format_2, "{case}: format 2 is kept as it is");
        }
        assert!(
            current_format("{\"version\": 9}".into()).unwrap_err().chain().any(|e| e.to_string().contains("version"))
        );
    }
}
