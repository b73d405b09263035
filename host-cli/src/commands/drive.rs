//! What `run` and `resume` share: driving a debate to its end, writing its
//! result and transcripts, and the exit code of its outcome.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use agon_cli::cli::{DriveArgs, Format};
use agon_cli::compete_history::{self, Key};
use agon_cli::config::Config;
use agon_cli::engine::wit;
use agon_cli::host::{self, Ending, JournalFile, Sinks};
use agon_cli::lock::{Lock, LockError};
use agon_cli::output::{self, document_text};
use agon_cli::provider::{CallOptions, DEFAULT_MAX_REPLY, Environment};
use agon_cli::sessions::{self, SessionDir};
use agon_cli::timings::TimingsFile;
use agon_cli::view::{View, outcome_line};
use agon_cli::{bad, safe_eprintln, sanitize};
use anyhow::{Context, Result};

use super::document::{document, kind};
use super::exit;

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

/// How calls are made: the flags, then agon.toml, then the defaults.
pub fn call_options(drive: &DriveArgs, config: &Config) -> CallOptions {
    let from_file = config.defaults.max_reply.as_ref().and_then(|s| s.bytes().ok());
    CallOptions {
        timeout: Duration::from_secs(drive.timeout),
        stream: !drive.no_stream,
        max_reply: drive.max_reply.or(from_file).unwrap_or(DEFAULT_MAX_REPLY),
    }
}

/// The providers this run can call: the environment, agon.toml, the flags.
pub fn environment(config: &Config, drive: &DriveArgs) -> Environment {
    let mut env = Environment::new(config);
    env.retry.attempts = drive.retries + 1;
    env
}

/// Where a run's ending is kept: its session, a `--journal` copy, the compete history.
pub struct Ends<'a> {
    pub session: Option<&'a SessionDir>,
    pub journal_copy: Option<&'a std::path::Path>,
    pub history: Option<&'a Key>,
}

/// Drive the council to its end (or an interruption), then write the result,
/// the session's transcripts, the compete history and the exit code.
pub fn drive_to_end(
    council: &mut agon_cli::engine::Council<'_>,
    env: &Environment,
    drive: &DriveArgs,
    options: CallOptions,
    journals: Vec<JournalFile>,
    ends: Ends<'_>,
) -> Result<u8> {
    let Ends { session, journal_copy, history } = ends;
    let events_to_stdout = drive.events.as_deref() == Some("-");
    let stdout_is_terminal = std::io::stdout().is_terminal() && !events_to_stdout;
    // The live view goes to a terminal stdout, else to stderr; the result document to stdout or --output.
    let view_out: Option<Box<dyn Write>> = match (drive.quiet, stdout_is_terminal) {
        (true, _) => None,
        (false, true) => Some(Box::new(std::io::stdout())),
        (false, false) => Some(Box::new(std::io::stderr())),
    };
    // On a terminal: the live view (NO_COLOR: without colour); elsewhere plain lines.
    let colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut view = if stdout_is_terminal && !drive.quiet { View::live(colour) } else { View::new(view_out) };
    let events: Option<Box<dyn Write>> = match drive.events.as_deref() {
        None => None,
        Some("-") => Some(Box::new(std::io::stdout())),
        Some(path) => Some(Box::new(std::fs::File::create(path).with_context(|| format!("creating {path}"))?)),
    };
    let timings = session.map(|s| TimingsFile::open(&s.dir.join(sessions::TIMINGS)));
    let mut sinks = Sinks { events, journals, timings };
    let ending = host::drive(
        council,
        env,
        options,
        &mut sinks,
        &mut view,
        host::channel_with_interrupt(&mut |w| safe_eprintln!("{w}")),
    )
    .map_err(|e| {
        match session {
            // A full disk, say: what was answered before it is kept.
            Some(s) => anyhow::anyhow!(
                "{e:#}; every turn answered before that is kept: once that is fixed, continue with: agon resume {}",
                s.id
            ),
            None => e,
        }
    })?;
    // Take the status lines down before anything else is printed (they would be redrawn over it).
    drop(view);
    match ending {
        Ending::Done(outcome) => {
            let code = write_result(council, drive, stdout_is_terminal)?;
            // The view showed the outcome, unless it was quiet.
            if drive.quiet {
                note_outcome(&outcome);
            }
            if let Some(key) = history {
                record_history(council, key, session)?;
            }
            if let Some(s) = session {
                write_transcripts(council, s)?;
                if !drive.quiet {
                    eprintln!("agon: kept as session {} (agon show {} · agon export {})", s.id, s.id, s.id);
                }
            }
            Ok(code)
        }
        Ending::Interrupted => {
            let hint = match (session, journal_copy) {
                (Some(s), _) => format!("every answered turn is kept; resume with: agon resume {}", s.id),
                (None, Some(p)) => {
                    format!("every answered turn is in {}; see it with `agon replay {}`", p.display(), p.display())
                }
                (None, None) => "--no-save was given, so the answered turns are gone".to_string(),
            };
            safe_eprintln!("\nagon: interrupted; {hint}");
            Ok(exit::INTERRUPTED)
        }
    }
}

