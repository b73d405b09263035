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
        /// Why the model stopped, when the provider said. A reply cut at its
        /// token limit is kept and marked; an empty one is a failed call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop: Option<StopReason>,
        /// The model that answered, when the request named a fallback chain
        /// (`a/x|b/y`) and the host fell back: one of the chain's models.
        /// The transcript names it and its price is what the reply costs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    Failed {
        id: RequestId,
        kind: FailureKind,
        message: String,
        /// Tokens the provider billed for a call that still failed: a
        /// reasoning model that spent its whole budget thinking is paid for.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
}

impl Input {
    pub fn id(&self) -> RequestId {
        match self {
            Input::Reply { id, .. } | Input::Failed { id, .. } => *id,
        }
    }

    /// A reply with nothing but its text: what command models and people give.
    pub fn reply(id: RequestId, text: impl Into<String>) -> Input {
        Input::Reply { id, text: text.into(), usage: None, stop: None, model: None }
    }
}

/// Tokens a provider reported for one call, as it bills them.
///
/// `completion_tokens` is every billed output token, reasoning included;
/// `reasoning_tokens` says how many of them were thinking nobody reads.
/// `prompt_tokens` is every input token; `cached_tokens` how many of them were
/// read from the provider's prompt cache, `cache_write_tokens` how many were
/// written to it (billed apart by Anthropic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u32>,
}

impl Usage {
    /// Prompt and completion tokens, nothing more known.
    pub fn new(prompt_tokens: u32, completion_tokens: u32) -> Usage {
        Usage { prompt_tokens, completion_tokens, ..Usage::default() }
    }
}

/// Why a model stopped writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// It finished its answer (OpenAI `stop`, Anthropic `end_turn`, Gemini `STOP`).
    Complete,
    /// It ran into its token limit: the reply is cut (`length`, `max_tokens`, `MAX_TOKENS`).
    TokenLimit,
    /// Another reason the provider named (a recitation check, a pause): kept as text.
    Other,
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
    /// The model spent its whole token limit before writing any answer (a
    /// reasoning model thinking past its budget): a larger limit or a lower
    /// effort may succeed, the same request will not.
    TokenLimit,
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
            FailureKind::TokenLimit => "token-limit",
        }
    }
}
