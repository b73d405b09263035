//! The cost bound and the spending limit: hand-computed bounds for a few
//! protocols, and properties over random panels, scripts and failures — no
//! run makes more calls or sends more prompt tokens than the bound, and no
//! run spends more than its limit.

mod common;

use agon_core::{FailureKind, Input, ModelRequest, Price, Session, Usage, Usd, estimate_tokens, worst_case};
use common::*;
use proptest::prelude::*;
use serde_json::json;

const IDS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

#[test]
fn hand_computed_bounds() {
    // common::spec: max_tokens 64, judge_max_tokens 128; question "Should the city build the tram?"
    // (31 characters: 8 tokens), so each prompt's fixed part is 500 + 8 = 508 tokens.
    let s = spec(json!({"name": "round-robin"}), &IDS[..3], 2, true);
    let e = worst_case(&s);
    // 3 seats × 2 rounds + the judge.
    assert_eq!(e.calls, 7);
    // Six turns at 64 and the judge at 128.
    assert_eq!(e.completion_tokens, 6 * 64 + 128);
    // Turn j sees the fixed part and at most the j turns before it, each at its ceiling of 64,
    // quoted line by line (a quarter more: 16) under a heading and a label (16): 96 each.
    // The judge sees all six: 6·508 + 96·(0+1+…+5) + 508 + 6·96.
    assert_eq!(e.prompt_tokens, 6 * 508 + 96 * 15 + 508 + 6 * 96);
    assert_eq!(e.cost_micro_usd, None);
    assert_eq!(e.unpriced, ["openai/a-model", "openai/b-model", "openai/c-model", "openai/judge-model"]);

    // 4 blind answers, 4 × 3 deliberation turns, 3 gated challenger turns asked again, the judge.
    let s = spec(json!({"name": "rotating-challenger"}), &IDS[..4], 3, true);
    assert_eq!(worst_case(&s).calls, 4 + 12 + 3 + 1);
    // Judge mode adds at most one confirmation a round, on the judge's model.
    let s = spec(json!({"name": "rotating-challenger", "consensus": "judge"}), &IDS[..4], 3, true);
    assert_eq!(worst_case(&s).calls, 4 + 12 + 3 + 1 + 3);
    // Defender's opening, 2 critiques, per round (2) a response and 2 rebuttals, 3 assumption turns, judge.
    let s = spec(json!({"name": "challenge"}), &IDS[..3], 2, true);
    assert_eq!(worst_case(&s).calls, 1 + 2 + 2 * 3 + 3 + 1);
    // Two lenses, no judge ever.
    let s = spec(json!({"name": "priority-vote", "items": ["x", "y"]}), &IDS[..2], 1, true);
    assert_eq!(worst_case(&s).calls, 2);

    // Priced: each call at its own seat's price ($1 in, $4 out per million tokens; b at $2 and $8).
    let mut s = spec(json!({"name": "round-robin"}), &IDS[..3], 2, true);
    for m in ["openai/a-model", "openai/b-model", "openai/c-model", "openai/judge-model"] {
        s.prices.insert(m.into(), Price::new(1.0, 4.0));
    }
    s.prices.insert("openai/b-model".into(), Price::new(2.0, 8.0));
    let e = worst_case(&s);
    // Each round every seat speaks once: b, the dearest, is given each round's longest prompt
    // (700 and 988 of 508, 604, 700 | 796, 892, 988); a and c the rest at $1.
    let prompts = (700 + 988) * 2 + (508 + 604 + 796 + 892);
    // Two turns each of 64 tokens out: b at $8, a and c at $4; the judge's 1,084-token prompt and 128 out.
    let outputs = 2 * 64 * 8 + 4 * 64 * 4;
    let judge = 1_084 + 128 * 4;
    assert_eq!(e.cost_micro_usd, Some(Usd(prompts + outputs + judge)));

    // With a budget, no prompt counts above it: the judge's 1,084 and the 2 summaries' are held to 1,000.
    let mut s = spec(json!({"name": "round-robin"}), &IDS[..3], 2, true);
    s.limits.context_budget = Some(1000);
    let e = worst_case(&s);
    assert_eq!(e.calls, 7 + 2);
    assert_eq!(e.prompt_tokens, 6 * 508 + 96 * 15 + 3 * 1000);
}

/// Replies that move every protocol along different paths: agreement,
/// disagreement, structured verdicts, rebuttal choices, soft adversarial
/// turns the quality gate asks again, and nothing parseable at all.
const REPLIES: [&str; 11] = [
    "I agree with Speaker 1. CONSENSUS: build it.",
    "Build it in two phases.\nVOTE: SAME — build it in two phases.",
    r#"{"settled": true, "position": "build it", "holdouts": []}"#,
    "I disagree with everyone; the costs are wrong.",
    r#"{"verdict": "disagree", "critique": "c", "evidence": "e", "alternative": "a", "confidence": "low", "objection_strength": "strong"}"#,
    r#"{"verdict": "agree", "critique": "", "evidence": "e", "alternative": "", "confidence": "high", "objection_strength": "minor"}"#,
    "MAINTAIN: the objection stands.",
    "ESCALATE: worse than stated.",
    "This is probably fine, just a minor nitpick.",
    r#"{"responses": [], "updated_position": "the same"}"#,
    "FINAL RANKING:\n1. Response A\n2. Response B\n3. Response C",
];

