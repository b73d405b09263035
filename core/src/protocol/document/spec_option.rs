//! A document in the spec: `"protocol": {"name": "red-blue", "document": {…}}`,
//! so SDKs and MCP clients can bring their own protocol. The spec may also
//! set `adversary` (a seat) when the document declares one, and `consensus`
//! (the reading mode) when it stops on consensus.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::stopping::Stop;
use super::{Document, Interpreter, bounds, load};
use crate::consensus::ConsensusMode;
use crate::protocol::definition;
use crate::protocol::definition::{BASE, Definition, ProtocolOptions, checked, typed};
use crate::{DebateSpec, Error, SeatRef};

/// The definition every spec-borne document shares; what differs (its name
/// and every fact hosts show) is read from the document.
pub(crate) const DEF: Definition = Definition {
    check: checked::<Options>,
    bounds: |spec| bounds::bounds(&document(spec), spec),
    build: |spec| Box::new(build(Arc::new(document(spec)), spec)),
    prompt_tokens: |spec| bounds::prompt_tokens(&document(spec), spec),
    // A phase that declares an output shape is never asked for the line.
    answers: true,
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    document: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    adversary: Option<SeatRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    consensus: Option<ConsensusMode>,
    /// Stop after a round that changed no seat's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop_when_unchanged: Option<bool>,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        let doc = load(&self.document, "protocol.document")?;
        if let Some(stop) = self.stop_when_unchanged {
            crate::protocol::unchanged::check(spec, &serde_json::Value::Bool(stop))?;
        }
        let name = &spec.protocol.name;
        if *name != doc.name {
            return Err(Error::spec("protocol.name", format!("'{name}', but the document is named '{}'", doc.name)));
        }
        let (seats, rounds) = doc.limits();
        definition::limits(name, &seats, &rounds, spec)?;
        doc.check_rounds(spec.rounds())?;
        match (&self.adversary, &doc.adversary) {
            (Some(_), None) => return Err(Error::spec("protocol.adversary", "the document declares no adversary")),
            (Some(seat), Some(_)) => drop(spec.resolve_seat(seat, "protocol.adversary")?),
            _ => {}
        }
        match (self.consensus, &doc.stop) {
            (Some(_), stop) if !matches!(stop, Stop::Consensus(_)) => {
                return Err(Error::spec("protocol.consensus", "the document does not stop on consensus"));
            }
            (mode, _) => spec.check_consensus(mode.unwrap_or_default())?,
        }
        let roles = doc.phases.iter().flat_map(|p| &p.turns).filter_map(|t| match &t.speakers {
            super::speakers::Speakers::Role(r) => Some(r),
            _ => None,
        });
        for role in roles {
            if !spec.panel.iter().any(|p| &p.name == role) {
                return Err(Error::spec(
                    "panel",
                    format!("no seat is named '{role}', a role the document gives the floor to"),
                ));
            }
        }
        Ok(())
    }
}

/// The validated spec's document.
pub(crate) fn document(spec: &DebateSpec) -> Document {
    load(&typed::<Options>(spec).document, "protocol.document").expect("validated")
}

/// Whether the spec carries its protocol as a document.
pub(crate) fn carried(spec: &DebateSpec) -> bool {
    spec.protocol.options.contains_key("document")
}

/// The interpreter for a document, with what the spec chose: the adversary and the consensus mode.
pub(crate) fn build(doc: Arc<Document>, spec: &DebateSpec) -> Interpreter {
    let named = spec
        .protocol
        .options
        .get("adversary")
        .and_then(|v| crate::json_read::read::<SeatRef>(v).ok())
        .map(|s| spec.resolve_seat(&s, "protocol.adversary").expect("validated"));
    Interpreter::new(doc, named, spec.consensus_mode().unwrap_or_default())
}
