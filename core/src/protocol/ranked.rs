//! `ranked` (karpathy's llm-council, the origin of seed 003): blind answers;
//! each seat ranks the others' answers, anonymized as "Response A, B, …"
//! (labels drawn by the seed and recorded), ending with a `FINAL RANKING:`
//! list; a Borda count over the readings; then the chairman (the judge)
//! synthesizes. A protocol document: `document/builtin/ranked.json`.

use super::document;
use super::registry::{BASE, Definition, Seats};

pub(crate) const DEF: Definition = Definition {
    name: "ranked",
    summary: "Blind answers, anonymized peer rankings, a Borda aggregate, then the chairman's synthesis.",
    seats: Seats { min: 2, max: None, why: "each seat ranks the others" },
    // The document's: every phase that may run in a round, each part at its largest.
    bounds: |spec| document::bounds::bounds(&document::builtin(DEF.name), spec),
    build: |spec| Box::new(document::build(document::builtin(DEF.name), spec)),
    prompt_tokens: |spec| document::bounds::prompt_tokens(&document::builtin(DEF.name), spec),
    // The peer review as a table in standings order, then who ranked what.
    render_result: |t, key, value, out| {
        let doc = document::builtin(DEF.name);
        doc.aggregate.borda.as_ref().is_some_and(|b| document::borda_aggregate::render(b, t, key, value, out))
    },
    needs_different_models: true,
    ..BASE
};
