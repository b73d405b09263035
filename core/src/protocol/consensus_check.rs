//! `consensus-check` (seed 002), done as documented: round-robin turns, and
//! after each round a convergence check that really ends the debate early.
//! The original never stopped before maxRounds.
//!
//! Seed 002 stops when every expert "stood down" and no one raised a new
//! disagreement. Here every speaker declares where it stands each round (the
//! `VOTE:` line, in the default mode), and the debate stops when every one of
//! them agrees — read by the stance reader, confirmed by the judge in judge
//! mode. The seed's stand-down phrase ("stress-tested") is no longer asked
//! for: a phrase the prompt shows is a phrase a model echoes. A protocol
//! document: `document/builtin/consensus-check.json`.

use serde::{Deserialize, Serialize};

use super::document;
use super::registry::{BASE, CONSENSUS_OPTION, Definition, ProtocolOptions, Rounds, checked};
use crate::consensus::ConsensusMode;
use crate::{DebateSpec, Error, MAX_ROUNDS};

pub(crate) const DEF: Definition = Definition {
    name: "consensus-check",
    summary: "Round-robin that really stops early once every speaker declares the same position (read by the stance reader).",
    rounds: Rounds { default: 3, max: MAX_ROUNDS, unit: "every seat speaks once, in panel order" },
    options: &[CONSENSUS_OPTION],
    reads_agreement: true,
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
    #[serde(default, skip_serializing_if = "ConsensusMode::is_default")]
    consensus: ConsensusMode,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        spec.check_consensus(self.consensus)
    }
}
