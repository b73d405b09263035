//! The protocol registry: every protocol agon offers, in one list
//! ([`REGISTRY`]): those coded in Rust by their module's [`Definition`](super::definition::Definition), the
//! built-in documents by name, their definitions read from their JSON.
//!
//! Everything else is derived from the list: validation of a spec's protocol
//! and its options, the rounds default and maximum, seat bounds, the cost
//! bound, the catalog every host shows ([`protocols`]), and the examples tests
//! and the fuzzer use. Adding a coded protocol is its file, its `mod` line in
//! `protocol/mod.rs` and one line here; adding a built-in document is its
//! JSON in `document/builtin/`, its line in
//! [`BUILTIN_DOCUMENTS`](super::document::BUILTIN_DOCUMENTS) and one line
//! here (then a golden case, which a test demands).

use serde_json::Value;

use super::definition::{Definition, Options, ProtocolInfo, Shown, limits};
use super::document;
use crate::plan::{Bounds, Protocol};
use crate::{DebateSpec, Error};

/// Every protocol agon offers, in the order hosts list them.
pub(crate) const REGISTRY: &[Entry] = &[
    Entry::Document("round-robin"),
    Entry::Coded(&super::rotating_challenger::DEF),
    Entry::Document("devils-advocate"),
    Entry::Document("consensus-check"),
    Entry::Document("structured"),
    Entry::Coded(&super::role_council::DEF),
    Entry::Coded(&super::adversarial::DEF),
    Entry::Document("steelman"),
    Entry::Coded(&super::comparative::DEF),
    Entry::Coded(&super::priority_vote::DEF),
    Entry::Coded(&super::challenge::DEF),
    Entry::Document("ranked"),
    Entry::Document("claim-ledger"),
];

/// What readers of a transcript need of each protocol in [`REGISTRY`], in the
/// same order, found without the protocols' behaviour: a coded protocol's
/// `SHOWN` beside its `DEF`, a built-in document's read from its JSON. A
/// separate table because [`REGISTRY`] holds each `DEF`, whose function
/// pointers would keep every protocol's code in whatever reads it (the
/// report component only reads transcripts). A test holds the two alike.
const SHOWN: &[(&str, Option<&Shown>)] = &[
    ("round-robin", None),
    ("rotating-challenger", Some(&super::rotating_challenger::SHOWN)),
    ("devils-advocate", None),
    ("consensus-check", None),
    ("structured", None),
    ("role-council", Some(&super::role_council::SHOWN)),
    ("adversarial", Some(&super::adversarial::SHOWN)),
    ("steelman", None),
    ("comparative", Some(&super::comparative::SHOWN)),
    ("priority-vote", Some(&super::priority_vote::SHOWN)),
    ("challenge", Some(&super::challenge::SHOWN)),
    ("ranked", None),
    ("claim-ledger", None),
];

/// What readers of a transcript need of the built-in protocol `name` (see
/// [`Shown`]); `None` for a protocol not built in (a spec-borne document's
/// transcript is shown plainly).
pub(crate) fn shown(name: &str) -> Option<Shown> {
    let (_, coded) = SHOWN.iter().find(|(n, _)| *n == name)?;
    Some(coded.copied().unwrap_or_else(|| document::builtins::shown(name)))
}

/// One protocol in the registry.
#[derive(Clone, Copy)]
pub(crate) enum Entry {
    /// Coded in Rust: its module's definition.
    Coded(&'static Definition),
    /// A built-in document, by its name; every fact about it is in its JSON.
    Document(&'static str),
}

impl Entry {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Entry::Coded(def) => def.name,
            Entry::Document(name) => name,
        }
    }

    /// Its definition; a document's is read from its JSON the first time it is asked for.
    pub(crate) fn definition(self) -> &'static Definition {
        match self {
            Entry::Coded(def) => def,
            Entry::Document(name) => document::builtins::definition(name),
        }
    }
}

