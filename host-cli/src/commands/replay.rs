//! `agon replay`: a journal rendered without calling any model: a file, or
//! a kept session's (`last`, an id, a prefix of one).

use std::io::Write;
use std::path::PathBuf;

use agon_cli::bad;
use agon_cli::cli::ReplayArgs;
use agon_cli::engine::Runtime;
use agon_cli::journal;
use agon_cli::output::{check_writable, document_text};
use agon_cli::runner::document::document;
use agon_cli::sessions::{self, SessionDir};
use anyhow::{Context, Result};

use super::drive::{exit_code, note_outcome};
use super::exit;

/// A journal rendered without calling any model; read a line at a time.
pub fn replay(args: ReplayArgs) -> Result<u8> {
    if let Some(path) = &args.output {
        check_writable(path, "--output").map_err(bad)?;
    }
    let path = journal_path(&args.journal)?;
    let mut runtime = Runtime::load()?;
    let journal::Opened { mut council, tail, .. } = journal::open(&mut runtime, &path, None)?;
    if let journal::Tail::Torn { .. } = tail {
        eprintln!("agon: the journal's last line is torn (a crash while it was written); it is left out");
    }
    if let Some(report) = &args.verify {
        let transcript: serde_json::Value = serde_json::from_str(&council.transcript_json()?)?;
        return super::review::verify(&transcript, report);
    }
    let document = document(&mut council, args.format.into())?;
    let document = document_text(&document, args.format.into());
    match &args.output {
        Some(path) => {
            std::fs::write(path, document.as_bytes()).with_context(|| format!("writing {}", path.display()))?
        }
        None => std::io::stdout().lock().write_all(document.as_bytes())?,
    }
    match council.outcome()? {
        Some(outcome) => {
            note_outcome(&outcome);
            Ok(exit_code(&outcome))
        }
        None => {
            let waiting = council.outstanding()?.len();
            eprintln!("agon: this debate did not finish; {waiting} request(s) were never answered");
            Ok(exit::INTERRUPTED)
        }
    }
}

/// The journal `given` names: a file by that path, else a kept session's.
fn journal_path(given: &str) -> Result<PathBuf> {
    let file = PathBuf::from(given);
    if file.exists() {
        return Ok(file);
    }
    let as_session = match sessions::root() {
        Some(root) => SessionDir::find(&root, given),
        None => Err("no sessions folder: set AGON_DATA_DIR (or HOME)".to_string()),
    };
    match as_session {
        Ok(session) => Ok(session.journal()),
        // Something that looks like a path was meant as a file.
        Err(_) if given.contains(['/', '.']) => Err(bad(format!("cannot read the journal {given}: no such file"))),
        Err(why) => Err(bad(format!("{given} is neither a journal file nor a kept session: {why}"))),
    }
}
