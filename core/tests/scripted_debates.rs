//! Whole debates driven by a scripted host, with hand-written expectations.

mod common;

use agon_core::{Error, EventKind, FailureKind, Input, OutcomeKind, Phase, Purpose, Session};
use common::*;
use serde_json::json;

fn rotating(start: Option<&str>) -> serde_json::Value {
    match start {
        Some(s) => json!({"name": "rotating-challenger", "challenger": s}),
        None => json!({"name": "rotating-challenger"}),
    }
}

#[test]
fn round_robin_speaks_in_panel_order_one_at_a_time_then_judges() {
    let s = spec(json!({"name": "round-robin"}), &["a", "b", "c"], 2, true);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, format!("{} says hello in round {}", r.seat, r.round)));
    let order: Vec<&str> = run.requests.iter().map(|r| r.seat.as_str()).collect();
    assert_eq!(order, ["a", "b", "c", "a", "b", "c", "judge"]);
    assert!(run.batches.iter().all(|b| b.len() == 1), "round-robin turns depend on each other");
    // Round 2's first speaker sees round 1's last turn.
    let a2 = &run.requests[3];
    assert!(a2.messages[1].content.contains("c says hello in round 1"));
    assert_eq!(a2.max_tokens, 64);
    assert_eq!(run.requests[6].purpose, Purpose::Judge);
    assert_eq!(run.requests[6].max_tokens, 128);
    let t = run.session.transcript();
    let outcome = t.outcome.clone().unwrap();
    assert_eq!(outcome.kind, OutcomeKind::Completed);
    assert_eq!(outcome.rounds_run, 2);
    assert_eq!(t.turns.len(), 6);
    assert_eq!(t.synthesis.unwrap().text, "judge says hello in round 2");
}

#[test]
fn rotating_challenger_releases_the_blind_phase_at_once() {
    let s = spec(rotating(None), &["a", "b", "c", "d", "e"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "I see risks."));
    assert_eq!(run.batches[0].len(), 5);
    assert!(run.batches[0].iter().all(|r| r.phase == Phase::Blind));
    assert!(run.batches[1..].iter().all(|b| b.len() == 1), "deliberation is sequential");
}

#[test]
fn challenger_rotates_from_the_named_seat_and_speaks_last() {
    let s = spec(rotating(Some("c")), &["a", "b", "c", "d", "e"], 5, false);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "I disagree with Speaker 1."));
    let seen: Vec<String> = challengers(&run.events).into_iter().map(Option::unwrap).collect();
    assert_eq!(seen, ["c", "d", "e", "a", "b"]);
    for round in 1..=5u32 {
        let turns: Vec<_> = run
            .session
            .transcript()
            .turns
            .into_iter()
            .filter(|t| t.round == round && t.phase == Phase::Deliberation)
            .collect();
        assert_eq!(turns.len(), 5);
        let last = turns.last().unwrap();
        assert!(last.challenger && last.speaker == seen[round as usize - 1]);
        assert_eq!(turns.iter().filter(|t| t.challenger).count(), 1);
    }
    let outcome = run.session.outcome().unwrap();
    assert_eq!((outcome.kind, outcome.rounds_run), (OutcomeKind::Completed, 5));
}

#[test]
fn the_challenger_gets_the_strengthened_prompt_and_nobody_else_does() {
    let s = spec(rotating(None), &["a", "b", "c"], 1, false);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "Hmm."));
    let deliberation: Vec<_> = run.requests.iter().filter(|r| r.phase == Phase::Deliberation).collect();
    assert_eq!(deliberation.len(), 3 + 1, "three turns and the challenger asked once more by the quality gate");
    for r in deliberation {
        let is_challenger = r.seat == "a";
        // The role is the turn's own: it comes last, after the shared head and history.
        let user = &r.messages.last().unwrap().content;
        assert_eq!(user.contains("CHALLENGER"), is_challenger, "{}", r.seat);
        assert!(!r.messages[0].content.contains("CHALLENGER"), "the shared head names no role");
    }
}

