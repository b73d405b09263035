//! All-Claude debates, sent as agon-wire words them for Anthropic and billed
//! by testkit's emulation of Anthropic's prompt cache (reads only where a
//! breakpoint's prefix was written before, at a block boundary within 20
//! blocks, 1,024 tokens at least): the engine's own usage report prices
//! what the emulator bills, with the marks and without any `cache_control`.

use agon_core::{DebateSpec, Input, Output, Purpose, Session, Usage};
use agon_testkit::anthropic_cache::{AnthropicCache, Billed};
use agon_wire::{Api, Call};
use serde_json::{Value, json};

const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// `protocol` on `seats` seats for `rounds` rounds, every seat and the judge on Sonnet 4.5 at its list price.
fn all_claude(protocol: &str, seats: usize, rounds: u32) -> DebateSpec {
    let panel: Vec<Value> = (0..seats).map(|i| json!({"id": format!("s{i}"), "model": MODEL})).collect();
    let spec = json!({
        "question": "Should the city build the tram line, or spend the money on buses?",
        "panel": panel,
        "judge": {"id": "judge", "model": MODEL},
        "protocol": {"name": protocol},
        "rounds": rounds,
        "limits": {"max_tokens": 1024, "diversity": "off"},
        "prices": {MODEL: {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}},
    });
    DebateSpec::from_json(&spec.to_string()).unwrap()
}

/// About 1,500 characters, different for every call.
fn reply(seat: &str, round: u32) -> String {
    let mut text = format!("{seat} in round {round}: I weigh the depot against the line's cost. ");
    let mut k = 0;
    while text.len() < 1_500 {
        text.push_str(&format!("Point {k}: the grid upgrade for {seat} costs more than the line saves. "));
        k += 1;
    }
    text
}

struct Run {
    /// The engine's cost of the whole debate, in micro-dollars.
    cost: u64,
    total: Billed,
    judge: Billed,
}

fn run(spec: DebateSpec, marked: bool) -> Run {
    let mut session = Session::new(spec).unwrap();
    let mut cache = AnthropicCache::new();
    let mut judge = Billed::default();
    loop {
        let mut batch = Vec::new();
        loop {
            match session.poll() {
                Output::Request(r) => batch.push(r),
                Output::Event(_) => {}
                Output::Idle => break,
                Output::Done(_) => {
                    let cost = session.transcript().usage.total.cost_micro_usd.unwrap().0;
                    return Run { cost, total: cache.total(), judge };
                }
            }
        }
        for mut r in batch {
            if !marked {
                r.cache_marks.clear();
            }
            let call =
                Call { api: Api::Anthropic, reference: MODEL, model: "claude-sonnet-4-5", stream: false, server: None };
            let body: Value = serde_json::from_str(&agon_wire::request(&call, &r).body).unwrap();
            let billed = cache.serve(&body);
            if r.purpose == Purpose::Judge {
                judge = billed;
            }
            let text = reply(&r.seat, r.round);
            let usage = Usage {
                cached_tokens: Some(billed.cache_read as u32),
                cache_write_tokens: Some(billed.cache_write as u32),
                ..Usage::new(billed.prompt_tokens as u32, agon_core::estimate_tokens(&text))
            };
            session.handle(Input::Reply { id: r.id, text, usage: Some(usage), stop: None, model: None }).unwrap();
        }
    }
}

#[test]
fn an_all_claude_round_robin_pays_each_prompt_token_about_once() {
    let marked = run(all_claude("round-robin", 4, 4), true);
    let unmarked = run(all_claude("round-robin", 4, 4), false);
    let ratio = marked.cost as f64 / unmarked.cost as f64;
    eprintln!(
        "round-robin 4x4, all Sonnet 4.5: ${:.4} with cache_control, ${:.4} without: {ratio:.3}; {:?}",
        marked.cost as f64 / 1e6,
        unmarked.cost as f64 / 1e6,
        marked.total
    );
    assert_eq!((unmarked.total.cache_read, unmarked.total.cache_write), (0, 0), "no marks, no caching");
    assert!(ratio <= 0.65, "{ratio:.3} of the cost without cache_control: {:?}", marked.total);
    // Every write is read: a token is written about once and read many times.
    assert!(marked.total.cache_read > 4 * marked.total.cache_write, "{:?}", marked.total);
}

#[test]
fn the_judge_on_the_panel_is_served_from_what_the_seats_wrote() {
    let run = run(all_claude("round-robin", 4, 3), true);
    let judge = run.judge;
    eprintln!("the judge's prompt: {judge:?}");
    // All of it but the last turn and the judge's own instructions.
    assert!(judge.cache_read * 10 >= judge.prompt_tokens * 8, "{judge:?}");
}
