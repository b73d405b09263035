//! What a host feeds back: the reply to a request, or why there is none.

use serde::{Deserialize, Serialize};

use crate::RequestId;

/// The result of one model call, named by the request's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Input {
    Reply {
        id: RequestId,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    Failed {
        id: RequestId,
        kind: FailureKind,
        message: String,
    },
}

impl Input {
    pub fn id(&self) -> RequestId {
        match self {
            Input::Reply { id, .. } | Input::Failed { id, .. } => *id,
        }
    }
}

/// Tokens a provider reported for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// Why a call produced no reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    Timeout,
    RateLimited,
    ProviderError,
    Refused,
    Cancelled,
    /// The connection failed — refused, reset, or dropped before the reply
    /// was complete. Nothing says the model declined, so asking again later
    /// may succeed (agon's `resume` does: see its README).
    Transport,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::RateLimited => "rate-limited",
            FailureKind::ProviderError => "provider-error",
            FailureKind::Refused => "refused",
            FailureKind::Cancelled => "cancelled",
            FailureKind::Transport => "transport",
        }
    }
}
