//! The worst case against what a typical debate costs: a three-lab
//! rotating-challenger debate of three rounds (gpt-5, claude-sonnet-4-5,
//! gemini-2.5-pro, judged by gpt-5), priced from the shipped catalog, its
//! cost taken from the engine's own usage report.
//!
//! The token model (what "typical" means here):
//! - Each turn's reply is 410–500 tokens of prose (80–98 % of the default
//!   512-token ceiling: replies to an open question at that ceiling run
//!   long), in lines of about 60 words; every speaker disagrees plainly, so
//!   the quality gate asks nothing again. The judge writes 800 of its 1,024.
//! - Prompts are billed as the engine estimates them (characters / 4), with
//!   no cache hits (on the measured debate caching saved 1.4 %).
//! - Thinking, under the defaults the engine sends: gpt-5 at the `low`
//!   effort spends 500 reasoning tokens a call; gemini-2.5-pro, given a
//!   1,024-token budget, 800; Claude is not asked to think and does not.
//!   (Assumed, not measured: a short opinion question at those settings.)

mod common;

use agon_core::{Catalog, DebateSpec, Input, ModelRequest, Session, Usage, Usd, estimate_tokens, worst_case};
use common::drive;
use serde_json::json;

const CATALOG: &str = include_str!("../../catalog/models.json");

