//! Tables: rows of the same fields, or one record. A challenge's audit
//! trail (verdicts, responses, rebuttals, every version of the position),
//! items left to confirm and repeats removed before a vote, who ranked what
//! in a Borda count; the records another result shows beside it (a
//! confirmation in its ranking, a compete record in its review) render
//! nothing alone there.

use std::fmt::Write;

use serde_json::Value;

use super::shape::{ResultShape, holds};
use crate::Transcript;
use crate::render::results::{cell, name, quote, table, text};

pub(super) fn render(t: &Transcript, shape: ResultShape, value: &Value, out: &mut String) -> bool {
    use ResultShape as S;
    match shape {
        // Shown under the closing, in its order, when there is one.
        S::Verdicts | S::Responses | S::Rebuttals | S::Positions if holds(t, S::Closing) => true,
        S::Verdicts | S::Responses | S::Rebuttals | S::Positions => audit(t, shape, value, out),
        S::ToConfirm => {
            to_confirm(value, out);
            true
        }
        S::Duplicates => {
            duplicates(value, out);
            true
        }
        // Shown in the ranking, beside each item it settled.
        S::Confirmed => true,
        // Shown with the review, where it belongs; alone only when there is no review.
        S::CompeteRecord if holds(t, S::Concerns) => true,
        S::CompeteRecord => {
            super::findings::compete_line(value, out);
            true
        }
        S::Readings | S::Standings => super::ranking::borda(t, shape, value, out),
        _ => false,
    }
}

/// Items the lenses split on, with each lens's priority.
fn to_confirm(value: &Value, out: &mut String) {
    out.push_str(
        "### To confirm\n\nThe lenses split on these items and no one has given them a final priority \
(`agon run --protocol priority-vote --confirm` asks you at the terminal):\n\n",
    );
    for item in value.as_array().into_iter().flatten() {
        let p = |lens: &str| item[lens]["priority"].as_str().unwrap_or("—").to_string();
        let _ = writeln!(
            out,
            "- **{}** (item {}): urgency {}, impact {}",
            cell(&text(item, "text")),
            text(item, "item"),
            p("urgency"),
            p("impact")
        );
    }
    out.push('\n');
}

/// Items removed as repeats, each with the one it repeats.
fn duplicates(value: &Value, out: &mut String) {
    out.push_str("**Duplicates removed before voting:**\n\n");
    for d in value.as_array().into_iter().flatten() {
        let _ =
            writeln!(out, "- item {} repeats item {}: {}", text(d, "item"), text(d, "same_as"), cell(&text(d, "text")));
    }
    out.push('\n');
}

/// One part of a challenge's audit trail; false for a shape it cannot read.
pub(super) fn audit(t: &Transcript, part: ResultShape, value: &Value, out: &mut String) -> bool {
    let Some(rows) = value.as_array() else { return false };
    let who = |r: &Value| name(t, &text(r, "challenger"));
    match part {
        ResultShape::Verdicts => {
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
        ResultShape::Responses => {
            out.push_str("#### The defender's responses\n\n");
            let rows: Vec<Vec<String>> =
                rows.iter().map(|r| vec![text(r, "round"), who(r), decision(r), text(r, "reason")]).collect();
            table(out, &["round", "challenger", "decision", "reason"], &rows);
        }
        ResultShape::Rebuttals => {
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
        ResultShape::Positions => {
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
pub(super) fn decision(v: &Value) -> String {
    text(v, "decision").replace('-', " ")
}
