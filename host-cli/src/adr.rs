//! A session as an Architecture Decision Record (`agon export --format adr`):
//! what was decided, on what grounds, what else was weighed, and the dissent
//! that remained — the document a team keeps after the council has spoken.
//!
//! Built from the transcript JSON (its documented shape), so it renders any
//! protocol's transcript, with the protocol's named results as the engine
//! renders them in Markdown (tables, never JSON). Replies a protocol reads as
//! data (a challenger's verdict, a scorecard) are never quoted raw: the
//! results stand for them. The whole document passes the engine's
//! neutralizer, as `transcript.md` does: model text is untrusted.

use std::fmt::Write;

use agon_core::{ResultShape, results_shaped as shaped};
use serde_json::Value;

/// The ADR of a transcript; `results` is the engine's Markdown of its named
/// results (`results-markdown`), empty when it has none.
pub fn render(t: &Value, results: &str) -> String {
    let mut out = String::new();
    let question = str_of(t, "question").trim();
    let _ = writeln!(out, "# {}\n", one_line(question));
    let decided = decided(t, results);
    status(&mut out, t, decided);
    context(&mut out, t, question);
    decision(&mut out, t, decided);
    options(&mut out, t, results);
    consequences(&mut out, t);
    dissent(&mut out, t);
    agon_core::inert_markdown(&out)
}

/// Whether the council came to a decision: it ended normally with a
/// synthesis, or with a protocol's result (a ranking needs no judge).
fn decided(t: &Value, results: &str) -> bool {
    let synthesis =
        t["synthesis"]["text"].as_str().is_some_and(|s| !agon_core::without_data_blocks(s).trim().is_empty());
    t["outcome"]["complete"] == true && (synthesis || !results.trim().is_empty())
}

/// The data of every result of `kind`, in name order.
fn results_of<'t>(t: &'t Value, kind: &'t str) -> impl Iterator<Item = &'t Value> {
    let results = t["results"].as_object().into_iter().flatten();
    results.filter(move |(_, r)| r["kind"] == kind).map(|(_, r)| &r["data"])
}

/// Status, date-free (a transcript has no clock), and who decided.
fn status(out: &mut String, t: &Value, decided: bool) {
    let kind = str_of(&t["outcome"], "kind");
    // Priorities the lenses split on and nobody confirmed are not decided yet.
    let unconfirmed: usize = shaped(t, ResultShape::ToConfirm).filter_map(Value::as_array).map(Vec::len).sum();
    // Findings whose judge rejected the proposal decided, and decided no.
    let rejected = results_of(t, "findings").any(|data| data["verdict"] == "reject");
    let status = match (decided, kind) {
        (true, _) if unconfirmed > 0 => format!("Proposed ({unconfirmed} priorities await confirmation)"),
        (true, _) if rejected => "Rejected (the judge's verdict on the proposal)".to_string(),
        (true, _) => "Accepted".to_string(),
        (false, "") => "Proposed (the debate has not ended)".to_string(),
        (false, _) => "Proposed (the council did not decide)".to_string(),
    };
    let _ = writeln!(out, "- **Status:** {status}");
    let seats: Vec<String> = t["participants"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| format!("{} (`{}`)", name_of(p), str_of(p, "model")))
        .collect();
    let _ =
        writeln!(out, "- **Decided by:** an agon council, protocol `{}`: {}", str_of(t, "protocol"), seats.join(", "));
    if t["judge"].is_object() {
        let _ = writeln!(out, "- **Judge:** {} (`{}`)", name_of(&t["judge"]), str_of(&t["judge"], "model"));
    }
    out.push('\n');
}

