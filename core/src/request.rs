//! What the engine asks a host to do: call one model with these messages.

use serde::{Deserialize, Serialize};

/// Identifies one released request; replies and failures name it.
pub type RequestId = u64;

/// One model call, fully assembled by the engine. Hosts send it as is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    pub id: RequestId,
    /// The id of the seat (or judge) that speaks.
    pub seat: String,
    /// The model reference as the spec wrote it, e.g. `openai/gpt-4o`.
    pub model: String,
    pub purpose: Purpose,
    pub round: u32,
    pub phase: Phase,
    pub messages: Vec<Message>,
    pub max_tokens: u32,
    pub temperature: f64,
    /// The shape of reply the protocol will parse, when it expects structure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
}

/// Why a request exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// A debater's turn.
    Turn,
    /// The judge's synthesis.
    Judge,
}

/// The stage of the protocol a turn belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Phase {
    /// Independent first answers: no speaker sees another.
    Blind,
    /// A round in which speakers answer one another.
    Deliberation,
    /// The judge's synthesis.
    Synthesis,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Blind => "blind",
            Phase::Deliberation => "deliberation",
            Phase::Synthesis => "synthesis",
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }
}
