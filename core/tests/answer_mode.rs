//! Answer mode and the vote, end to end: the debate stops on the same
//! normalised answer and not before, the vote names ties and unreadable
//! answers, and two SAME seats whose positions contradict end nothing.

mod common;

use agon_core::{ConsensusMode, Purpose, Session};
use common::*;
use serde_json::{Value, json};

/// Drive `protocol` with four seats; `answers[seat][round]` is each seat's reply (round 0: blind).
fn run(protocol: Value, rounds: u32, answers: &[&[&str]]) -> Run {
    let s = spec(protocol, &["a", "b", "c", "d"], rounds, true);
    drive(Session::new(s).unwrap(), |r| match r.purpose {
        Purpose::Judge => reply(r, "## Answer\nDone."),
        _ => {
            let seat = (r.seat.as_bytes()[0] - b'a') as usize;
            let round = if r.phase == agon_core::Phase::Blind { 0 } else { r.round as usize };
            reply(r, answers[seat].get(round).copied().unwrap_or("Nothing to add."))
        }
    })
}

fn vote(run: &Run) -> Value {
    run.session.transcript().results.get("vote").map(|r| r.data.clone()).expect("a vote")
}

#[test]
fn consensus_check_stops_on_the_same_answer_and_not_before() {
    let protocol = json!({"name": "consensus-check", "consensus": "answer"});
    // Round 1: 12, 12, 12 and no line; round 2: every seat 12, written four ways.
    let seats: [&[&str]; 4] = [
        &["", "ANSWER: 12", "ANSWER: 12"],
        &["", "ANSWER: 12 apples", "**Answer:** $12.00"],
        &["", "ANSWER: twelve, i.e. 12", "Final answer: \\boxed{12}"],
        &["", "I need more time.", "ANSWER: 12."],
    ];
    let r = run(protocol, 4, &seats);
    let t = r.session.transcript();
    assert_eq!(t.consensus.len(), 2, "{:#?}", t.consensus);
    assert!(!t.consensus[0].reached);
    assert!(t.consensus[0].reason.contains("d gave no ANSWER line"), "{}", t.consensus[0].reason);
    assert!(t.consensus[1].reached);
    assert_eq!(t.consensus[1].seats.iter().map(|s| s.answer.as_deref()).collect::<Vec<_>>(), [Some("12"); 4]);
    assert_eq!(t.outcome.as_ref().map(|o| o.rounds_run), Some(2));
    assert_eq!(vote(&r)["answer"], "12");
}

#[test]
fn the_vote_counts_most_first_and_names_ties_and_unreadable_answers() {
    let protocol = json!({"name": "consensus-check", "consensus": "answer"});
    let seats: [&[&str]; 4] = [&["", "ANSWER: B"], &["", "ANSWER: (c)"], &["", "ANSWER: B or C"], &["", "ANSWER: C."]];
    let r = run(protocol, 1, &seats);
    let v = vote(&r);
    assert_eq!(v["answer"], "C");
    assert!(v.get("tie").is_none(), "{v}");
    assert_eq!(v["unreadable"], json!(["c"]));
    // Most votes first: C (b, d) before B (a).
    assert_eq!(v["counts"], json!([{"answer": "C", "seats": ["b", "d"]}, {"answer": "B", "seats": ["a"]}]));
    // One more seat says B: now a tie, named and not broken.
    let seats: [&[&str]; 4] = [&["", "ANSWER: B"], &["", "ANSWER: (c)"], &["", "ANSWER: b."], &["", "ANSWER: C."]];
    let r = run(json!({"name": "consensus-check", "consensus": "answer"}), 1, &seats);
    let v = vote(&r);
    assert!(v.get("answer").is_none(), "{v}");
    assert_eq!(v["tie"], json!(["B", "C"]));
    let md = agon_core::markdown(&r.session.transcript());
    assert!(md.contains("A tie between B and C: no answer is chosen."), "{md}");
}

#[test]
fn the_challenger_is_not_counted_in_the_check_or_the_vote() {
    // Round 1's challenger is a: its 99 counts for nothing; b, c, d agree on 7.
    let protocol = json!({"name": "rotating-challenger", "consensus": "answer"});
    let seats: [&[&str]; 4] = [
        &["ANSWER: 7", "I reject all of it.\nANSWER: 99"],
        &["ANSWER: 7", "ANSWER: 7"],
        &["ANSWER: 8", "ANSWER: 7"],
        &["ANSWER: 7", "ANSWER: 7"],
    ];
    let r = run(protocol, 3, &seats);
    let t = r.session.transcript();
    assert!(t.consensus[0].reached, "{:#?}", t.consensus[0]);
    assert_eq!(t.consensus[0].excluded.as_deref(), Some("a"));
    // a's last counted turn is its blind answer.
    assert_eq!(vote(&r)["counts"], json!([{"answer": "7", "seats": ["a", "b", "c", "d"]}]));
}

