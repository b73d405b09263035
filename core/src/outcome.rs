//! How a debate ended, said plainly.

use serde::{Deserialize, Serialize};

use crate::{FailureKind, Phase};

/// The end of a debate. A degraded run is never reported as a full one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub kind: OutcomeKind,
    /// One sentence a person can read.
    pub reason: String,
    /// Debate rounds that ran (opening phases such as blind answers not counted).
    pub rounds_run: u32,
    /// Every call that failed, in the order it was planned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<FailureNote>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutcomeKind {
    /// Every planned round ran, every seat answered, the judge (if any) synthesized.
    Completed,
    /// The panel converged and the debate stopped early; nothing failed.
    Consensus,
    /// The debate finished, but some participants failed along the way.
    Degraded,
    /// The judge failed: no synthesis, the final positions stand side by side.
    JudgeFailed,
    /// Too few participants answered for the debate to mean anything.
    NoQuorum,
    /// Stopped before a batch whose worst case would have passed the spending limit.
    CostLimit,
}

impl OutcomeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Completed => "completed",
            OutcomeKind::Consensus => "consensus",
            OutcomeKind::Degraded => "degraded",
            OutcomeKind::JudgeFailed => "judge-failed",
            OutcomeKind::NoQuorum => "no-quorum",
            OutcomeKind::CostLimit => "cost-limit",
        }
    }

    /// True when the result can be presented as a full council answer.
    pub fn is_full(self) -> bool {
        matches!(self, OutcomeKind::Completed | OutcomeKind::Consensus)
    }
}

/// One failed call, as the outcome reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureNote {
    pub speaker: String,
    pub round: u32,
    pub phase: Phase,
    pub kind: FailureKind,
    pub message: String,
}
