//! What a result is, told by its kind and the shape of its data: the one
//! place renderers, charts and hosts recognise the records coded protocols
//! keep. Never by the result's name or the protocol's: a result renamed, or
//! recorded by another protocol in the same shape, is read the same way.

use serde_json::Value;

use crate::ResultKind;

/// A shape a coded protocol records, under the kind it is recorded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultShape {
    /// Document: a challenge's closing — outcome, final position, what the
    /// defender learned, the position's evolution.
    Closing,
    /// Table: challengers' first verdicts, one row each.
    Verdicts,
    /// Table: the defender's response to each challenger, per round.
    Responses,
    /// Table: each challenger's rebuttal choice, per round.
    Rebuttals,
    /// Table: every version of a position, with its text.
    Positions,
    /// Table: items two lenses split on that nobody has given a priority.
    ToConfirm,
    /// Table: who gave the split items their final priority, and which.
    Confirmed,
    /// Table: items removed as repeats of earlier ones.
    Duplicates,
    /// Table: a competitive review in one record — disagreements, whom the
    /// judge sided with, the artifact and the skill.
    CompeteRecord,
    /// Table: who ranked what in a Borda count.
    Readings,
    /// Ranking: answers with the seats that gave them.
    Vote,
    /// Ranking: a Borda count's standings, seats with their points.
    Standings,
    /// Ranking: items in score order with each lens's priority.
    Priorities,
    /// Scorecard: options scored against weighted criteria.
    Scorecard,
    /// Findings: a code review's findings and verdict.
    Review,
    /// Findings: a claim ledger.
    Ledger,
    /// Findings: a judge's score for each of a challenger's concerns.
    Concerns,
    /// Gate: whether both sides ran, and why.
    Gate,
}

impl ResultShape {
    /// The shape of `data` recorded as `kind`; `None` for one no coded
    /// protocol records (a document's own fields, prose): shown generically.
    pub fn of(kind: ResultKind, data: &Value) -> Option<ResultShape> {
        use ResultShape as S;
        match kind {
            ResultKind::Document => closing(data).then_some(S::Closing),
            ResultKind::Table => table(data),
            ResultKind::Ranking if data.get("counts").is_some_and(Value::is_array) => Some(S::Vote),
            ResultKind::Ranking if borda(data) == Some(S::Standings) => Some(S::Standings),
            ResultKind::Ranking => {
                rows(data, &|r| r["priorities"].is_object() && r["score"].is_number()).then_some(S::Priorities)
            }
            ResultKind::Scorecard => {
                (data["options"].is_object() && data["criteria"].is_array()).then_some(S::Scorecard)
            }
            ResultKind::Findings if crate::review::Review::from_value(data).is_ok() => Some(S::Review),
            ResultKind::Findings if data.get("claims").is_some_and(Value::is_array) => Some(S::Ledger),
            ResultKind::Findings => data["concerns"].is_array().then_some(S::Concerns),
            ResultKind::Gate => data["compete"].is_boolean().then_some(S::Gate),
        }
    }
}

/// Every result of `transcript` (its JSON) with `shape`, in name order: for
/// hosts that read the transcript as JSON.
pub fn results_shaped(transcript: &Value, shape: ResultShape) -> impl Iterator<Item = &Value> {
    let results = transcript["results"].as_object().into_iter().flatten();
    results.filter_map(move |(_, r)| {
        let kind = serde_json::from_value::<ResultKind>(r["kind"].clone()).ok()?;
        (ResultShape::of(kind, &r["data"]) == Some(shape)).then_some(&r["data"])
    })
}

/// The compete record a finished transcript (as JSON) holds, if any: what a
/// host keeps of adversarial's competitive review (its history, its
/// evaluation).
pub fn compete_record(transcript: &Value) -> Option<&Value> {
    results_shaped(transcript, ResultShape::CompeteRecord).next()
}

/// Every result of `t` with `shape`, in name order.
pub(crate) fn shaped(t: &crate::Transcript, shape: ResultShape) -> impl Iterator<Item = &Value> {
    t.results.values().filter(move |r| ResultShape::of(r.kind, &r.data) == Some(shape)).map(|r| &r.data)
}

/// Whether `t` holds a result with `shape`.
pub(crate) fn holds(t: &crate::Transcript, shape: ResultShape) -> bool {
    shaped(t, shape).next().is_some()
}

fn closing(v: &Value) -> bool {
    v["outcome"].is_string() && v.get("final_position").is_some() && v["evolution"].is_array()
}

/// Whether one row has a shape's fields.
type RowTest = fn(&Value) -> bool;

