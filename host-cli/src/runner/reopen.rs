//! A kept session opened again to go on: `agon resume` and MCP's `resume`.

use anyhow::Result;

use crate::bad;
use crate::compete_history::Key;
use crate::engine::{Council, Runtime, wit};
use crate::host::{self, JournalFile};
use crate::journal::{self, Retry};
use crate::provider::Environment;
use crate::sessions::{self, SessionDir};

use super::spec::models_of;

/// A session opened again: already finished, or ready to drive on.
pub enum Reopened<'r> {
    Finished(Council<'r>, wit::Outcome),
    Ready {
        council: Council<'r>,
        /// The session's journal, open for appending.
        journals: Vec<JournalFile>,
        /// The compete history the run counts in, when it has one.
        history: Option<Key>,
    },
}

/// Open `session` (locked by the caller) to go on: its journal repaired, and
/// cut back to the failures that are asked again. The endpoints in `env` are
/// checked before the journal changes.
pub fn reopen<'r>(
    runtime: &'r mut Runtime,
    session: &SessionDir,
    retry_failed: bool,
    env: &Environment,
) -> Result<Reopened<'r>> {
    let path = session.journal();
    let retry = if retry_failed { Retry::AllFailures } else { Retry::Transport };
    let journal::Opened { mut council, tail, cut } = journal::open(runtime, &path, Some(retry))?;
    if cut.is_none()
        && let Some(outcome) = council.outcome()?
    {
        journal::repair(&path, tail)?;
        eprintln!("agon: session {} already finished; nothing to call. Its transcript:", session.id);
        if !outcome.failures.is_empty() && !retry_failed {
            eprintln!(
                "agon: {} call(s) failed; `agon resume {} --retry-failed` asks them again (and what followed them)",
                outcome.failures.len(),
                session.id
            );
        }
        return Ok(Reopened::Finished(council, outcome));
    }
    // Before the journal changes: the endpoints must be back.
    let models = models_of(&serde_json::from_str(&council.spec_json()?)?);
    host::preflight(&models, env).map_err(bad)?;
    match cut {
        Some(cut) => {
            let kept = journal::replace(&path, &council.journal()?)?;
            // They told the old journal's story (still readable: `agon replay` the kept one).
            for stale in [sessions::TRANSCRIPT_JSON, sessions::TRANSCRIPT_MD] {
                match std::fs::remove_file(session.dir.join(stale)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(
                            anyhow::Error::new(e).context(format!("removing {stale} of session {}", session.id))
                        );
                    }
                    _ => {}
                }
            }
            let what = if retry_failed { "failed" } else { "failed on the way to their model (transport)" };
            eprintln!(
                "agon: session {}: asking again {} call(s) that {what}, from journal line {} on; {} answered call(s) planned after them are asked again too; the previous journal is kept as {}",
                session.id,
                cut.failures,
                cut.line,
                cut.replies_dropped,
                kept.display()
            );
        }
        None => journal::repair(&path, tail)?,
    }
    let waiting = council.outstanding()?.len();
    eprintln!("agon: resuming session {}: {waiting} call(s) were never answered", session.id);
    let journals = vec![JournalFile::append_to(&path)?];
    // The compete history the run counted in, when it had one.
    let history: Option<Key> = std::fs::read_to_string(session.dir.join(sessions::COMPETE_KEY))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    Ok(Reopened::Ready { council, journals, history })
}
