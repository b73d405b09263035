//! Gates: how the debate was run (both sides, or one agent), with the reason.

use std::fmt::Write;

use serde_json::Value;

use crate::Transcript;
use crate::render::results::{cell, text};

pub(super) fn render(t: &Transcript, value: &Value, out: &mut String) -> bool {
    let mode = if value["compete"] == true { competitive(t) } else { "single agent".to_string() };
    let _ = writeln!(out, "**Cost gate:** {mode} — {}.\n", cell(&text(value, "reason")));
    true
}

/// "competitive (advocate and challenger)": who competed are the sides the
/// protocol gives its seats (as the turns' headings name them), not a
/// wording of its own.
fn competitive(t: &Transcript) -> String {
    let sides = crate::protocol::registry::shown(&t.protocol).map(|s| s.sides).unwrap_or_default();
    match sides {
        [] | [_] => "competitive".to_string(),
        [first @ .., last] => format!("competitive ({} and {last})", first.join(", ")),
    }
}
