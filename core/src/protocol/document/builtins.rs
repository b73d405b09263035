//! The built-in documents: the protocols that ship as JSON, and each one's
//! [`Definition`] in the registry, read from that JSON. Nothing about them is
//! stated again in Rust: their name, summary, rounds, seats, sides and
//! options are the document's, and what they do is the interpreter's.

use std::sync::{Arc, OnceLock};

use super::{Document, borda_aggregate, bounds, build, load_str};
use crate::consensus::ConsensusMode;
use crate::json_read::{Misread, read};
use crate::protocol::definition;
use crate::protocol::definition::{BASE, Declared, Definition, PLAIN, Shown};
use crate::spec::field_error;
use crate::{DebateSpec, Error, SeatRef};

/// The built-in protocols the format can say, as the documents they are.
pub const BUILTIN_DOCUMENTS: &[(&str, &str)] = &[
    ("round-robin", include_str!("builtin/round-robin.json")),
    ("devils-advocate", include_str!("builtin/devils-advocate.json")),
    ("consensus-check", include_str!("builtin/consensus-check.json")),
    ("structured", include_str!("builtin/structured.json")),
    ("steelman", include_str!("builtin/steelman.json")),
    ("ranked", include_str!("builtin/ranked.json")),
    ("claim-ledger", include_str!("builtin/claim-ledger.json")),
];

const COUNT: usize = BUILTIN_DOCUMENTS.len();

/// The built-in document `name`, parsed once, and only when asked for: a
/// debate under one of them need not read the others.
pub(crate) fn builtin(name: &str) -> &'static Arc<Document> {
    static PARSED: [OnceLock<Arc<Document>>; COUNT] = [const { OnceLock::new() }; _];
    let i = index(name);
    let (name, text) = BUILTIN_DOCUMENTS[i];
    PARSED[i].get_or_init(|| Arc::new(load_str(text, "protocol").unwrap_or_else(|e| panic!("built-in {name}: {e}"))))
}

fn index(name: &str) -> usize {
    BUILTIN_DOCUMENTS.iter().position(|(n, _)| *n == name).expect("a shipped document")
}

/// The registry's definition of the built-in document `name`, made from the
/// document once and kept, like a coded protocol's `DEF`, for the program's life.
pub(crate) fn definition(name: &str) -> &'static Definition {
    static DEFINED: [OnceLock<Definition>; COUNT] = [const { OnceLock::new() }; _];
    DEFINED[index(name)].get_or_init(|| defined(builtin(name)))
}

/// What readers of the built-in document `name`'s transcripts need of it,
/// made from the document once and kept: its sides and its results' kinds.
/// Read without its [`definition`], whose behaviour is the interpreter's.
pub(crate) fn shown(name: &str) -> Shown {
    static SHOWN: [OnceLock<Shown>; COUNT] = [const { OnceLock::new() }; _];
    *SHOWN[index(name)].get_or_init(|| {
        let doc = builtin(name);
        // Kept as long as the document: its two lists may be too.
        Shown {
            sides: Vec::leak(doc.seats.sides.iter().map(String::as_str).collect()),
            results: Vec::leak(declared(doc)),
            ..PLAIN
        }
    })
}

fn defined(doc: &'static Document) -> Definition {
    let (seats, rounds) = doc.limits();
    Definition {
        name: &doc.name,
        summary: &doc.summary,
        rounds,
        seats,
        shown: shown(&doc.name),
        // The definition lives as long as the document: its list may too.
        options: Vec::leak(doc.options()),
        reads_agreement: doc.reads_agreement(),
        needs_different_models: doc.seats.different_models,
        // A phase that declares an output shape is never asked for the line.
        answers: true,
        ..SHARED
    }
}

