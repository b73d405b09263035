//! Prompts laid out for the providers' prompt caches: a stable head (the
//! unchanging instructions, the question, the context), then the history
//! appended in the order it happened, then the turn's own instruction (the
//! seat, the round, what to do now, the VOTE/ANSWER line). Measured against
//! testkit's prefix-cache emulator, which serves the longest prefix a prompt
//! shares with an earlier prompt to the same model (≥ 1,024 tokens, in
//! 128-token steps, tokens as characters / 4).

mod common;

use agon_core::{DebateSpec, ModelRequest, Session};
use agon_testkit::prefix_cache::{PrefixCache, Served, prompt_text};
use common::*;
use serde_json::json;

/// A turn of about 1,500 characters, different for every speaker and round.
fn long_turn(r: &ModelRequest) -> String {
    let mut text = format!("{} in round {}: ", r.seat, r.round);
    let mut k = 0;
    while text.len() < 1_500 {
        text.push_str(&format!("point {k} of {} weighs the depot against the line's cost. ", r.seat));
        k += 1;
    }
    text
}

/// `protocol` on `seats` seats for `rounds` rounds, every seat (and the judge) on one model.
fn one_model_spec(protocol: serde_json::Value, seats: usize, rounds: u32, judge: bool) -> DebateSpec {
    let panel: Vec<_> = (0..seats).map(|i| json!({"id": format!("s{i}"), "model": "openai/gpt-4o"})).collect();
    let mut v = json!({
        "question": "Should the city build the tram?",
        "panel": panel,
        "protocol": protocol,
        "rounds": rounds,
        "limits": {"max_tokens": 512},
    });
    if judge {
        v["judge"] = json!({"id": "judge", "model": "openai/gpt-4o"});
    }
    DebateSpec::from_json(&v.to_string()).unwrap()
}

/// Every request's prompt, in the order released, as the cache emulator served it.
fn served(spec: DebateSpec) -> (Served, Vec<String>) {
    let run = drive(Session::new(spec).unwrap(), |r| reply(r, long_turn(r)));
    let mut cache = PrefixCache::new();
    let mut prompts = Vec::new();
    for r in &run.requests {
        let roles: Vec<String> = r.messages.iter().map(|m| format!("{:?}", m.role).to_lowercase()).collect();
        let text = prompt_text(roles.iter().zip(&r.messages).map(|(role, m)| (role.as_str(), m.content.as_str())));
        cache.serve(&r.model, &text);
        prompts.push(text);
    }
    (cache.total(), prompts)
}

#[test]
fn a_round_robin_on_one_model_is_mostly_served_from_the_cache() {
    let (total, _) = served(one_model_spec(json!({"name": "round-robin"}), 4, 4, false));
    // Before prompts were laid out for caching: about 56,000 prompt tokens, 0 % cacheable.
    eprintln!("round-robin, 4 seats × 4 rounds on one model: {total:?}, {:.1} %", 100.0 * total.fraction());
    assert!(total.prompt_tokens > 40_000, "{total:?}");
    assert!(total.fraction() >= 0.60, "{:.1} % served from the cache: {total:?}", 100.0 * total.fraction());
}

#[test]
fn each_turn_extends_the_one_before_but_for_its_own_instruction() {
    // Round-robin turns follow each other: every prompt must repeat the one
    // before it up to that turn's instruction, so the history is appended,
    // never re-rendered, and nothing seat- or round-specific comes before it.
    let (_, prompts) = served(one_model_spec(json!({"name": "round-robin"}), 3, 3, false));
    for pair in prompts.windows(2) {
        let shared = pair[0].chars().zip(pair[1].chars()).take_while(|(a, b)| a == b).count();
        let tail = pair[0].chars().count() - shared;
        assert!(tail < 400, "{tail} characters of the earlier prompt are not a prefix of the next:\n{}", pair[0]);
    }
}
