//! `agon replay`: a journal rendered without calling any model.

use std::io::Write;

use agon_cli::bad;
use agon_cli::cli::ReplayArgs;
use agon_cli::engine::Runtime;
use agon_cli::journal;
use agon_cli::output::{check_writable, document_text};
use agon_cli::runner::document::document;
use anyhow::{Context, Result};

use super::drive::{exit_code, note_outcome};
use super::exit;

/// A journal rendered without calling any model; read a line at a time.
pub fn replay(args: ReplayArgs) -> Result<u8> {
    if let Some(path) = &args.output {
        check_writable(path, "--output").map_err(bad)?;
    }
    if !args.journal.exists() {
        return Err(bad(format!("cannot read the journal {}: no such file", args.journal.display())));
    }
    let mut runtime = Runtime::load()?;
    let journal::Opened { mut council, tail, .. } = journal::open(&mut runtime, &args.journal, None)?;
    if let journal::Tail::Torn { .. } = tail {
        eprintln!("agon: the journal's last line is torn (a crash while it was written); it is left out");
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
