//! Invariants that must hold for every panel, script and arrival order.

mod common;

use agon_core::{EventKind, FailureKind, Input, Output, Phase, Session};
use common::*;
use proptest::prelude::*;
use serde_json::json;

const IDS: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];

/// Replies that exercise the consensus reader: agreement, negation, quotes, explicit lines.
const TEXTS: [&str; 7] = [
    "I agree with Speaker 1.",
    "I don't agree with Speaker 2.",
    "CONSENSUS: build the tram.",
    "Speaker 3 wrote \"I agree\", which I doubt.",
    "Some thoughts on cost.",
    "I disagree with everyone.",
    "CONSENSUS: none",
];

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
    /// verdict follows from the counted replies alone.
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
            reply(r, TEXTS[picks[k % picks.len()]])
        });
        let mut round_challenger = None;
        for e in &run.events {
            match &e.kind {
                EventKind::RoundStarted { challenger, .. } => round_challenger = challenger.clone(),
                EventKind::ConsensusChecked(c) => {
                    let ch = round_challenger.clone().unwrap();
                    prop_assert!(!c.counted.contains(&ch));
                    prop_assert!(!c.agreeing.contains(&ch));
                    prop_assert_eq!(c.excluded.as_ref(), Some(&ch));
                    prop_assert_eq!(c.counted.len(), n - 1);
                    prop_assert_eq!(c.reached, c.agreeing.len() >= (n - 2).max(1));
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
                Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "slow".into() }
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
    /// protocol, the reply lengths, or whether summaries succeed.
    #[test]
    fn no_request_ever_exceeds_the_context_budget(
        protocol in prop_oneof![Just("round-robin"), Just("rotating-challenger"), Just("consensus-check"), Just("structured"), Just("ranked")],
        budget in 1000u32..3000,
        lengths in proptest::collection::vec(0usize..6000, 1..40),
        summaries_fail in any::<bool>(),
    ) {
        let mut s = spec(json!({"name": protocol}), &IDS[..3], 3, true);
        s.limits.context_budget = Some(budget);
        s.question = "Q? ".repeat(50);
        let mut k = 0;
        let run = drive(Session::new(s).unwrap(), |r| {
            k += 1;
            if r.purpose == agon_core::Purpose::Summary && summaries_fail {
                return Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "slow".into() };
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
                Input::Reply { id, text: TEXTS[t].into(), usage: None }
            } else {
                Input::Failed { id, kind: FailureKind::ProviderError, message: "boom".into() }
            };
            let before = (session.journal(), session.events().len(), session.transcript().to_json());
            if session.handle(input).is_err() {
                prop_assert_eq!(before, (session.journal(), session.events().len(), session.transcript().to_json()));
            }
        }
    }
}