/// The question, the context and the files the council read.
fn context(out: &mut String, t: &Value, question: &str) {
    out.push_str("## Context\n\n");
    let _ = writeln!(out, "The question put to the council:\n\n{}\n", quote(question));
    if let Some(context) = t["context"].as_str().filter(|c| !c.trim().is_empty()) {
        let _ = writeln!(out, "The material it was given:\n\n{}\n", quote(context));
    }
    if let Some(files) = t["files"].as_array().filter(|f| !f.is_empty()) {
        out.push_str("The files it read (size and SHA-256 of the text quoted to it):\n\n");
        for f in files {
            let _ = writeln!(out, "- {} — {} bytes, `{}`", code(str_of(f, "path")), f["bytes"], str_of(f, "sha256"));
        }
        out.push('\n');
    }
}

/// The judge's synthesis, without the data blocks it may carry (the results
/// show them as tables); or, without one, why there is none.
fn decision(out: &mut String, t: &Value, decided: bool) {
    out.push_str("## Decision\n\n");
    let synthesis = t["synthesis"]["text"].as_str().map(agon_core::without_data_blocks).unwrap_or_default();
    if synthesis.trim().is_empty() && decided {
        let _ = writeln!(
            out,
            "The protocol's result, under Options considered: {}.\n",
            str_of(&t["outcome"], "reason").trim_end_matches('.')
        );
    } else if synthesis.trim().is_empty() {
        let reason = str_of(&t["outcome"], "reason");
        let _ = writeln!(
            out,
            "No synthesis: {}. The options below are the council's last word; the decision is yours.\n",
            if reason.is_empty() { "the debate has not ended" } else { reason.trim_end_matches('.') }
        );
    } else {
        let _ = writeln!(out, "{}\n", demoted(synthesis.trim()));
    }
}

/// The protocol's results (positions, scorecards, rankings, verdicts); a
/// protocol without any has each seat's last prose turn instead.
fn options(out: &mut String, t: &Value, results: &str) {
    out.push_str("## Options considered\n\n");
    if !results.trim().is_empty() {
        let _ = writeln!(out, "{}\n", json_blocks_as_tables(results).trim());
        return;
    }
    let turns = t["turns"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut any = false;
    for p in t["participants"].as_array().into_iter().flatten() {
        let last = turns
            .iter()
            .rev()
            .filter(|turn| turn["speaker"] == p["id"])
            .filter_map(|turn| turn["text"].as_str())
            .map(agon_core::without_data_blocks)
            .find(|text| !text.trim().is_empty());
        if let Some(text) = last {
            any = true;
            let _ = writeln!(out, "### {}'s final position\n\n{}\n", name_of(p), demoted(text.trim()));
        }
    }
    if !any {
        out.push_str("No position was recorded.\n\n");
    }
}

/// What follows from the outcome: how it ended, the consensus rule it was
/// read by, the cost, the warnings.
fn consequences(out: &mut String, t: &Value) {
    out.push_str("## Consequences\n\n");
    let outcome = &t["outcome"];
    if outcome.is_object() {
        let _ = writeln!(
            out,
            "- The debate ended **{}** after {} round(s): {}.",
            str_of(outcome, "headline"),
            outcome["rounds_run"],
            str_of(outcome, "reason").trim_end_matches('.')
        );
    } else {
        out.push_str("- The debate has not ended: this record is provisional.\n");
    }
    if let Some(last) = t["consensus"].as_array().and_then(|c| c.last()) {
        let reached = if last["reached"] == true { "reached" } else { "not reached" };
        let _ = writeln!(
            out,
            "- Consensus was {reached} (round {}), read by the rule: {}.",
            last["round"],
            str_of(last, "rule").trim_end_matches('.')
        );
    }
    if let Some(micro) = t["usage"]["total"]["cost_micro_usd"].as_u64() {
        let _ = writeln!(out, "- It cost {}.", crate::runner::cost::usd(micro));
    }
    for w in t["warnings"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "- Warning: {}.", one_line(str_of(w, "message")).trim_end_matches('.'));
    }
    out.push('\n');
}

