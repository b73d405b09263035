//! Seed 004's closing document as a person reads it: the outcome, the final
//! position, what the defender learned from each challenger, the evolution
//! v1 → vN, the rounds; without consensus who still objects and each party's
//! assumptions. Then the audit trail: verdicts, responses and rebuttals as
//! tables, and every version of the position.
//!
//! The turns asked for as JSON (the critiques' verdicts, the defender's
//! responses) show as the seed displays them: labelled fields, never a JSON dump.

use std::fmt::Write;

use serde_json::Value;

use super::reply;
use crate::render::results::{cell, name, quote, table, text};
use crate::{Phase, Transcript, Turn};

/// With a `closing` record the whole document renders under it (in reading
/// order, not the map's); an older transcript without one gets each part alone.
pub(super) fn result(t: &Transcript, key: &str, value: &Value, out: &mut String) -> bool {
    let whole = t.results.contains_key("closing");
    match key {
        "closing" => {
            closing(t, value, out);
            for part in ["verdicts", "responses", "rebuttals", "positions"] {
                if let Some(v) = t.results.get(part) {
                    audit(t, part, &v.data, out);
                }
            }
            true
        }
        _ if whole => true,
        _ => audit(t, key, value, out),
    }
}

fn closing(t: &Transcript, c: &Value, out: &mut String) {
    let consensus = c["outcome"] == "consensus";
    let rounds = text(c, "rounds");
    if c["outcome"] == "degraded" {
        let _ = writeln!(
            out,
            "### Debate outcome: degraded — not a full result\n\n**Rounds:** {rounds} · **Why:** {}\n",
            cell(&text(c, "degraded"))
        );
    } else if consensus {
        out.push_str("### Debate outcome: consensus\n\n");
    } else {
        let _ = writeln!(
            out,
            "### Debate outcome: tradeoff identified\n\n**Rounds:** {rounds} (the limit) · **Status:** a genuine disagreement — not a failure, but a signal\n"
        );
    }
    let _ = writeln!(out, "**Final position:**\n\n{}\n", quote(&text(c, "final_position")));
    out.push_str("**What the defender learned:**\n\n");
    for l in c["learned"].as_array().into_iter().flatten() {
        let who = name(t, &text(l, "challenger"));
        let taken: Vec<String> = l["accepted"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| format!("{} (round {}): {}", decision(a), text(a, "round"), text(a, "reason")))
            .collect();
        let what = match (l["failed"] == true, taken.is_empty()) {
            (true, true) => "nothing: it failed".to_string(),
            (_, true) => "nothing accepted".to_string(),
            (true, false) => format!("{} (then it failed)", taken.join("; ")),
            (false, false) => taken.join("; "),
        };
        let _ = writeln!(out, "- From {}: {}", cell(&who), cell(&what));
    }
    let versions: Vec<String> = c["evolution"].as_array().into_iter().flatten().map(|v| format!("v{v}")).collect();
    let _ = writeln!(out, "\n**Position evolution:** {} (final)\n", versions.join(" → "));
    if consensus {
        let _ = writeln!(out, "**Rounds to consensus:** {rounds}\n");
        return;
    }
    if c.get("still_objecting").is_none() {
        return; // degraded before the loop ran out: nobody was left objecting at a limit
    }
    let objecting: Vec<String> =
        c["still_objecting"].as_array().into_iter().flatten().filter_map(Value::as_str).map(|s| name(t, s)).collect();
    let _ = writeln!(out, "**Still objecting:** {}\n", cell(&objecting.join(", ")));
    let assumptions: Vec<Vec<String>> = c["assumptions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| vec![name(t, &text(a, "party")), text(a, "text")])
        .collect();
    if !assumptions.is_empty() {
        out.push_str("#### Assumption extraction\n\nThe disagreement persists because of different assumptions:\n\n");
        table(out, &["party", "why it still disagrees, and what it assumes"], &assumptions);
        out.push_str("The judge's tradeoff document below weighs them.\n\n");
    }
}

/// One part of the audit trail; false for a shape it cannot read.
fn audit(t: &Transcript, key: &str, value: &Value, out: &mut String) -> bool {
    let Some(rows) = value.as_array() else { return false };
    let who = |r: &Value| name(t, &text(r, "challenger"));
    match key {
        "verdicts" => {
            out.push_str("#### Challenger verdicts (round 1)\n\n");
            let rows: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let given = if r["verdict"].is_null() { "unreadable".to_string() } else { text(r, "verdict") };
                    vec![
                        who(r),
                        given,
                        text(r, "treated_as"),
                        text(r, "confidence"),
                        text(r, "objection_strength"),
                        text(r, "critique"),
                    ]
                })
                .collect();
            table(out, &["challenger", "verdict", "treated as", "confidence", "strength", "critique"], &rows);
        }
        "responses" => {
            out.push_str("#### The defender's responses\n\n");
            let rows: Vec<Vec<String>> =
                rows.iter().map(|r| vec![text(r, "round"), who(r), decision(r), text(r, "reason")]).collect();
            table(out, &["round", "challenger", "decision", "reason"], &rows);
        }
        "rebuttals" => {
            out.push_str("#### Challenger rebuttals\n\n");
            let rows: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let choice =
                        if r["choice"].is_null() { "unreadable (kept open)".into() } else { text(r, "choice") };
                    vec![text(r, "round"), who(r), choice]
                })
                .collect();
            table(out, &["round", "challenger", "choice"], &rows);
        }
        "positions" => {
            out.push_str("#### Every version of the position\n\n");
            for p in rows {
                let _ = writeln!(out, "**v{}**\n\n{}\n", text(p, "version"), quote(&text(p, "text")));
            }
        }
        _ => return false,
    }
    true
}

