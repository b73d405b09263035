//! `mcp/client` seats on MCP 2026-07-28, where a server may not send the
//! client a request (SEP-2322): the tool call itself answers "input required"
//! with the sampling requests the debate is waiting on, and the client calls
//! again with their answers and the state it was given. The debate runs in
//! the background between those legs (as a `wait: false` debate does), each
//! of its client seats waiting at a [`Desk`] until its request is answered.
#![allow(deprecated)] // sampling's types carry SEP-2577's deprecation; this is how 2026-07-28 samples

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::mpsc;

use agon_cli::engine::wit;
use agon_cli::provider::client_model::ClientModel;
use agon_cli::provider::{CallError, CallOptions, Completion, Retry};
use rmcp::model::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, InputRequest, InputRequests};
use serde_json::Value;

/// The opaque state a client echoes back: which debate its answers are for.
const STATE_PREFIX: &str = "agon-session:";

pub fn state_of(session: &str) -> String {
    format!("{STATE_PREFIX}{session}")
}

pub fn session_of(state: &str) -> Option<&str> {
    state.strip_prefix(STATE_PREFIX).filter(|s| !s.is_empty())
}

/// The sampling requests of one debate that the client has yet to answer.
#[derive(Default)]
pub struct Desk {
    waiting: Mutex<Waiting>,
}

#[derive(Default)]
struct Waiting {
    next: u64,
    requests: BTreeMap<String, Request>,
}

struct Request {
    params: CreateMessageRequestParams,
    /// Given to the client in a leg's result, and not yet answered.
    handed_out: bool,
    answer: mpsc::Sender<Result<CreateMessageResult, String>>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Desk")
    }
}

impl Desk {
    /// The requests no leg has handed out yet, now handed out.
    pub fn hand_out(&self) -> Option<InputRequests> {
        let mut waiting = self.waiting.lock().unwrap();
        let out: InputRequests = waiting
            .requests
            .iter_mut()
            .filter(|(_, r)| !r.handed_out)
            .map(|(key, r)| {
                r.handed_out = true;
                (key.clone(), InputRequest::CreateMessage(CreateMessageRequest::new(r.params.clone())))
            })
            .collect();
        (!out.is_empty()).then_some(out)
    }

    /// The client's answers, each to the seat waiting for it. A request it
    /// handed out but did not answer is asked again in the next leg; an
    /// answer to nothing waiting (an old or made-up key) is ignored.
    pub fn answer(&self, responses: BTreeMap<String, Value>) {
        let mut waiting = self.waiting.lock().unwrap();
        for (key, value) in responses {
            if let Some(request) = waiting.requests.remove(&key) {
                let read = serde_json::from_value::<CreateMessageResult>(value.clone()).map_err(|_| {
                    value["message"].as_str().map_or_else(
                        || "the client answered no message".to_string(),
                        |m| format!("the client said: {m}"),
                    )
                });
                let _ = request.answer.send(read);
            }
        }
        for request in waiting.requests.values_mut() {
            request.handed_out = false;
        }
    }
}

impl ClientModel for Desk {
    fn complete(&self, request: &wit::ModelRequest, options: CallOptions) -> Result<Completion, CallError> {
        let (send, answered) = mpsc::channel();
        let key = {
            let mut waiting = self.waiting.lock().unwrap();
            waiting.next += 1;
            let key = format!("sample-{}", waiting.next);
            let params = super::sampling_message::params_of(request);
            waiting.requests.insert(key.clone(), Request { params, handed_out: false, answer: send });
            key
        };
        match answered.recv_timeout(options.timeout) {
            Ok(Ok(result)) => super::sampling_message::completion(result, options.max_reply),
            Ok(Err(why)) => Err(CallError::provider(format!("mcp/client: sampling failed: {why}"))),
            Err(_) => {
                self.waiting.lock().unwrap().requests.remove(&key);
                Err(CallError {
                    kind: wit::FailureKind::Timeout,
                    message: format!(
                        "mcp/client: the client did not answer its sampling request in {} s",
                        options.timeout.as_secs()
                    ),
                    retry: Retry::No,
                    usage: None,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn request(text: &str) -> wit::ModelRequest {
        wit::ModelRequest {
            id: 1,
            seat: "client".into(),
            model: "mcp/client".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![wit::Message { role: wit::Role::User, content: text.into() }],
            max_tokens: 100,
            temperature: 0.5,
            expect: None,
            reasoning: None,
            traits: Vec::new(),
            cache_marks: Vec::new(),
        }
    }

    #[test]
    fn a_request_is_handed_out_once_answered_by_its_key_and_asked_again_when_skipped() {
        let desk = Arc::new(Desk::default());
        let seat = desk.clone();
        let waiting = std::thread::spawn(move || {
            seat.complete(&request("Tea?"), CallOptions::new(Duration::from_secs(5), false))
        });
        let handed = loop {
            if let Some(h) = desk.hand_out() {
                break h;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        assert_eq!(handed.keys().collect::<Vec<_>>(), ["sample-1"]);
        assert!(desk.hand_out().is_none(), "handed out once");
        desk.answer(BTreeMap::from([("sample-9".to_string(), serde_json::json!({}))]));
        assert!(desk.hand_out().is_some(), "skipped: asked again in the next leg");
        let answer =
            serde_json::json!({"role": "assistant", "content": {"type": "text", "text": "Tea."}, "model": "m"});
        desk.answer(BTreeMap::from([("sample-1".to_string(), answer)]));
        assert_eq!(waiting.join().unwrap().unwrap().text, "Tea.");
    }

    #[test]
    fn the_state_names_the_session_and_nothing_else_is_taken_for_one() {
        assert_eq!(session_of(&state_of("20261127-abc")), Some("20261127-abc"));
        assert_eq!(session_of("agon-session:"), None);
        assert_eq!(session_of("20261127-abc"), None);
    }
}
