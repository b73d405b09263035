//! What a speaker sees of the debate so far.

use serde::{Deserialize, Serialize};

use super::templates::Template;
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
    /// Leave out the speaker's own turns (a seat does not review its own answer).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hide_own: bool,
    /// How some phases' turns are shown, when not under the phase's own heading in speaking order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub show: Vec<Show>,
}

impl Default for Sees {
    fn default() -> Self {
        Sees { turns: Turns::None, labels: Labels::Named, title: String::new(), hide_own: false, show: Vec::new() }
    }
}

/// How one phase's turns are shown in a history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Show {
    /// The phase whose turns this shows.
    pub phase: Phase,
    /// The heading over its turns instead of the phase's own ("Answers").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// Each turn's label around the speaker's, whose place `{label}` marks
    /// ("Ranking by {label}"); no other slot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Template>,
    /// The order of its turns (default: as spoken).
    #[serde(default)]
    pub order: ShowOrder,
}

/// The order of a phase's turns in a history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ShowOrder {
    /// As spoken: panel order, for a phase whose speakers answer at once.
    #[default]
    Spoken,
    /// In the order of the drawn labels, which no seat controls.
    Labels,
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
    /// By the labels a phase drew (`labels` on a phase); "Speaker N" for a seat it did not label.
    Drawn,
}