/// Every result the document records, with its kind: its phases' declared
/// fields, then its aggregators' results.
fn declared(doc: &'static Document) -> Vec<Declared> {
    let mut out = Vec::new();
    for p in doc.phases.iter().filter(|p| p.turns.iter().any(|t| !t.output.json.is_empty())) {
        out.push(Declared::new(p.phase.as_str(), super::FIELDS_KIND));
    }
    let a = &doc.aggregate;
    if let Some(b) = &a.borda {
        out.push(Declared::new(&b.result, borda_aggregate::STANDINGS_KIND));
        out.extend(b.readings.as_deref().map(|r| Declared::new(r, borda_aggregate::READINGS_KIND)));
    }
    out.extend(a.review.as_ref().map(|r| Declared::new(&r.result, crate::review::KIND)));
    out.extend(a.ledger.as_ref().map(|l| Declared::new(&l.result, crate::ledger::KIND)));
    for s in a.synthesis.iter().flat_map(|s| &s.sections) {
        out.push(Declared::new(&s.result, super::SECTION_KIND));
    }
    out
}

/// What every built-in document does alike: the interpreter runs the
/// document the spec names, and bounds it from the two.
const SHARED: Definition = Definition {
    check,
    bounds: |spec| bounds::bounds(builtin(&spec.protocol.name), spec),
    build: |spec| Box::new(build(builtin(&spec.protocol.name).clone(), spec)),
    prompt_tokens: |spec| bounds::prompt_tokens(builtin(&spec.protocol.name), spec),
    ..BASE
};

/// The options a built-in document takes: `adversary` (a seat) when it
/// declares an adversary, `consensus` (the reading mode) when it stops on
/// agreement; normalized, the default mode left out. Read key by key in
/// order, as serde reads a struct, so each error names the field and says
/// what it did when each of these protocols had an options type of its own.
fn check(spec: &DebateSpec) -> Result<definition::Options, Error> {
    let doc = builtin(&spec.protocol.name);
    doc.check_rounds(spec.rounds())?;
    const ALL: &[&str] = &["adversary", "consensus", "stop_when_unchanged"];
    // Every document runs rounds, so every one may stop when no answer changes.
    let taken: &'static [&'static str] = match (doc.adversary.is_some(), doc.reads_agreement()) {
        (true, true) => ALL,
        (true, false) => &["adversary", "stop_when_unchanged"],
        (false, true) => &ALL[1..],
        (false, false) => &ALL[2..],
    };
    let mut options = definition::Options::new();
    let (mut adversary, mut consensus) = (None, ConsensusMode::default());
    for (key, value) in &spec.protocol.options {
        let read = match key.as_str() {
            "adversary" if taken.contains(&"adversary") => read::<SeatRef>(value).map(|s| adversary = Some(s)),
            "consensus" if taken.contains(&"consensus") => read::<ConsensusMode>(value).map(|m| consensus = m),
            crate::protocol::unchanged::OPTION => {
                crate::protocol::unchanged::check(spec, value)?;
                Ok(())
            }
            _ => Err(<Misread as serde::de::Error>::unknown_field(key, taken)),
        };
        read.map_err(|e| field_error(&format!("protocol.{key}"), e))?;
        // A value read is already in its normal form (a seat as given, a mode's name).
        options.insert(key.clone(), value.clone());
    }
    if let Some(seat) = &adversary {
        spec.resolve_seat(seat, "protocol.adversary")?;
    }
    spec.check_consensus(consensus)?;
    if consensus.is_default() {
        options.remove("consensus");
    }
    if options.get(crate::protocol::unchanged::OPTION) == Some(&serde_json::Value::Bool(false)) {
        options.remove(crate::protocol::unchanged::OPTION);
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::registry::{self, REGISTRY, protocols};

    /// Every shipped document is in the registry under its own name, and
    /// the catalog describes it exactly as a document of one's own is described.
    #[test]
    fn each_shipped_document_is_its_registered_protocol() {
        let catalog = protocols();
        for (name, text) in BUILTIN_DOCUMENTS {
            assert!(REGISTRY.iter().any(|e| matches!(e, registry::Entry::Document(n) if n == name)), "{name}");
            assert_eq!(builtin(name).name, *name);
            let listed = catalog.iter().find(|p| p.name == *name).unwrap();
            assert_eq!(&super::super::document_info(text).unwrap(), listed, "{name}");
        }
        for entry in REGISTRY {
            if let registry::Entry::Document(name) = entry {
                assert!(BUILTIN_DOCUMENTS.iter().any(|(n, _)| n == name), "{name} is not shipped");
            }
        }
    }
}
