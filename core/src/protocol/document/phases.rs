//! Phases: who speaks, seeing what, asked what, expecting what.

use serde::{Deserialize, Serialize};

use super::labels::Draw;
use super::outputs::Output;
use super::speakers::Speakers;
use super::templates::Template;
use super::when::When;

/// One phase of a round. Its kind names it in events, headings and
/// templates (`{critique.verdict}`), so each kind appears once in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PhaseDoc {
    /// Which kind of phase: its name in events, headings and `{PHASE.FIELD}` slots.
    pub phase: crate::Phase,
    /// Runs in round 1 only (a blind opening before the debate rounds).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub once: bool,
    /// Runs only in runs of a given number of rounds, or only in one round (default: always).
    #[serde(default, skip_serializing_if = "When::is_always")]
    pub when: When,
    /// Whether its speakers answer one after another (the default) or all at once.
    #[serde(default)]
    pub order: Order,
    /// The fewest speakers the phase needs, besides the spec's quorum; with
    /// fewer the debate ends for want of quorum (default: 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub min_speakers: u32,
    /// Labels the seed draws over the phase's speakers as it starts (at most one phase draws them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<Draw>,
    /// The parts of the phase, in speaking order; no seat speaks twice in a phase.
    pub turns: Vec<Part>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl PhaseDoc {
    /// Whether it runs in `round` of a run of `rounds`: it may, and one of its parts does.
    pub fn runs_in(&self, round: u32, rounds: u32) -> bool {
        (!self.once || round == 1)
            && self.when.holds(round, rounds)
            && self.turns.iter().any(|t| t.when.holds(round, rounds))
    }
}

/// Whether a phase's speakers answer one after another (each seeing the
/// turns before it) or all at once (independent calls a host may run together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Order {
    /// One after another, each seeing the turns before it in this phase.
    #[default]
    Sequential,
    /// All at once, independently.
    Parallel,
}

/// Speakers who share a prompt within a phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Part {
    /// Who speaks.
    pub speakers: Speakers,
    /// The part's name in prompts (`{role}`) and role-labelled histories.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
    /// What of the debate so far the speakers see (default: nothing, they answer blind).
    #[serde(default)]
    pub sees: super::visibility::Sees,
    /// What they are asked.
    pub prompt: Prompt,
    /// The reply expected (default: prose).
    #[serde(default)]
    pub output: Output,
    /// Whether the part holds the adversarial role (default: no).
    #[serde(default)]
    pub adversarial: Adversarial,
    /// Speaks only in runs of a given number of rounds, or only in one round (default: whenever its phase runs).
    #[serde(default, skip_serializing_if = "When::is_always")]
    pub when: When,
}

/// Whether the part holds the adversarial role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Adversarial {
    /// An ordinary part.
    #[default]
    No,
    /// Marked as the challenger in events and transcript.
    Marked,
    /// Marked, and checked by the quality gate (asked again if it pulls its punches).
    Gated,
}

/// A prompt: the system message, and the user message with `{history}`
/// where the earlier turns go. `first` replaces `user` when there are none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Prompt {
    /// The system message.
    pub system: Template,
    /// The user message; `{history}` marks where the earlier turns go.
    pub user: Template,
    /// The user message when there are no earlier turns to show (default: `user`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<Template>,
}