#[test]
fn stops_early_on_consensus_without_counting_the_challenger() {
    let s = spec(rotating(None), &["a", "b", "c", "d", "e"], 3, true);
    // Round 1: challenger a. Three of the four others declare the same position,
    // the fourth says nothing either way; the challenger objects.
    let run = drive(Session::new(s).unwrap(), |r| match (r.phase, r.seat.as_str()) {
        (Phase::Deliberation, "a") => reply(r, "I disagree with all of you."),
        (Phase::Deliberation, "b" | "c" | "d") => reply(r, "Good points.\nVOTE: SAME — build the tram in two phases."),
        (Phase::Deliberation, _) => reply(r, "Some thoughts on the depot."),
        _ => reply(r, "An answer."),
    });
    let outcome = run.session.outcome().unwrap();
    assert_eq!(outcome.kind, OutcomeKind::Consensus);
    assert_eq!(outcome.rounds_run, 1);
    let check = run.events.iter().find_map(|e| match &e.kind {
        EventKind::ConsensusChecked(c) => Some(c.clone()),
        _ => None,
    });
    let check = check.unwrap();
    assert!(check.reached);
    assert_eq!(check.excluded.as_deref(), Some("a"));
    let counted: Vec<&str> = check.seats.iter().map(|s| s.seat.as_str()).collect();
    assert_eq!(counted, ["b", "c", "d", "e"]);
    assert_eq!(check.agreeing, ["b", "c", "d"]);
    assert_eq!(run.requests.last().unwrap().purpose, Purpose::Judge);
}

#[test]
fn the_challengers_agreement_cannot_complete_a_consensus() {
    let s = spec(rotating(None), &["a", "b", "c", "d", "e"], 1, false);
    // Challenger a and two others agree: 2 of 4 counted, 3 needed.
    let run = drive(Session::new(s).unwrap(), |r| match (r.phase, r.seat.as_str()) {
        (Phase::Deliberation, "a" | "b" | "c") => reply(r, "CONSENSUS: build it."),
        _ => reply(r, "I disagree."),
    });
    let outcome = run.session.outcome().unwrap();
    assert_eq!(outcome.kind, OutcomeKind::Completed);
}

#[test]
fn prompts_are_anonymized_and_the_transcript_is_not() {
    let s = spec(rotating(None), &["alpha", "bravo", "charlie"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, format!("position of {}", r.seat.to_uppercase())));
    for r in run.requests.iter().filter(|r| r.phase != Phase::Blind) {
        let prompt: String = r.messages.iter().map(|m| m.content.as_str()).collect();
        assert!(prompt.contains("Speaker 1"), "{prompt}");
        for name in ["Name-alpha", "Name-bravo", "Name-charlie", "openai/"] {
            assert!(!prompt.contains(name), "{name} leaked into {}'s prompt", r.seat);
        }
    }
    let t = run.session.transcript();
    assert_eq!(t.turns[0].speaker, "alpha");
    assert_eq!(t.turns[0].model, "openai/alpha-model");
}

#[test]
fn a_failed_seat_is_benched_reported_and_nothing_answered_is_lost() {
    let s = spec(rotating(None), &["a", "b", "c"], 2, true);
    let run = drive(Session::new(s).unwrap(), |r| {
        if r.seat == "b" {
            Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "no answer in 120 s".into(), usage: None }
        } else {
            reply(r, "I disagree.")
        }
    });
    assert_eq!(run.requests.iter().filter(|r| r.seat == "b").count(), 1, "b is not called again");
    let outcome = run.session.outcome().unwrap().clone();
    assert_eq!(outcome.kind, OutcomeKind::Degraded);
    assert!(outcome.reason.contains("b (timeout in blind round 0)"), "{}", outcome.reason);
    assert_eq!(outcome.failures.len(), 1);
    let t = run.session.transcript();
    assert_eq!(t.turns.len(), 2 + 2 * 2);
    assert!(t.synthesis.is_some());
    assert!(run.session.markdown().contains("Warning — Degraded: not every participant answered"));
    assert!(run.session.markdown().contains("## Synthesis of an incomplete debate"));
}

