//! A result rendered by its kind: one renderer per kind, each reading the
//! shapes coded protocols record for it ([`shape`]). Never by the result's
//! name or the protocol's: a shape no renderer knows (a document's own
//! fields, prose, a transcript from another version) is left to
//! [`generic`](super::results::generic).

mod document;
mod findings;
mod gate;
mod ranking;
mod scorecard;
pub(crate) mod shape;
mod table;

use crate::{NamedResult, ResultKind, Transcript};
use shape::ResultShape;

/// Writes `result` as its kind shows its shape; false when no renderer knows it.
pub(crate) fn render(t: &Transcript, result: &NamedResult, out: &mut String) -> bool {
    let value = &result.data;
    let Some(shape) = ResultShape::of(result.kind, value) else { return false };
    match result.kind {
        ResultKind::Document => document::render(t, shape, value, out),
        ResultKind::Table => table::render(t, shape, value, out),
        ResultKind::Ranking => ranking::render(t, shape, value, out),
        ResultKind::Scorecard => scorecard::render(value, out),
        ResultKind::Findings => findings::render(t, shape, value, out),
        ResultKind::Gate => gate::render(t, value, out),
    }
}
