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

/// Every debate started in the background by this server: by session, and
/// by ticket while one waits for a free debate slot. Each belongs to the
/// client that started it: another client can neither read nor cancel it.
#[derive(Default)]
pub struct Background {
    debates: Mutex<BTreeMap<String, Entry>>,
    tickets: Mutex<u64>,
}

struct Entry {
    owner: String,
    state: State,
    started: Instant,
    interrupt: Option<Sender<Message>>,
}

enum State {
    /// Waiting for a debate slot (every slot busy when it was asked for).
    Queued,
    Running {
        value: f64,
        total: u32,
        message: String,
    },
    Done(Result<(String, serde_json::Value), String>),
    /// A queued ticket whose debate now runs in this session.
    Moved(String),
}

impl Background {
    /// A debate waits for a slot: its ticket, for `status` until it starts.
    pub fn queue(&self, owner: &str) -> String {
        let ticket = {
            let mut n = self.tickets.lock().unwrap();
            *n += 1;
            format!("queued-{n}")
        };
        let entry = Entry { owner: owner.to_string(), state: State::Queued, started: Instant::now(), interrupt: None };
        self.debates.lock().unwrap().insert(ticket.clone(), entry);
        ticket
    }

    /// Whether a queued ticket was cancelled before it got its slot.
    pub fn dropped(&self, ticket: &str) -> bool {
        !matches!(self.debates.lock().unwrap().get(ticket), Some(Entry { state: State::Queued, .. }))
    }

    /// A debate has its session and is under way (`ticket`: the one it waited under).
    pub fn started(&self, owner: &str, session: &str, total: u32, interrupt: Sender<Message>, ticket: Option<&str>) {
        let entry = Entry {
            owner: owner.to_string(),
            state: State::Running { value: 0.0, total, message: "started".into() },
            started: Instant::now(),
            interrupt: Some(interrupt),
        };
        let mut debates = self.debates.lock().unwrap();
        debates.insert(session.to_string(), entry);
        if let Some(queued) = ticket.and_then(|t| debates.get_mut(t)) {
            queued.state = State::Moved(session.to_string());
        }
    }

    /// Its latest progress notification's value and message.
    pub fn progressed(&self, session: &str, value: f64, message: String) {
        if let Some(Entry { state: State::Running { value: v, message: m, .. }, .. }) =
            self.debates.lock().unwrap().get_mut(session)
        {
            (*v, *m) = (value, message);
        }
    }

    /// Its end: the result `debate` would have returned, or why it failed
    /// (`key`: its session, or its ticket when it failed before it had one).
    pub fn finished(&self, key: &str, result: anyhow::Result<Answer>) {
        if let Some(entry) = self.debates.lock().unwrap().get_mut(key) {
            entry.state = State::Done(result.map(|a| (a.markdown, a.data)).map_err(|e| format!("{e:#}")));
        }
    }

    /// The entry `key` names for `owner`, a moved ticket followed to its session.
    fn entry_key(debates: &BTreeMap<String, Entry>, key: &str, owner: &str) -> Option<String> {
        let entry = debates.get(key).filter(|e| e.owner == owner)?;
        match &entry.state {
            State::Moved(session) => Some(session.clone()),
            _ => Some(key.to_string()),
        }
    }

    /// `owner` asks to stop a debate of its own: a running one stops (its
    /// session keeps every answered turn), a queued one never starts.
    pub fn cancel(&self, key: &str, owner: &str) -> bool {
        let mut debates = self.debates.lock().unwrap();
        let Some(key) = Self::entry_key(&debates, key, owner) else { return false };
        let Some(entry) = debates.get_mut(&key) else { return false };
        match (&entry.state, &entry.interrupt) {
            (State::Running { .. }, Some(interrupt)) => interrupt.send(Message::Interrupted).is_ok(),
            (State::Queued, _) => {
                entry.state = State::Done(Err("cancelled before it started".into()));
                true
            }
            _ => false,
        }
    }

    /// How far a running debate is: its progress value, worst-case calls and
    /// latest step; `None` once it is done (or was never started here).
    pub fn progress(&self, session: &str) -> Option<(f64, u32, String)> {
        match &self.debates.lock().unwrap().get(session)?.state {
            State::Running { value, total, message } => Some((*value, *total, message.clone())),
            _ => None,
        }
    }

