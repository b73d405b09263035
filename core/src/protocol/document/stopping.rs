//! When a debate stops before its last round.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Phase;

/// Every debate stops after its rounds; these stop it earlier, checked at
/// the end of each round.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum Stop {
    /// Only after the last round.
    #[default]
    Rounds,
    /// When the stance reader finds the panel agreed in this phase (the
    /// spec's `protocol.consensus` picks the reading mode).
    Consensus(Consensus),
    /// When a declared JSON field of this phase's replies has this value.
    When(Condition),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Consensus {
    pub phase: Phase,
    #[serde(default)]
    pub rule: Rule,
    /// Leave the adversary's stance out of the count.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exclude_adversary: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Rule {
    /// Every counted seat agrees (at least two).
    #[default]
    All,
    /// At least two agree, at most one is silent, none dissents.
    AllButOne,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Condition {
    pub phase: Phase,
    pub field: String,
    pub equals: Value,
    /// Whether every reply of the phase must say so, or one is enough.
    #[serde(default)]
    pub among: Among,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Among {
    #[default]
    All,
    Any,
}