/// The dissent that remained, from the last consensus check: each seat that
/// did not agree, in its own words where the reader kept them, and the
/// judge's holdouts.
fn dissent(out: &mut String, t: &Value) {
    out.push_str("## Dissent\n\n");
    let names = |id: &str| {
        t["participants"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["id"] == id)
            .map_or_else(|| id.to_string(), |p| name_of(p).to_string())
    };
    let mut any = false;
    if let Some(last) = t["consensus"].as_array().and_then(|c| c.last()) {
        for seat in last["seats"].as_array().into_iter().flatten() {
            let verdict = str_of(seat, "verdict");
            if verdict == "agrees" {
                continue;
            }
            any = true;
            let words = seat["evidence"]["quote"].as_str().or(seat["position"].as_str()).map(one_line);
            let _ = write!(out, "- {}: {}", names(str_of(seat, "seat")), verdict.replace('-', " "));
            match words {
                Some(w) if !w.is_empty() => {
                    let _ = writeln!(out, " — “{w}”");
                }
                _ => out.push('\n'),
            }
        }
        for holdout in last["judge"]["holdouts"].as_array().into_iter().flatten() {
            any = true;
            let _ =
                writeln!(out, "- {} (the judge): {}", names(str_of(holdout, "seat")), one_line(str_of(holdout, "why")));
        }
    }
    // Rebuttals (challenge's): each challenger whose last one still objects.
    let rebuttals: Vec<&Value> = shaped(t, ResultShape::Rebuttals).filter_map(Value::as_array).flatten().collect();
    let mut challengers: Vec<&str> = rebuttals.iter().filter_map(|r| r["challenger"].as_str()).collect();
    challengers.dedup();
    for id in challengers {
        let last = rebuttals.iter().rev().find(|r| r["challenger"] == id).expect("a challenger has a rebuttal");
        let choice = str_of(last, "choice");
        if choice != "ACCEPT" {
            any = true;
            let _ = writeln!(out, "- {}: still objecting ({choice} in round {})", names(id), last["round"]);
        }
    }
    if !any {
        out.push_str(
            "None recorded by a consensus check. Where the protocol keeps objections of its own (verdicts, \
             rebuttals, concerns), they are under Options considered.\n",
        );
    }
}

/// `markdown` with every fenced block whose body is JSON (a document's
/// result the engine has no table for) shown as a table or a list instead.
fn json_blocks_as_tables(markdown: &str) -> String {
    let mut out = String::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(agon_core::Fenced { marker, body, closed }) = agon_core::fenced(line, &mut lines) else {
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
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
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
                let cells: Vec<String> = columns
                    .iter()
                    .map(|c| row.iter().find(|(k, _)| k == c).map_or(String::new(), |(_, v)| cell(v)))
                    .collect();
                let _ = writeln!(out, "| {} |", cells.join(" | "));
            }
        }
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

/// Model text under the ADR's own headings: made inert as a block of its
/// own (a fence it leaves open is closed, so the record's later sections are
/// never swallowed), its headings two levels down, so a reply's `## Verdict`
/// never passes for a section of the record.
fn demoted(text: &str) -> String {
    let text = agon_core::inert_markdown(text);
    let mut out = String::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match fence {
            Some(marker) if trimmed.starts_with(marker) => fence = None,
            Some(_) => {}
            None if trimmed.starts_with("```") || trimmed.starts_with("~~~") => fence = Some(&trimmed[..3]),
            None if trimmed.starts_with('#') => {
                let level = trimmed.chars().take_while(|c| *c == '#').count();
                if level <= 6 && trimmed[level..].starts_with([' ', '\t']) || trimmed.len() == level {
                    let _ = writeln!(out, "{} {}", "#".repeat((level + 2).min(6)), trimmed[level..].trim());
                    continue;
                }
            }
            None => {}
        }
        let _ = writeln!(out, "{line}");
    }
    out.trim_end().to_string()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

fn name_of(p: &Value) -> &str {
    p["name"].as_str().filter(|n| !n.is_empty()).unwrap_or_else(|| str_of(p, "id"))
}

