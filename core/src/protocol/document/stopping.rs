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
    /// When no claim in the ledger is open: every claim raised so far was
    /// conceded, or none was raised (needs a `ledger` aggregate).
    Settled,
}

/// A consensus stop: the stance reader reads every counted speaker's turn in the phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Consensus {
    /// The phase whose turns are read, at the end of each round.
    pub phase: Phase,
    /// How many must agree (default: all).
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

/// A stop on a parsed result: a reply that cannot be read does not meet it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Condition {
    /// The phase whose replies are read, at the end of each round.
    pub phase: Phase,
    /// A JSON field that phase declares in its `output`.
    pub field: String,
    /// The value that stops the debate.
    pub equals: Value,
    /// Whether every reply of the phase must say so, or one is enough.
    #[serde(default)]
    pub among: Among,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Among {
    /// Every reply of the phase says so.
    #[default]
    All,
    /// One reply is enough.
    Any,
}