    /// What `status` answers `owner`: the result when the debate is done,
    /// how far it is otherwise; `None` for one this server did not start
    /// for that client.
    pub fn status(&self, key: &str, owner: &str) -> Option<Result<Answer, String>> {
        let debates = self.debates.lock().unwrap();
        let key = Self::entry_key(&debates, key, owner)?;
        let entry = debates.get(&key)?;
        Some(match &entry.state {
            State::Done(Ok((markdown, data))) => Ok(Answer { markdown: markdown.clone(), data: data.clone() }),
            State::Done(Err(why)) => Err(why.clone()),
            State::Running { value, total, message } => {
                Ok(running(&key, *value, *total, message, entry.started.elapsed().as_secs()))
            }
            State::Queued | State::Moved(_) => Ok(queued(&key, entry.started.elapsed().as_secs())),
        })
    }
}

/// A result in `debate`'s own shape for a debate still waiting for a slot:
/// `queued`, with its ticket where the session will be.
pub fn queued(ticket: &str, seconds: u64) -> Answer {
    let reason = format!("queued for {seconds} s: every debate slot of this server is busy");
    let next = format!("call status with session {ticket} until the outcome is no longer queued or running");
    let markdown = format!("**Queued — not a result yet**: {reason}\n\nNext: {next}\n\nTicket {ticket}\n");
    let data = json!({
        "session": ticket,
        "outcome": {"kind": "queued", "complete": false, "headline": "Queued", "reason": reason, "next": next},
        "positions": [],
        "results": {},
        "warnings": [],
        "usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0},
        "shortened": [],
    });
    Answer { markdown, data }
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
        b.started("me", "s1", 12, tx, None);
        b.progressed("s1", 3.5, "round 1 (deliberation) started".into());
        let running = b.status("s1", "me").unwrap().unwrap();
        assert_eq!(running.data["outcome"]["kind"], "running");
        assert_eq!(running.data["outcome"]["complete"], false);
        assert!(running.data["outcome"]["reason"].as_str().unwrap().contains("3 of at most 12 calls"));
        assert!(b.cancel("s1", "me"));
        assert!(matches!(rx.try_recv(), Ok(Message::Interrupted)));
        b.finished(
            "s1",
            Ok(Answer { markdown: "**Completed**".into(), data: json!({"outcome": {"kind": "completed"}}) }),
        );
        assert_eq!(b.status("s1", "me").unwrap().unwrap().markdown, "**Completed**");
        assert!(!b.cancel("s1", "me"), "a finished debate is not cancelled");
        assert!(b.status("s2", "me").is_none());
    }

    #[test]
    fn another_client_can_neither_read_nor_cancel_a_debate() {
        let b = Background::default();
        let (tx, rx) = std::sync::mpsc::channel();
        b.started("http:one", "s1", 4, tx, None);
        assert!(b.status("s1", "http:two").is_none());
        assert!(!b.cancel("s1", "http:two"));
        assert!(rx.try_recv().is_err(), "nothing reached the debate");
        assert!(b.status("s1", "http:one").is_some());
    }

    #[test]
    fn a_queued_debate_answers_by_its_ticket_then_by_its_session() {
        let b = Background::default();
        let ticket = b.queue("me");
        assert_eq!(b.status(&ticket, "me").unwrap().unwrap().data["outcome"]["kind"], "queued");
        assert!(b.status(&ticket, "you").is_none());
        assert!(!b.dropped(&ticket));
        let (tx, _rx) = std::sync::mpsc::channel();
        b.started("me", "s9", 4, tx, Some(&ticket));
        let by_ticket = b.status(&ticket, "me").unwrap().unwrap();
        assert_eq!(by_ticket.data["outcome"]["kind"], "running");
        assert_eq!(by_ticket.data["session"], "s9", "the ticket leads to the session");
        // Cancelled while queued, it never starts.
        let other = b.queue("me");
        assert!(b.cancel(&other, "me"));
        assert!(b.dropped(&other));
        assert!(matches!(b.status(&other, "me"), Some(Err(why)) if why == "cancelled before it started"));
    }
}
