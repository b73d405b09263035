//! Kept debates as MCP resources: `agon://sessions/ID/transcript.md` (and
//! `.json`), the whole transcript a shortened result points to. Read only
//! what the sessions folder keeps, found by id among its own entries, as
//! `show` is: no URI can name a path.

use agon_cli::bad;
use agon_cli::output::Kind;
use agon_cli::runner::document::session_document;
use agon_cli::sessions;
use anyhow::Result;

const PREFIX: &str = "agon://sessions/";

/// The URI of a session's Markdown transcript.
pub fn transcript_uri(session: &str) -> String {
    format!("{PREFIX}{session}/transcript.md")
}

/// The URI template clients fill in.
pub const TEMPLATE: &str = "agon://sessions/{session}/transcript.{format}";

/// The session and format a transcript URI names, or why it names none.
pub fn parse(uri: &str) -> Result<(&str, Kind), String> {
    let rest = uri
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("{uri}: not an agon transcript (agon://sessions/ID/transcript.md)"))?;
    let (session, file) = rest.split_once('/').ok_or_else(|| format!("{uri}: no file after the session id"))?;
    let kind = match file {
        "transcript.md" => Kind::Markdown,
        "transcript.json" => Kind::Json,
        other => return Err(format!("{uri}: no '{other}' (a session has transcript.md and transcript.json)")),
    };
    // An id is letters, digits and dashes: nothing that could walk out of the folder.
    if session.is_empty() || !session.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!("{uri}: '{session}' is not a session id"));
    }
    Ok((session, kind))
}

/// A transcript's text and MIME type.
pub fn read(uri: &str) -> Result<(String, &'static str)> {
    let (session, kind) = parse(uri).map_err(bad)?;
    let text = session_document(session, kind)?;
    let mime = if kind == Kind::Json { "application/json" } else { "text/markdown" };
    Ok((agon_cli::sanitize::terminal(&text).into_owned(), mime))
}

/// The kept sessions' transcripts, newest first (at most `limit`).
pub fn list(limit: usize) -> Vec<(String, String)> {
    let Some(root) = sessions::root() else { return Vec::new() };
    sessions::list(&root)
        .iter()
        .take(limit)
        .map(|s| {
            let summary = s.summary();
            let title = format!("{} · {} · {}", summary.created, summary.protocol, summary.question);
            (transcript_uri(&summary.id), agon_cli::sanitize::terminal(&title).chars().take(120).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_sessions_transcript_is_named() {
        assert_eq!(parse(&transcript_uri("20261127-081500-ab12")).unwrap().0, "20261127-081500-ab12");
        assert_eq!(parse("agon://sessions/last/transcript.json").unwrap().1, Kind::Json);
        for bad in [
            "file:///etc/passwd",
            "agon://sessions/../../etc/transcript.md",
            "agon://sessions/a/journal.ndjson",
            "agon://sessions//transcript.md",
            "agon://sessions/a%2F..%2Fb/transcript.md",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
