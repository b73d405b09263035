//! The policy a verdict is decided by, and the verdict: code, not prose.

use serde::{Deserialize, Serialize};

use super::finding::Severity;
use super::merge::Merged;

/// "Fail when a finding of severity `fail_at` or worse is upheld by at
/// least `confirmed_by` seats" (a seat upholds a finding it raised or
/// confirmed and has not since disputed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The least severity that can fail the change.
    #[serde(default = "default_fail_at")]
    pub fail_at: Severity,
    /// How many seats must uphold such a finding, at least 1.
    #[serde(default = "default_confirmed_by")]
    pub confirmed_by: u32,
}

fn default_fail_at() -> Severity {
    Severity::High
}

fn default_confirmed_by() -> u32 {
    2
}

impl Default for Policy {
    fn default() -> Self {
        Policy { fail_at: default_fail_at(), confirmed_by: default_confirmed_by() }
    }
}

impl Policy {
    /// Whether a merged finding blocks the change under this policy.
    pub fn blocks(&self, f: &Merged) -> bool {
        f.severity >= self.fail_at && f.upheld() >= self.confirmed_by.max(1) as usize
    }

    /// The policy in words, for reports.
    pub fn describe(&self) -> String {
        let seats =
            if self.confirmed_by.max(1) == 1 { "one seat".to_string() } else { format!("{} seats", self.confirmed_by) };
        format!("fail when a finding of severity {} or worse is upheld by at least {seats}", self.fail_at.as_str())
    }
}

/// What the review decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No finding blocks, and every seat's findings were read.
    Pass,
    /// At least one finding blocks under the policy.
    Fail,
    /// No finding blocks, but some seat's findings could not be read or
    /// never came: an incomplete review is never a pass.
    Undecided,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Undecided => "undecided",
        }
    }
}
