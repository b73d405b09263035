//! `devils-advocate[:SEAT]` (seed 002): one seat is the adversary. Each round
//! the others speak first, on the topic; the adversary speaks last, told to
//! find the weaknesses in what was just said and the scenarios in which the
//! proposals fail. Without `:SEAT` the seed picks the adversary (and the
//! transcript says so) — the original always took the first expert and let
//! it speak in panel order. A protocol document: `document/builtin/devils-advocate.json`.

use serde::{Deserialize, Serialize};

use super::document;
use super::registry::{BASE, Definition, OptionInfo, OptionKind, ProtocolOptions, Rounds, Seats, checked};
use crate::{DebateSpec, Error, MAX_ROUNDS, SeatRef};

pub(crate) const DEF: Definition = Definition {
    name: "devils-advocate",
    summary: "One seat (named with :SEAT, or picked by the seed) attacks the others' claims, speaking last each round.",
    rounds: Rounds { default: 2, max: MAX_ROUNDS, unit: "every seat speaks once, the adversary last" },
    seats: Seats { min: 2, max: None, why: "an adversary and someone to challenge" },
    options: &[OptionInfo {
        name: "adversary",
        kind: OptionKind::Seat,
        default: "picked by the seed",
        help: "The seat that attacks the others' claims and speaks last.",
    }],
    check: checked::<Options>,
    // The document's: every phase that may run in a round, each part at its largest.
    bounds: |spec| document::bounds::bounds(&document::builtin(DEF.name), spec),
    build: |spec| Box::new(document::build(document::builtin(DEF.name), spec)),
    prompt_tokens: |spec| document::bounds::prompt_tokens(&document::builtin(DEF.name), spec),
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    adversary: Option<SeatRef>,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        match &self.adversary {
            Some(seat) => spec.resolve_seat(seat, "protocol.adversary").map(|_| ()),
            None => Ok(()),
        }
    }
}
