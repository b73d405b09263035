//! `structured` (seed 002's structured mode): a fixed choreography —
//! opening statements, cross-examination, rebuttals, then the judge's
//! synthesis. Each phase runs every seat at once: openings are independent,
//! and in each later phase every seat reacts to the same material. A
//! protocol document: `document/builtin/structured.json`.

use super::document;
use super::registry::{BASE, Definition, Rounds};

pub(crate) const DEF: Definition = Definition {
    name: "structured",
    summary: "Opening statements, cross-examination, rebuttals, then the judge's synthesis.",
    rounds: Rounds { default: 1, max: 1, unit: "one pass: opening, cross-examination, rebuttal" },
    // The document's: every phase that may run in a round, each part at its largest.
    bounds: |spec| document::bounds::bounds(&document::builtin(DEF.name), spec),
    build: |spec| Box::new(document::build(document::builtin(DEF.name), spec)),
    prompt_tokens: |spec| document::bounds::prompt_tokens(&document::builtin(DEF.name), spec),
    ..BASE
};
