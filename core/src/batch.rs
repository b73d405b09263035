//! A batch's results file, as `agon batch` and agon.ray keep it: one JSON
//! line per finished debate, appended as each ends, and the mending a rerun
//! does before it appends again.
//!
//! No I/O here either: a host reads the file, asks [`repair`] what it holds,
//! and does the file operations the answer names; it writes the lines
//! [`result_line`] and [`error_line`] give, as they are. Every host then
//! writes the same bytes for the same debate, and reads a file the same way.

use serde_json::Value;

/// The results line of a finished debate: `id`, `question`, the outcome's
/// kind and reason, the judge's synthesis (`null` without one), the total
/// cost in micro-dollars (`null` unless some seat was priced) and the whole
/// transcript. Compact JSON with its keys sorted, raw UTF-8 but for DEL and
/// the C1 controls (U+007F–U+009F), escaped as `\u00XX`: a JSON encoder
/// escapes only the C0 ones, and a terminal showing the file may obey a raw
/// C1. `None` when `transcript_json` is not a transcript with an outcome (a
/// debate still running).
pub fn result_line(id: &str, question: &str, transcript_json: &str) -> Option<String> {
    let transcript = crate::order::canonical(serde_json::from_str::<Value>(transcript_json).ok()?);
    let outcome = transcript.get("outcome").filter(|o| o.is_object())?;
    let (kind, reason) = (outcome.get("kind")?.clone(), outcome.get("reason")?.clone());
    let cost = transcript["usage"]["total"]["cost_micro_usd"].clone();
    let synthesis = transcript["synthesis"]["text"].clone();
    // In sorted order, which serde_json keeps whether or not `preserve_order` is on.
    let line = crate::json_read::object([
        ("cost_micro_usd".to_string(), cost),
        ("id".to_string(), Value::from(id)),
        ("outcome".to_string(), kind),
        ("question".to_string(), Value::from(question)),
        ("reason".to_string(), reason),
        ("synthesis".to_string(), synthesis),
        ("transcript".to_string(), transcript),
    ]);
    Some(inert_controls(Value::Object(line).to_string()))
}

/// The results line of a debate that could not run (a bad spec, an engine
/// that refused it): `id`, `question` and `error`, in [`result_line`]'s form.
/// A rerun runs it again unless asked to keep errors (see [`repair`]).
pub fn error_line(id: &str, question: &str, error: &str) -> String {
    let line = crate::json_read::object([
        ("error".to_string(), Value::from(error)),
        ("id".to_string(), Value::from(id)),
        ("question".to_string(), Value::from(question)),
    ]);
    inert_controls(Value::Object(line).to_string())
}

