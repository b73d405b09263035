//! The journal: the spec, then every input as it happened, one JSON per line.
//!
//! It is the single source of truth of a run: replay and resume are "create a
//! session and feed it the journal". Hosts append one line per input and flush,
//! so a crash loses nothing that was answered; a torn last line (the crash hit
//! mid-write) is ignored on reading.

use serde::{Deserialize, Serialize};

use crate::{DebateSpec, Error, Input};

/// The version of the journal format.
pub const JOURNAL_VERSION: u32 = 1;

/// The engine that writes journals: its prompts and rules decide what a
/// journal's inputs mean, so a journal records which engine wrote it.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Header {
    journal: u32,
    /// Absent in journals written before engines recorded themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    engine: Option<String>,
    spec: serde_json::Value,
}

/// A journal's first line, read: the spec, and the engine that wrote it.
pub struct Recorded {
    pub spec: DebateSpec,
    /// `None` for journals older than this field.
    pub engine: Option<String>,
}

impl Recorded {
    /// What a reader should know before trusting a replay: set when another
    /// engine version wrote the journal, since its prompts or rules may differ.
    pub fn replay_note(&self) -> Option<String> {
        let engine = self.engine.as_deref()?;
        (engine != ENGINE_VERSION).then(|| {
            format!(
                "this journal was written by agon engine {engine} and is replayed by {ENGINE_VERSION}: \
                 prompts or rules may differ, so the replay may not match the original run"
            )
        })
    }
}

/// The first line of a journal.
pub fn header(spec: &DebateSpec) -> String {
    let spec = serde_json::to_value(spec).expect("a spec always serializes");
    let header = Header { journal: JOURNAL_VERSION, engine: Some(ENGINE_VERSION.to_string()), spec };
    let mut line = serde_json::to_string(&header).expect("serializes");
    line.push('\n');
    line
}

/// The line recording one input.
pub fn entry(input: &Input) -> String {
    let mut line = serde_json::to_string(input).expect("inputs always serialize");
    line.push('\n');
    line
}

/// Read a journal into its header and its inputs, each with its 1-based line number.
pub fn parse(text: &str) -> Result<(Recorded, Vec<(usize, Input)>), Error> {
    let mut lines = text.split_inclusive('\n').enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(Error::InvalidJournal { line: 1, reason: "the journal is empty".into() });
    };
    let header: Header = crate::json_read::from_str(first).map_err(|e| Error::InvalidJournal {
        line: 1,
        reason: format!("the first line must be the journal header: {e}"),
    })?;
    if header.journal != JOURNAL_VERSION {
        return Err(Error::InvalidJournal {
            line: 1,
            reason: format!("journal version {} is not supported (expected {JOURNAL_VERSION})", header.journal),
        });
    }
    let spec = DebateSpec::from_json(&header.spec.to_string())
        .map_err(|e| Error::InvalidJournal { line: 1, reason: e.to_string() })?;
    let mut inputs = Vec::new();
    for (i, line) in lines {
        match crate::json_read::from_str::<Input>(line) {
            Ok(input) => inputs.push((i + 1, input)),
            // A crash mid-write leaves a last line without its newline: drop it.
            Err(_) if !line.ends_with('\n') => break,
            Err(e) => {
                return Err(Error::InvalidJournal { line: i + 1, reason: e });
            }
        }
    }
    Ok((Recorded { spec, engine: header.engine }, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str =
        r#"{"question":"q","protocol":{"name":"round-robin"},"panel":[{"id":"a","model":"m"},{"id":"b","model":"m"}]}"#;

    fn journal_by(engine: Option<&str>) -> String {
        let engine = engine.map(|e| format!(r#""engine":"{e}","#)).unwrap_or_default();
        format!("{{\"journal\":1,{engine}\"spec\":{SPEC}}}\n")
    }

    #[test]
    fn the_header_records_this_engine() {
        let spec = DebateSpec::from_json(SPEC).unwrap();
        let (recorded, _) = parse(&header(&spec)).unwrap();
        assert_eq!(recorded.engine.as_deref(), Some(env!("CARGO_PKG_VERSION")));
        assert_eq!(recorded.replay_note(), None);
    }

    #[test]
    fn another_engines_journal_is_replayed_with_a_note() {
        let (recorded, _) = parse(&journal_by(Some("0.0.1-older"))).unwrap();
        let note = recorded.replay_note().expect("a different engine is named");
        assert!(note.contains("0.0.1-older") && note.contains("may not match"), "{note}");
        let session = crate::Session::from_journal(&journal_by(Some("0.0.1-older"))).unwrap();
        assert_eq!(session.replay_note(), Some(note.as_str()));
    }

    #[test]
    fn a_journal_from_before_engines_recorded_themselves_still_reads() {
        let (recorded, inputs) = parse(&journal_by(None)).unwrap();
        assert_eq!((recorded.engine, inputs.len()), (None, 0));
    }
}
