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
}

impl Completion {
    /// Text and nothing else known: a program's or a person's answer.
    pub fn text(text: String) -> Completion {
        Completion { text, usage: None, stop: None }
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
