//! Scorecards: options scored against weighted criteria.

use std::fmt::Write;

use serde_json::Value;

use crate::render::results::{cell, table, text};

/// The scorecard as seed 001's judge gives it: one row per criterion with its
/// weight and each option's score, the weighted totals, the recommendation.
pub(super) fn render(card: &Value, out: &mut String) -> bool {
    let (Some(options), Some(criteria)) = (card["options"].as_object(), card["criteria"].as_array()) else {
        return false;
    };
    let labels: Vec<&String> = options.keys().collect();
    let _ = writeln!(out, "### Scorecard\n");
    for (l, o) in options {
        let _ = writeln!(out, "- **{l}**: {}", cell(o.as_str().unwrap_or_default()));
    }
    out.push('\n');
    let mut header = vec!["criterion", "weight"];
    header.extend(labels.iter().map(|l| l.as_str()));
    let mut rows: Vec<Vec<String>> = criteria
        .iter()
        .map(|c| {
            let mut row = vec![text(c, "name"), text(c, "weight")];
            row.extend(labels.iter().map(|l| text(&c["scores"], l)));
            row
        })
        .collect();
    let mut total = vec!["**weighted total**".to_string(), String::new()];
    total.extend(labels.iter().map(|l| format!("**{}**", text(&card["totals"], l))));
    rows.push(total);
    table(out, &header, &rows);
    let _ = writeln!(out, "**Recommendation:** {}\n", cell(&text(card, "recommendation")));
    if let Some(best) = card["highest_total"].as_str()
        && !text(card, "recommendation").trim().starts_with(best)
    {
        let _ = writeln!(out, "*The highest weighted total is option {best}, not the one recommended.*\n");
    }
    true
}
