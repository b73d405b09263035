//! `sessions` and `show`: reading what is kept, never anything else. A session
//! is found by id among the sessions folder's own entries, so no argument can
//! name a path.

use agon_cli::bad;
use agon_cli::output::Kind;
use agon_cli::runner::document::session_document;
use agon_cli::sessions;
use anyhow::Result;
use serde_json::{Value, json};

use super::debate::Answer;
use super::schema::ShowFormat;

pub fn list() -> Result<Answer> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME) for agon mcp"))?;
    let all = sessions::list(&root);
    let lines: Vec<String> = all.iter().map(|s| s.summary().line()).collect();
    let summaries: Vec<Value> = all.iter().map(|s| serde_json::to_value(s.summary())).collect::<Result<_, _>>()?;
    let markdown = if lines.is_empty() { "No sessions kept yet.".to_string() } else { lines.join("\n") };
    Ok(Answer {
        markdown: agon_cli::sanitize::terminal(&markdown).into_owned(),
        data: json!({ "sessions": summaries }),
    })
}

pub fn show(id: &str, format: ShowFormat) -> Result<Answer> {
    let (format, data) = match format {
        ShowFormat::Markdown => (Kind::Markdown, false),
        ShowFormat::Json => (Kind::Json, true),
    };
    let text = session_document(id, format)?;
    // The transcript as data too, when asked for JSON.
    let data = if data { serde_json::from_str(&text)? } else { Value::Null };
    Ok(Answer { markdown: agon_cli::sanitize::terminal(&text).into_owned(), data })
}
