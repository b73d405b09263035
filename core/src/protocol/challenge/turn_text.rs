//! The turns challenge asks for as JSON (the critiques' verdicts, the
//! defender's responses) as the seed displays them: labelled fields, never a
//! JSON dump. Its results are shown by their kinds (`render::kinds`).

use std::fmt::Write;

use super::reply;
use crate::render::results::cell;
use crate::{Phase, Transcript, Turn};

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
