//! `steelman` (seed 001's devil's-advocate variant): the steelman develops
//! the position to its strongest form while the devil's advocate attacks it
//! with exactly five challenges, each naming the assumption it attacks; both
//! run at once. The judge says what survived and writes the revised position.
//! A protocol document: `document/builtin/steelman.json`.

use super::document;
use super::registry::{BASE, Definition, Seats};

pub(crate) const DEF: Definition = Definition {
    name: "steelman",
    summary: "The strongest form of a position and five ranked challenges to it; the judge keeps what survived.",
    seats: Seats { min: 2, max: Some(2), why: "the steelman is seat 1, the devil's advocate seat 2" },
    sides: &["steelman", "devil's advocate"],
    // The document's: every phase that may run in a round, each part at its largest.
    bounds: |spec| document::bounds::bounds(&document::builtin(DEF.name), spec),
    build: |spec| Box::new(document::build(document::builtin(DEF.name), spec)),
    prompt_tokens: |spec| document::bounds::prompt_tokens(&document::builtin(DEF.name), spec),
    ..BASE
};
