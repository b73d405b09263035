//! Rankings: items in order, each with its score. An answer vote, a Borda
//! count's standings (with who ranked what), items scored by two lenses
//! with the gaps between them flagged.

use std::fmt::Write;

use serde_json::Value;

use super::shape::{ResultShape, shaped};
use crate::Transcript;
use crate::render::results::{cell, name, table, text};

pub(super) fn render(t: &Transcript, shape: ResultShape, value: &Value, out: &mut String) -> bool {
    match (shape, value.as_array()) {
        (ResultShape::Vote, _) => crate::vote::render(t, value, out),
        (ResultShape::Standings, _) => borda(t, shape, value, out),
        (ResultShape::Priorities, Some(rows)) => {
            priorities(t, rows, out);
            true
        }
        _ => false,
    }
}

/// A Borda count's standings as a table in their order, its readings as who ranked what.
pub(super) fn borda(t: &Transcript, shape: ResultShape, value: &Value, out: &mut String) -> bool {
    use crate::protocol::document::borda_aggregate::{readings, standings};
    match (shape, value.as_array()) {
        (ResultShape::Standings, Some(rows)) => standings(t, rows, out),
        (ResultShape::Readings, Some(rows)) => readings(t, rows, out),
        _ => return false,
    }
    true
}

/// How one lens ranked a row, or a dash.
fn priority(row: &Value, lens: &str) -> String {
    row["priorities"][lens].as_str().map_or_else(|| "—".to_string(), str::to_string)
}

/// The ranking as seed 001 shows it: a table in Borda order, then the
/// flagged gaps, each with both lenses' justifications (or one agent's
/// priorities, when the gate seated one).
fn priorities(t: &Transcript, rows: &[Value], out: &mut String) {
    let confirmer = shaped(t, ResultShape::Confirmed).next().map(|c| name(t, &text(c, "by")));
    if rows.iter().any(|r| r["priorities"].get("priority").is_some()) {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .enumerate()
            .map(|(rank, r)| vec![(rank + 1).to_string(), text(r, "text"), priority(r, "priority"), text(r, "why")])
            .collect();
        out.push_str("### Priorities (one agent, both lenses)\n\n");
        table(out, &["#", "item", "priority", "why"], &rows);
        return;
    }
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(rank, row)| {
            let flag = match (row["disagreement"].is_object(), row["confirmed"].as_str()) {
                (_, Some(p)) => format!(" ⚑ → {p} ✓"),
                (true, None) => " ⚑".to_string(),
                (false, None) => String::new(),
            };
            vec![
                (rank + 1).to_string(),
                format!("{}{flag}", text(row, "text")),
                priority(row, "urgency"),
                priority(row, "impact"),
                text(row, "score"),
            ]
        })
        .collect();
    out.push_str("### Priority ranking (Borda count)\n\n");
    table(out, &["#", "item", "urgency", "impact", "score"], &table_rows);
    if let Some(name) = confirmer.as_deref().filter(|_| rows.iter().any(|r| r["confirmed"].is_string())) {
        let _ =
            writeln!(out, "✓ the final priority {} confirmed; it counts for both lenses in the score.\n", cell(name));
    }
    let flagged: Vec<&Value> = rows.iter().filter(|r| r["disagreement"].is_object()).collect();
    if flagged.is_empty() {
        out.push_str("No item split the lenses by two levels or more.\n\n");
        return;
    }
    out.push_str("### Flagged: the lenses differ by two levels or more (⚑)\n\n");
    for row in flagged {
        let _ = writeln!(out, "- **{}**", cell(&text(row, "text")));
        for lens in ["urgency", "impact"] {
            let why = text(&row["disagreement"], lens);
            let _ = writeln!(out, "  - {lens} {}: {}", priority(row, lens), cell(&why));
        }
        if let (Some(p), Some(name)) = (row["confirmed"].as_str(), confirmer.as_deref()) {
            let _ = writeln!(out, "  - confirmed by {}: {p}", cell(name));
        }
    }
    out.push('\n');
}
