//! How a debate ended, said plainly.

use serde::{Deserialize, Serialize, Serializer};

use crate::{FailureKind, Phase};

/// The end of a debate. A degraded run is never reported as a full one.
///
/// In JSON it also carries `complete` (whether it ran in full: its kind's
/// [`OutcomeKind::is_full`]) and its kind's `headline` and
/// `synthesis_heading`, so every host says the same (they are read back as
/// nothing: the kind decides them).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            kind: OutcomeKind,
            complete: bool,
            headline: &'static str,
            synthesis_heading: &'static str,
            reason: &'a str,
            rounds_run: u32,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            failures: &'a [FailureNote],
        }
        Shown {
            kind: self.kind,
            complete: self.is_complete(),
            headline: self.headline(),
            synthesis_heading: self.kind.synthesis_heading(),
            reason: &self.reason,
            rounds_run: self.rounds_run,
            failures: &self.failures,
        }
        .serialize(s)
    }
}

impl Outcome {
    /// Whether the debate ran in full: a result that carries the council's
    /// full authority. Anything else says what it lacks in `reason`.
    pub fn is_complete(&self) -> bool {
        self.kind.is_full()
    }

    /// The outcome in a few words, as every host heads it: its kind's
    /// headline, except that a degraded run in which every call was answered
    /// says what it lacks — answers that could be read — rather than a seat.
    pub fn headline(&self) -> &'static str {
        match self.kind {
            OutcomeKind::Degraded if self.failures.is_empty() => "Degraded: not every answer could be read",
            kind => kind.headline(),
        }
    }
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

    /// The outcome in a few words, as every host heads it. Anything short of
    /// a full result says what is missing.
    pub fn headline(self) -> &'static str {
        match self {
            OutcomeKind::Completed => "Completed",
            OutcomeKind::Consensus => "Consensus reached",
            OutcomeKind::Degraded => "Degraded: not every participant answered",
            OutcomeKind::JudgeFailed => "Judge failed: no synthesis",
            OutcomeKind::NoQuorum => "No quorum: too few participants answered",
            OutcomeKind::CostLimit => "Stopped at the cost limit",
        }
    }

    /// The heading over a judge's synthesis: the plain one only for a full result.
    pub fn synthesis_heading(self) -> &'static str {
        synthesis_heading(!self.is_full())
    }
}

/// The heading over a judge's synthesis, given whether the debate fell short
/// (known before the outcome is: any call that failed makes it so).
pub fn synthesis_heading(incomplete: bool) -> &'static str {
    if incomplete { "Synthesis of an incomplete debate" } else { "Synthesis" }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn degraded(failures: Vec<FailureNote>) -> Outcome {
        Outcome { kind: OutcomeKind::Degraded, reason: "r".into(), rounds_run: 1, failures }
    }

    /// A degraded run heads itself by what it lacks: a seat that did not
    /// answer, or answers that came and could not be read (ranked with no
    /// ranking read, challenge with no defender response read).
    #[test]
    fn a_degraded_headline_names_what_is_missing() {
        assert_eq!(degraded(Vec::new()).headline(), "Degraded: not every answer could be read");
        let failed = FailureNote {
            speaker: "a".into(),
            round: 1,
            phase: Phase::Deliberation,
            kind: FailureKind::Timeout,
            message: "timed out".into(),
        };
        assert_eq!(degraded(vec![failed]).headline(), "Degraded: not every participant answered");
        let json = serde_json::to_value(degraded(Vec::new())).unwrap();
        assert_eq!(json["headline"], "Degraded: not every answer could be read", "the JSON carries the same words");
    }
}
