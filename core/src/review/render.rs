//! A review result in a transcript's Markdown: the verdict first, then the
//! findings as a table, then what did not count and why.

use std::fmt::Write;

use super::Review;
use crate::Transcript;
use crate::render::results::{cell, name, table};

/// Writes the review in `value`; false when it is not one (the generic
/// renderer then shows it as JSON).
pub(crate) fn render(t: &Transcript, value: &serde_json::Value, out: &mut String) -> bool {
    let Ok(review) = Review::from_value(value) else { return false };
    let names = |ids: &[String]| -> String {
        if ids.is_empty() {
            "—".into()
        } else {
            ids.iter().map(|id| cell(&name(t, id))).collect::<Vec<_>>().join(", ")
        }
    };
    let _ = writeln!(out, "### Review: {}\n", review.verdict.as_str());
    let blocking = if review.blocking.is_empty() { "none".to_string() } else { review.blocking.join(", ") };
    let _ = writeln!(out, "Policy: {}. Blocking: {blocking}.\n", cell(&review.policy.describe()));
    if review.findings.is_empty() {
        out.push_str("No findings.\n\n");
    } else {
        let rows: Vec<Vec<String>> = review
            .findings
            .iter()
            .map(|f| {
                let blocks = if review.blocking.contains(&f.id) { " (blocks)" } else { "" };
                vec![
                    format!("{}{blocks}", f.id),
                    f.severity.as_str().to_string(),
                    cell(&format!("{}:{}", f.file, f.line)),
                    cell(&f.title),
                    names(&f.raised_by),
                    names(&f.confirmed_by),
                    names(&f.disputed_by),
                ]
            })
            .collect();
        table(out, &["finding", "severity", "where", "title", "raised by", "confirmed by", "disputed by"], &rows);
    }
    if !review.unread.is_empty() {
        let _ = writeln!(out, "Not read (the review cannot pass without them): {}.\n", names(&review.unread));
    }
    for c in &review.changes {
        let why = match (&c.citing, c.flagged) {
            (_, true) => "cites no other seat: flagged, and not counted".to_string(),
            (Some(seat), false) => format!("citing {}", cell(&name(t, seat))),
            (None, false) => "counted".to_string(),
        };
        let _ = writeln!(
            out,
            "- {} turned to {} {} in round {} ({why})",
            cell(&name(t, &c.seat)),
            cell(&c.to),
            cell(&c.finding),
            c.round
        );
    }
    for u in &review.unmatched {
        let _ = writeln!(
            out,
            "- {} reacted in round {} to {}, where no finding is: not counted",
            cell(&name(t, &u.seat)),
            u.round,
            cell(&u.location)
        );
    }
    if !review.changes.is_empty() || !review.unmatched.is_empty() {
        out.push('\n');
    }
    true
}