/// The typical debate's spec, prices and model facts from the catalog.
fn typical(judge: &str) -> DebateSpec {
    let catalog = Catalog::from_json(CATALOG).unwrap();
    let panel = ["openai/gpt-5", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-pro"];
    let mut prices = serde_json::Map::new();
    let mut models = serde_json::Map::new();
    for m in panel.iter().chain([&judge]) {
        let entry = catalog.resolve(m, &Default::default()).unwrap();
        prices.insert(m.to_string(), serde_json::to_value(entry.spec_price().unwrap()).unwrap());
        models.insert(m.to_string(), serde_json::to_value(entry.traits().unwrap()).unwrap());
    }
    let seats: Vec<_> = panel.iter().map(|m| json!({"id": m.rsplit('/').next().unwrap(), "model": m})).collect();
    let spec = json!({
        "question": "Should a five-person startup write its backend in Rust or in Go?",
        "panel": seats,
        "judge": {"id": "judge", "model": judge},
        "protocol": {"name": "rotating-challenger"},
        "rounds": 3,
        "prices": prices,
        "models": models,
    });
    DebateSpec::from_json(&spec.to_string()).unwrap()
}

/// About `tokens` tokens of prose, in lines of about 60 words.
fn prose(tokens: usize, seed: usize, disagree: bool) -> String {
    const WORDS: [&str; 12] =
        ["the", "team", "would", "ship", "faster", "with", "Go", "while", "Rust", "catches", "more", "bugs"];
    let mut out = String::from(if disagree { "I disagree: the hiring cost is understated. " } else { "" });
    let mut k = seed;
    let mut words = 0;
    while out.len() < tokens * 4 {
        out.push_str(WORDS[k % WORDS.len()]);
        k = (k * 7 + 3) % 1_009;
        words += 1;
        out.push(if words % 60 == 0 { '\n' } else { ' ' });
    }
    out.truncate(tokens * 4);
    out
}

/// A typical answer to `r`, with usage as its provider would bill it.
fn answer(r: &ModelRequest, k: usize, reasoning: impl Fn(&str) -> u32) -> Input {
    let judge = r.seat == "judge";
    let tokens = if judge { 800 } else { 410 + (k * 37) % 91 };
    let text = prose(tokens, k, !judge);
    let prompt = r.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
    let thinking = reasoning(&r.model);
    let usage = Usage {
        prompt_tokens: prompt,
        completion_tokens: estimate_tokens(&text) + thinking,
        reasoning_tokens: Some(thinking),
        ..Usage::default()
    };
    Input::Reply { id: r.id, text, usage: Some(usage), stop: None, model: None }
}

/// What the debate costs, with each call thinking `reasoning(model)` tokens.
fn actual(spec: &DebateSpec, reasoning: impl Fn(&str) -> u32 + Copy) -> (Usd, u32) {
    let mut k = 0;
    let run = drive(Session::new(spec.clone()).unwrap(), |r| {
        k += 1;
        answer(r, k, reasoning)
    });
    let usage = run.session.usage();
    (usage.total.cost_micro_usd.unwrap(), usage.total.calls)
}

fn new_defaults(model: &str) -> u32 {
    match model {
        "openai/gpt-5" => 500,
        "gemini/gemini-2.5-pro" => 800,
        _ => 0,
    }
}

#[test]
fn the_worst_case_of_a_typical_debate_is_within_twice_its_cost() {
    let spec = typical("openai/gpt-5");
    let bound = worst_case(&spec);
    let (cost, calls) = actual(&spec, new_defaults);
    assert_eq!(calls, 13, "three blind answers, three rounds of three, the judge: nothing asked again");
    let bound_usd = bound.cost_micro_usd.unwrap();
    let ratio = bound_usd.0 as f64 / cost.0 as f64;
    println!(
        "typical debate: worst case {} ({} calls), actual {} ({calls} calls): {ratio:.2}×",
        bound_usd.display(),
        bound.calls,
        cost.display()
    );
    assert!(bound_usd >= cost, "a bound below the cost: {} < {}", bound_usd.display(), cost.display());
    assert!(ratio <= 2.0, "the worst case {} is {ratio:.2}× the cost {}", bound_usd.display(), cost.display());
}

/// The same debate when each call thinks as long as the engine lets it
/// (every reply at its ceiling, every allowance spent, every challenger
/// asked again): the bound still holds.
#[test]
fn the_worst_case_holds_when_everything_is_spent() {
    let spec = typical("openai/gpt-5");
    let bound = worst_case(&spec);
    let mut k = 0;
    let run = drive(Session::new(spec.clone()).unwrap(), |r| {
        k += 1;
        // A soft challenger is asked again; every reply fills its ceiling.
        let mut text = prose(r.max_tokens as usize, k, false);
        if !r.seat.is_empty() {
            text = format!("This is probably fine. {text}");
        }
        text.truncate(r.max_tokens as usize * 4);
        let prompt = r.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
        let thinking = r.reasoning.map_or(0, |q| q.allowance);
        let usage = Usage::new(prompt, r.max_tokens + thinking);
        Input::Reply { id: r.id, text, usage: Some(usage), stop: None, model: None }
    });
    let usage = run.session.usage();
    assert_eq!(usage.total.calls, bound.calls, "every call the bound counts was made");
    let cost = usage.total.cost_micro_usd.unwrap();
    assert!(cost <= bound.cost_micro_usd.unwrap(), "{} > {}", cost.display(), bound.cost_micro_usd.unwrap().display());
    assert!(usage.total.prompt_tokens <= bound.prompt_tokens);
    assert!(usage.total.completion_tokens <= bound.completion_tokens);
}

/// Every built-in protocol's own text (system prompts, instructions,
/// headings) fits the room the bound gives it: a one-character answer
/// everywhere leaves only that text, the question and each quoted entry's
/// heading in a prompt.
#[test]
fn every_protocol_s_own_text_fits_the_bound_s_room_for_it() {
    for info in agon_core::protocols() {
        let seats = info.min_seats.max(3).min(info.max_seats.unwrap_or(6)) as usize;
        let spec = agon_core::example_spec(&info.name, seats, 3).unwrap();
        let question = estimate_tokens(&spec.question) as u64;
        let run = drive(Session::new(spec).unwrap(), |r| common::reply(r, "x"));
        for (i, r) in run.requests.iter().enumerate() {
            let prompt: u64 = r.messages.iter().map(|m| estimate_tokens(&m.content) as u64).sum();
            let room = agon_core::TEMPLATE_TOKENS + question + i as u64 * agon_core::ENTRY_TOKENS;
            assert!(prompt <= room, "{}: call {i} holds {prompt} tokens of its own text, room {room}", info.name);
        }
    }
}

/// For BENCHMARKS.md: the typical debate under the old defaults (gpt-5 at
/// its own `medium`, spending 2,000 reasoning tokens a call; Gemini given
/// 8,192 and spending 2,500) and the new. Run with `--nocapture`.
#[test]
fn the_typical_debate_under_the_old_and_the_new_defaults() {
    let spec = typical("openai/gpt-5");
    let old = |model: &str| match model {
        "openai/gpt-5" => 2_000,
        "gemini/gemini-2.5-pro" => 2_500,
        _ => 0,
    };
    let (old_cost, _) = actual(&spec, old);
    let (new_cost, _) = actual(&spec, new_defaults);
    let no_thinking = |_: &str| 0;
    let (floor, _) = actual(&spec, no_thinking);
    println!(
        "typical debate: old defaults {}, new defaults {}, no thinking at all {}; worst case now {}",
        old_cost.display(),
        new_cost.display(),
        floor.display(),
        worst_case(&spec).cost_micro_usd.unwrap().display()
    );
    assert!(new_cost < old_cost && floor < new_cost);
}