/// The result document, to --output or stdout, and the exit code of the outcome.
pub fn write_result(council: &mut agon_cli::engine::Council<'_>, drive: &DriveArgs, shown_live: bool) -> Result<u8> {
    let document = document(council, drive.format)?;
    let document = document_text(&document, kind(drive.format));
    let events_to_stdout = drive.events.as_deref() == Some("-");
    match (&drive.output, events_to_stdout, shown_live, drive.format) {
        (Some(path), _, _, _) => {
            std::fs::write(path, document.as_bytes()).with_context(|| format!("writing {}", path.display()))?
        }
        (None, true, _, _) => {}
        // The live view already showed the debate as Markdown on this terminal.
        (None, false, true, Format::Markdown) => {}
        (None, false, _, _) => {
            let mut out = std::io::stdout().lock();
            out.write_all(document.as_bytes())?;
            out.flush()?;
        }
    }
    let outcome = council.outcome()?.context("the debate ended without an outcome")?;
    Ok(exit_code(&outcome))
}

/// Count a finished run's compete result in its history; a history that
/// cannot be written costs a warning, never the run.
pub fn record_history(
    council: &mut agon_cli::engine::Council<'_>,
    key: &Key,
    session: Option<&SessionDir>,
) -> Result<()> {
    let transcript: serde_json::Value = serde_json::from_str(&council.transcript_json()?)?;
    let (Some(disagreements), Some(path)) = (compete_history::disagreements(&transcript), compete_history::path())
    else {
        return Ok(());
    };
    let entry =
        compete_history::Entry { disagreements, session: session.map(|s| s.id.clone()), at: agon_cli::doctor::now() };
    if let Err(e) = compete_history::append(&path, key, entry) {
        safe_eprintln!("agon: warning: this run is not counted in the compete history: {e}");
    }
    Ok(())
}

/// The session's rendered transcripts: as every text agon writes, no control character raw.
pub fn write_transcripts(council: &mut agon_cli::engine::Council<'_>, session: &SessionDir) -> Result<()> {
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

/// The outcome line on stderr when it is not a full answer and nothing showed it yet.
pub fn note_outcome(outcome: &wit::Outcome) {
    if !matches!(outcome.kind, wit::OutcomeKind::Completed | wit::OutcomeKind::Consensus) {
        safe_eprintln!("{}", outcome_line(outcome));
    }
}

pub fn exit_code(outcome: &wit::Outcome) -> u8 {
    match outcome.kind {
        wit::OutcomeKind::Completed | wit::OutcomeKind::Consensus => exit::OK,
        wit::OutcomeKind::Degraded => exit::DEGRADED,
        wit::OutcomeKind::JudgeFailed => exit::JUDGE_FAILED,
        wit::OutcomeKind::NoQuorum => exit::NO_QUORUM,
        wit::OutcomeKind::CostLimit => exit::COST_LIMIT,
    }
}