#[test]
fn a_failed_judge_leaves_the_positions_side_by_side() {
    let s = spec(json!({"name": "round-robin"}), &["a", "b"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| match r.purpose {
        Purpose::Judge => {
            Input::Failed { id: r.id, kind: FailureKind::ProviderError, message: "HTTP 500".into(), usage: None }
        }
        _ => reply(r, format!("final view of {}", r.seat)),
    });
    let outcome = run.session.outcome().unwrap();
    assert_eq!(outcome.kind, OutcomeKind::JudgeFailed);
    let md = run.session.markdown();
    assert!(md.contains("Final positions, side by side"));
    assert!(md.contains("final view of a") && md.contains("final view of b"));
    assert!(!md.contains("## Synthesis"));
}

#[test]
fn too_few_answering_seats_is_no_quorum() {
    let s = spec(rotating(None), &["a", "b"], 2, true);
    let run = drive(Session::new(s).unwrap(), |r| {
        if r.seat == "a" {
            Input::Failed { id: r.id, kind: FailureKind::RateLimited, message: "429".into(), usage: None }
        } else {
            reply(r, "answer")
        }
    });
    let outcome = run.session.outcome().unwrap();
    assert_eq!(outcome.kind, OutcomeKind::NoQuorum);
    assert!(run.requests.iter().all(|r| r.purpose != Purpose::Judge));
    assert_eq!(run.session.transcript().turns.len(), 1, "b's answer is kept");
}

#[test]
fn unknown_and_repeated_ids_are_errors_that_change_nothing() {
    let s = spec(json!({"name": "round-robin"}), &["a", "b"], 1, false);
    let mut session = Session::new(s).unwrap();
    let first = first_request(&mut session);
    let before = (session.events().len(), session.journal());
    assert_eq!(session.handle(reply(&first, "x").with_id(99)), Err(Error::UnknownRequest { id: 99 }));
    assert_eq!(session.handle(reply(&first, "x").with_id(0)), Err(Error::UnknownRequest { id: 0 }));
    assert_eq!((session.events().len(), session.journal()), before);
    session.handle(reply(&first, "x")).unwrap();
    let after = (session.events().len(), session.journal());
    assert_eq!(session.handle(reply(&first, "again")), Err(Error::AlreadyAnswered { id: first.id }));
    assert_eq!((session.events().len(), session.journal()), after);
}

fn first_request(session: &mut Session) -> agon_core::ModelRequest {
    loop {
        match session.poll() {
            agon_core::Output::Request(r) => return r,
            agon_core::Output::Event(_) => continue,
            other => panic!("expected a request, got {other:?}"),
        }
    }
}

trait WithId {
    fn with_id(self, id: u64) -> Input;
}
impl WithId for Input {
    fn with_id(self, new: u64) -> Input {
        match self {
            Input::Reply { text, usage, stop, model, .. } => Input::Reply { id: new, text, usage, stop, model },
            Input::Failed { kind, message, usage, .. } => Input::Failed { id: new, kind, message, usage },
        }
    }
}

#[test]
fn a_journal_replays_to_the_same_transcript_and_resumes_where_it_stopped() {
    let s = spec(rotating(None), &["a", "b", "c"], 2, true);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, format!("{} r{}", r.seat, r.round)));
    let journal = run.session.journal();
    let replayed = Session::from_journal(&journal).unwrap();
    assert_eq!(replayed.transcript().to_json(), run.session.transcript().to_json());
    assert_eq!(replayed.events(), run.session.events());

    // Cut after the blind phase plus one turn: 1 header + 4 inputs.
    let partial: String = journal.lines().take(5).map(|l| format!("{l}\n")).collect();
    let resumed = Session::from_journal(&partial).unwrap();
    assert!(resumed.outcome().is_none());
    let pending: Vec<u64> = resumed.outstanding().collect();
    assert_eq!(pending, [5], "only the unanswered turn is asked again");
    let rest = drive(resumed, |r| reply(r, format!("{} r{}", r.seat, r.round)));
    assert_eq!(rest.requests[0].id, 5);
    assert_eq!(rest.session.transcript().to_json(), run.session.transcript().to_json());
    assert_eq!(rest.session.journal(), journal);
}

