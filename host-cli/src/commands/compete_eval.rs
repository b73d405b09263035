//! `agon compete-eval SESSION [--final FILE]`: how much of a competitive
//! review was kept, as a machine-readable line and in the compete history.

use std::io::Read;
use std::path::Path;

use agon_cli::compete_eval::Evaluation;
use agon_cli::compete_history::{self, Key};
use agon_cli::output::Kind;
use agon_cli::runner::document::session_document;
use agon_cli::sessions::{self, SessionDir};
use agon_cli::{bad, safe_eprintln, safe_println};
use anyhow::Result;

use super::exit;

pub fn compete_eval(id: &str, kept: Option<&Path>) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let transcript: serde_json::Value = serde_json::from_str(&session_document(&session.id, Kind::Json)?)?;
    let kept = match kept {
        None => None,
        Some(path) if path == Path::new("-") => {
            let mut text = String::new();
            let limit = agon_cli::bounded::DOCUMENT_LIMIT;
            std::io::stdin()
                .take(limit + 1)
                .read_to_string(&mut text)
                .map_err(|e| bad(format!("--final -: standard input is not UTF-8 text ({e})")))?;
            if text.len() as u64 > limit {
                return Err(bad(format!("--final -: standard input is over {limit} bytes")));
            }
            Some(text)
        }
        Some(path) => Some(
            agon_cli::bounded::read_text(path, agon_cli::bounded::DOCUMENT_LIMIT, "--final")
                .map_err(|e| bad(e.to_string()))?,
        ),
    };
    let eval = Evaluation::of(&transcript, kept.as_deref()).map_err(|e| bad(format!("session {}: {e}", session.id)))?;
    safe_println!("{}", eval.line());
    // With the run in the compete history, under the key it counted in.
    let key: Option<Key> = std::fs::read_to_string(session.dir.join(sessions::COMPETE_KEY))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    match (key, compete_history::path()) {
        (Some(key), Some(path)) => {
            compete_history::evaluate(&path, &key, &session.id, eval).map_err(bad)?;
            safe_eprintln!("agon: recorded in {} ({} · {})", path.display(), key.protocol, key.label);
        }
        _ => safe_eprintln!(
            "agon: session {} counts in no compete history (run with --no-save?); nothing recorded",
            session.id
        ),
    }
    Ok(exit::OK)
}