/// Every protocol, as hosts list it.
pub fn protocols() -> Vec<ProtocolInfo> {
    REGISTRY
        .iter()
        .map(|e| e.definition())
        .map(|d| ProtocolInfo {
            name: d.name.into(),
            summary: d.summary.into(),
            default_rounds: d.rounds.default,
            max_rounds: d.rounds.max,
            round_unit: d.rounds.unit.into(),
            min_seats: d.seats.min as u32,
            max_seats: d.seats.max.map(|m| m as u32),
            sides: d.shown.sides.iter().map(|s| s.to_string()).collect(),
            options: d.options.to_vec(),
            reads_agreement: d.reads_agreement,
            seats_are_roles: d.seats_are_roles,
        })
        .collect()
}

/// The definition of the protocol called `name`.
pub(crate) fn lookup(name: &str) -> Result<&'static Definition, Error> {
    let entry = REGISTRY.iter().find(|e| e.name() == name);
    entry.map(|e| e.definition()).ok_or_else(|| {
        let names: Vec<&str> = REGISTRY.iter().map(|e| e.name()).collect();
        Error::spec("protocol.name", format!("unknown protocol '{name}'; one of: {}", names.join(", ")))
    })
}

/// The kind protocol `protocol` declares for its result `name` (the answer
/// vote is every protocol's); `None` for a protocol not built in, or a name
/// it does not record.
pub(crate) fn result_kind(protocol: &str, name: &str) -> Option<crate::ResultKind> {
    if name == crate::result_kind::VOTE.name {
        return Some(crate::result_kind::VOTE.kind);
    }
    shown(protocol)?.results.iter().find(|d| d.name == name).map(|d| d.kind)
}

/// The definition a validated spec names, or the one every spec-borne document shares.
pub(crate) fn of(spec: &DebateSpec) -> &'static Definition {
    if super::document::carried(spec) {
        return &super::document::DEF;
    }
    lookup(&spec.protocol.name).expect("a validated spec names a registered protocol")
}

/// The protocol's bound for `spec` (see each module's stages).
pub(crate) fn bounds(spec: &DebateSpec) -> Bounds {
    (of(spec).bounds)(spec)
}

/// Build the protocol a spec names.
pub(crate) fn for_spec(spec: &DebateSpec) -> Box<dyn Protocol> {
    (of(spec).build)(spec)
}

/// Check everything a protocol requires of a spec: seats, rounds, options.
pub(crate) fn check(spec: &DebateSpec) -> Result<Options, Error> {
    if super::document::carried(spec) {
        let name = &spec.protocol.name;
        if REGISTRY.iter().any(|e| e.name() == name) {
            return Err(Error::spec(
                "protocol.name",
                format!("'{name}' is a built-in protocol; give your document a name of its own"),
            ));
        }
        // The document states its own seats and rounds; its check reads them.
        return (super::document::DEF.check)(spec);
    }
    let def = lookup(&spec.protocol.name)?;
    limits(def.name, &def.seats, &def.rounds, spec)?;
    (def.check)(spec)
}

/// An example spec for protocol `name` with `seats` seats (and a judge):
/// what tests, the fuzzer and docs start from.
pub fn example_spec(name: &str, seats: usize, rounds: u32) -> Result<DebateSpec, Error> {
    let def = lookup(name)?;
    let mut protocol = (def.example)(seats);
    protocol["name"] = Value::from(name);
    let panel: Vec<Value> = (0..seats)
        .map(|i| {
            let id = ((b'a' + (i % 26) as u8) as char).to_string();
            serde_json::json!({"id": id, "model": format!("openai/{id}-model")})
        })
        .collect();
    let spec = serde_json::json!({
        "question": "Should the city build the tram?",
        "panel": panel,
        "judge": {"id": "judge", "model": "openai/judge-model"},
        "protocol": protocol,
        "rounds": example_rounds(name, def, rounds),
    });
    DebateSpec::from_json(&spec.to_string())
}