/// JSON text with U+007F–U+009F escaped: they occur only inside strings,
/// where the escape means the same character, so the data stays exact.
fn inert_controls(json: String) -> String {
    let hazard = |c: char| ('\u{7f}'..='\u{9f}').contains(&c);
    if !json.contains(hazard) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hazard(c) {
            out.push_str("\\u00");
            for nibble in [(c as u32) >> 4, (c as u32) & 0xf] {
                out.push(char::from_digit(nibble, 16).expect("a nibble"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What a results file holds, and how to mend it before a rerun appends to
/// it. The host does, in this order:
///
/// 1. [`torn_at`](Repair::torn_at): copy the bytes from there, and a
///    newline, to `RESULTS.torn` (appended); the debate they were the line
///    of runs again.
/// 2. [`retry`](Repair::retry) (when set): append its `error_lines` to
///    `RESULTS.errors`, then replace the file by its `kept_lines` (written
///    beside it, then renamed over it). Otherwise cut the file at `torn_at`,
///    or append a newline when [`newline_missing`](Repair::newline_missing).
///
/// The debates in [`finished`](Repair::finished) are done; every other runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Repair {
    /// The ids of the lines kept, in file order: a rerun skips them.
    pub finished: Vec<String>,
    /// Where a torn last line starts: the file's last bytes have no newline
    /// and are not JSON (a crash mid-write).
    pub torn_at: Option<usize>,
    /// The last line is whole JSON without its newline.
    pub newline_missing: bool,
    /// Error lines to run again; `None` when there are none, or they are kept.
    pub retry: Option<Retry>,
}

/// A results file's error lines, moved aside so that their debates run again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    /// Each error line, with its newline: for `RESULTS.errors`.
    pub error_lines: Vec<u8>,
    /// Every other whole line, with its newline: the file's new contents.
    pub kept_lines: Vec<u8>,
}

/// Read a results file's `contents`. A line is finished when it is JSON
/// with a string `id`; an *error line* (an `error` and no `outcome`) is not,
/// unless `keep_errors`: it is moved to [`Retry`] and its debate runs again.
/// A line that cannot be read is kept as it is, and names nothing finished.
pub fn repair(contents: &[u8], keep_errors: bool) -> Repair {
    let mut repair = Repair::default();
    // Each whole line's span (newline excluded), and whether it moves aside.
    let mut lines: Vec<(usize, usize, bool)> = Vec::new();
    let mut start = 0;
    while start < contents.len() {
        let newline = contents[start..].iter().position(|b| *b == b'\n').map(|i| start + i);
        let end = newline.unwrap_or(contents.len());
        let value = std::str::from_utf8(&contents[start..end]).ok().and_then(|t| serde_json::from_str::<Value>(t).ok());
        if newline.is_none() {
            if value.is_none() {
                repair.torn_at = Some(start);
                break;
            }
            repair.newline_missing = true;
        }
        let is_error = value.as_ref().is_some_and(|v| v.get("error").is_some() && v.get("outcome").is_none());
        let moved = is_error && !keep_errors;
        if !moved && let Some(id) = value.as_ref().and_then(|v| v.get("id")).and_then(Value::as_str) {
            repair.finished.push(id.to_string());
        }
        lines.push((start, end, moved));
        start = end + 1;
    }
    if lines.iter().any(|(_, _, moved)| *moved) {
        let mut retry = Retry { error_lines: Vec::new(), kept_lines: Vec::new() };
        for &(start, end, moved) in &lines {
            let to = if moved { &mut retry.error_lines } else { &mut retry.kept_lines };
            to.extend_from_slice(&contents[start..end]);
            to.push(b'\n');
        }
        repair.retry = Some(retry);
    }
    repair
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transcript(outcome: &str) -> String {
        format!(
            "{{\"version\": 1, \"question\": \"Q\u{85}?\", \"synthesis\": {{\"text\": \"S\"}}, \"outcome\": {outcome}, \
             \"usage\": {{\"seats\": [], \"total\": {{\"calls\": 2, \"cost_micro_usd\": 7}}}}}}"
        )
    }

    #[test]
    fn a_result_line_is_compact_sorted_and_escapes_c1_controls() {
        let line =
            result_line("q\u{7f}1", "Q\u{85}?", &transcript("{\"kind\": \"degraded\", \"reason\": \"b failed\"}"));
        assert_eq!(
            line.unwrap(),
            "{\"cost_micro_usd\":7,\"id\":\"q\\u007f1\",\"outcome\":\"degraded\",\"question\":\"Q\\u0085?\",\
             \"reason\":\"b failed\",\"synthesis\":\"S\",\"transcript\":{\"outcome\":{\"kind\":\"degraded\",\
             \"reason\":\"b failed\"},\"question\":\"Q\\u0085?\",\"synthesis\":{\"text\":\"S\"},\"usage\":\
             {\"seats\":[],\"total\":{\"calls\":2,\"cost_micro_usd\":7}},\"version\":1}}"
        );
        assert_eq!(result_line("q", "Q", &transcript("null")), None, "a debate still running has no line");
        assert_eq!(result_line("q", "Q", "not json"), None);
    }

    #[test]
    fn an_error_line_is_in_the_same_form() {
        assert_eq!(
            error_line("q\"1", "Q?", "bad \u{9f}"),
            "{\"error\":\"bad \\u009f\",\"id\":\"q\\\"1\",\"question\":\"Q?\"}"
        );
    }

    #[test]
    fn a_torn_last_line_is_named_and_a_whole_one_only_lacks_its_newline() {
        let torn = repair(b"{\"id\": \"a\"}\n{\"id\": \"b\"}\n{\"id\": \"c\", \"trans", false);
        assert_eq!(torn.finished, ["a", "b"]);
        assert_eq!((torn.torn_at, torn.newline_missing, torn.retry), (Some(24), false, None));
        let whole = repair(b"{\"id\": \"a\"}\n{\"id\": \"b\"}", false);
        assert_eq!((whole.finished, whole.torn_at, whole.newline_missing), (vec!["a".into(), "b".into()], None, true));
        assert_eq!(repair(b"", false), Repair::default());
        assert_eq!(
            repair(b"\xff\n{\"id\": 1}\nplain\n", false).finished,
            Vec::<String>::new(),
            "unreadable lines are kept"
        );
    }

    #[test]
    fn error_lines_move_aside_unless_kept() {
        let text = b"{\"id\": \"a\", \"outcome\": \"completed\"}\n{\"id\": \"b\", \"error\": \"boom\"}\n{\"id\": \"c\", \"error\": \"late\"}";
        let kept = repair(text, true);
        assert_eq!((kept.finished.len(), kept.retry), (3, None));
        let moved = repair(text, false);
        assert_eq!(moved.finished, ["a"]);
        let retry = moved.retry.unwrap();
        assert_eq!(retry.error_lines, b"{\"id\": \"b\", \"error\": \"boom\"}\n{\"id\": \"c\", \"error\": \"late\"}\n");
        assert_eq!(retry.kept_lines, b"{\"id\": \"a\", \"outcome\": \"completed\"}\n");
    }
}
