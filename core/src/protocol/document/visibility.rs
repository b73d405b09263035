//! What a speaker sees of the debate so far.

use serde::{Deserialize, Serialize};

use crate::Phase;

/// The earlier turns a prompt shows, how they are labelled, under which title.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sees {
    /// Which earlier turns.
    pub turns: Turns,
    /// How their speakers are shown (default: named).
    #[serde(default)]
    pub labels: Labels,
    /// The heading over the history block ("THE DEBATE SO FAR").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
}

impl Default for Sees {
    fn default() -> Self {
        Sees { turns: Turns::None, labels: Labels::Named, title: String::new() }
    }
}

/// Which earlier turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum Turns {
    /// None: the speaker answers blind.
    None,
    /// Every answered turn.
    All,
    /// Only the speaker's own earlier turns.
    Own,
    /// Only the turns of these phases.
    Phases(Vec<Phase>),
}

/// How earlier speakers are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Labels {
    /// By display name when the seat has one, else "Speaker N" (never by id or model).
    #[default]
    Named,
    /// Always "Speaker N".
    Anonymized,
    /// By the `role` of the part each turn belonged to.
    Roles,
}
