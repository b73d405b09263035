//! Who speaks in a part of a phase, and the document's adversarial seat.

use serde::{Deserialize, Serialize};

/// The seats a part gives the floor to. Positions are 1-based and checked
/// against the document's smallest panel when it loads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum Speakers {
    /// Every seat, in panel order.
    Each,
    /// Every seat but the adversary, in panel order.
    Others,
    /// The document's adversarial seat (see [`Adversary`]).
    Adversary,
    /// One seat by its position in the panel.
    Seat(u32),
    /// The seat whose display name is this role ("CFO").
    Role(String),
    /// Every seat that answered the phase before this one in the same round, in
    /// panel order (not in a document's first phase).
    Answered,
}

/// The seat that holds the adversarial role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Adversary {
    /// What the role is called in the transcript's record of a seeded pick.
    pub title: String,
    /// Which seat it is.
    pub pick: Pick,
    /// What hosts say the spec's `adversary` option chooses (a line for any
    /// document if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// How the adversary is chosen. The spec's `protocol.adversary` names a seat
/// instead (for a rotation: the seat it starts from).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) enum Pick {
    /// The spec's seed picks one seat for the whole debate (salted with the document's name).
    Seeded,
    /// This seat, by 1-based position.
    Seat(u32),
    /// Round 1's adversary is seat `start`, and each round moves it `step` seats on.
    Rotate { start: u32, step: u32 },
}

impl Pick {
    /// The adversary in `round` (0-based seat), given the seat a spec or the seed chose.
    pub fn in_round(&self, chosen: usize, round: u32, seats: usize) -> usize {
        match self {
            Pick::Rotate { step, .. } => (chosen + (round as usize - 1) * *step as usize) % seats,
            Pick::Seeded | Pick::Seat(_) => chosen,
        }
    }
}