#[test]
fn a_torn_last_line_is_ignored_and_a_bad_line_is_reported() {
    let s = spec(json!({"name": "round-robin"}), &["a", "b"], 1, false);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "fine"));
    let journal = run.session.journal();
    let torn = &journal[..journal.len() - 5];
    let session = Session::from_journal(torn).unwrap();
    assert_eq!(session.transcript().turns.len(), 1);
    let bad = journal.replacen("\"reply\"", "\"shrug\"", 1);
    assert!(matches!(Session::from_journal(&bad), Err(Error::InvalidJournal { line: 2, .. })));
    assert!(matches!(Session::from_journal(""), Err(Error::InvalidJournal { line: 1, .. })));
}

/// challenge (seed 004) reads its structured verdicts with the same care as the
/// free-text protocols: an "agree" whose critique dissents, or a verdict that
/// cannot be read, never makes the fast exit.
#[test]
fn challenge_never_fast_exits_on_agreement_its_own_words_deny() {
    let agree = |critique: &str| {
        format!(
            r#"{{"verdict": "agree", "critique": "{critique}", "evidence": "the rollback plan", "alternative": "", "confidence": "high", "objection_strength": "minor"}}"#
        )
    };
    let run_with = |b: String, c: String| {
        let s = spec(json!({"name": "challenge"}), &["a", "b", "c"], 2, true);
        drive(Session::new(s).unwrap(), move |r| match (r.phase, r.seat.as_str()) {
            (Phase::Critique, "b") => reply(r, b.clone()),
            (Phase::Critique, "c") => reply(r, c.clone()),
            (Phase::Response, _) => reply(r, r#"{"responses": [], "updated_position": "v2"}"#),
            _ => reply(r, "Ship the migration behind a flag."),
        })
    };
    // Both agree plainly: the seed's fast exit.
    let run = run_with(agree("The plan is solid."), agree("Nothing to add."));
    assert_eq!(run.session.outcome().unwrap().kind, OutcomeKind::Consensus);
    assert!(!run.requests.iter().any(|r| r.phase == Phase::Response));

    // One "agree" says it still opposes the schedule: no fast exit, and a warning says why.
    let run = run_with(agree("The plan is solid."), agree("I agree on scope, but I still oppose the schedule."));
    assert!(run.requests.iter().any(|r| r.phase == Phase::Response), "the defender must answer");
    let t = run.session.transcript();
    assert!(t.warnings.iter().any(|w| w.message.contains("treated as partial") && w.speaker.as_deref() == Some("c")));

    // A verdict that is not JSON at all counts as not agreeing.
    let run = run_with(agree("The plan is solid."), "Looks fine to me!".to_string());
    assert!(run.requests.iter().any(|r| r.phase == Phase::Response), "an unreadable verdict made a fast exit");
    let t = run.session.transcript();
    assert!(t.warnings.iter().any(|w| w.message.contains("counts as not agreeing")));
}

/// An ACCEPT that goes on to object keeps the objection open.
#[test]
fn challenge_treats_an_accept_that_still_objects_as_maintain() {
    let disagree = r#"{"verdict": "disagree", "critique": "No rollback.", "evidence": "none", "alternative": "add one", "confidence": "high", "objection_strength": "strong"}"#;
    let s = spec(json!({"name": "challenge"}), &["a", "b"], 2, true);
    let run = drive(Session::new(s).unwrap(), |r| match r.phase {
        Phase::Critique => reply(r, disagree),
        Phase::Response => reply(
            r,
            r#"{"responses": [{"challenger": "Challenger 1", "decision": "reject", "reason": "fine"}], "updated_position": "v2"}"#,
        ),
        Phase::Rebuttal => {
            reply(r, "ACCEPT. But I still think the rollback plan is missing, and I object to shipping without it.")
        }
        _ => reply(r, "Ship it."),
    });
    let t = run.session.transcript();
    assert!(t.warnings.iter().any(|w| w.message.contains("treated as MAINTAIN")), "{:?}", t.warnings);
    assert_ne!(run.session.outcome().unwrap().kind, OutcomeKind::Consensus);
    assert_eq!(t.results["rebuttals"].data[0]["choice"], "MAINTAIN");
}

/// No result without its substance: when nothing behind a protocol's named
/// result could be read, the run ends degraded with the reason, never
/// `completed` or `consensus` with an empty or all-zero result.
#[test]
fn a_result_with_nothing_readable_behind_it_is_degraded() {
    // challenge: no verdict readable; the defender then accepts both critiques.
    let s = spec(json!({"name": "challenge"}), &["a", "b", "c"], 2, true);
    let run = drive(Session::new(s).unwrap(), |r| match r.phase {
        Phase::Critique => reply(r, "Looks fine, mostly."),
        Phase::Response => reply(
            r,
            r#"{"responses": [{"challenger": "Challenger 1", "decision": "accept", "reason": "ok"}, {"challenger": "Challenger 2", "decision": "accept", "reason": "ok"}], "updated_position": "v2"}"#,
        ),
        _ => reply(r, "Ship the migration behind a flag."),
    });
    let outcome = run.session.outcome().unwrap().clone();
    assert_eq!(outcome.kind, OutcomeKind::Degraded, "{}", outcome.reason);
    assert!(outcome.reason.contains("no challenger's verdict could be read"), "{}", outcome.reason);

    // ranked: every ranking unreadable (the ranking-parser fuzz regressions' shapes).
    let s = spec(json!({"name": "ranked"}), &["a", "b", "c"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| match r.phase {
        Phase::Ranking => reply(r, "FINAL RANKING:\n```json\nnull\n```\n42"),
        _ => reply(r, "An answer."),
    });
    let outcome = run.session.outcome().unwrap().clone();
    assert_eq!(outcome.kind, OutcomeKind::Degraded, "{}", outcome.reason);
    let t = run.session.transcript();
    assert!(!t.results.contains_key("aggregate"), "an all-zero aggregate was recorded");
    assert!(t.synthesis.is_some(), "the chairman still synthesizes the unranked answers");

    // comparative: the judge's scorecard cannot be read.
    let s = spec(json!({"name": "comparative", "options": ["Postgres", "DynamoDB"]}), &["a", "b"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "Both are fine; it depends."));
    let outcome = run.session.outcome().unwrap().clone();
    assert_eq!(outcome.kind, OutcomeKind::Degraded, "{}", outcome.reason);
    assert!(!run.session.transcript().results.contains_key("scorecard"));
}

/// Every critique not fully accepted gets its challenger's rebuttal: a
/// partial acceptance of a partial verdict is answered, not waved through.
#[test]
fn challenge_asks_for_a_rebuttal_to_every_critique_not_fully_accepted() {
    let partial = r#"{"verdict": "partial", "critique": "No rollback.", "evidence": "none", "alternative": "add one", "confidence": "medium", "objection_strength": "moderate"}"#;
    let s = spec(json!({"name": "challenge"}), &["a", "b"], 3, true);
    let run = drive(Session::new(s).unwrap(), |r| match r.phase {
        Phase::Critique => reply(r, partial),
        Phase::Response => reply(
            r,
            r#"{"responses": [{"challenger": "Challenger 1", "decision": "partially accept", "reason": "a manual rollback"}], "updated_position": "v2"}"#,
        ),
        Phase::Rebuttal => reply(r, "MAINTAIN: a manual rollback is not a rollback plan."),
        _ => reply(r, "Ship it."),
    });
    let rebuttals = run.requests.iter().filter(|r| r.phase == Phase::Rebuttal).count();
    assert_eq!(rebuttals, 3, "one rebuttal per round while the objection stays open");
    let t = run.session.transcript();
    assert_eq!(t.outcome.unwrap().kind, OutcomeKind::Completed, "no consensus: a tradeoff");
    assert_eq!(t.results["closing"].data["outcome"], "tradeoff");
    assert_eq!(t.results["closing"].data["still_objecting"], json!(["b"]));
}

/// A judge whose model also sits on the panel is allowed (one local model can
/// play every part) but said, in the transcript and as an event.
#[test]
fn a_judge_that_shares_a_panel_model_is_warned_about() {
    let mut v: serde_json::Value =
        serde_json::from_str(&spec(json!({"name": "round-robin"}), &["a", "b"], 1, true).to_json()).unwrap();
    v["judge"]["model"] = json!("openai/b-model");
    let s = agon_core::DebateSpec::from_json(&v.to_string()).unwrap();
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "Build it."));
    let warnings = run.session.transcript().warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("openai/b-model also sits on the panel (Name-b)"), "{}", warnings[0].message);
    assert!(
        run.events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Warning { message, .. } if message.contains("sits on the panel")))
    );

    // A judge of its own: no warning.
    let run = drive(Session::new(spec(json!({"name": "round-robin"}), &["a", "b"], 1, true)).unwrap(), |r| {
        reply(r, "Build it.")
    });
    assert!(run.session.transcript().warnings.is_empty());
}

