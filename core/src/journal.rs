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

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    journal: u32,
    spec: serde_json::Value,
}

/// The first line of a journal.
pub fn header(spec: &DebateSpec) -> String {
    let spec = serde_json::to_value(spec).expect("a spec always serializes");
    let mut line = serde_json::to_string(&Header { journal: JOURNAL_VERSION, spec }).expect("serializes");
    line.push('\n');
    line
}

/// The line recording one input.
pub fn entry(input: &Input) -> String {
    let mut line = serde_json::to_string(input).expect("inputs always serialize");
    line.push('\n');
    line
}

/// Read a journal into its spec and its inputs, each with its 1-based line number.
pub fn parse(text: &str) -> Result<(DebateSpec, Vec<(usize, Input)>), Error> {
    let mut lines = text.split_inclusive('\n').enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(Error::InvalidJournal { line: 1, reason: "the journal is empty".into() });
    };
    let header: Header = serde_json::from_str(first).map_err(|e| Error::InvalidJournal {
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
        match serde_json::from_str::<Input>(line) {
            Ok(input) => inputs.push((i + 1, input)),
            // A crash mid-write leaves a last line without its newline: drop it.
            Err(_) if !line.ends_with('\n') => break,
            Err(e) => {
                return Err(Error::InvalidJournal { line: i + 1, reason: e.to_string() });
            }
        }
    }
    Ok((spec, inputs))
}
