//! What the engine asks a host to do: call one model with these messages.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::reasoning::{ModelTraits, ReasoningRequest};

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
    /// The most tokens the visible reply may take.
    pub max_tokens: u32,
    /// The spec's temperature; not sent to a model whose traits say it takes none.
    pub temperature: f64,
    /// The shape of reply the protocol will parse, when it expects structure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    /// What the call asks of a reasoning model, and the thinking tokens it
    /// may spend beyond `max_tokens`; absent for a model not known to reason
    /// whose seat asked for nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningRequest>,
    /// What the catalog knows of each model the request may go to (its
    /// fallback chain), by reference: the wire layer shapes each call by it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub traits: BTreeMap<String, ModelTraits>,
    /// Where a prefix worth caching ends, as byte offsets into the last
    /// message's content, ascending: the end of the stable head (the
    /// question) and of each turn of the history. A provider that caches
    /// only what it is asked to (Anthropic's `cache_control`, read only at a
    /// block boundary) gets a block per mark and its breakpoints among them;
    /// the others cache prefixes on their own. Turns carry them, and the
    /// judge's prompt when it is laid out like the seats' (it reads what they
    /// wrote); summaries' prompts are not sent again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cache_marks: Vec<u32>,
}

/// Why a request exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// A debater's turn.
    Turn,
    /// The judge's synthesis.
    Judge,
    /// A summary of earlier rounds, asked for to keep prompts within the context budget.
    Summary,
    /// The judge's check that the panel has really converged (consensus mode `judge`).
    Confirmation,
}

/// The stage of the protocol a turn belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Independent first answers: no speaker sees another.
    Blind,
    /// Opening statements or positions.
    Opening,
    /// A round in which speakers answer one another.
    Deliberation,
    /// Targeted questions to the other side.
    CrossExam,
    /// Answers to critiques or questions.
    Rebuttal,
    /// Challengers' structured verdicts on a position.
    Critique,
    /// The defender's accept / partially accept / reject answers.
    Response,
    /// Independent structured votes (priorities).
    Vote,
    /// Each seat ranks the others' anonymized answers.
    Ranking,
    /// Why a disagreement persists: the assumptions behind each side.
    Assumptions,
    /// One agent alone, when competition is off or has collapsed.
    Single,
    /// The judge's synthesis.
    Synthesis,
    /// A rolling summary of earlier rounds.
    Summary,
    /// The judge confirming (or not) that the panel converged; or a seat
    /// confirming what the panel left open (priority-vote's flagged items).
    Confirmation,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Blind => "blind",
            Phase::Opening => "opening",
            Phase::Deliberation => "deliberation",
            Phase::CrossExam => "cross-exam",
            Phase::Rebuttal => "rebuttal",
            Phase::Critique => "critique",
            Phase::Response => "response",
            Phase::Vote => "vote",
            Phase::Ranking => "ranking",
            Phase::Assumptions => "assumptions",
            Phase::Single => "single",
            Phase::Synthesis => "synthesis",
            Phase::Summary => "summary",
            Phase::Confirmation => "confirmation",
        }
    }

    /// A heading for this phase in a given round, for prompts and Markdown.
    pub fn heading(self, round: u32) -> String {
        match self {
            Phase::Blind => "Blind answers".to_string(),
            Phase::Deliberation => format!("Round {round}"),
            Phase::Opening => format!("Opening (round {round})"),
            Phase::CrossExam => format!("Cross-examination (round {round})"),
            Phase::Rebuttal => format!("Rebuttal (round {round})"),
            Phase::Critique => format!("Critiques (round {round})"),
            Phase::Response => format!("Defender's response (round {round})"),
            Phase::Vote => "Votes".to_string(),
            Phase::Ranking => "Rankings".to_string(),
            Phase::Assumptions => "Assumptions".to_string(),
            Phase::Single => "Single-agent review".to_string(),
            Phase::Synthesis => "Synthesis".to_string(),
            Phase::Summary => format!("Summary of rounds up to {round}"),
            Phase::Confirmation => format!("Confirmation (round {round})"),
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
        Message { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }
}