/// An answer no longer than the request allows, with usage as the estimator counts it.
fn answer(r: &ModelRequest, pick: usize, fail: bool) -> Input {
    if fail {
        return Input::Failed { id: r.id, kind: FailureKind::ProviderError, message: "boom".into(), usage: None };
    }
    let mut text = REPLIES[pick % REPLIES.len()].repeat(1 + pick % 3);
    text.truncate(r.max_tokens as usize * 4);
    let prompt = r.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
    let usage = Usage::new(prompt, estimate_tokens(&text));
    Input::Reply { id: r.id, text, usage: Some(usage), stop: None, model: None }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// No run makes more calls, or sends more prompt or completion tokens, than
    /// the bound — for every registered protocol, judge mode included.
    #[test]
    fn no_run_exceeds_its_worst_case(
        which in 0usize..64,
        seats in 2usize..=6,
        rounds in 1u32..=4,
        judge in any::<bool>(),
        judge_mode in any::<bool>(),
        budget in prop_oneof![Just(None), (1000u32..4000).prop_map(Some)],
        picks in proptest::collection::vec(0usize..1000, 1..64),
        failures in proptest::collection::vec(any::<bool>(), 1..16),
    ) {
        let mut s = registry_spec(which, seats, rounds, judge, judge_mode);
        let name = s.protocol.name.clone();
        s.limits.context_budget = budget;
        let bound = worst_case(&s);
        let mut k = 0;
        let run = drive(Session::new(s).unwrap(), |r| {
            k += 1;
            // Failures are rare enough that debates still go the distance.
            let fail = failures[k % failures.len()] && k % 5 == 0;
            answer(r, picks[k % picks.len()], fail)
        });
        prop_assert!(run.requests.len() as u32 <= bound.calls, "{name}: {} calls, bound {}", run.requests.len(), bound.calls);
        let prompt: u64 = run.requests.iter().flat_map(|r| &r.messages).map(|m| estimate_tokens(&m.content) as u64).sum();
        prop_assert!(prompt <= bound.prompt_tokens, "{name}: {prompt} prompt tokens, bound {}", bound.prompt_tokens);
        let completion: u64 = run.requests.iter().map(|r| r.max_tokens as u64).sum();
        prop_assert!(completion <= bound.completion_tokens, "{name}: {completion} completion tokens, bound {}", bound.completion_tokens);
    }

    /// With a spending limit, what a run spends (its providers keeping to
    /// max_tokens) never goes above it; an ended run says why.
    #[test]
    fn no_run_spends_above_its_limit(
        which in 0usize..64,
        rounds in 1u32..=3,
        judge_mode in any::<bool>(),
        limit in 0u64..40_000,
        picks in proptest::collection::vec(0usize..1000, 1..32),
    ) {
        let mut s = registry_spec(which, 3, rounds, true, judge_mode);
        let name = s.protocol.name.clone();
        for p in s.panel.iter().chain(&s.judge) {
            s.prices.insert(p.model.clone(), Price::new(3.0, 15.0));
        }
        s.max_cost = Some(limit as f64 / 1e6);
        let mut k = 0;
        let run = drive(Session::new(s).unwrap(), |r| {
            k += 1;
            answer(r, picks[k % picks.len()], false)
        });
        let spent = run.session.usage().total.cost_micro_usd.unwrap_or_default();
        prop_assert!(spent.0 <= limit, "{name}: spent {} of a {} limit", spent.0, limit);
        let outcome = run.session.outcome().unwrap();
        if outcome.kind == agon_core::OutcomeKind::CostLimit {
            prop_assert!(outcome.reason.contains("cost limit"));
        }
    }
}

/// Issue 37: every prompt quotes the files, so the worst case counts them in
/// every call, at twice their estimate (quoting), and so does `--max-cost`.
#[test]
fn files_count_in_every_prompt_of_the_worst_case() {
    for info in agon_core::protocols() {
        let spec = agon_core::example_spec(&info.name, info.min_seats.max(2) as usize, 1).unwrap();
        let before = agon_core::worst_case(&spec);
        let mut with = spec.clone();
        let text = "line of a diff\n".repeat(4000); // 60,000 characters, 15,000 tokens
        with.files = vec![agon_core::ContextFile { path: "change.diff".into(), text }];
        with.validate().unwrap();
        let after = agon_core::worst_case(&with);
        assert_eq!(after.calls, before.calls, "{}", info.name);
        assert!(
            after.prompt_tokens >= before.prompt_tokens + 2 * 15_000 * before.calls as u64,
            "{}: {} → {} over {} calls",
            info.name,
            before.prompt_tokens,
            after.prompt_tokens,
            before.calls
        );
    }
}
