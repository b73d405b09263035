//! What a protocol's result is, for whoever shows it: one closed rendering
//! vocabulary ([`ResultKind`]). Every result a transcript holds carries its
//! kind beside its data ([`NamedResult`]); renderers, charts and hosts choose
//! by kind, never by the protocol or the result's name.
//!
//! Each protocol declares the kind of every result it records in one place
//! ([`Declared`] constants listed in its definition; a document's follow from
//! its aggregators), and records a result only through its declaration.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a result is shown. Closed: a new kind is a new way of showing, added
/// here with its renderer, never a new protocol's private shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ResultKind {
    /// Prose a person reads as it is: a text, or a list of texts (a section
    /// of the judge's synthesis, a revised position, a closing document).
    Document,
    /// Rows of the same fields, one per seat, round or item (each seat's
    /// readings, the verdicts of a challenge, items left to confirm).
    Table,
    /// Items in order, each with its score (a Borda count, priorities, the
    /// answers the seats voted for with their seats): charted as bars.
    Ranking,
    /// Options scored against weighted criteria: charted as stacked bars.
    Scorecard,
    /// Points raised and what became of them (a code review's findings and
    /// verdict, a claim ledger, a judged set of concerns).
    Findings,
    /// A decision on how the debate was run (a cost gate: one agent or two), with its reason.
    Gate,
}

impl ResultKind {
    /// Every kind, in declaration order.
    pub const ALL: [ResultKind; 6] = [
        ResultKind::Document,
        ResultKind::Table,
        ResultKind::Ranking,
        ResultKind::Scorecard,
        ResultKind::Findings,
        ResultKind::Gate,
    ];

    /// The kind's name in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultKind::Document => "document",
            ResultKind::Table => "table",
            ResultKind::Ranking => "ranking",
            ResultKind::Scorecard => "scorecard",
            ResultKind::Findings => "findings",
            ResultKind::Gate => "gate",
        }
    }
}

/// One result as the transcript keeps it: its kind, then its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedResult {
    pub kind: ResultKind,
    pub data: Value,
}

/// A result a coded protocol records: its name and kind, declared once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared {
    pub name: &'static str,
    pub kind: ResultKind,
}

impl Declared {
    pub(crate) const fn new(name: &'static str, kind: ResultKind) -> Declared {
        Declared { name, kind }
    }

    /// The note recording `value` as this result.
    pub(crate) fn note(self, value: Value) -> crate::plan::Note {
        crate::plan::Note::Result { name: self.name.into(), kind: self.kind, value }
    }
}

/// The answer vote every protocol records when a spec asks for answers.
pub(crate) const VOTE: Declared = Declared::new("vote", ResultKind::Ranking);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_back_from_their_names() {
        for kind in ResultKind::ALL {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, Value::from(kind.as_str()));
            assert_eq!(serde_json::from_value::<ResultKind>(json).unwrap(), kind);
        }
        let e = serde_json::from_value::<NamedResult>(serde_json::json!({"kind": "chart", "data": 1})).unwrap_err();
        assert!(e.to_string().contains("unknown variant `chart`"), "{e}");
    }
}
