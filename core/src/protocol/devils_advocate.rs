//! `devils-advocate[:SEAT]` (seed 002): one seat is the adversary. Each round
//! the others speak first, on the topic; the adversary speaks last, told to
//! find the weaknesses in what was just said and the scenarios in which the
//! proposals fail. Without `:SEAT` the seed picks the adversary (and the
//! transcript says so) — the original always took the first expert and let
//! it speak in panel order.

use serde::{Deserialize, Serialize};

use super::registry::{BASE, Definition, OptionInfo, OptionKind, ProtocolOptions, Rounds, Seats, checked, typed};
use super::sequential::{RoundPolicy, Sequential};
use super::{Bounds, Note, Prompt, round_robin};
use crate::debate::Debate;
use crate::rng::Rng;
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
    // One turn per seat per round, and the adversary's turn each round is gated.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        Bounds::new(spec, n * r, r, r)
    },
    build: |spec| {
        let named =
            typed::<Options>(spec).adversary.map(|s| spec.resolve_seat(&s, "protocol.adversary").expect("validated"));
        Box::new(create(named))
    },
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

pub(crate) fn create(named: Option<usize>) -> Sequential<Policy> {
    Sequential::new(Policy { adversary: named })
}

#[derive(Clone)]
pub(crate) struct Policy {
    adversary: Option<usize>,
}

/// The adversary's instructions. Output: prose that names each weak claim and a failure scenario for it.
const ADVOCATE_ROLE: &str = "\n\nYOUR ROLE: DEVIL'S ADVOCATE. You speak last in every round. \
Find the weaknesses in the arguments made above: the claims with the least support, the assumptions \
nobody checked, the costs nobody counted. For each proposal, describe a concrete scenario in which it fails. \
Attack the strongest argument, not the weakest. Do not soften your objections and do not agree for the sake of it.";

impl RoundPolicy for Policy {
    fn start(&mut self, debate: &Debate, notes: &mut Vec<Note>) {
        if self.adversary.is_none() {
            let pick = Rng::new(debate.spec.seed, "devils-advocate").below(debate.spec.panel.len());
            notes.push(Note::Choice { what: "devil's advocate".into(), value: debate.seat(pick).id.clone() });
            self.adversary = Some(pick);
        }
    }

    fn order(&self, debate: &Debate, _round: u32) -> Vec<usize> {
        let adversary = self.adversary.expect("picked at start");
        (0..debate.spec.panel.len()).filter(|&s| s != adversary).chain([adversary]).collect()
    }

    fn adversary(&self, debate: &Debate, _round: u32) -> Option<usize> {
        self.adversary.filter(|&a| !debate.is_benched(a))
    }

    fn turn_prompt(&self, debate: &Debate, seat: usize, round: u32, adversary: bool) -> Prompt {
        round_robin::named_turn_prompt(debate, seat, round, if adversary { ADVOCATE_ROLE } else { "" })
    }

    fn judge_prompt(&self, debate: &Debate) -> Prompt {
        round_robin::judge_prompt(debate)
    }
}
