//! Debates that run past their call: `debate` with `wait: false` answers as
//! soon as the session exists, and `status` reports how it goes, then gives
//! the result. For clients that time out a long call whatever progress they
//! hear. The debate itself is the same run, kept in the same session.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::time::Instant;

use agon_cli::host::Message;
use serde_json::json;

use super::debate::Answer;
use super::progress::one_line;

/// Every debate started in the background by this server, by session.
#[derive(Default)]
pub struct Background {
    debates: Mutex<BTreeMap<String, Entry>>,
}

struct Entry {
    state: State,
    started: Instant,
    interrupt: Sender<Message>,
}

enum State {
    Running { value: f64, total: u32, message: String },
    Done(Result<(String, serde_json::Value), String>),
}

impl Background {
    /// A debate has its session and is under way.
    pub fn started(&self, session: &str, total: u32, interrupt: Sender<Message>) {
        let entry = Entry {
            state: State::Running { value: 0.0, total, message: "started".into() },
            started: Instant::now(),
            interrupt,
        };
        self.debates.lock().unwrap().insert(session.to_string(), entry);
    }

    /// Its latest progress notification's value and message.
    pub fn progressed(&self, session: &str, value: f64, message: String) {
        if let Some(Entry { state: State::Running { value: v, message: m, .. }, .. }) =
            self.debates.lock().unwrap().get_mut(session)
        {
            (*v, *m) = (value, message);
        }
    }

    /// Its end: the result `debate` would have returned, or why it failed.
    pub fn finished(&self, session: &str, result: anyhow::Result<Answer>) {
        if let Some(entry) = self.debates.lock().unwrap().get_mut(session) {
            entry.state = State::Done(result.map(|a| (a.markdown, a.data)).map_err(|e| format!("{e:#}")));
        }
    }

    /// Ask a running debate to stop; its session keeps every answered turn.
    pub fn cancel(&self, session: &str) -> bool {
        match self.debates.lock().unwrap().get(session) {
            Some(Entry { state: State::Running { .. }, interrupt, .. }) => interrupt.send(Message::Interrupted).is_ok(),
            _ => false,
        }
    }

    /// How far a running debate is: its progress value, worst-case calls and
    /// latest step; `None` once it is done (or was never started here).
    pub fn progress(&self, session: &str) -> Option<(f64, u32, String)> {
        match &self.debates.lock().unwrap().get(session)?.state {
            State::Running { value, total, message } => Some((*value, *total, message.clone())),
            State::Done(_) => None,
        }
    }

    /// What `status` answers: the result when the debate is done, how far it
    /// is otherwise; `None` for a session this server did not start.
    pub fn status(&self, session: &str) -> Option<Result<Answer, String>> {
        let debates = self.debates.lock().unwrap();
        let entry = debates.get(session)?;
        Some(match &entry.state {
            State::Done(Ok((markdown, data))) => Ok(Answer { markdown: markdown.clone(), data: data.clone() }),
            State::Done(Err(why)) => Err(why.clone()),
            State::Running { value, total, message } => {
                Ok(running(session, *value, *total, message, entry.started.elapsed().as_secs()))
            }
        })
    }
}

/// A result in `debate`'s own shape for a debate still running: its outcome
/// says so (`running`, not complete) and what to call next.
pub fn running(session: &str, value: f64, total: u32, message: &str, seconds: u64) -> Answer {
    let reason = format!(
        "running for {seconds} s: {} of at most {total} calls done; latest: {}",
        value.floor() as u64,
        one_line(message)
    );
    let next = format!("call status with session {session} until the outcome is no longer running");
    let markdown = format!("**Running — not a result yet**: {reason}\n\nNext: {next}\n\nSession {session}\n");
    let data = json!({
        "session": session,
        "transcript": super::resources::transcript_uri(session),
        "outcome": {"kind": "running", "complete": false, "headline": "Running", "reason": reason, "next": next},
        "positions": [],
        "results": {},
        "warnings": [],
        "usage": {"calls": value.floor() as u64, "prompt_tokens": 0, "completion_tokens": 0},
        "shortened": [],
    });
    Answer { markdown, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_debate_is_running_then_done_and_an_unknown_one_is_none() {
        let b = Background::default();
        let (tx, rx) = std::sync::mpsc::channel();
        b.started("s1", 12, tx);
        b.progressed("s1", 3.5, "round 1 (deliberation) started".into());
        let running = b.status("s1").unwrap().unwrap();
        assert_eq!(running.data["outcome"]["kind"], "running");
        assert_eq!(running.data["outcome"]["complete"], false);
        assert!(running.data["outcome"]["reason"].as_str().unwrap().contains("3 of at most 12 calls"));
        assert!(b.cancel("s1"));
        assert!(matches!(rx.try_recv(), Ok(Message::Interrupted)));
        b.finished(
            "s1",
            Ok(Answer { markdown: "**Completed**".into(), data: json!({"outcome": {"kind": "completed"}}) }),
        );
        assert_eq!(b.status("s1").unwrap().unwrap().markdown, "**Completed**");
        assert!(!b.cancel("s1"), "a finished debate is not cancelled");
        assert!(b.status("s2").is_none());
    }
}
