//! A protocol's named results as a person reads them: headings, lists and
//! tables, never a JSON dump. Each kind's renderer
//! ([`kinds`](super::kinds)) shows the shapes it knows with these pieces; a
//! result whose shape none knows (a document's own fields, a transcript from
//! another version) falls back to [`generic`]. The JSON transcript keeps the
//! data; this is only how it is shown.

use std::fmt::Write;

use serde_json::Value;

use crate::Transcript;

/// Any result: a text as a paragraph, a list of texts as a list, anything else as JSON.
pub(crate) fn generic(key: &str, value: &Value, out: &mut String) {
    let _ = writeln!(out, "### {}\n", title(key));
    match value {
        Value::String(s) => {
            let _ = writeln!(out, "{}\n", s.trim());
        }
        Value::Array(items) if items.iter().all(Value::is_string) => {
            list(out, items.iter().filter_map(Value::as_str));
        }
        other => {
            let pretty = serde_json::to_string_pretty(other).expect("serializes");
            let _ = writeln!(out, "```json\n{pretty}\n```\n");
        }
    }
}

/// `revised_position` → "Revised position".
pub(crate) fn title(key: &str) -> String {
    let words = key.replace(['_', '-'], " ");
    let mut chars = words.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

/// A seat's display name in `t`, or its id.
pub(crate) fn name(t: &Transcript, id: &str) -> String {
    t.participants.iter().chain(t.judge.iter()).find(|p| p.id == id).map_or_else(|| id.to_string(), |p| p.name.clone())
}

/// Text for one table cell: one line, its pipes escaped.
pub(crate) fn cell(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

/// A Markdown table; every cell goes through [`cell`].
pub(crate) fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", header.iter().map(|h| cell(h)).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
    }
    out.push('\n');
}

/// A bulleted list, one line per item.
pub(crate) fn list<'a>(out: &mut String, items: impl IntoIterator<Item = &'a str>) {
    for item in items {
        let _ = writeln!(out, "- {}", cell(item));
    }
    out.push('\n');
}

/// Text as a Markdown block quote.
pub(crate) fn quote(text: &str) -> String {
    text.trim().lines().map(|l| format!("> {l}")).collect::<Vec<_>>().join("\n")
}

/// A field of `v` as text: strings as they are, numbers and the rest as JSON.
pub(crate) fn text(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_one_line_and_cannot_open_a_column() {
        assert_eq!(cell("a | b\n\nc"), "a \\| b c");
    }

    #[test]
    fn unknown_results_fall_back_to_readable_forms() {
        let mut out = String::new();
        generic("revised_position", &Value::from(" Go remote. "), &mut out);
        assert_eq!(out, "### Revised position\n\nGo remote.\n\n");
        let mut out = String::new();
        generic("zones", &serde_json::json!(["a", "b"]), &mut out);
        assert_eq!(out, "### Zones\n\n- a\n- b\n\n");
    }
}
