//! The host loop: drive the engine, perform the calls it releases, feed back
//! what comes of them, and keep the journal. Each call goes through its
//! seat's fallback chain ([`call_seat`]); the journal files are
//! [`JournalFile`]s; [`preflight`] runs before anything is spent.
//!
//! Concurrency is plain threads and one channel. A debate has at most a
//! handful of calls in flight (one per seat), each blocking on a socket; a
//! thread per call is cheap, keeps the engine on one thread (the wasmtime
//! store never moves), and spares the binary an async runtime.

mod fallback;
mod journal_file;
mod preflight;

use std::collections::VecDeque;
use std::io::Write;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use anyhow::{Context, Result};

pub use fallback::call_seat;
pub use journal_file::JournalFile;
pub use preflight::preflight;

use crate::engine::{Council, wit};
use crate::provider::{self, CallOptions, Environment, human};
use crate::timings::{Timing, TimingsFile, now_ms};
use crate::view::View;

/// What a worker thread or the signal handler reports.
pub enum Message {
    Text {
        id: u64,
        piece: String,
    },
    /// A retry or a fallback, worth a line in the view.
    Note {
        id: u64,
        text: String,
    },
    Finished {
        id: u64,
        result: Result<provider::Completion, provider::CallError>,
    },
    /// When one call attempt ran, for the session's timings file.
    Timed(Timing),
    Interrupted,
}

/// How a run ended, from the host's side.
pub enum Ending {
    Done(wit::Outcome),
    Interrupted,
}

/// Where events and the journal go.
pub struct Sinks {
    pub events: Option<Box<dyn Write>>,
    /// The session's journal and any `--journal` copy; every input goes to each.
    pub journals: Vec<JournalFile>,
    /// The session's call timings (not the journal's business: replay ignores time).
    pub timings: Option<TimingsFile>,
}

/// Drive `council` to its end.
///
/// Model calls run on threads of their own. A person (`human/NAME`) is asked
/// one at a time: while they answer, the live view is paused and whatever
/// the other calls send waits, in order, so nothing moves under their typing;
/// no timeout applies to them.
pub fn drive(
    council: &mut Council<'_>,
    env: &Environment,
    options: CallOptions,
    sinks: &mut Sinks,
    view: &mut View,
    channel: (Sender<Message>, Receiver<Message>),
) -> Result<Ending> {
    let (tx, rx) = channel;
    // People waiting for their turn, the one answering now, and what arrived meanwhile.
    let mut people: VecDeque<wit::ModelRequest> = VecDeque::new();
    let mut asking: Option<u64> = None;
    let mut held: VecDeque<Message> = VecDeque::new();
    loop {
        loop {
            match council.poll()? {
                wit::Output::Request(request) if human::is_human(&request.model) => people.push_back(request),
                wit::Output::Request(request) => spawn_call(request, env, options, tx.clone()),
                wit::Output::Event(event) => {
                    if let Some(out) = &mut sinks.events {
                        writeln!(out, "{}", crate::output::json_text(&event.json))?;
                        out.flush()?;
                    }
                    if matches!(event.kind, wit::EventKind::DebateEnded(_)) {
                        // The protocol's named results, under the synthesis and above the outcome.
                        view.results(&council.results_markdown()?);
                    }
                    view.event(&event);
                }
                wit::Output::Idle => break,
                wit::Output::Done(outcome) => return Ok(Ending::Done(outcome)),
            }
        }
        if asking.is_none()
            && let Some(request) = people.pop_front()
        {
            asking = Some(request.id);
            view.asking_person(request.id, &request.seat, &request.model);
            spawn_person(request, tx.clone());
        }
        let message = match held.pop_front() {
            Some(m) if asking.is_none() => m,
            Some(m) => {
                held.push_front(m);
                rx.recv().context("every call worker vanished")?
            }
            None => rx.recv().context("every call worker vanished")?,
        };
        let message = match message {
            Message::Interrupted => return Ok(Ending::Interrupted),
            Message::Finished { id, result } if asking == Some(id) => {
                asking = None;
                view.person_answered(id);
                if let Ok(c) = &result {
                    view.text(id, &c.text);
                }
                Message::Finished { id, result }
            }
            // While a person answers, the rest waits its turn.
            other if asking.is_some() => {
                held.push_back(other);
                continue;
            }
            other => other,
        };
        match message {
            Message::Text { id, piece } => view.text(id, &piece),
            Message::Note { id: _, text } => view.notice(&text),
            Message::Timed(timing) => {
                if let Some(file) = &mut sinks.timings {
                    file.record(&timing);
                }
            }
            Message::Finished { id, result } => {
                let input = match result {
                    Ok(c) => {
                        wit::Input::Reply(wit::Reply { id, text: c.text, usage: c.usage, stop: c.stop, model: c.model })
                    }
                    Err(e) => wit::Input::Failed(wit::Failure { id, kind: e.kind, message: e.message, usage: e.usage }),
                };
                let line = council.handle(&input)?.map_err(anyhow::Error::new)?;
                for journal in &mut sinks.journals {
                    journal.append(&line)?;
                }
            }
            Message::Interrupted => return Ok(Ending::Interrupted),
        }
    }
}