/// Seed 001's cost gate: auto-triggers match words and phrases (the phrase's
/// words in order, any case or punctuation between them), never parts of words.
#[test]
fn adversarial_auto_triggers_match_words_and_phrases() {
    let gate = |question: &str, any_of: &[&str]| {
        let mut v: serde_json::Value = serde_json::from_str(
            &spec(
                json!({"name": "adversarial", "compete": "auto", "triggers": [{"name": "risky", "any_of": any_of}]}),
                &["adv", "chal"],
                1,
                true,
            )
            .to_json(),
        )
        .unwrap();
        v["question"] = json!(question);
        let s = agon_core::DebateSpec::from_json(&v.to_string()).unwrap();
        let run = drive(Session::new(s).unwrap(), |r| reply(r, "A review."));
        run.session.transcript().results["gate"].data["compete"].as_bool().unwrap()
    };
    assert!(gate("Ship the BREAKING   change, now?", &["breaking change"]));
    assert!(gate("P0/P1 incident with outstanding follow-ups", &["p1 incident"]));
    assert!(!gate("A change that is breaking nothing", &["breaking change"]), "words out of order");
    assert!(!gate("Rebreaking changes", &["breaking change"]), "part of a word");
    assert!(gate("Migrate the database", &["migrate"]));
}