/// `rounds` within the protocol's maximum; for a document whose conditions
/// leave some numbers empty (steelman: 1 or 4), the nearest it runs below, else its default.
fn example_rounds(name: &str, def: &Definition, rounds: u32) -> u32 {
    let rounds = rounds.min(def.rounds.max);
    if !REGISTRY.iter().any(|e| matches!(e, Entry::Document(n) if *n == name)) {
        return rounds;
    }
    let doc = document::builtins::builtin(name);
    (1..=rounds).rev().find(|&r| doc.runnable(r)).unwrap_or(def.rounds.default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_protocol_builds_from_its_example() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|e| e.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
        for def in REGISTRY.iter().map(|e| e.definition()) {
            let seats = def.seats.min.max(3).min(def.seats.max.unwrap_or(usize::MAX));
            let spec = example_spec(def.name, seats, def.rounds.default)
                .unwrap_or_else(|e| panic!("{}: its example does not validate: {e}", def.name));
            let _ = (def.build)(&spec);
            let b = (def.bounds)(&spec);
            assert!(b.turns > 0, "{}: no turns", def.name);
        }
    }

    /// Every result a built-in protocol's golden cases record is one it
    /// declares, with the kind it declares: the protocols are the registry's,
    /// each with at least one case.
    #[test]
    fn every_recorded_result_is_declared_with_its_kind() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
        let transcripts: Vec<crate::Transcript> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path().join("transcript.json"))
            .map(|p| serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap())
            .collect();
        for entry in REGISTRY {
            let name = entry.name();
            let mine: Vec<&crate::Transcript> = transcripts.iter().filter(|t| t.protocol == name).collect();
            assert!(!mine.is_empty(), "{name}: no golden case");
            for t in mine {
                for (result, r) in &t.results {
                    assert_eq!(result_kind(name, result), Some(r.kind), "{name}: its result {result}");
                }
            }
        }
        // Names are each declared once.
        for def in REGISTRY.iter().map(|e| e.definition()) {
            let mut names: Vec<&str> = def.shown.results.iter().map(|d| d.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), def.shown.results.len(), "{}", def.name);
        }
    }

    /// The table readers use without the protocols' code says what each
    /// protocol's definition says, for every protocol, in the same order.
    #[test]
    fn what_readers_are_shown_is_what_each_definition_says() {
        let names: Vec<&str> = SHOWN.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, REGISTRY.iter().map(|e| e.name()).collect::<Vec<_>>());
        for entry in REGISTRY {
            let def = entry.definition();
            let shown = shown(def.name).unwrap();
            assert_eq!(shown.sides, def.shown.sides, "{}", def.name);
            assert_eq!(shown.results, def.shown.results, "{}", def.name);
            // The same turn renderer.
            assert_eq!(shown.render_turn as usize, def.shown.render_turn as usize, "{}", def.name);
            assert_eq!(shown.judge_closes_with_data, def.shown.judge_closes_with_data, "{}", def.name);
        }
        assert!(shown("no-such-protocol").is_none());
    }

    #[test]
    fn seat_and_round_limits_name_the_field() {
        let mut spec = example_spec("priority-vote", 3, 1).unwrap();
        spec.panel.push(spec.panel[0].clone());
        spec.panel[3].id = "z".into();
        let e = check(&spec).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidSpec { field, reason } if field == "panel" && reason.contains("at most 3")),
            "{e}"
        );
        let mut spec = example_spec("structured", 2, 1).unwrap();
        spec.rounds = Some(3);
        let e = check(&spec).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "rounds"), "{e}");
    }

    /// A document the spec carries may not take a built-in protocol's name:
    /// hosts, transcripts and the catalog would confuse the two.
    #[test]
    fn a_carried_document_under_a_built_in_name_is_refused() {
        let (_, text) = super::super::document::BUILTIN_DOCUMENTS.iter().find(|(n, _)| *n == "round-robin").unwrap();
        let mut spec = example_spec("round-robin", 2, 1).unwrap();
        spec.protocol.options.insert("document".into(), serde_json::from_str(text).unwrap());
        let e = check(&spec).unwrap_err();
        assert!(
            matches!(&e, Error::InvalidSpec { field, reason } if field == "protocol.name" && reason.contains("a name of its own")),
            "{e}"
        );
        spec.protocol.name = "my-round-robin".into();
        let e = check(&spec).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { reason, .. } if reason.contains("the document is named")), "{e}");
    }

    /// The field and the words of a refused spec: protocol `name` with 2
    /// seats (or `seats`), rounds and options as given.
    fn refused(name: &str, seats: usize, rounds: Option<u32>, options: Value) -> (String, String) {
        let mut spec = example_spec(name, 2, 1).unwrap();
        while spec.panel.len() < seats {
            let mut seat = spec.panel[0].clone();
            seat.id = format!("s{}", spec.panel.len());
            spec.panel.push(seat);
        }
        spec.rounds = rounds;
        spec.protocol.options = options.as_object().unwrap().clone().into_iter().collect();
        match spec.validate() {
            Err(Error::InvalidSpec { field, reason }) => (field, reason),
            other => panic!("{name}: {other:?}"),
        }
    }

    #[test]
    fn a_built_in_document_is_checked_as_its_protocol() {
        use serde_json::json;
        let cases = [
            (
                "steelman",
                3,
                None,
                json!({}),
                "panel",
                "steelman takes at most 2 seats (the steelman is seat 1, the devil's advocate seat 2); it has 3",
            ),
            (
                "structured",
                2,
                Some(2),
                json!({}),
                "rounds",
                "structured runs at most 1 round (one pass: opening, cross-examination, rebuttal); 2 asked",
            ),
            // Steelman's phases run one pass or the four-round dialectic: 2 and 3 would leave rounds empty.
            ("steelman", 2, Some(2), json!({}), "rounds", "steelman runs 1 or 4 rounds (one pass, or with 4 rounds"),
            ("steelman", 2, Some(3), json!({}), "rounds", "; 3 asked"),
            ("steelman", 2, Some(5), json!({}), "rounds", "steelman runs at most 4 rounds"),
            ("devils-advocate", 2, None, json!({"adversary": 3}), "protocol.adversary", "seat 3"),
            (
                "devils-advocate",
                2,
                None,
                json!({"consensus": "read"}),
                "protocol.consensus",
                "unknown field `consensus`, expected `adversary` or `stop_when_unchanged`",
            ),
            ("devils-advocate", 2, None, json!({"adversary": true}), "protocol.adversary", "untagged enum SeatRef"),
            (
                "round-robin",
                2,
                None,
                json!({"adversary": 1}),
                "protocol.adversary",
                "unknown field `adversary`, expected `stop_when_unchanged`",
            ),
            (
                "consensus-check",
                2,
                None,
                json!({"consensus": "vibes"}),
                "protocol.consensus",
                "unknown variant `vibes`",
            ),
            (
                "consensus-check",
                2,
                None,
                json!({"adversary": 1}),
                "protocol.adversary",
                "unknown field `adversary`, expected `consensus` or `stop_when_unchanged`",
            ),
        ];
        for (name, seats, rounds, options, field, words) in cases {
            let (f, reason) = refused(name, seats, rounds, options.clone());
            assert_eq!(f, field, "{name} {options}: {reason}");
            assert!(reason.contains(words), "{name} {options}: {reason}");
        }
        let mut spec = example_spec("consensus-check", 2, 1).unwrap();
        spec.judge = None;
        spec.protocol.options.insert("consensus".into(), json!("judge"));
        let e = spec.validate().unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "protocol.consensus"), "{e}");
    }

    #[test]
    fn a_built_in_document_normalizes_its_options_as_its_protocol() {
        use serde_json::json;
        let normalized = |name: &str, options: Value| {
            let mut spec = example_spec(name, 3, 1).unwrap();
            spec.protocol.options = options.as_object().unwrap().clone().into_iter().collect();
            check(&spec).unwrap()
        };
        // The default mode is left out, a chosen one kept; a seat as given.
        assert!(normalized("consensus-check", json!({"consensus": "declared"})).is_empty());
        assert_eq!(normalized("consensus-check", json!({"consensus": "judge"}))["consensus"], json!("judge"));
        assert_eq!(normalized("devils-advocate", json!({"adversary": 2}))["adversary"], json!(2));
        assert_eq!(normalized("devils-advocate", json!({"adversary": "b"}))["adversary"], json!("b"));
        assert!(normalized("round-robin", json!({})).is_empty());
    }
}
