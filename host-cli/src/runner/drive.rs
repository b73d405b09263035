//! What every front door does with a council once it is made or reopened:
//! drive it to its end through the providers, then keep what it produced
//! (the session's transcripts and pictures, the compete history). `agon run`,
//! `agon resume`, `agon mcp` and `agon batch` all end here.

use std::sync::mpsc::{Receiver, Sender};

use anyhow::{Context, Result};

use crate::compete_history::{self, Key};
use crate::engine::Council;
use crate::host::{self, Ending, Message, Sinks};
use crate::lock::{Lock, LockError};
use crate::provider::{CallOptions, Environment};
use crate::sessions::{self, SessionDir};
use crate::view::View;
use crate::{bad, output, safe_eprintln, sanitize};

/// Where a debate's ending is kept.
#[derive(Default)]
pub struct Keep<'a> {
    /// The session whose transcripts are written at the end.
    pub session: Option<&'a SessionDir>,
    /// The compete history the result counts in.
    pub history: Option<&'a Key>,
    /// How to go on after a failure, in the front door's words (`agon resume ID`);
    /// `None` when nothing was kept to go on from.
    pub resume: Option<String>,
}

/// Drive `council` until it ends or `channel` hears an interruption; when
/// it ends, keep its history and transcripts as `keep` says.
pub fn drive(
    council: &mut Council<'_>,
    env: &Environment,
    options: CallOptions,
    sinks: &mut Sinks,
    view: &mut View,
    channel: (Sender<Message>, Receiver<Message>),
    keep: &Keep<'_>,
) -> Result<Ending> {
    let ending = host::drive(council, env, options, sinks, view, channel).map_err(|e| match &keep.resume {
        // A full disk, say: what was answered before it is kept.
        Some(how) => anyhow::anyhow!("{e:#}; every turn answered before that is kept: once that is fixed, {how}"),
        None => e,
    })?;
    if let Ending::Done(_) = ending {
        if let Some(key) = keep.history {
            record_history(council, key, keep.session)?;
        }
        if let Some(s) = keep.session {
            write_transcripts(council, s)?;
        }
    }
    Ok(ending)
}

/// A new session in the sessions folder, locked for this process; none
/// (and no lock) with `--no-save`.
pub fn new_session(no_save: bool) -> Result<(Option<SessionDir>, Option<Lock>)> {
    if no_save {
        return Ok((None, None));
    }
    let root =
        sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME), or pass --no-save"))?;
    let session = SessionDir::create(&root).with_context(|| format!("creating a session in {}", root.display()))?;
    let lock = lock_session(&session)?;
    Ok((Some(session), Some(lock)))
}

/// One process per session: the lock is held until the returned guard drops.
pub fn lock_session(session: &SessionDir) -> Result<Lock> {
    Lock::acquire(&session.dir.join(sessions::LOCK)).map_err(|e| match e {
        LockError::Held { pid } => bad(format!(
            "session {} is in use by another agon process{}: wait for it to end (or stop it), then try again",
            session.id,
            pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
        )),
        LockError::Io(e) => anyhow::Error::new(e).context(format!("locking session {}", session.id)),
    })
}

/// Count a finished run's compete result in its history; a history that
/// cannot be written costs a warning, never the run.
pub fn record_history(council: &mut Council<'_>, key: &Key, session: Option<&SessionDir>) -> Result<()> {
    let transcript: serde_json::Value = serde_json::from_str(&council.transcript_json()?)?;
    let (Some(disagreements), Some(path)) = (compete_history::disagreements(&transcript), compete_history::path())
    else {
        return Ok(());
    };
    let entry = compete_history::Entry {
        disagreements,
        session: session.map(|s| s.id.clone()),
        at: crate::doctor::now(),
        eval: None,
    };
    if let Err(e) = compete_history::append(&path, key, entry) {
        safe_eprintln!("agon: warning: this run is not counted in the compete history: {e}");
    }
    Ok(())
}

/// The session's rendered transcripts: as every text agon writes, no control character raw.
pub fn write_transcripts(council: &mut Council<'_>, session: &SessionDir) -> Result<()> {
    let context = || {
        format!(
            "writing the transcripts of session {} (its journal is whole: `agon resume {}` writes them again)",
            session.id, session.id
        )
    };
    session.write(sessions::TRANSCRIPT_JSON, &output::json_text(&council.transcript_json()?)).with_context(context)?;
    let markdown = council.transcript_markdown()?;
    session.write(sessions::TRANSCRIPT_MD, &sanitize::terminal(&markdown)).with_context(context)?;
    // The pictures: the engine's bytes, as every host shows them.
    for (name, svg) in council.pictures()? {
        session.write(&name, &svg).with_context(context)?;
    }
    let timings = std::fs::read_to_string(session.dir.join(sessions::TIMINGS)).unwrap_or_default();
    if let Some(svg) = council.timeline_svg(&timings)? {
        session.write(sessions::TIMELINE_SVG, &svg).with_context(context)?;
    }
    Ok(())
}
