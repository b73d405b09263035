//! JSON a result carries that the engine has no table for, shown as
//! Markdown instead: a record meant for people never shows raw JSON.

use std::fmt::Write;

use serde_json::Value;

use super::data_blocks::{Fenced, fenced};

/// `markdown` with every fenced block whose body is JSON (a document's
/// result the engine has no table for) shown as a table or a list instead.
pub(crate) fn json_blocks_as_tables(markdown: &str) -> String {
    let mut out = String::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(Fenced { marker, body, closed }) = fenced(line, &mut lines) else {
            let _ = writeln!(out, "{line}");
            continue;
        };
        match serde_json::from_str::<Value>(&body.join("\n")) {
            Ok(value) if closed => out.push_str(&markdown_of(&value)),
            _ => {
                let _ = writeln!(out, "{line}\n{}", body.join("\n"));
                if closed {
                    let _ = writeln!(out, "{marker}");
                }
            }
        }
    }
    out
}

/// JSON as Markdown: a list of objects as a table (nested keys dotted), an
/// object as a list of its fields, anything else as text.
fn markdown_of(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => table(&mut out, items),
        Value::Array(items) => {
            for item in items {
                let _ = writeln!(out, "- {}", one_line(&scalar(item)));
            }
        }
        Value::Object(_) => {
            for (key, v) in flat("", value) {
                let _ = writeln!(out, "- **{key}:** {}", one_line(&v));
            }
        }
        other => {
            let _ = writeln!(out, "{}", scalar(other));
        }
    }
    out
}

/// Objects as one table: a column for every dotted key any of them has, in
/// the order they first appear.
fn table(out: &mut String, items: &[Value]) {
    let rows: Vec<Vec<(String, String)>> = items.iter().map(|i| flat("", i)).collect();
    let mut columns: Vec<String> = Vec::new();
    for (key, _) in rows.iter().flatten() {
        if !columns.contains(key) {
            columns.push(key.clone());
        }
    }
    let _ = writeln!(out, "| {} |", columns.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(columns.len()));
    for row in &rows {
        let cells: Vec<String> =
            columns.iter().map(|c| row.iter().find(|(k, _)| k == c).map_or(String::new(), |(_, v)| cell(v))).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

/// An object's fields as (dotted key, text), nested objects opened.
fn flat(prefix: &str, value: &Value) -> Vec<(String, String)> {
    let Value::Object(map) = value else { return vec![(prefix.to_string(), scalar(value))] };
    map.iter()
        .flat_map(|(k, v)| {
            let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            match v {
                Value::Object(_) => flat(&key, v),
                _ => vec![(key, scalar(v))],
            }
        })
        .collect()
}

/// A JSON value as words: text as it is, a list of texts joined, else numbers and booleans.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join("; "),
        Value::Object(_) => {
            flat("", value).into_iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join("; ")
        }
        other => other.to_string(),
    }
}

/// Text for a table cell: one line, no column break.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// Whitespace runs, line breaks included, as one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_the_engine_shows_as_json_becomes_a_table() {
        let results = "### Critique\n\n```json\n[{\"seat\": \"red1\", \"fields\": {\"flaw\": \"No | plan\", \"fatal\": true}}, \
                       {\"seat\": \"red2\", \"round\": 2}]\n```\nafter\n";
        assert_eq!(
            json_blocks_as_tables(results),
            "### Critique\n\n| fields.fatal | fields.flaw | seat | round |\n|---|---|---|---|\n\
             | true | No \\| plan | red1 |  |\n|  |  | red2 | 2 |\nafter\n"
        );
        assert_eq!(markdown_of(&serde_json::json!({"a": {"b": [1, 2]}})), "- **a.b:** 1; 2\n");
        assert_eq!(json_blocks_as_tables("```rust\nfn a() {}\n```\n"), "```rust\nfn a() {}\n```\n");
    }
}
