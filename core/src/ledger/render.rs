//! A ledger result in a transcript's Markdown: the claims as a table, then
//! every change of position (the unexplained ones flagged), then the
//! agreement. Read from the JSON field by field: a derived reader costs the
//! component more.

use std::fmt::Write;

use serde_json::Value;

use crate::Transcript;
use crate::render::results::{cell, name, table};

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)?.as_str()
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// Writes the ledger in `value`; false when it is not one (the generic
/// renderer then shows it as JSON).
pub(crate) fn render(t: &Transcript, value: &Value, out: &mut String) -> bool {
    let Some(claims) = value.get("claims").and_then(Value::as_array) else { return false };
    // "Ada (round 2), Bo (round 3)" for a list of acts; "—" for none.
    let who = |acts: &[Value]| -> String {
        let named: Vec<String> = acts
            .iter()
            .filter_map(|a| Some(format!("{} (round {})", name(t, text(a, "seat")?), a.get("round")?.as_u64()?)))
            .collect();
        if named.is_empty() { "—".into() } else { named.join(", ") }
    };
    let mut rows = Vec::new();
    for c in claims {
        let (Some(id), Some(seat), Some(said), Some(standing)) =
            (text(c, "id"), text(c, "seat"), text(c, "text"), c.get("standing"))
        else {
            return false;
        };
        let status = text(standing, "status").unwrap_or("");
        let by = list(standing, "by");
        let (conceded, ruling) = match status {
            "conceded" if by.iter().any(|a| text(a, "seat") == Some(seat)) => {
                (format!("{} (withdrawn)", who(by)), "— (settled)".to_string())
            }
            "conceded" => (who(by), "— (settled)".to_string()),
            _ => ("—".into(), ruled(standing.get("ruling"))),
        };
        let round = c.get("round").and_then(Value::as_u64).unwrap_or(0);
        rows.push(vec![
            format!("{id}: {said}"),
            status.to_string(),
            format!("{} (round {round})", name(t, seat)),
            who(list(c, "attacks")),
            conceded,
            ruling,
        ]);
    }
    let _ = writeln!(out, "### Claim ledger\n");
    if rows.is_empty() {
        out.push_str("No claim was raised.\n\n");
    } else {
        table(out, &["claim", "status", "raised by", "attacked by", "conceded by", "ruling"], &rows);
    }
    let flips = list(value, "flips");
    if !flips.is_empty() {
        let _ = writeln!(out, "Changes of position:\n");
        for f in flips {
            let because = f.get("because").unwrap_or(&Value::Null);
            let because = match (text(because, "cites"), text(because, "id"), text(because, "seat")) {
                (Some("claim"), Some(id), _) => format!("citing {id}"),
                (Some("seat"), _, Some(seat)) => format!("citing {}", name(t, seat)),
                _ => "**unexplained**: it cites no claim and no seat".into(),
            };
            let _ = writeln!(
                out,
                "- {}, round {}: {} → {}; {because}",
                cell(&name(t, text(f, "seat").unwrap_or(""))),
                f.get("round").and_then(Value::as_u64).unwrap_or(0),
                cell(text(f, "from").unwrap_or("")),
                cell(text(f, "to").unwrap_or(""))
            );
        }
        out.push('\n');
    }
    if let Some(a) = value.get("agreement") {
        let how = match text(a, "kind") {
            Some("independent") => "independent: every seat held it from its first stated position",
            Some("persuaded") => "persuaded: every change of position toward it cited a claim or a seat",
            _ => "negotiated, not independent: a seat came round to it citing nothing",
        };
        let _ = writeln!(out, "Agreement on **{}**: {how}.\n", cell(text(a, "position").unwrap_or("")));
    }
    let refused: Vec<String> = list(value, "refused")
        .iter()
        .filter_map(|r| Some(format!("{} {} ({})", name(t, text(r, "seat")?), cell(text(r, "line")?), text(r, "why")?)))
        .collect();
    if !refused.is_empty() {
        let _ = writeln!(out, "Not taken: {}.\n", refused.join("; "));
    }
    true
}

fn ruled(r: Option<&Value>) -> String {
    let why = r.and_then(|r| text(r, "why")).unwrap_or("");
    match r.and_then(|r| text(r, "verdict")) {
        Some("upheld") => format!("upheld: {why}"),
        Some("rejected") => format!("rejected: {why}"),
        _ => "**unruled**".into(),
    }
}
