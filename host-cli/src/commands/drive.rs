//! What `run` and `resume` show of a debate the runner drives: the live
//! view, the events, the result document, and the exit code of its outcome.

use std::io::{IsTerminal, Write};

use agon_cli::cli::{DriveArgs, Format};
use agon_cli::closed_pipe::Quiet;
use agon_cli::compete_history::Key;
use agon_cli::config::Config;
use agon_cli::engine::wit;
use agon_cli::host::{self, Ending, JournalFile, Sinks};
use agon_cli::output::document_text;
use agon_cli::provider::{CallOptions, Environment};
use agon_cli::runner::document::document;
use agon_cli::runner::{self, Keep};
use agon_cli::safe_eprintln;
use agon_cli::sessions::{self, SessionDir};
use agon_cli::timings::TimingsFile;
use agon_cli::view::{View, outcome_line};
use anyhow::{Context, Result};

use super::exit;

/// How calls are made: the flags, then agon.toml, then the defaults.
pub fn call_options(drive: &DriveArgs, config: &Config) -> CallOptions {
    drive.calls.call_options(config, drive.calls.timeout, !drive.no_stream)
}

/// The providers this run can call: the environment, agon.toml, the flags.
pub fn environment(config: &Config, drive: &DriveArgs) -> Environment {
    drive.calls.environment(config)
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
        (false, true) => Some(Box::new(Quiet(std::io::stdout()))),
        (false, false) => Some(Box::new(Quiet(std::io::stderr()))),
    };
    // On a terminal: the live view (NO_COLOR: without colour); elsewhere plain lines.
    let colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut view = if stdout_is_terminal && !drive.quiet { View::live(colour) } else { View::new(view_out) };
    let events: Option<Box<dyn Write>> = match drive.events.as_deref() {
        None => None,
        Some("-") => Some(Box::new(Quiet(std::io::stdout()))),
        Some(path) => Some(Box::new(std::fs::File::create(path).with_context(|| format!("creating {path}"))?)),
    };
    let timings = session.map(|s| TimingsFile::open(&s.dir.join(sessions::TIMINGS)));
    let mut sinks = Sinks { events, journals, timings };
    let keep = Keep { session, history, resume: session.map(|s| format!("continue with: agon resume {}", s.id)) };
    let channel = host::channel_with_interrupt(&mut |w| safe_eprintln!("{w}"));
    let ending = runner::drive(council, env, options, &mut sinks, &mut view, channel, &keep)?;
    // Take the status lines down before anything else is printed (they would be redrawn over it).
    drop(view);
    match ending {
        Ending::Done(outcome) => {
            // With --quiet nothing showed the debate: the result is written, on a terminal too.
            let code = write_result(council, drive, stdout_is_terminal && !drive.quiet)?;
            // The view showed the outcome, unless it was quiet.
            if drive.quiet {
                note_outcome(&outcome);
            }
            if let Some(s) = session
                && !drive.quiet
            {
                safe_eprintln!("agon: kept as session {} (agon show {} · agon export {})", s.id, s.id, s.id);
            }
            // What it cost, last: the bill is what a run is judged by.
            let summary = council.cost_summary()?;
            safe_eprintln!("{}", agon_cli::runner::cost::spent_line(&council.transcript_json()?, &summary));
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
    let document = document(council, drive.format.into())?;
    let document = document_text(&document, drive.format.into());
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
