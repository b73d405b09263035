//! Reading format 1: a transcript written before results were nested is
//! brought to the current format on the way in. Its results (every top-level
//! name but the transcript's own) move under `results`, each with the kind
//! the protocol that wrote it declares; nothing is dropped.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::transcript::{TRANSCRIPT_FIELDS, TRANSCRIPT_VERSION};
use crate::{NamedResult, ResultKind, Transcript};

/// Either format: a format-1 transcript is migrated first. Here rather than
/// beside the transcript's type, which is plain data: the kinds come from the
/// protocols' declarations (the registry), a layer above it.
impl<'de> Deserialize<'de> for Transcript {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let value = to_current(value).map_err(serde::de::Error::custom)?;
        Transcript::deserialize(value).map_err(serde::de::Error::custom)
    }
}

/// `value` in the current format, or why it cannot be read.
pub(crate) fn to_current(value: Value) -> Result<Value, String> {
    let Value::Object(mut fields) = value else { return Err("a transcript is a JSON object".into()) };
    match fields.get("version").and_then(Value::as_u64) {
        Some(1) => Ok(Value::Object(from_format_1(fields))),
        Some(v) if v == u64::from(TRANSCRIPT_VERSION) => Ok(Value::Object(fields)),
        Some(v) => {
            Err(format!("version: transcript format {v} is not one this engine reads (1 or {TRANSCRIPT_VERSION})"))
        }
        None => {
            let found = fields.remove("version").map_or("nothing".into(), |v| v.to_string());
            Err(format!("version: a transcript's format is a number; found {found}"))
        }
    }
}

/// Format 1's results moved under `results`, each with its kind.
fn from_format_1(fields: Map<String, Value>) -> Map<String, Value> {
    let protocol = fields.get("protocol").and_then(Value::as_str).unwrap_or_default().to_string();
    let mut out = Map::new();
    let mut results = Map::new();
    for (name, data) in fields {
        // `blind` is the transcript's own when a flag; a document's phase may be called so too.
        if TRANSCRIPT_FIELDS.contains(&name.as_str()) || (name == "blind" && data.is_boolean()) {
            out.insert(name, data);
        } else {
            let kind = crate::protocol::registry::result_kind(&protocol, &name).unwrap_or_else(|| by_shape(&data));
            let result = NamedResult { kind, data };
            results.insert(name, serde_json::to_value(result).expect("a result serializes"));
        }
    }
    out.insert("version".into(), Value::from(TRANSCRIPT_VERSION));
    out.insert("results".into(), Value::Object(results));
    out
}

/// The kind of a result whose protocol is not built in (a document the spec
/// carried): known by what the core's aggregators write.
fn by_shape(data: &Value) -> ResultKind {
    use crate::protocol::document::borda_aggregate::Part;
    match data {
        _ if Part::of(data) == Some(Part::Standings) => ResultKind::Ranking,
        _ if Part::of(data) == Some(Part::Readings) => ResultKind::Table,
        Value::Object(o) if o.contains_key("findings") || o.contains_key("claims") => ResultKind::Findings,
        Value::Array(rows) if rows.iter().all(Value::is_object) && !rows.is_empty() => ResultKind::Table,
        _ => ResultKind::Document,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn format_1_results_move_under_results_with_their_protocols_kinds() {
        let v1 = json!({"version": 1, "protocol": "priority-vote", "question": "q", "seed": 0,
            "ranking": [{"item": "a", "score": 2}], "gate": {"compete": true, "reason": "r"}});
        let v2 = to_current(v1).unwrap();
        assert_eq!(v2["version"], 2);
        assert_eq!(v2["results"]["ranking"], json!({"kind": "ranking", "data": [{"item": "a", "score": 2}]}));
        assert_eq!(v2["results"]["gate"]["kind"], "gate");
        assert!(v2.get("ranking").is_none() && v2.get("gate").is_none());
        assert_eq!(v2["question"], "q");
    }

    #[test]
    fn a_carried_documents_results_are_known_by_shape() {
        let v1 = json!({"version": 1, "protocol": "red-blue", "verdict": "ship it",
            "critique": [{"seat": "red", "round": 1, "fields": {}}]});
        let v2 = to_current(v1).unwrap();
        assert_eq!(v2["results"]["verdict"]["kind"], "document");
        assert_eq!(v2["results"]["critique"]["kind"], "table");
    }

    #[test]
    fn an_unknown_or_missing_version_is_named() {
        let e = to_current(json!({"version": 7})).unwrap_err();
        assert!(e.starts_with("version:") && e.contains('7'), "{e}");
        let e = to_current(json!({"protocol": "x"})).unwrap_err();
        assert!(e.starts_with("version:"), "{e}");
    }
}