/// `partially-accept` as "partially accept".
fn decision(v: &Value) -> String {
    text(v, "decision").replace('-', " ")
}

/// A critique or a defender's response given as JSON, as the seed displays
/// it; `None` for any other turn, or a reply that is not JSON alone (prose
/// around it, or the seed's own Markdown, reads as it is).
pub(super) fn turn(t: &Transcript, turn: &Turn) -> Option<String> {
    if !json_alone(&turn.text) {
        return None;
    }
    let mut out = String::new();
    match turn.phase {
        Phase::Critique => {
            let v = reply::verdict(&turn.text).ok()?;
            let level = serde_json::to_value(v.confidence).ok()?;
            let strength = serde_json::to_value(v.objection_strength).ok()?;
            let _ = writeln!(
                out,
                "**Verdict:** {} · **Confidence:** {} · **Objection strength:** {}\n",
                v.verdict.as_str(),
                level.as_str().unwrap_or_default(),
                strength.as_str().unwrap_or_default()
            );
            for (label, value) in
                [("Critique", &v.critique), ("Evidence", &v.evidence), ("Alternative", &v.alternative)]
            {
                if !value.trim().is_empty() {
                    let _ = writeln!(out, "**{label}:** {}\n", value.trim());
                }
            }
            if !v.assumptions_challenged.is_empty() {
                out.push_str("**Assumptions challenged:**\n\n");
                for a in &v.assumptions_challenged {
                    let _ = writeln!(out, "- {}", cell(a));
                }
            }
        }
        Phase::Response => {
            // The defender answered challengers by their labels: seat N is "Challenger N".
            let labels: Vec<String> = (1..t.participants.len()).map(super::challenger_label).collect();
            let r = reply::defender_response(&turn.text, &labels).ok()?;
            for (i, label) in labels.iter().enumerate() {
                if let Some((decision, reason)) = r.decisions.get(label) {
                    let decision = serde_json::to_value(decision).ok()?;
                    let decision = decision.as_str().unwrap_or_default().replace('-', " ");
                    let who = &t.participants[i + 1].name;
                    let _ = writeln!(out, "**To {who} ({label}):** {decision} — {}\n", reason.trim());
                }
            }
            let position = r.updated_position.as_deref().unwrap_or("unchanged");
            let _ = writeln!(out, "**Updated position:** {}", position.trim());
        }
        _ => return None,
    }
    Some(out)
}

/// The reply is one JSON object, fenced or not, with nothing around it.
fn json_alone(text: &str) -> bool {
    let t = text.trim();
    let t = t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).map_or(t, |inner| inner.trim_end_matches('`'));
    let t = t.trim();
    t.starts_with('{') && t.ends_with('}')
}
