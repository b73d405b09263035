//! A scripted host: plays a whole debate from canned replies, in microseconds.
//!
//! Golden cases (`tests/golden/<case>/script.json`) use this format, and every
//! host replays them with the same rule, so they must all agree byte for byte:
//!
//! 1. Drain `poll` until `Idle` or `Done`.
//! 2. On `Idle`, take the first unused script entry whose `seat`, `phase` and
//!    `round` match an outstanding request; feed it for that request's id.
//! 3. Repeat until `Done`.

use serde::{Deserialize, Serialize};

use crate::{Error, Event, FailureKind, Input, ModelRequest, Output, Session, StopReason, Usage};

/// One canned answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptEntry {
    pub seat: String,
    pub phase: crate::Phase,
    pub round: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why the model stopped, as the reply's `stop` (a cut reply: `token-limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail: Option<ScriptedFailure>,
    /// The fallback chain's model that answered, as the reply's `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedFailure {
    pub kind: FailureKind,
    pub message: String,
}

impl ScriptEntry {
    fn matches(&self, r: &ModelRequest) -> bool {
        self.seat == r.seat && self.phase == r.phase && self.round == r.round
    }

    fn input_for(&self, id: u64) -> Input {
        match &self.fail {
            Some(f) => Input::Failed { id, kind: f.kind, message: f.message.clone(), usage: self.usage },
            None => {
                let text = self.text.clone().unwrap_or_default();
                Input::Reply { id, text, usage: self.usage, stop: self.stop, model: self.model.clone() }
            }
        }
    }
}

/// Everything a scripted run produced.
pub struct Played {
    pub session: Session,
    pub requests: Vec<ModelRequest>,
    pub events: Vec<Event>,
    /// Largest number of requests outstanding at once.
    pub max_in_flight: usize,
}

/// Why a script could not be played to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptError {
    /// No unused entry answers any outstanding request.
    Exhausted {
        outstanding: Vec<String>,
    },
    Engine(Error),
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScriptError::Exhausted { outstanding } => {
                write!(f, "the script has no entry for any outstanding request: {}", outstanding.join(", "))
            }
            ScriptError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ScriptError {}

/// Play `script` against a new session for `spec` (see the module doc for the rule).
pub fn play(mut session: Session, script: &[ScriptEntry]) -> Result<Played, ScriptError> {
    let mut used = vec![false; script.len()];
    let mut requests = Vec::new();
    let mut events = Vec::new();
    let mut outstanding: Vec<ModelRequest> = Vec::new();
    let mut max_in_flight = 0;
    loop {
        loop {
            match session.poll() {
                Output::Request(r) => {
                    requests.push(r.clone());
                    outstanding.push(r);
                }
                Output::Event(e) => events.push(e),
                Output::Idle => break,
                Output::Done(_) => {
                    return Ok(Played { session, requests, events, max_in_flight });
                }
            }
        }
        max_in_flight = max_in_flight.max(outstanding.len());
        let pick = script.iter().enumerate().find_map(|(i, entry)| {
            if used[i] {
                return None;
            }
            outstanding.iter().position(|r| entry.matches(r)).map(|k| (i, k))
        });
        let Some((i, k)) = pick else {
            let outstanding =
                outstanding.iter().map(|r| format!("{} {} round {}", r.seat, r.phase.as_str(), r.round)).collect();
            return Err(ScriptError::Exhausted { outstanding });
        };
        used[i] = true;
        let request = outstanding.remove(k);
        session.handle(script[i].input_for(request.id)).map_err(ScriptError::Engine)?;
    }
}