/// Seed 001's escape hatch for comparisons: `single` asks no advocate; the
/// judge alone scores the options, and the scorecard is still computed here.
#[test]
fn comparative_single_has_the_judge_score_the_options_alone() {
    let s = spec(
        json!({"name": "comparative", "options": ["Postgres", "DynamoDB"], "compete": "single"}),
        &["a", "b"],
        2,
        true,
    );
    let card = r#"```json
{"criteria": [{"name": "integrity", "weight": 60, "scores": {"A": 5, "B": 3}}, {"name": "ops", "weight": 40, "scores": {"A": 3, "B": 5}}], "recommendation": "A"}
```"#;
    let run = drive(Session::new(s).unwrap(), |r| reply(r, card));
    assert_eq!(run.requests.len(), 1, "only the judge is asked");
    assert_eq!(run.requests[0].purpose, Purpose::Judge);
    assert!(run.requests[0].messages[0].content.contains("no advocates argued them"));
    let t = run.session.transcript();
    assert_eq!(t.results["scorecard"].data["totals"], json!({"A": 420, "B": 380}), "60·5 + 40·3, 60·3 + 40·5");
    assert_eq!(t.outcome.unwrap().kind, OutcomeKind::Completed);

    // Without a judge there is no one to score: the spec names the field.
    let v = json!({"question": "q", "panel": [{"id": "a", "model": "m/a"}, {"id": "b", "model": "m/b"}],
        "protocol": {"name": "comparative", "options": ["x", "y"], "compete": "single"}});
    match agon_core::DebateSpec::from_json(&v.to_string()) {
        Err(Error::InvalidSpec { field, .. }) => assert_eq!(field, "judge"),
        other => panic!("{other:?}"),
    }
}

/// Seed 001's compete result names the skill it reviewed: the run's label
/// (the CLI's `--label`), else the protocol's name. A label is one line.
#[test]
fn adversarial_compete_result_names_the_label_it_counts_under() {
    let review = r#"```json
{"concerns": [{"concern": 1, "score": 3}], "key_narratives": ["the rollback gap"]}
```"#;
    let skill = |label: Option<&str>| {
        let mut protocol = json!({"name": "adversarial", "compete": "compete"});
        if let Some(l) = label {
            protocol["label"] = json!(l);
        }
        let run = drive(Session::new(spec(protocol, &["adv", "chal"], 1, true)).unwrap(), |r| {
            reply(r, if r.purpose == Purpose::Judge { review } else { "A review." })
        });
        run.session.transcript().results["compete_result"].data["skill"].clone()
    };
    assert_eq!(skill(Some(" rfc ")), json!("rfc"));
    assert_eq!(skill(None), json!("adversarial"));

    for bad in ["", "two\nlines"] {
        let v = json!({"question": "q", "panel": [{"id": "a", "model": "m/a"}, {"id": "b", "model": "m/b"}],
            "protocol": {"name": "adversarial", "label": bad}});
        match agon_core::DebateSpec::from_json(&v.to_string()) {
            Err(Error::InvalidSpec { field, .. }) => assert_eq!(field, "protocol.label"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

/// ranked, from its document: a seat that fails its blind answer is neither
/// labelled nor asked to rank, each ranker sees only the others' answers,
/// and with one answer left there is no one to rank it.
#[test]
fn ranked_labels_and_asks_only_the_seats_that_answered() {
    let s = spec(json!({"name": "ranked"}), &["a", "b", "c"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| match (r.phase, r.seat.as_str()) {
        (Phase::Blind, "b") => {
            Input::Failed { id: r.id, kind: FailureKind::ProviderError, message: "down".into(), usage: None }
        }
        (Phase::Blind, seat) => reply(r, format!("The answer of {seat}.")),
        _ => reply(r, "FINAL RANKING:\n1. Response A\n2. Response B\n3. Response C"),
    });
    let choice = run.events.iter().find_map(|e| match &e.kind {
        EventKind::ChoiceMade { what, value } if what == "response labels" => Some(value.clone()),
        _ => None,
    });
    let choice = choice.expect("the labels are recorded");
    assert!(choice.contains("= a") && choice.contains("= c") && !choice.contains("= b"), "{choice}");
    let rankers: Vec<&str> =
        run.requests.iter().filter(|r| r.phase == Phase::Ranking).map(|r| r.seat.as_str()).collect();
    assert_eq!(rankers, ["a", "c"]);
    for r in run.requests.iter().filter(|r| r.phase == Phase::Ranking) {
        let user = &r.messages[1].content;
        let other = if r.seat == "a" { "c" } else { "a" };
        assert!(user.contains(&format!("The answer of {other}.")), "{user}");
        assert!(!user.contains(&format!("The answer of {}.", r.seat)), "its own answer was shown: {user}");
        assert_eq!(user.matches("[Response ").count(), 1, "{user}");
    }
    let t = run.session.transcript();
    assert_eq!(t.results["aggregate"].data.as_array().unwrap().len(), 2);
    // Each ranked the one other answer, first of one: no points, the label order breaks the tie.
    assert!(t.results["aggregate"].data.as_array().unwrap().iter().all(|row| row["points"] == 0));
    let outcome = run.session.outcome().unwrap();
    // Degraded only by the failed call, not for want of a ranking.
    assert!(outcome.reason.starts_with("answers ranked by the panel"), "{}", outcome.reason);

    // Two seats, one fails: a ranking needs two answers.
    let s = spec(json!({"name": "ranked"}), &["a", "b"], 1, true);
    let run = drive(Session::new(s).unwrap(), |r| match r.seat.as_str() {
        "b" => Input::Failed { id: r.id, kind: FailureKind::ProviderError, message: "down".into(), usage: None },
        _ => reply(r, "An answer."),
    });
    assert_eq!(run.session.outcome().unwrap().kind, OutcomeKind::NoQuorum);
    assert!(run.requests.iter().all(|r| r.phase != Phase::Ranking));
}

/// priority-vote's confirmer: asked once, only when the lenses split on an
/// item, about those items alone; a failed confirmation confirms nothing and
/// leaves them to confirm, and the ranking stands as the lenses counted it.
#[test]
fn a_confirmer_is_asked_only_about_split_items_and_a_failed_one_confirms_nothing() {
    let protocol = json!({"name": "priority-vote", "items": ["a", "b"], "compete": "compete", "confirm": 3});
    // Seat a: item 1 P0, item 2 P1. Seat b: item 1 P0, item 2 `second`.
    let votes = |r: &agon_core::ModelRequest, second: &str| {
        let level = if r.seat == "b" { second } else { "P1" };
        reply(r, format!("[{{\"item\": 1, \"priority\": \"P0\"}}, {{\"item\": 2, \"priority\": \"{level}\"}}]"))
    };
    // One level apart at most: no split, the confirmer is never asked.
    let run = drive(Session::new(spec(protocol.clone(), &["a", "b", "you"], 1, false)).unwrap(), |r| votes(r, "P2"));
    assert!(run.requests.iter().all(|r| r.seat != "you"));
    assert!(!run.session.transcript().results.contains_key("to_confirm"));
    // Item 2 at P1 and P3: split; the confirmer's call fails.
    let run = drive(Session::new(spec(protocol, &["a", "b", "you"], 1, false)).unwrap(), |r| {
        if r.seat == "you" {
            return Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "no answer".into(), usage: None };
        }
        votes(r, "P3")
    });
    let asked: Vec<_> = run.requests.iter().filter(|r| r.seat == "you").collect();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].phase, Phase::Confirmation);
    let prompt = &asked[0].messages[1].content;
    assert!(prompt.contains("2. b") && !prompt.contains("1. a"), "{prompt}");
    let t = run.session.transcript();
    assert_eq!(t.results["to_confirm"].data.as_array().unwrap().len(), 1);
    assert_eq!(t.results["confirmed"].data["items"], json!([]));
    assert!(t.warnings.iter().any(|w| w.message.contains("no reply came")), "{:?}", t.warnings);
    // A failed call is never a full run, as for any seat.
    assert_eq!(t.outcome.unwrap().kind, OutcomeKind::Degraded);
}

/// One model on purpose (`limits.diversity = "off"`, the CLI's
/// --allow-one-model) is said nowhere: neither the panel nor the judge's
/// seat on it is warned about.
#[test]
fn one_model_on_purpose_plays_every_part_without_a_word() {
    let mut v: serde_json::Value =
        serde_json::from_str(&spec(json!({"name": "rotating-challenger"}), &["a", "b"], 1, true).to_json()).unwrap();
    for seat in v["panel"].as_array_mut().unwrap() {
        seat["model"] = json!("openai/one");
    }
    v["judge"]["model"] = json!("openai/one");
    v["limits"]["diversity"] = json!("off");
    let s = agon_core::DebateSpec::from_json(&v.to_string()).unwrap();
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "I disagree: build it in two phases."));
    assert!(run.session.transcript().warnings.is_empty(), "{:?}", run.session.transcript().warnings);
    // Without it, both are said.
    v["limits"]["diversity"] = json!("warn");
    let s = agon_core::DebateSpec::from_json(&v.to_string()).unwrap();
    let run = drive(Session::new(s).unwrap(), |r| reply(r, "I disagree: build it in two phases."));
    assert_eq!(run.session.transcript().warnings.len(), 2, "{:?}", run.session.transcript().warnings);
}
