//! A council as a gate on a change: findings on lines, merged across seats,
//! and a verdict decided by a policy, in code.
//!
//! The review protocol ships as a document ([`REVIEW_DOCUMENT`]): seats
//! report findings in a blind phase, then confirm or dispute each other's.
//! Its `review` aggregate reads both phases with [`read_findings`] and
//! [`read_reactions`], [`merge`]s them and decides the [`Verdict`] under the
//! document's [`Policy`]; the [`Review`] lands in the transcript's results,
//! so every host, and a replay of the journal, gets the same one.

mod aggregate;
mod finding;
mod merge;
mod policy;
mod reaction;
mod render;

pub(crate) use aggregate::{ReviewAggregate, run as run_aggregate};
pub use finding::{FINDING_MARKER, Finding, Findings, NO_FINDINGS, Severity, read_findings};
pub(crate) use finding::{strip_decoration, strip_prefix_ci};
pub use merge::{LINE_WINDOW, Merge, Merged, PositionChange, SeatName, Unmatched, merge};
pub use policy::{Policy, Verdict};
pub use reaction::{Reaction, Stand, read_reactions};
pub(crate) use render::render;

use serde::{Deserialize, Serialize};

/// The review protocol, as the document teams copy to write their own.
pub const REVIEW_DOCUMENT: &str = include_str!("review.json");

/// The transcript result a review lands in, in the shipped document.
pub const REVIEW_RESULT: &str = "review";
/// A review is findings and a verdict.
pub(crate) const KIND: crate::ResultKind = crate::ResultKind::Findings;

/// A review's outcome, as the transcript's result holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    pub verdict: Verdict,
    pub policy: Policy,
    /// The ids of the findings that fail the change.
    pub blocking: Vec<String>,
    pub findings: Vec<Merged>,
    /// Seats whose findings reply could not be read, or never came.
    pub unread: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<PositionChange>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmatched: Vec<Unmatched>,
}

impl Review {
    /// Decide a merge under a policy; `unread` seats make a pass undecided.
    pub fn decide(merge: Merge, policy: Policy, unread: Vec<String>) -> Review {
        let blocking: Vec<String> = merge.findings.iter().filter(|f| policy.blocks(f)).map(|f| f.id.clone()).collect();
        let verdict = match (blocking.is_empty(), unread.is_empty()) {
            (false, _) => Verdict::Fail,
            (true, true) => Verdict::Pass,
            (true, false) => Verdict::Undecided,
        };
        Review {
            verdict,
            policy,
            blocking,
            findings: merge.findings,
            unread,
            changes: merge.changes,
            unmatched: merge.unmatched,
        }
    }

    /// Read a review back from a transcript result.
    pub fn from_value(value: &serde_json::Value) -> Result<Review, String> {
        crate::json_read::read(value).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests;
