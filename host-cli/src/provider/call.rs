//! One call's options, and what comes of it: a completion or a failure the
//! engine understands.

use std::time::Duration;

use crate::engine::wit;

/// Why a call failed, in the engine's terms, and whether trying again may help.
#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    pub kind: wit::FailureKind,
    pub message: String,
    pub retry: Retry,
    /// What the provider billed for the failed call, when it said.
    pub usage: Option<wit::Usage>,
}

/// Whether a failed call is worth another attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    No,
    /// Yes; after the server's Retry-After, if it sent one.
    Yes {
        after: Option<Duration>,
    },
}

impl CallError {
    pub fn provider(message: impl Into<String>) -> Self {
        CallError { kind: wit::FailureKind::ProviderError, message: message.into(), retry: Retry::No, usage: None }
    }

    /// The connection failed: refused, reset, or dropped before the reply was complete.
    pub(super) fn transport(message: impl Into<String>) -> Self {
        CallError { kind: wit::FailureKind::Transport, message: message.into(), retry: Retry::No, usage: None }
    }

    pub(super) fn retryable(mut self, after: Option<Duration>) -> Self {
        self.retry = Retry::Yes { after };
        self
    }
}

/// A finished call.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub usage: Option<wit::Usage>,
    /// Why the model stopped, when the provider said (a cut reply: `token-limit`).
    pub stop: Option<wit::StopReason>,
    /// The fallback chain's model that answered, when not its first.
    pub model: Option<String>,
}

impl Completion {
    /// Text and nothing else known: a program's or a person's answer.
    pub fn text(text: String) -> Completion {
        Completion { text, usage: None, stop: None, model: None }
    }
}

/// How to perform calls.
#[derive(Debug, Clone, Copy)]
pub struct CallOptions {
    pub timeout: Duration,
    pub stream: bool,
    /// The largest reply accepted, in bytes of text: a larger one fails the
    /// call (provider-error) instead of filling memory and the journal.
    pub max_reply: usize,
}

/// `--max-reply`'s default: far above any real reply, far below trouble.
pub const DEFAULT_MAX_REPLY: usize = 4 << 20;

impl CallOptions {
    pub fn new(timeout: Duration, stream: bool) -> CallOptions {
        CallOptions { timeout, stream, max_reply: DEFAULT_MAX_REPLY }
    }
}

/// Whether a failure's message says the provider refused the credential:
/// HTTP 401 or 403 (what the providers answer for a wrong, revoked or
/// unauthorized key), or Gemini's HTTP 400 "API key not valid". It is about
/// the key, not the model, so `agon doctor` never keeps it as a verdict on
/// the model. Read from the words `agon_wire::status_failure` writes
/// (`HTTP 401 from URL…`), where every such failure is made.
pub fn refuses_credential(message: &str) -> bool {
    let status = message.strip_prefix("HTTP ").and_then(|rest| rest.split_once(" from ")).map(|(code, _)| code);
    match status {
        Some("401" | "403") => true,
        Some("400") => message.contains("API key not valid") || message.contains("API_KEY_INVALID"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(status: u16, body: &str) -> String {
        agon_wire::status_failure(status, body, &[], "https://api.example/v1/chat/completions", " (check KEY)").message
    }

    #[test]
    fn a_refused_key_is_told_from_a_failed_model() {
        let wrong = r#"{"error":{"message":"Incorrect API key provided: sk-wrong.","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert!(refuses_credential(&said(401, wrong)));
        assert!(refuses_credential(&said(403, r#"{"error":{"message":"forbidden"}}"#)));
        // Gemini answers a key that is not valid with 400 (google.rpc reason API_KEY_INVALID).
        let gemini = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#;
        assert!(refuses_credential(&said(400, gemini)));

        assert!(!refuses_credential(&said(400, r#"{"error":{"message":"max_tokens is too large"}}"#)));
        assert!(!refuses_credential(&said(404, r#"{"error":{"message":"The model `x` does not exist"}}"#)));
        assert!(!refuses_credential(&said(500, r#"{"error":{"message":"HTTP 401 from upstream"}}"#)));
        assert!(!refuses_credential("no complete answer from http://x within 20 s"));
    }
}
