//! Protocols as data: a versioned JSON document the core interprets.
//!
//! A document says who speaks in each phase, what each speaker sees, the
//! prompts as templates with named slots, the replies it expects, when the
//! debate stops and what aggregates it. There is no code in it: loading
//! checks every part and names the JSON path of any error, and the calls,
//! tokens and cost of a run are bounded from the document and the spec
//! alone, before the run ([`bounds`](bounds::bounds)).
//!
//! The built-ins that the format can say ship as documents ([`builtins`]):
//! round-robin, devils-advocate, consensus-check, structured, steelman and
//! ranked. The registry reads everything about them from their JSON (no
//! Rust restates it), and each reproduces its golden cases byte for byte
//! (structured's golden case was re-blessed once: the Rust protocol emitted
//! the rebuttal's `round-ended` twice, and the document emits it once). ranked uses the
//! peer-review features: [`labels`] drawn by the seed, `answered` speakers,
//! `hide_own` and `show` in a `sees`, the [`ranking`] reader and the
//! [`borda_aggregate`]. The rest stay Rust, because the format (version 1)
//! lacks:
//!
//! - rotating-challenger: a blind phase whose speakers then see the blind
//!   answers under a different title, an order that starts after the
//!   challenger, and its own judge prompt wording — close, untried.
//! - role-council: labels as "Name (id)", the persona as raw instructions
//!   and the judge's persona in its prompt.
//! - adversarial, comparative, priority-vote, challenge: their options
//!   (`options`, `items`, compete history) and aggregators (scorecards,
//!   verdict tallies, Borda over priorities), per-verdict follow-ups.
//! - the judge as a speaker inside a phase (only the closing synthesis),
//!   and consensus confirmation (judge mode) on a phase other than
//!   `deliberation` (the confirmation prompt reads that phase).

/// A phase's declared fields, one row per seat and round.
pub(crate) const FIELDS_KIND: crate::ResultKind = crate::ResultKind::Table;
/// A `## Heading` section of the judge's synthesis.
pub(crate) const SECTION_KIND: crate::ResultKind = crate::ResultKind::Document;

pub(crate) mod aggregators;
pub(crate) mod borda_aggregate;
pub(crate) mod bounds;
pub(crate) mod builtins;
mod info;
mod interpreter;
pub(crate) mod labels;
pub(crate) mod outputs;
pub(crate) mod phases;
pub(crate) mod ranking;
pub(crate) mod speakers;
pub(crate) mod spec_option;
pub(crate) mod stopping;
pub(crate) mod templates;
mod validate;
pub(crate) mod visibility;
pub(crate) mod when;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use builtins::BUILTIN_DOCUMENTS;
pub use info::document_info;
pub(crate) use interpreter::Interpreter;
pub(crate) use spec_option::{DEF, build, carried};

use crate::Error;
use aggregators::Aggregate;
use phases::PhaseDoc;
use speakers::Adversary;
use stopping::Stop;

/// The document format's version; a document states it, and the core reads only this one.
pub const DOCUMENT_VERSION: u32 = 1;

/// One protocol, as data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Document {
    /// The format's version: 1.
    pub version: Version,
    /// Lowercase words joined by hyphens; events and transcripts name the protocol by it.
    pub name: String,
    /// One line, for `agon protocols` and every host's picker.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// The rounds a spec may ask for (default: one pass).
    #[serde(default)]
    pub rounds: Rounds,
    /// The panel sizes it takes (default: one seat or more).
    #[serde(default)]
    pub seats: Seats,
    /// The seat that holds the adversarial role, if the document has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adversary: Option<Adversary>,
    /// How many seats must still answer (default: the spec's quorum).
    #[serde(default)]
    pub quorum: Quorum,
    /// The phases of a round, in order; each kind of phase appears once.
    pub phases: Vec<PhaseDoc>,
    /// What may end the debate before its last round (default: nothing).
    #[serde(default)]
    pub stop: Stop,
    /// What the core makes of the turns at the end (default: nothing).
    #[serde(default)]
    pub aggregate: Aggregate,
    /// The outcome's reason when every round ran ("all 3 rounds ran" if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<String>,
}

/// `"version": 1`, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version;

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(DOCUMENT_VERSION)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u32::deserialize(d)? {
            DOCUMENT_VERSION => Ok(Version),
            v => Err(serde::de::Error::custom(format!(
                "version {v} is not one this engine reads; it reads version {DOCUMENT_VERSION}"
            ))),
        }
    }
}

/// How many rounds a spec may ask for, and how many it gets by default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Rounds {
    /// The rounds a spec gets when it does not say.
    pub default: u32,
    /// The most a spec may ask for (at most the engine's limit, 50).
    pub max: u32,
    /// What one round is, in a few words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
}

impl Default for Rounds {
    fn default() -> Self {
        Rounds { default: 1, max: 1, unit: String::new() }
    }
}

/// How many panel seats the document takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Seats {
    /// The fewest seats; seat positions in the document run from 1 to this.
    pub min: u32,
    /// The most seats (no limit if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u32>,
    /// Why these bounds, in a few words: the error a panel outside them gets says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// What each seat is, in panel order, when each plays a part of its own
    /// (`["steelman", "devil's advocate"]`): one per seat, so `min` and `max`
    /// are its length. Hosts show them, and one model given alone plays every part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sides: Vec<String>,
    /// Its worth is in different models disagreeing (peer rankings, an
    /// adversary): a panel of one model is warned about, or refused
    /// (`limits.diversity`), as for the built-ins that say so.
    #[serde(default, skip_serializing_if = "is_false")]
    pub different_models: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for Seats {
    fn default() -> Self {
        Seats { min: 1, max: None, why: None, sides: Vec::new(), different_models: false }
    }
}

/// How many seats must still answer for the debate to go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Quorum {
    /// The spec's quorum (`limits.quorum`, default 2).
    #[default]
    Spec,
    /// Any one seat: for documents whose seats play different parts, where
    /// one side alone still gives the judge something to weigh.
    Any,
}

/// Parse and check a document. Errors name the JSON path under `prefix`
/// (`protocol.phases[2].turns[0].prompt.user: unknown slot {histroy}`).
pub(crate) fn load(json: &serde_json::Value, prefix: &str) -> Result<Document, Error> {
    let doc: Document = crate::json_read::read(json).map_err(|e| crate::spec::field_error(prefix, e))?;
    validate::document(&doc, prefix)?;
    Ok(doc)
}

/// Parse and check a document from its JSON text. Through a `Value` and
/// [`load`], so the document's types are deserialized by one deserializer
/// only: each more would instantiate all their serde code again (about 60 KB
/// of the component).
pub(crate) fn load_str(text: &str, prefix: &str) -> Result<Document, Error> {
    let json = crate::json_read::parse(text).map_err(|e| Error::spec(prefix, format!("not JSON: {e}")))?;
    load(&json, prefix)
}

/// Check a protocol document on its own (a file a host read, before any
/// spec): the document normalized, every default written out, as pretty
/// JSON. Errors name the JSON path under `protocol`.
pub fn check_document(json: &str) -> Result<String, Error> {
    let doc = load_str(json, "protocol")?;
    Ok(serde_json::to_string_pretty(&doc).expect("a document serializes"))
}
