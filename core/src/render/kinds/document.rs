//! Documents: prose shown as it is (left to the generic form), and a
//! challenge's closing — the outcome, the final position, what the defender
//! learned from each challenger, the evolution v1 → vN; without consensus
//! who still objects and each party's assumptions. The audit trail's tables
//! follow it, in reading order.

use std::fmt::Write;

use serde_json::Value;

use super::shape::{ResultShape, shaped};
use crate::Transcript;
use crate::render::results::{cell, name, quote, table, text};

pub(super) fn render(t: &Transcript, shape: ResultShape, value: &Value, out: &mut String) -> bool {
    if shape != ResultShape::Closing {
        return false;
    }
    closing(t, value, out);
    // The tables it rests on, under it (they render nothing alone beside a closing).
    for part in [ResultShape::Verdicts, ResultShape::Responses, ResultShape::Rebuttals, ResultShape::Positions] {
        for rows in shaped(t, part) {
            super::table::audit(t, part, rows, out);
        }
    }
    true
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
            .map(|a| format!("{} (round {}): {}", super::table::decision(a), text(a, "round"), text(a, "reason")))
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