/// A Table's shape: one record, or rows of the same fields.
fn table(v: &Value) -> Option<ResultShape> {
    use ResultShape as S;
    if v.is_object() {
        return if v["by"].is_string() && v["items"].is_array() {
            Some(S::Confirmed)
        } else if v["sided_with"].is_object() && v["disagreements"].is_number() {
            Some(S::CompeteRecord)
        } else {
            None
        };
    }
    // A challenger's row; a field given as text, or null where it could not be read.
    fn challenger(r: &Value) -> bool {
        r["challenger"].is_string()
    }
    fn is_text(r: &Value, k: &str) -> bool {
        r.get(k).is_some_and(|x| x.is_string() || x.is_null())
    }
    let candidates: [(ResultShape, RowTest); 6] = [
        (S::Verdicts, |r| challenger(r) && is_text(r, "verdict") && r.get("treated_as").is_some()),
        (S::Responses, |r| {
            challenger(r) && r["round"].is_number() && r.get("decision").is_some() && r.get("reason").is_some()
        }),
        (S::Rebuttals, |r| challenger(r) && r["round"].is_number() && is_text(r, "choice")),
        (S::Positions, |r| r["version"].is_number() && r["text"].is_string()),
        (S::ToConfirm, |r| r["item"].is_number() && r["urgency"].is_object() && r["impact"].is_object()),
        (S::Duplicates, |r| r["item"].is_number() && r["same_as"].is_number()),
    ];
    candidates.into_iter().find(|(_, test)| rows(v, test)).map(|(s, _)| s).or_else(|| borda(v))
}

/// A Borda count's part, as its aggregator writes it.
fn borda(v: &Value) -> Option<ResultShape> {
    use crate::protocol::document::borda_aggregate::Part;
    match Part::of(v)? {
        Part::Standings => Some(ResultShape::Standings),
        Part::Readings => Some(ResultShape::Readings),
    }
}

/// `v` is a list of rows, at least one, each passing `test`.
fn rows(v: &Value, test: &dyn Fn(&Value) -> bool) -> bool {
    v.as_array().is_some_and(|rows| !rows.is_empty() && rows.iter().all(test))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_are_told_by_their_fields_not_their_names() {
        use ResultKind as K;
        use ResultShape as S;
        let of = ResultShape::of;
        let rebuttal = json!([{"round": 1, "challenger": "x", "choice": null}]);
        assert_eq!(of(K::Table, &rebuttal), Some(S::Rebuttals));
        // The same rows under another kind are another thing: a kind is part of the shape.
        assert_eq!(of(K::Ranking, &rebuttal), None);
        assert_eq!(
            of(K::Table, &json!([{"round": 1, "challenger": "x", "decision": "accept", "reason": "ok"}])),
            Some(S::Responses)
        );
        assert_eq!(of(K::Table, &json!([{"version": 1, "text": "v1"}])), Some(S::Positions));
        let record = json!({"skill": "rfc", "disagreements": 0, "sided_with": {"advocate": 0, "challenger": 0}});
        assert_eq!(of(K::Table, &record), Some(S::CompeteRecord));
        assert_eq!(of(K::Table, &json!({"by": "you", "items": []})), Some(S::Confirmed));
        assert_eq!(of(K::Gate, &json!({"compete": false, "reason": "r"})), Some(S::Gate));
        assert_eq!(of(K::Scorecard, &json!({"options": {}, "criteria": []})), Some(S::Scorecard));
        assert_eq!(of(K::Findings, &json!({"concerns": [], "verdict": "approve"})), Some(S::Concerns));
        // A document's own fields, prose, an empty table: no coded protocol's shape.
        assert_eq!(of(K::Table, &json!([{"seat": "a", "round": 1, "fields": {"flaw": "x"}}])), None);
        assert_eq!(of(K::Document, &json!("Ship it.")), None);
        assert_eq!(of(K::Table, &json!([])), None);
    }

    #[test]
    fn hosts_find_results_by_shape_in_the_json() {
        let t = json!({"results": {
            "anything": {"kind": "table", "data": [{"item": 3, "text": "t", "urgency": {}, "impact": {}}]},
            "gate": {"kind": "gate", "data": {"compete": true, "reason": "r"}},
            "odd": {"kind": "no such kind", "data": {"compete": true}},
        }});
        assert_eq!(results_shaped(&t, ResultShape::ToConfirm).count(), 1);
        assert_eq!(results_shaped(&t, ResultShape::Gate).count(), 1);
        assert_eq!(results_shaped(&json!({}), ResultShape::Gate).count(), 0);
    }
}
