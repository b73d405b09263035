//! Invariants that must hold for every panel, script and arrival order.

mod common;

use agon_core::{EventKind, FailureKind, Input, Output, Phase, Session};
use common::*;
use proptest::prelude::*;
use serde_json::json;

const IDS: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];

/// Replies that exercise the consensus reader: agreement, negation, quotes, explicit lines.
/// Replies with their stance, labelled by hand: true when the reply agrees.
const TEXTS: [(&str, bool); 7] = [
    ("I agree with Speaker 1.", true),
    ("I don't agree with Speaker 2.", false),
    ("CONSENSUS: build the tram.", true),
    ("Speaker 3 wrote \"I agree\", which I doubt.", false),
    ("Some thoughts on cost.", false),
    ("I disagree with everyone.", false),
    ("CONSENSUS: none", false),
];

/// Of the labelled replies, the ones that dissent rather than stay silent.
fn dissents(text: &str) -> bool {
    text != "Some thoughts on cost." && !TEXTS.iter().any(|(t, agrees)| *t == text && *agrees)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Over N rounds every seat holds the challenger role exactly once.
    #[test]
    fn rotation_gives_every_seat_the_challenger_role_once(n in 1usize..=7, start in 0usize..7) {
        let start = start % n;
        let s = spec(json!({"name": "rotating-challenger", "challenger": start as u32 + 1}), &IDS[..n], n as u32, false);
        let run = drive(Session::new(s).unwrap(), |r| reply(r, "I disagree with Speaker 1."));
        let mut seen: Vec<String> = challengers(&run.events).into_iter().map(Option::unwrap).collect();
        prop_assert_eq!(seen.len(), n);
        prop_assert_eq!(&seen[0], IDS[start]);
        seen.sort();
        let mut all: Vec<String> = IDS[..n].iter().map(|s| s.to_string()).collect();
        all.sort();
        prop_assert_eq!(seen, all);
    }

    /// No consensus check ever counts the round's challenger, and every
    /// verdict follows from the counted replies alone: consensus exactly when
    /// at least two counted seats agree, none dissents, and at most one is silent.
    #[test]
    fn the_challenger_never_counts_toward_consensus(
        n in 2usize..=6,
        rounds in 1u32..=4,
        picks in proptest::collection::vec(0usize..TEXTS.len(), 64),
    ) {
        let s = spec(json!({"name": "rotating-challenger"}), &IDS[..n], rounds, true);
        let mut k = 0;
        let run = drive(Session::new(s).unwrap(), |r| {
            k += 1;
            reply(r, TEXTS[picks[k % picks.len()]].0)
        });
        let mut round_challenger = None;
        let mut said: Vec<(String, String)> = Vec::new();
        for e in &run.events {
            match &e.kind {
                EventKind::RoundStarted { challenger, .. } => {
                    round_challenger = challenger.clone();
                    said.clear();
                }
                EventKind::TurnCompleted { speaker, text, .. } => said.push((speaker.clone(), text.clone())),
                EventKind::ConsensusChecked(c) => {
                    let ch = round_challenger.clone().unwrap();
                    let counted: Vec<&str> = c.seats.iter().map(|s| s.seat.as_str()).collect();
                    prop_assert!(!counted.contains(&ch.as_str()));
                    prop_assert!(!c.agreeing.contains(&ch));
                    prop_assert_eq!(c.excluded.as_ref(), Some(&ch));
                    prop_assert_eq!(counted.len(), n - 1);
                    let texts: Vec<&str> = said.iter().filter(|(s, _)| *s != ch).map(|(_, t)| t.as_str()).collect();
                    let agreeing = texts.iter().filter(|t| TEXTS.iter().any(|(x, a)| x == *t && *a)).count();
                    let dissent = texts.iter().any(|t| dissents(t));
                    let expected = agreeing >= 2 && !dissent && agreeing + 1 >= texts.len();
                    prop_assert_eq!(c.reached, expected, "{:?}", texts);
                }
                _ => {}
            }
        }
    }

    /// Same spec and inputs, same bytes; and the transcript does not depend on
    /// the order in which concurrent replies arrive.
    #[test]
    fn same_inputs_same_transcript_whatever_the_arrival_order(
        n in 1usize..=6,
        seed in any::<u64>(),
        fail_seat in proptest::option::of(0usize..6),
    ) {
        let s = spec(json!({"name": "rotating-challenger"}), &IDS[..n], 2, true);
        let answer = |r: &agon_core::ModelRequest| {
            if fail_seat.map(|f| IDS[f % n]) == Some(r.seat.as_str()) && r.phase == Phase::Blind {
                Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "slow".into(), usage: None }
            } else {
                reply(r, format!("{} speaks in round {}", r.seat, r.round))
            }
        };
        let forward = drive(Session::new(s.clone()).unwrap(), answer);
        let mut state = seed;
        let shuffled = drive_ordered(Session::new(s.clone()).unwrap(), answer, |len| {
            let mut order: Vec<usize> = (0..len).collect();
            for i in (1..len).rev() {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                order.swap(i, (state >> 33) as usize % (i + 1));
            }
            order
        });
        prop_assert_eq!(forward.session.transcript().to_json(), shuffled.session.transcript().to_json());
        let again = drive(Session::new(s).unwrap(), answer);
        prop_assert_eq!(forward.session.journal(), again.session.journal());
        prop_assert_eq!(forward.events, again.events);
    }

    /// With a context budget, no request's prompt ever exceeds it, whatever the
    /// protocol (every registered one), the reply lengths, or whether summaries succeed.
    #[test]
    fn no_request_ever_exceeds_the_context_budget(
        which in 0usize..64,
        budget in 1000u32..3000,
        lengths in proptest::collection::vec(0usize..6000, 1..40),
        summaries_fail in any::<bool>(),
    ) {
        let mut s = registry_spec(which, 3, 3, true, false);
        s.limits.context_budget = Some(budget);
        s.question = "Q? ".repeat(50);
        let mut k = 0;
        let run = drive(Session::new(s).unwrap(), |r| {
            k += 1;
            if r.purpose == agon_core::Purpose::Summary && summaries_fail {
                return Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "slow".into(), usage: None };
            }
            reply(r, "word ".repeat(lengths[k % lengths.len()] / 5))
        });
        for r in &run.requests {
            let used: u32 = r.messages.iter().map(|m| agon_core::estimate_tokens(&m.content)).sum();
            prop_assert!(used <= budget, "request {} ({:?}) uses {used} of {budget}", r.id, r.phase);
        }
    }

    /// Arbitrary inputs — unknown ids, repeats, failures — never panic, and an
    /// input the session rejects leaves it exactly as it was.
    #[test]
    fn random_inputs_never_panic_and_rejections_change_nothing(
        ops in proptest::collection::vec((0u64..20, any::<bool>(), 0usize..TEXTS.len()), 1..80),
        protocol in prop_oneof![Just("round-robin"), Just("rotating-challenger")],
    ) {
        let s = spec(json!({"name": protocol}), &IDS[..3], 2, true);
        let mut session = Session::new(s).unwrap();
        for (id, ok, t) in ops {
            while !matches!(session.poll(), Output::Idle | Output::Done(_)) {}
            let input = if ok {
                Input::Reply { id, text: TEXTS[t].0.into(), usage: None, stop: None, model: None }
            } else {
                Input::Failed { id, kind: FailureKind::ProviderError, message: "boom".into(), usage: None }
            };
            let before = (session.journal(), session.events().len(), session.transcript().to_json());
            if session.handle(input).is_err() {
                prop_assert_eq!(before, (session.journal(), session.events().len(), session.transcript().to_json()));
            }
        }
    }
}