/// Every line behind `> `.
fn quote(text: &str) -> String {
    text.trim()
        .lines()
        .map(|l| if l.trim().is_empty() { ">".to_string() } else { format!("> {l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whitespace runs, line breaks included, as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Inline code that no backtick in `text` can close early.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    format!("{ticks} {text} {ticks}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_the_judge_rejected_is_not_accepted() {
        let t = |verdict: &str| {
            serde_json::json!({
                "question": "Review this RFC: move billing to a new region.",
                "protocol": "adversarial",
                "participants": [{"id": "adv", "name": "Adv", "model": "openai/a"}, {"id": "chal", "name": "Chal", "model": "openai/c"}],
                "turns": [{"speaker": "adv", "round": 1, "text": "Sound."}],
                "synthesis": {"speaker": "judge", "text": "It needs rework.\n```json\n{\"concerns\": []}\n```"},
                "results": {"review": {"kind": "findings", "data": {"concerns": [], "verdict": verdict}}},
                "outcome": {"kind": "completed", "complete": true, "headline": "Completed", "reason": "done", "rounds_run": 1},
            })
        };
        let rejected = render(&t("reject"), "");
        assert!(rejected.contains("- **Status:** Rejected"), "{rejected}");
        assert!(!rejected.contains("Accepted") && !rejected.contains("```json"), "{rejected}");
        assert!(render(&t("approve"), "").contains("- **Status:** Accepted"));
    }

    #[test]
    fn dissent_and_items_to_confirm_are_found_by_shape_under_any_name() {
        let t = serde_json::json!({
            "question": "Rewrite the billing service?",
            "protocol": "challenge",
            "participants": [{"id": "d", "name": "Defender", "model": "openai/d"}, {"id": "x", "name": "X", "model": "openai/x"}],
            "synthesis": {"speaker": "judge", "text": "Rewrite it, timeboxed."},
            "results": {
                "objections": {"kind": "table", "data": [
                    {"round": 1, "challenger": "x", "choice": "ESCALATE"},
                    {"round": 2, "challenger": "x", "choice": "MAINTAIN"}]},
                "open_items": {"kind": "table", "data": [
                    {"item": 2, "text": "Hire", "urgency": {"priority": "P3"}, "impact": {"priority": "P1"}}]},
            },
            "outcome": {"kind": "completed", "complete": true, "headline": "Completed", "reason": "done", "rounds_run": 2},
        });
        let adr = render(&t, "results");
        assert!(adr.contains("- **Status:** Proposed (1 priorities await confirmation)"), "{adr}");
        assert!(adr.contains("- X: still objecting (MAINTAIN in round 2)"), "{adr}");
    }

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

    #[test]
    fn a_fence_a_reply_leaves_open_hides_no_later_section() {
        let t = serde_json::json!({
            "question": "Which database?",
            "protocol": "round-robin",
            "participants": [{"id": "a", "name": "A", "model": "openai/a"}],
            "turns": [{"speaker": "a", "round": 1, "text": "Use this:\n```sql\nselect 1;"}],
            "synthesis": {"speaker": "a", "text": "Postgres.\n~~~\nunclosed <b>"},
            "outcome": {"kind": "completed", "complete": true, "headline": "Completed", "reason": "done", "rounds_run": 1},
        });
        let adr = render(&t, "");
        let headings: Vec<String> = pulldown_cmark::Parser::new(&adr)
            .scan(false, |in_heading, event| {
                use pulldown_cmark::{Event, Tag, TagEnd};
                let text = match &event {
                    Event::Start(Tag::Heading { .. }) => {
                        *in_heading = true;
                        None
                    }
                    Event::End(TagEnd::Heading(_)) => {
                        *in_heading = false;
                        None
                    }
                    Event::Text(t) if *in_heading => Some(t.to_string()),
                    _ => None,
                };
                Some(text)
            })
            .flatten()
            .collect();
        for section in ["Context", "Decision", "Options considered", "Consequences", "Dissent"] {
            assert!(headings.iter().any(|h| h == section), "{section} is missing from {headings:?} in\n{adr}");
        }
    }
}
