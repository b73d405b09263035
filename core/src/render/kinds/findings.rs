//! Findings: points raised and what became of them. A code review's
//! findings and verdict, a claim ledger, and a judge's score for each of a
//! challenger's concerns (with the compete record in one line after it).

use std::fmt::Write;

use serde_json::Value;

use super::shape::{ResultShape, shaped};
use crate::Transcript;
use crate::render::results::{cell, list, table, text};

pub(super) fn render(t: &Transcript, shape: ResultShape, value: &Value, out: &mut String) -> bool {
    match shape {
        ResultShape::Review => crate::review::render(t, value, out),
        ResultShape::Ledger => crate::ledger::render(t, value, out),
        ResultShape::Concerns => concerns(t, value, out),
        _ => false,
    }
}

/// Seed 001's competitive review: the judge's score for every concern, the
/// zones and narratives, and the compete record's line.
fn concerns(t: &Transcript, value: &Value, out: &mut String) -> bool {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
    };
    let Some(concerns) = value["concerns"].as_array() else { return false };
    out.push_str("### Competitive review\n\n");
    let rows: Vec<Vec<String>> = concerns
        .iter()
        .map(|c| {
            let score = c["score"].as_u64().unwrap_or(0);
            let call = match score {
                3.. => "genuine: sided with the challenger",
                2 => "answered: sided with the advocate",
                _ => "a stretch",
            };
            // The challenger's own words; a review from before they were kept shows the number only.
            let said = match text(c, "text") {
                t if t.is_empty() => format!("concern {}", text(c, "concern")),
                t => t,
            };
            vec![text(c, "concern"), said, format!("{score} / 5"), call.to_string()]
        })
        .collect();
    table(out, &["severity rank", "challenger concern", "judge's score", "verdict"], &rows);
    let punches = match value["pulled_punches"].as_bool() {
        Some(true) => "yes: the judge found the challenger's concerns performative",
        Some(false) => "no",
        None => "the judge did not say",
    };
    let _ = writeln!(out, "**Challenger pulled punches:** {punches}\n");
    if let Some(verdict) = value["verdict"].as_str() {
        let _ = writeln!(out, "**Verdict:** {}\n", cell(verdict));
    }
    let recommendation = text(value, "recommendation");
    if !recommendation.is_empty() {
        let _ = writeln!(out, "**Recommendation:** {}\n", cell(&recommendation));
    }
    for (title, field) in [
        ("Key narratives", "key_narratives"),
        ("Agreement zones (high confidence)", "agreement_zones"),
        ("Contested zones (flag for attention)", "contested_zones"),
    ] {
        let items = strings(&value[field]);
        if !items.is_empty() {
            let _ = writeln!(out, "**{title}:**\n");
            list(out, items.iter().map(String::as_str));
        }
    }
    for record in shaped(t, ResultShape::CompeteRecord) {
        compete_line(record, out);
    }
    true
}

/// `compete-result: skill=…, artifact=…, disagreements=N, resolution=…, sided_with=challenger:N/advocate:N`.
pub(super) fn compete_line(v: &Value, out: &mut String) {
    let _ = writeln!(
        out,
        "`compete-result`: skill {}, artifact “{}”, {} disagreement(s), sided with the challenger {} / the advocate {}; resolution: {}\n",
        cell(&text(v, "skill")),
        cell(&text(v, "artifact")),
        text(v, "disagreements"),
        text(&v["sided_with"], "challenger"),
        text(&v["sided_with"], "advocate"),
        cell(&text(v, "resolution")),
    );
    // Seed 001's machine line, for the scripts that read it: one line, in a
    // fenced block, no backtick or bracket from a model's text can end early.
    let plain = |s: String| cell(&s).replace('`', "'").replace(['[', ']'], "");
    let _ = writeln!(
        out,
        "```text\n[compete-result: skill={}, artifact={}, disagreements={}, resolution={}, sided_with=challenger:{}/advocate:{}]\n```\n",
        plain(text(v, "skill")),
        plain(text(v, "artifact")),
        text(v, "disagreements"),
        plain(text(v, "resolution")),
        text(&v["sided_with"], "challenger"),
        text(&v["sided_with"], "advocate"),
    );
}
