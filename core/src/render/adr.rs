//! A session as an Architecture Decision Record: what was decided, on what
//! grounds, what else was weighed, and the dissent that remained — the
//! document a team keeps after the council has spoken. In the core so every
//! host (the CLI, the page, the SDKs) renders the same bytes.
//!
//! A protocol's named results appear as the engine renders them in Markdown
//! (tables, never JSON). Replies a protocol reads as data (a challenger's
//! verdict, a scorecard) are never quoted raw: the results stand for them.
//! The whole document is made inert, as `transcript.md` is: model text is
//! untrusted.

use std::fmt::Write;

use serde_json::Value;

use super::data_blocks::without_data_blocks;
use super::json_tables::{json_blocks_as_tables, one_line};
use super::kinds::shape::{ResultShape, shaped};
use crate::stance::Verdict;
use crate::{ConsensusCheck, ResultKind, SeatInfo, Transcript};

/// The Architecture Decision Record of `t`, as Markdown made inert.
pub fn adr_markdown(t: &Transcript) -> String {
    let results = super::results_markdown(t);
    let mut out = String::new();
    let question = t.question.trim();
    let _ = writeln!(out, "# {}\n", one_line(question));
    let decided = decided(t, &results);
    status(&mut out, t, decided);
    context(&mut out, t, question);
    decision(&mut out, t, decided);
    options(&mut out, t, &results);
    consequences(&mut out, t);
    dissent(&mut out, t);
    super::inert::text(&out)
}

/// The judge's synthesis without its data blocks; empty without one.
fn synthesis(t: &Transcript) -> String {
    t.synthesis.as_ref().map(|s| without_data_blocks(&s.text)).unwrap_or_default()
}

/// Whether the council came to a decision: it ended normally with a
/// synthesis, or with a protocol's result (a ranking needs no judge).
fn decided(t: &Transcript, results: &str) -> bool {
    let complete = t.outcome.as_ref().is_some_and(|o| o.is_complete());
    complete && (!synthesis(t).trim().is_empty() || !results.trim().is_empty())
}

/// Status, date-free (a transcript has no clock), and who decided.
fn status(out: &mut String, t: &Transcript, decided: bool) {
    // Priorities the lenses split on and nobody confirmed are not decided yet.
    let unconfirmed: usize = shaped(t, ResultShape::ToConfirm).filter_map(Value::as_array).map(Vec::len).sum();
    // Findings whose judge rejected the proposal decided, and decided no.
    let rejected = t.results.values().any(|r| r.kind == ResultKind::Findings && r.data["verdict"] == "reject");
    let status = match (decided, &t.outcome) {
        (true, _) if unconfirmed > 0 => format!("Proposed ({unconfirmed} priorities await confirmation)"),
        (true, _) if rejected => "Rejected (the judge's verdict on the proposal)".to_string(),
        (true, _) => "Accepted".to_string(),
        (false, None) => "Proposed (the debate has not ended)".to_string(),
        (false, Some(_)) => "Proposed (the council did not decide)".to_string(),
    };
    let _ = writeln!(out, "- **Status:** {status}");
    let seats: Vec<String> = t.participants.iter().map(|p| format!("{} (`{}`)", name_of(p), p.model)).collect();
    let _ = writeln!(out, "- **Decided by:** an agon council, protocol `{}`: {}", t.protocol, seats.join(", "));
    if let Some(judge) = &t.judge {
        let _ = writeln!(out, "- **Judge:** {} (`{}`)", name_of(judge), judge.model);
    }
    out.push('\n');
}

/// The question, the context and the files the council read.
fn context(out: &mut String, t: &Transcript, question: &str) {
    out.push_str("## Context\n\n");
    let _ = writeln!(out, "The question put to the council:\n\n{}\n", quote(question));
    if let Some(context) = t.context.as_deref().filter(|c| !c.trim().is_empty()) {
        let _ = writeln!(out, "The material it was given:\n\n{}\n", quote(context));
    }
    if !t.files.is_empty() {
        out.push_str("The files it read (size and SHA-256 of the text quoted to it):\n\n");
        for f in &t.files {
            let _ = writeln!(out, "- {} — {} bytes, `{}`", code(&f.path), f.bytes, f.sha256);
        }
        out.push('\n');
    }
}

/// The outcome's reason without its full stop; empty while it runs.
fn reason(t: &Transcript) -> &str {
    t.outcome.as_ref().map_or("", |o| o.reason.trim_end_matches('.'))
}

