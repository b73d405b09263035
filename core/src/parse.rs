//! Structured replies: the tolerant JSON reading every protocol's parser
//! shares. Each protocol's own reply parser sits beside it (`reply.rs`).
//!
//! Models wrap JSON in code fences, lead with prose, trail with commentary.
//! Every parser here tolerates that, never panics, and never invents a value:
//! what cannot be read is an `Err` with a reason the transcript records.

use serde_json::Value;

/// The first JSON object or array in a reply: inside a code fence, or the
/// first balanced `{…}` / `[…]` span that parses.
///
/// Linear in the reply: one pass pairs every bracket with its match (strings
/// respected), and the spans handed to the parser add up to at most a few
/// times the reply's length — a reply full of nested brackets cannot make it
/// quadratic.
pub fn extract_json(text: &str) -> Option<Value> {
    // Fenced blocks first: ```json … ``` or ``` … ```.
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let Some(end) = after[body_start..].find("```") else { break };
        let body = &after[body_start..body_start + end];
        if let Ok(v) = serde_json::from_str::<Value>(body.trim())
            && (v.is_object() || v.is_array())
        {
            return Some(v);
        }
        rest = &after[body_start + end + 3..];
    }
    // Then balanced spans, in order of their opening bracket, within a parsing budget.
    let mut budget = PARSE_BUDGET * text.len() + 4096;
    for (start, end) in balanced_spans(text) {
        let span = &text[start..end];
        match serde_json::from_str::<Value>(span) {
            Ok(v) => return Some(v),
            // A parser stops at its first error: charge what it read.
            Err(e) => budget = budget.checked_sub(read_until(span, e.line(), e.column()))?,
        }
    }
    None
}

/// Bytes of `text` up to line `line`, column `column` (1-based, as serde_json reports).
fn read_until(text: &str, line: usize, column: usize) -> usize {
    let mut at = 0;
    for (k, l) in text.split_inclusive('\n').enumerate() {
        if k + 1 == line {
            return (at + column).min(text.len()).max(1);
        }
        at += l.len();
    }
    text.len().max(1)
}

/// The spans [`extract_json`] parses add up to at most this many times the reply.
const PARSE_BUDGET: usize = 8;

/// Every balanced `{…}` / `[…]` span as (start, end) byte offsets, ordered by
/// start; brackets inside JSON strings do not count. One pass, with a stack.
fn balanced_spans(text: &str) -> Vec<(usize, usize)> {
    let mut open: Vec<(usize, u8)> = Vec::new();
    let mut spans = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            // A quote only opens a string inside a bracket: prose quotes stay prose.
            b'"' if !open.is_empty() => in_string = true,
            b'{' | b'[' => open.push((i, b)),
            b'}' | b']' => {
                let want = if b == b'}' { b'{' } else { b'[' };
                match open.pop() {
                    Some((start, kind)) if kind == want => spans.push((start, i + 1)),
                    // A mismatched closer ends every span still open: none of them is JSON.
                    _ => open.clear(),
                }
            }
            _ => {}
        }
    }
    crate::order::sort(&mut spans);
    spans
}

pub(crate) fn field_str(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.trim().to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(crate) fn string_list(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items
            .iter()
            .filter_map(|x| match x {
                Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .collect(),
        Value::String(s) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

pub(crate) fn one_of<T: Copy>(raw: &str, options: &[(&str, T)], what: &str) -> Result<T, String> {
    let lower = raw.trim().to_ascii_lowercase();
    options
        .iter()
        .find(|(name, _)| lower == *name || lower.starts_with(&format!("{name} ")))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            format!("{what} '{raw}' is not one of {}", options.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_after_many_bracketed_asides_and_inside_deep_nesting() {
        let asides = "[see above] ".repeat(500);
        assert_eq!(extract_json(&format!("{asides} {{\"a\": 1}}")), Some(serde_json::json!({"a": 1})));
        // The outermost balanced span is valid JSON: nested arrays around the object.
        let deep = format!("{}{{\"b\": [1, 2]}}{}", "[".repeat(100), "]".repeat(100));
        assert!(extract_json(&deep).unwrap().is_array());
        // Past the parser's depth limit every span fails; the budget ends the search.
        let deeper = format!("{}{{\"b\": [1, 2]}}{}", "[".repeat(50_000), "]".repeat(50_000));
        let _ = extract_json(&deeper);
        // Unbalanced brackets everywhere, and a valid object at the end.
        let noisy = format!("{}{{\"c\": true}}", "{[".repeat(20_000));
        assert_eq!(extract_json(&noisy), Some(serde_json::json!({"c": true})));
        assert_eq!(extract_json("no json [here] {or: here}"), None);
    }

    #[test]
    fn finds_json_in_fences_and_prose() {
        assert_eq!(extract_json("Sure!\n```json\n[1, 2]\n```\nDone."), Some(serde_json::json!([1, 2])));
        assert_eq!(extract_json("Here: {\"a\": \"}\"} and more"), Some(serde_json::json!({"a": "}"})));
        assert_eq!(extract_json("no json [at all"), None);
        assert_eq!(extract_json("[not json] then {\"b\": 1}"), Some(serde_json::json!({"b": 1})));
    }
}
