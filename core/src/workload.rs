//! The standard workload: a 5-seat, 5-round rotating-challenger debate with
//! scripted replies that keep it going to the end. The benchmarks time it,
//! and the test command holds its instruction count to a budget
//! (`bench/instructions/budgets`), so the engine's own cost is watched the
//! way the artifacts' sizes are.

use crate::script::ScriptEntry;
use crate::{DebateSpec, Phase};

pub const SEATS: [&str; 5] = ["s1", "s2", "s3", "s4", "s5"];

/// A spec of `protocol` with five seats, `rounds` rounds and an optional context budget.
pub fn spec(protocol: &str, rounds: u32, budget: Option<u32>) -> DebateSpec {
    let panel: Vec<_> = SEATS.iter().map(|s| serde_json::json!({"id": s, "model": format!("openai/{s}")})).collect();
    let mut v = serde_json::json!({
        "question": "Should the city replace its bus fleet with electric buses by 2030?",
        "panel": panel,
        "judge": {"id": "judge", "model": "openai/judge"},
        "protocol": {"name": protocol},
        "rounds": rounds,
    });
    if let Some(b) = budget {
        v["limits"] = serde_json::json!({"context_budget": b});
    }
    DebateSpec::from_json(&v.to_string()).expect("the workload's spec is valid")
}

/// A reply of about `chars` characters that keeps a debate going (it disagrees,
/// so no early stop, and passes the challenger's quality gate).
pub fn reply(seat: &str, round: u32, chars: usize) -> String {
    let head = format!("{seat}, round {round}: I disagree with Speaker 1 on the depot costs. ");
    let body = "Charging infrastructure and grid upgrades dominate the budget; ".repeat(chars / 64 + 1);
    let mut text = head + &body;
    text.truncate(chars.max(80));
    text
}

/// Script entries answering every call a rotating-challenger debate makes.
pub fn script(rounds: u32, chars: usize) -> Vec<ScriptEntry> {
    let mut entries = Vec::new();
    let entry = |seat: &str, phase: Phase, round: u32, text: String| ScriptEntry {
        seat: seat.into(),
        phase,
        round,
        text: Some(text),
        usage: None,
        stop: None,
        fail: None,
        model: None,
    };
    for s in SEATS {
        entries.push(entry(s, Phase::Blind, 0, reply(s, 0, chars)));
    }
    for r in 1..=rounds {
        for s in SEATS {
            entries.push(entry(s, Phase::Deliberation, r, reply(s, r, chars)));
        }
        entries.push(entry("judge", Phase::Summary, r, reply("summary", r, chars)));
    }
    entries.push(entry("judge", Phase::Synthesis, rounds, reply("judge", rounds, chars)));
    entries
}

/// The measured debate: rotating-challenger, five seats, five rounds, 600-character replies.
pub fn five_by_five() -> (DebateSpec, Vec<ScriptEntry>) {
    (spec("rotating-challenger", 5, None), script(5, 600))
}
