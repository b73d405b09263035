//! The built-in documents: the protocols that ship as JSON, and each one's
//! [`Definition`] in the registry, read from that JSON. Nothing about them is
//! stated again in Rust: their name, summary, rounds, seats, sides and
//! options are the document's, and what they do is the interpreter's.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::{Document, borda_aggregate, bounds, build, load_str};
use crate::consensus::ConsensusMode;
use crate::protocol::registry::{self, BASE, Definition, ProtocolOptions, checked};
use crate::{DebateSpec, Error, SeatRef};

/// The built-in protocols the format can say, as the documents they are.
pub const BUILTIN_DOCUMENTS: &[(&str, &str)] = &[
    ("round-robin", include_str!("builtin/round-robin.json")),
    ("devils-advocate", include_str!("builtin/devils-advocate.json")),
    ("consensus-check", include_str!("builtin/consensus-check.json")),
    ("structured", include_str!("builtin/structured.json")),
    ("steelman", include_str!("builtin/steelman.json")),
    ("ranked", include_str!("builtin/ranked.json")),
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

fn defined(doc: &'static Document) -> Definition {
    Definition {
        name: &doc.name,
        summary: &doc.summary,
        rounds: registry::Rounds { default: doc.rounds.default, max: doc.rounds.max, unit: doc.round_unit() },
        seats: registry::Seats {
            min: doc.seats.min as usize,
            max: doc.seats.max.map(|m| m as usize),
            why: doc.seats.why.as_deref().unwrap_or(""),
        },
        // The definition lives as long as the document: its two lists may too.
        sides: Vec::leak(doc.seats.sides.iter().map(String::as_str).collect()),
        options: Vec::leak(doc.options()),
        reads_agreement: doc.reads_agreement(),
        ..SHARED
    }
}

/// What every built-in document does alike: the interpreter runs the
/// document the spec names, and bounds it from the two.
const SHARED: Definition = Definition {
    check,
    bounds: |spec| bounds::bounds(builtin(&spec.protocol.name), spec),
    build: |spec| Box::new(build(builtin(&spec.protocol.name).clone(), spec)),
    prompt_tokens: |spec| bounds::prompt_tokens(builtin(&spec.protocol.name), spec),
    // A Borda aggregate as a table in standings order, then who ranked what.
    render_result: |t, key, value, out| {
        let doc = builtin(&t.protocol);
        doc.aggregate.borda.as_ref().is_some_and(|b| borda_aggregate::render(b, t, key, value, out))
    },
    ..BASE
};

/// The options a built-in document takes, each only when the document
/// declares what it sets.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    /// The adversary's seat, when the document has an adversary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    adversary: Option<SeatRef>,
    /// How agreement is read, when the document stops on it.
    #[serde(default, skip_serializing_if = "ConsensusMode::is_default")]
    consensus: ConsensusMode,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        if let Some(seat) = &self.adversary {
            spec.resolve_seat(seat, "protocol.adversary")?;
        }
        spec.check_consensus(self.consensus)
    }
}

/// An option the document does not declare is unknown, in serde's words,
/// as it was when each protocol had options of its own type.
fn check(spec: &DebateSpec) -> Result<registry::Options, Error> {
    let doc = builtin(&spec.protocol.name);
    const BOTH: &[&str] = &["adversary", "consensus"];
    let taken: &'static [&'static str] = match (doc.adversary.is_some(), doc.reads_agreement()) {
        (true, true) => BOTH,
        (true, false) => &BOTH[..1],
        (false, true) => &BOTH[1..],
        (false, false) => &[],
    };
    if let Some(key) = spec.protocol.options.keys().find(|k| !taken.contains(&k.as_str())) {
        let unknown = <serde::de::value::Error as serde::de::Error>::unknown_field(key, taken);
        return Err(Error::spec(format!("protocol.{key}"), unknown.to_string()));
    }
    checked::<Options>(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::registry::{REGISTRY, protocols};

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