/// The judge's synthesis, without the data blocks it may carry (the results
/// show them as tables); or, without one, why there is none.
fn decision(out: &mut String, t: &Transcript, decided: bool) {
    out.push_str("## Decision\n\n");
    let synthesis = synthesis(t);
    if synthesis.trim().is_empty() && decided {
        let _ = writeln!(out, "The protocol's result, under Options considered: {}.\n", reason(t));
    } else if synthesis.trim().is_empty() {
        let reason =
            if t.outcome.as_ref().is_none_or(|o| o.reason.is_empty()) { "the debate has not ended" } else { reason(t) };
        let _ = writeln!(
            out,
            "No synthesis: {reason}. The options below are the council's last word; the decision is yours.\n"
        );
    } else {
        let _ = writeln!(out, "{}\n", demoted(synthesis.trim()));
    }
}

/// The protocol's results (positions, scorecards, rankings, verdicts); a
/// protocol without any has each seat's last prose turn instead.
fn options(out: &mut String, t: &Transcript, results: &str) {
    out.push_str("## Options considered\n\n");
    if !results.trim().is_empty() {
        let _ = writeln!(out, "{}\n", json_blocks_as_tables(results).trim());
        return;
    }
    let mut any = false;
    for p in &t.participants {
        let last = t
            .turns
            .iter()
            .rev()
            .filter(|turn| turn.speaker == p.id)
            .map(|turn| without_data_blocks(&turn.text))
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
fn consequences(out: &mut String, t: &Transcript) {
    out.push_str("## Consequences\n\n");
    match &t.outcome {
        Some(o) => {
            let _ = writeln!(
                out,
                "- The debate ended **{}** after {} round(s): {}.",
                o.headline(),
                o.rounds_run,
                reason(t)
            );
        }
        None => out.push_str("- The debate has not ended: this record is provisional.\n"),
    }
    if let Some(last) = t.consensus.last() {
        let reached = if last.reached { "reached" } else { "not reached" };
        let _ = writeln!(
            out,
            "- Consensus was {reached} (round {}), read by the rule: {}.",
            last.round,
            last.rule.trim_end_matches('.')
        );
    }
    if let Some(cost) = t.usage.total.cost_micro_usd {
        let _ = writeln!(out, "- It cost {}.", cost.display());
    }
    for w in &t.warnings {
        let _ = writeln!(out, "- Warning: {}.", one_line(&w.message).trim_end_matches('.'));
    }
    out.push('\n');
}

/// The dissent that remained, from the last consensus check: each seat that
/// did not agree, in its own words where the reader kept them, and the
/// judge's holdouts; then each challenger still objecting.
fn dissent(out: &mut String, t: &Transcript) {
    out.push_str("## Dissent\n\n");
    let names = |id: &str| t.participants.iter().find(|p| p.id == id).map_or(id, name_of).to_string();
    let mut any = t.consensus.last().is_some_and(|last| consensus_dissent(out, last, &names));
    // Rebuttals (challenge's): each challenger whose last one still objects.
    let rebuttals: Vec<&Value> = shaped(t, ResultShape::Rebuttals).filter_map(Value::as_array).flatten().collect();
    let mut challengers: Vec<&str> = rebuttals.iter().filter_map(|r| r["challenger"].as_str()).collect();
    challengers.dedup();
    for id in challengers {
        let last = rebuttals.iter().rev().find(|r| r["challenger"] == id).expect("a challenger has a rebuttal");
        let choice = last["choice"].as_str().unwrap_or_default();
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

/// The seats of one consensus check that did not agree, and the judge's
/// holdouts; whether there was any.
fn consensus_dissent(out: &mut String, last: &ConsensusCheck, names: &dyn Fn(&str) -> String) -> bool {
    let mut any = false;
    for seat in last.seats.iter().filter(|s| s.verdict != Verdict::Agrees) {
        any = true;
        let verdict = seat.verdict.as_str();
        let words = seat.evidence.as_ref().map(|e| e.quote.as_str()).or(seat.position.as_deref()).map(one_line);
        let _ = write!(out, "- {}: {verdict}", names(&seat.seat));
        match words {
            Some(w) if !w.is_empty() => {
                let _ = writeln!(out, " — “{w}”");
            }
            _ => out.push('\n'),
        }
    }
    for holdout in last.judge.iter().flat_map(|j| &j.holdouts) {
        any = true;
        let _ = writeln!(out, "- {} (the judge): {}", names(&holdout.seat), one_line(&holdout.why));
    }
    any
}

/// Model text under the ADR's own headings: made inert as a block of its
/// own (a fence it leaves open is closed, so the record's later sections are
/// never swallowed), its headings two levels down, so a reply's `## Verdict`
/// never passes for a section of the record.
fn demoted(text: &str) -> String {
    let text = super::inert::text(text);
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

fn name_of(p: &SeatInfo) -> &str {
    if p.name.is_empty() { &p.id } else { &p.name }
}

/// Every line behind `> `.
fn quote(text: &str) -> String {
    text.trim()
        .lines()
        .map(|l| if l.trim().is_empty() { ">".to_string() } else { format!("> {l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Inline code that no backtick in `text` can close early.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    format!("{ticks} {text} {ticks}")
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// A transcript from the fields a test gives, the rest plain.
    fn transcript(fields: Value) -> Transcript {
        let mut t = json!({
            "version": 2, "seed": 1, "judge": null, "turns": [], "synthesis": null,
            "outcome": {"kind": "completed", "reason": "done", "rounds_run": 1},
        });
        for (k, v) in fields.as_object().unwrap() {
            t[k] = v.clone();
        }
        serde_json::from_value(t).unwrap()
    }

    fn turn(speaker: &str, text: &str) -> Value {
        json!({"round": 1, "phase": "opening", "speaker": speaker, "model": "openai/a", "challenger": false, "text": text})
    }

    #[test]
    fn a_review_the_judge_rejected_is_not_accepted() {
        let t = |verdict: &str| {
            transcript(json!({
                "question": "Review this RFC: move billing to a new region.",
                "protocol": "adversarial",
                "participants": [{"id": "adv", "name": "Adv", "model": "openai/a"}, {"id": "chal", "name": "Chal", "model": "openai/c"}],
                "turns": [turn("adv", "Sound.")],
                "synthesis": {"speaker": "judge", "model": "openai/j", "text": "It needs rework.\n```json\n{\"concerns\": []}\n```"},
                "results": {"review": {"kind": "findings", "data": {"concerns": [], "verdict": verdict}}},
            }))
        };
        let rejected = adr_markdown(&t("reject"));
        assert!(rejected.contains("- **Status:** Rejected"), "{rejected}");
        assert!(!rejected.contains("Accepted") && !rejected.contains("```json"), "{rejected}");
        assert!(adr_markdown(&t("approve")).contains("- **Status:** Accepted"));
    }

    #[test]
    fn dissent_and_items_to_confirm_are_found_by_shape_under_any_name() {
        let t = transcript(json!({
            "question": "Rewrite the billing service?",
            "protocol": "challenge",
            "participants": [{"id": "d", "name": "Defender", "model": "openai/d"}, {"id": "x", "name": "X", "model": "openai/x"}],
            "synthesis": {"speaker": "judge", "model": "openai/j", "text": "Rewrite it, timeboxed."},
            "results": {
                "objections": {"kind": "table", "data": [
                    {"round": 1, "challenger": "x", "choice": "ESCALATE"},
                    {"round": 2, "challenger": "x", "choice": "MAINTAIN"}]},
                "open_items": {"kind": "table", "data": [
                    {"item": 2, "text": "Hire", "urgency": {"priority": "P3"}, "impact": {"priority": "P1"}}]},
            },
        }));
        let adr = adr_markdown(&t);
        assert!(adr.contains("- **Status:** Proposed (1 priorities await confirmation)"), "{adr}");
        assert!(adr.contains("- X: still objecting (MAINTAIN in round 2)"), "{adr}");
    }

    #[test]
    fn an_unfinished_debate_is_proposed_and_provisional() {
        let t = transcript(json!({
            "question": "Which queue?",
            "protocol": "round-robin",
            "participants": [{"id": "a", "name": "", "model": "openai/a"}],
            "turns": [turn("a", "Kafka.")],
            "outcome": null,
        }));
        let adr = adr_markdown(&t);
        assert!(adr.contains("- **Status:** Proposed (the debate has not ended)"), "{adr}");
        assert!(adr.contains("No synthesis: the debate has not ended."), "{adr}");
        assert!(adr.contains("### a's final position\n\nKafka."), "{adr}");
        assert!(adr.contains("- The debate has not ended: this record is provisional."), "{adr}");
    }

    #[test]
    fn a_fence_a_reply_leaves_open_hides_no_later_section() {
        let t = transcript(json!({
            "question": "Which database?",
            "protocol": "round-robin",
            "participants": [{"id": "a", "name": "A", "model": "openai/a"}],
            "turns": [turn("a", "Use this:\n```sql\nselect 1;")],
            "synthesis": {"speaker": "a", "model": "openai/a", "text": "Postgres.\n~~~\nunclosed <b>"},
        }));
        let adr = adr_markdown(&t);
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