fn spawn_call(request: wit::ModelRequest, env: &Environment, options: CallOptions, tx: Sender<Message>) {
    let id = request.id;
    let env = env.clone();
    thread::spawn(move || {
        let text_tx = tx.clone();
        let mut on_text = |piece: &str| {
            let _ = text_tx.send(Message::Text { id, piece: piece.to_string() });
        };
        let note_tx = tx.clone();
        let mut on_note = |note: String| {
            let _ = note_tx.send(Message::Note { id, text: note });
        };
        let timed_tx = tx.clone();
        let mut on_timed = |timing: Timing| {
            let _ = timed_tx.send(Message::Timed(timing));
        };
        let result = call_seat(&env, &request, options, &mut on_text, &mut on_note, &mut on_timed, &mut thread::sleep);
        let _ = tx.send(Message::Finished { id, result });
    });
}

/// Ask the person at the terminal on a thread of its own, so that Ctrl-C
/// still reaches the loop while they type: the prompt on stderr, the answer
/// from stdin. Their answer is timed as a model call is, from the moment they
/// are asked: the timeline shows where a debate waited on a person.
fn spawn_person(request: wit::ModelRequest, tx: Sender<Message>) {
    let id = request.id;
    thread::spawn(move || {
        let editor = human::editor_from_env();
        let stdin = std::io::stdin();
        let start_ms = now_ms();
        let result = human::ask(&request, &mut stdin.lock(), &mut std::io::stderr(), editor.as_deref());
        let _ = tx.send(Message::Timed(Timing {
            id,
            seat: request.seat.clone(),
            model: request.model.clone(),
            round: request.round,
            attempt: 1,
            fallback: false,
            start_ms,
            end_ms: now_ms(),
            ok: result.is_ok(),
        }));
        let _ = tx.send(Message::Finished { id, result });
    });
}

/// The channel the loop listens on, with Ctrl-C wired into it; `warn` hears
/// if it cannot be.
pub fn channel_with_interrupt(warn: &mut dyn FnMut(String)) -> (Sender<Message>, Receiver<Message>) {
    let (tx, rx) = mpsc::channel();
    let signal_tx = tx.clone();
    // A second Ctrl-C while the first is handled must still stop us: the handler only sends.
    let handler = move || {
        let _ = signal_tx.send(Message::Interrupted);
    };
    on_ctrl_c(handler, "without saying how to resume (every answered turn is in the journal all the same)", warn);
    (tx, rx)
}

/// Run `handler` on Ctrl-C. Should the OS (or an earlier handler) not allow
/// it, the run goes on, but Ctrl-C will then stop agon at once, `skipped`
/// (what the handler would have done): `warn` hears so, for the person.
pub fn on_ctrl_c(handler: impl FnMut() + Send + 'static, skipped: &str, warn: &mut dyn FnMut(String)) {
    if let Err(e) = ctrlc::set_handler(handler) {
        warn(format!("agon: warning: Ctrl-C cannot be caught ({e}); it will stop agon at once, {skipped}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ctrl_c_handler_that_cannot_be_set_is_reported() {
        let mut warnings = Vec::new();
        // A process has one handler: the second cannot be set.
        on_ctrl_c(|| {}, "a", &mut |w| warnings.push(w));
        on_ctrl_c(|| {}, "without the notice", &mut |w| warnings.push(w));
        let last = warnings.last().expect("a warning");
        assert!(last.contains("Ctrl-C") && last.ends_with("without the notice"), "{last}");
    }
}