#[test]
fn two_same_votes_with_contradicting_positions_are_not_a_consensus() {
    let protocol = json!({"name": "consensus-check", "consensus": "declared"});
    let seats: [&[&str]; 4] = [
        &["", "VOTE: SAME — ship the pilot now."],
        &["", "VOTE: SAME — do not ship the pilot now."],
        &["", "VOTE: SAME — ship the pilot now."],
        &["", "VOTE: SAME — ship the pilot now."],
    ];
    let r = run(protocol, 1, &seats);
    let c = &r.session.transcript().consensus[0];
    assert!(!c.reached, "{c:#?}");
    assert_eq!(c.conflicts.len(), 3);
    assert!(c.conflicts.iter().all(|x| x.seats.contains(&"b".to_string())));
    assert!(c.reason.contains("state contradicting positions"), "{}", c.reason);
}

#[test]
fn only_answer_mode_records_a_vote() {
    for mode in ConsensusMode::ALL.into_iter().filter(|m| *m != ConsensusMode::Answer) {
        let protocol = json!({"name": "consensus-check", "consensus": mode.as_str()});
        let seats: [&[&str]; 4] = [&["", "ANSWER: 1"], &["", "ANSWER: 1"], &["", "ANSWER: 1"], &["", "ANSWER: 1"]];
        let s = spec(protocol, &["a", "b", "c", "d"], 1, true);
        let r = drive(Session::new(s).unwrap(), |r| match r.purpose {
            Purpose::Judge => reply(r, "## Answer\nDone."),
            Purpose::Confirmation => reply(r, r#"{"settled": false, "position": "", "holdouts": []}"#),
            _ => reply(r, seats[0][1]),
        });
        assert!(!r.session.transcript().results.contains_key("vote"), "{}", mode.as_str());
    }
}

/// The request's own instruction: its user message after the last quoted
/// line of history, where the closing line it asks for is (the history
/// quotes earlier replies, which may hold an ANSWER line of their own).
fn turn_part(r: &agon_core::ModelRequest) -> &str {
    let user = &r.messages.last().unwrap().content;
    let quoted = user.rfind("\n>").map_or(0, |i| i + 1);
    let start = user[quoted..].find('\n').map_or(user.len(), |i| quoted + i);
    &user[start..]
}

#[test]
fn any_prose_protocol_takes_answers_and_the_vote_when_the_spec_has_one() {
    let mut s = spec(json!({"name": "round-robin"}), &["a", "b", "c"], 2, true);
    s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
    let r = drive(Session::new(s).unwrap(), |r| match r.purpose {
        Purpose::Judge => reply(r, "## Answer\nDone."),
        _ if r.seat == "c" => reply(r, "I make it 3 × 6 = 18 apples in all."),
        _ => reply(r, "ANSWER: $18.00"),
    });
    // Every turn is asked for the line, and the judge for the council's (an
    // evaluation may score the synthesis); nothing else is.
    for req in &r.requests {
        let asked = turn_part(req).contains("ANSWER:");
        assert_eq!(asked, matches!(req.purpose, Purpose::Turn | Purpose::Judge), "{:?} {}", req.purpose, req.seat);
    }
    // c never wrote a line; the kind is a number, so its closing statement is read (18).
    let v = vote(&r);
    assert_eq!(v["answer"], "18");
    assert_eq!(v["counts"], json!([{"answer": "18", "seats": ["a", "b", "c"]}]));
}

#[test]
fn the_adversary_is_not_asked_for_an_answer() {
    let mut s = spec(json!({"name": "devils-advocate", "adversary": 1}), &["a", "b", "c"], 1, true);
    s.answer = Some(Default::default());
    let r = drive(Session::new(s).unwrap(), |r| match r.purpose {
        Purpose::Judge => reply(r, "## Answer\nDone."),
        _ => reply(r, "I disagree with everything said, for these reasons.\nANSWER: yes"),
    });
    let asked: Vec<(&str, bool)> = r
        .requests
        .iter()
        .filter(|q| q.purpose == Purpose::Turn)
        .map(|q| (q.seat.as_str(), turn_part(q).contains("ANSWER:")))
        .collect();
    assert!(asked.iter().all(|(seat, a)| (*seat == "a") != *a), "{asked:?}");
}

#[test]
fn a_protocol_whose_turns_have_a_shape_refuses_answers_by_name() {
    let mut s = spec(json!({"name": "priority-vote", "items": ["x", "y"]}), &["a", "b"], 1, true);
    s.answer = Some(Default::default());
    let e = s.validate().unwrap_err().to_string();
    assert!(e.contains("answer") && e.contains("round-robin") && e.contains("priority-vote"), "{e}");
    let mut s = spec(json!({"name": "round-robin"}), &["a", "b"], 1, true);
    s.answer = Some(serde_json::from_value(json!({"kind": "number", "choices": ["x"]})).unwrap());
    assert!(s.validate().unwrap_err().to_string().contains("answer.choices"));
}

/// Replies cut at the token limit mid-working, as a provider marks them.
fn cut(r: &agon_core::ModelRequest, text: &str) -> agon_core::Input {
    agon_core::Input::Reply {
        id: r.id,
        text: text.into(),
        usage: None,
        stop: Some(agon_core::StopReason::TokenLimit),
        model: None,
    }
}

#[test]
fn replies_cut_at_the_limit_are_no_vote_and_no_agreement() {
    // Two seats cut mid-working (their last number is 3) and one answering 35:
    // the vote read "3", an answer no seat gave, before cut replies stopped counting.
    let mut s = spec(json!({"name": "consensus-check", "consensus": "answer"}), &["a", "b", "c"], 1, false);
    s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
    let working = "Let me work through it. First, 7 × 5 = 35 apples in the crates. Then we take away 3";
    let r = drive(Session::new(s).unwrap(), |r| match r.seat.as_str() {
        "c" => reply(r, "Seven crates of five apples each: 7 × 5 = 35.\nANSWER: 35"),
        _ => cut(r, working),
    });
    let v = vote(&r);
    assert_eq!(v["answer"], "35", "{v}");
    assert_eq!(v["counts"], json!([{"answer": "35", "seats": ["c"]}]));
    assert_eq!(
        v["not_counted"],
        json!([{"seat": "a", "why": "cut"}, {"seat": "b", "why": "cut"}]),
        "why each seat did not count is recorded"
    );
    let md = agon_core::markdown(&r.session.transcript());
    assert!(md.contains("Not counted: Name-a (cut at its token limit), Name-b (cut at its token limit)."), "{md}");
    // The consensus check reads the same: the cut seats are unclear, never agreeing.
    let check = &r.session.transcript().consensus[0];
    assert!(!check.reached, "{check:#?}");
    assert_eq!(check.seats[0].verdict, agon_core::stance::Verdict::Unclear);
    assert_eq!(check.seats[0].not_counted, Some(agon_core::answer::Uncounted::Cut));
    assert_eq!(check.agreeing, ["c"]);
}

#[test]
fn a_cut_reply_never_agrees_in_any_mode() {
    for mode in ["read", "declared"] {
        let s = spec(json!({"name": "consensus-check", "consensus": mode}), &["a", "b"], 1, false);
        let r = drive(Session::new(s).unwrap(), |r| match r.seat.as_str() {
            "a" => reply(r, "I agree with Speaker 2.\nVOTE: SAME — ship the pilot"),
            _ => cut(r, "I agree with Speaker 1.\nVOTE: SAME — ship the pilot"),
        });
        let check = &r.session.transcript().consensus[0];
        assert!(!check.reached, "{mode}: {check:#?}");
        assert_eq!(check.seats[1].verdict, agon_core::stance::Verdict::Unclear, "{mode}");
    }
}

#[test]
fn a_seat_whose_last_call_failed_is_named_not_silently_dropped() {
    let mut s = spec(json!({"name": "consensus-check", "consensus": "answer"}), &["a", "b", "c"], 1, false);
    s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
    let r = drive(Session::new(s).unwrap(), |r| match r.seat.as_str() {
        "c" => agon_core::Input::Failed {
            id: r.id,
            kind: agon_core::FailureKind::ProviderError,
            message: "HTTP 500".into(),
            usage: None,
        },
        _ => reply(r, "ANSWER: 12"),
    });
    let v = vote(&r);
    assert_eq!(v["answer"], "12");
    assert_eq!(v["not_counted"], json!([{"seat": "c", "why": "failed"}]), "{v}");
}

#[test]
fn the_check_and_the_vote_read_an_answer_inside_a_line_alike() {
    let protocol = json!({"name": "consensus-check", "consensus": "answer"});
    let seats: [&[&str]; 4] = [
        &["", "So the total is 12 apples. ANSWER: 12"],
        &["", "ANSWER: 12"],
        &["", "Twelve, as I said. **Final answer:** 12"],
        &["", "ANSWER: 12"],
    ];
    let r = run(protocol, 2, &seats);
    let t = r.session.transcript();
    assert!(t.consensus[0].reached, "{:#?}", t.consensus[0]);
    assert_eq!(t.consensus[0].seats.iter().map(|s| s.answer.as_deref()).collect::<Vec<_>>(), [Some("12"); 4]);
    assert_eq!(vote(&r)["counts"], json!([{"answer": "12", "seats": ["a", "b", "c", "d"]}]));
}
