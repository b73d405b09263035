//! The engine's cases as people read them, for every view of a debate (the
//! live view, a person's own seat at the terminal).

use crate::engine::wit;

/// A phase as a title: "Cross-examination".
pub fn phase_title(phase: wit::Phase) -> &'static str {
    match phase {
        wit::Phase::Blind => "Blind answers",
        wit::Phase::Opening => "Opening",
        wit::Phase::Deliberation => "Deliberation",
        wit::Phase::CrossExam => "Cross-examination",
        wit::Phase::Rebuttal => "Rebuttal",
        wit::Phase::Critique => "Critiques",
        wit::Phase::Response => "Defender's response",
        wit::Phase::Vote => "Votes",
        wit::Phase::Ranking => "Rankings",
        wit::Phase::Assumptions => "Assumptions",
        wit::Phase::Single => "Single-agent review",
        wit::Phase::Synthesis => "Synthesis",
        wit::Phase::Summary => "Summary",
        wit::Phase::Confirmation => "Confirmation",
    }
}

/// A failure's kind as the engine names it.
pub fn kind_name(kind: wit::FailureKind) -> &'static str {
    match kind {
        wit::FailureKind::Timeout => "timeout",
        wit::FailureKind::RateLimited => "rate-limited",
        wit::FailureKind::ProviderError => "provider-error",
        wit::FailureKind::Refused => "refused",
        wit::FailureKind::Cancelled => "cancelled",
        wit::FailureKind::Transport => "transport",
        wit::FailureKind::TokenLimit => "token-limit",
    }
}
