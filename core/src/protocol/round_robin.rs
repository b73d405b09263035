//! `round-robin`: every seat speaks once per round, in panel order, and sees
//! the question plus every earlier turn; after the last round the judge
//! synthesizes (seeds 002 and 003). A protocol document:
//! `document/builtin/round-robin.json` holds its prompts.

use super::document;
use super::registry::{BASE, Definition, Rounds};
use crate::MAX_ROUNDS;

pub(crate) const DEF: Definition = Definition {
    name: "round-robin",
    summary: "Every seat speaks once per round in panel order, seeing all earlier turns; the judge synthesizes.",
    rounds: Rounds { default: 2, max: MAX_ROUNDS, unit: "every seat speaks once, in panel order" },
    // The document's: every phase that may run in a round, each part at its largest.
    bounds: |spec| document::bounds::bounds(&document::builtin(DEF.name), spec),
    build: |spec| Box::new(document::build(document::builtin(DEF.name), spec)),
    prompt_tokens: |spec| document::bounds::prompt_tokens(&document::builtin(DEF.name), spec),
    ..BASE
};
