//! `consensus-check` (seed 002), done as documented: round-robin turns, and
//! after each round a convergence check that really ends the debate early.
//! The original never stopped before maxRounds.
//!
//! Seed 002 stops when every expert "stood down" and no one raised a new
//! disagreement. Here every speaker declares where it stands each round (the
//! `VOTE:` line, in the default mode), and the debate stops when every one of
//! them agrees — read by the stance reader, confirmed by the judge in judge
//! mode. The seed's stand-down phrase ("stress-tested") is no longer asked
//! for: a phrase the prompt shows is a phrase a model echoes.

use serde::{Deserialize, Serialize};

use super::registry::{BASE, CONSENSUS_OPTION, Definition, ProtocolOptions, Rounds, checked, typed};
use super::sequential::{RoundPolicy, Sequential};
use super::{Bounds, Prompt, round_robin};
use crate::consensus::{self, ConsensusCheck, ConsensusMode, Rule};
use crate::debate::Debate;
use crate::{DebateSpec, Error, MAX_ROUNDS, Phase};

pub(crate) const DEF: Definition = Definition {
    name: "consensus-check",
    summary: "Round-robin that really stops early once every speaker declares the same position (read by the stance reader).",
    rounds: Rounds { default: 3, max: MAX_ROUNDS, unit: "every seat speaks once, in panel order" },
    options: &[CONSENSUS_OPTION],
    reads_agreement: true,
    check: checked::<Options>,
    // One turn per seat per round, in sequence.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        Bounds::new(spec, n * r, 0, r)
    },
    build: |spec| Box::new(create(typed::<Options>(spec).consensus)),
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    #[serde(default, skip_serializing_if = "ConsensusMode::is_default")]
    consensus: ConsensusMode,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        spec.check_consensus(self.consensus)
    }
}

pub(crate) fn create(mode: ConsensusMode) -> Sequential<Policy> {
    Sequential::new(Policy { mode })
}

#[derive(Clone)]
pub(crate) struct Policy {
    mode: ConsensusMode,
}

impl RoundPolicy for Policy {
    fn turn_prompt(&self, debate: &Debate, seat: usize, round: u32, _adversary: bool) -> Prompt {
        round_robin::named_turn_prompt(debate, seat, round, &consensus::closing(self.mode))
    }

    fn judge_prompt(&self, debate: &Debate) -> Prompt {
        round_robin::judge_prompt(debate)
    }

    fn check_round(&self, debate: &Debate, round: u32) -> Option<ConsensusCheck> {
        let replies: Vec<(&str, &str)> = (0..debate.spec.panel.len())
            .filter_map(|s| debate.text(s, round, Phase::Deliberation).map(|t| (debate.seat(s).id.as_str(), t)))
            .collect();
        Some(consensus::evaluate(round, &replies, None, self.mode, Rule::All))
    }
}
