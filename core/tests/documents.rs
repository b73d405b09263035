//! Protocols as data: a document carried in the spec runs like a built-in,
//! its errors name their JSON path, and no document asks for more than the
//! bound computed from it before the run.

mod common;

use agon_core::script::{ScriptEntry, play};
use agon_core::{
    DebateSpec, Error, FailureKind, Input, ModelRequest, Phase, Session, Usage, estimate_tokens, worst_case,
};
use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};

/// The guide's example: a red team of two attacks, a blue team defends, the judge scores.
fn red_blue() -> Value {
    json!({
        "version": 1,
        "name": "red-blue",
        "summary": "Two red seats attack, the blue seat defends; the judge scores.",
        "rounds": {"default": 2, "max": 4, "unit": "the attack, then the defence"},
        "seats": {"min": 3, "max": 3},
        "phases": [
            {"phase": "critique", "order": "parallel", "turns": [
                {"speakers": {"seat": 1}, "role": "RED 1", "adversarial": "gated",
                 "sees": {"turns": "all", "labels": "roles", "title": "SO FAR"},
                 "prompt": {"system": "You are on the red team. Attack the plan.{persona}",
                            "user": "{question}{history}Round {round} of {rounds}: your attack, as JSON {{\"flaw\": \"...\", \"fatal\": true|false}}."},
                 "output": {"json": {"flaw": "text", "fatal": "flag"}}},
                {"speakers": {"seat": 2}, "role": "RED 2", "adversarial": "gated",
                 "sees": {"turns": "all", "labels": "roles", "title": "SO FAR"},
                 "prompt": {"system": "You are on the red team. Attack the plan.{persona}",
                            "user": "{question}{history}Round {round} of {rounds}: your attack, as JSON {{\"flaw\": \"...\", \"fatal\": true|false}}."},
                 "output": {"json": {"flaw": "text", "fatal": "flag"}}}
            ]},
            {"phase": "rebuttal", "turns": [
                {"speakers": {"seat": 3}, "role": "BLUE",
                 "sees": {"turns": {"phases": ["critique"]}, "labels": "roles", "title": "THE ATTACKS"},
                 "prompt": {"system": "You are the blue team, {label}. Defend the plan.",
                            "user": "{question}{history}The flaws named this round:\n{critique.flaw}Answer each."}}
            ]}
        ],
        "stop": {"when": {"phase": "critique", "field": "fatal", "equals": false}},
        "aggregate": {"synthesis": {
            "sees": {"turns": "all", "labels": "roles", "title": "THE EXERCISE"},
            "prompt": {"system": "Score the exercise.", "user": "{question}{history}Your scores, then ## Verdict."},
            "sections": [{"heading": "Verdict", "result": "verdict"}]
        }},
        "completed": "every round of attack and defence ran"
    })
}

fn spec_with(document: Value, rounds: u32) -> Value {
    json!({
        "question": "Should we ship the new billing system on Monday?",
        "panel": [
            {"id": "r1", "model": "m/r1"},
            {"id": "r2", "model": "m/r2"},
            {"id": "b", "name": "Blue", "model": "m/b"}
        ],
        "judge": {"id": "judge", "model": "m/judge"},
        "protocol": {"name": document["name"].clone(), "document": document},
        "rounds": rounds,
        "seed": 3
    })
}

fn entry(seat: &str, phase: Phase, round: u32, text: &str) -> ScriptEntry {
    ScriptEntry {
        seat: seat.into(),
        phase,
        round,
        text: Some(text.into()),
        usage: None,
        stop: None,
        fail: None,
        model: None,
    }
}

#[test]
fn a_document_in_the_spec_runs_its_phases_reads_its_fields_and_stops_on_its_condition() {
    let spec = spec_with(red_blue(), 3);
    let session = Session::from_spec_json(&spec.to_string()).unwrap();
    let script = vec![
        entry("r1", Phase::Critique, 1, r#"{"flaw": "No rollback plan.", "fatal": true}"#),
        // Red pulls its punches: the quality gate asks again; the second answer stands.
        entry("r2", Phase::Critique, 1, "I think the migration is untested."),
        entry("r2", Phase::Critique, 1, "The migration is untested: a risk on day one."),
        entry("b", Phase::Rebuttal, 1, "A rollback plan exists: feature flags."),
        entry("r1", Phase::Critique, 2, r#"Fine: {"flaw": "Flags are untested.", "fatal": false}"#),
        entry("r2", Phase::Critique, 2, r#"{"flaw": "Support is not trained.", "fatal": false}"#),
        entry("b", Phase::Rebuttal, 2, "Training is on Friday."),
        entry("judge", Phase::Synthesis, 2, "Red 6, Blue 7.\n## Verdict\nShip, with a flag drill first."),
    ];
    let played = play(session, &script).unwrap();
    let t = played.session.transcript();
    let outcome = t.outcome.as_ref().unwrap();
    // Round 2's attacks both say "not fatal": the stop condition ends the debate before round 3.
    assert_eq!((outcome.kind.as_str(), outcome.rounds_run), ("completed", 2), "{}", outcome.reason);
    assert!(outcome.reason.contains("stopped in round 2"), "{}", outcome.reason);
    assert_eq!(t.results["verdict"].data, json!("Ship, with a flag drill first."));
    // Round 1's unreadable attack is warned about; the readings are recorded.
    assert!(t.warnings.iter().any(|w| w.speaker.as_deref() == Some("r2") && w.message.contains("asked again")));
    assert!(t.warnings.iter().any(|w| w.speaker.as_deref() == Some("r2") && w.message.contains("no JSON object")));
    assert_eq!(t.results["critique"].data[0]["fields"]["flaw"], "No rollback plan.");
    // Both attacks of a round are released together; blue answers after them, seeing only the attacks.
    let r = &played.requests;
    let seats: Vec<&str> = r[..4].iter().map(|r| r.seat.as_str()).collect();
    assert_eq!(seats, ["r1", "r2", "r2", "b"], "r2 asked again before blue speaks");
    assert_eq!(r[0].expect.as_deref(), Some(r#"json: {"fatal": true|false, "flaw": "..."}"#));
    let r = &r[1..];
    let blue = &r[2].messages[1].content;
    assert!(blue.contains("THE ATTACKS:\n\n=== Critiques (round 1) ===\n\n[RED 1]\n> {\"flaw\""), "{blue}");
    assert!(blue.contains("The flaws named this round:\n[Speaker 1]\n> No rollback plan.\nAnswer each."), "{blue}");
    assert!(r[2].messages[0].content.contains("blue team, Blue."));
    assert!(r[0].messages[1].content.ends_with(r#"your attack, as JSON {"flaw": "...", "fatal": true|false}."#));
    // The events name the protocol by the document's name.
    assert_eq!(t.protocol, "red-blue");
    // And the bound was known before the run: 3 seats × 3 rounds at most, the judge.
    let bound = worst_case(&DebateSpec::from_json(&spec.to_string()).unwrap());
    assert_eq!(bound.calls, 9 + 2 * 3 + 1, "turns, gated red turns asked again, the judge");
}

#[test]
fn a_spec_borne_document_is_checked_with_the_spec_and_errors_name_their_path() {
    let err = |spec: Value| match DebateSpec::from_json(&spec.to_string()) {
        Err(Error::InvalidSpec { field, reason }) => (field, reason),
        other => panic!("{other:?}"),
    };
    let mut doc = red_blue();
    doc["phases"][1]["turns"][0]["prompt"]["user"] = json!("{question}{histroy}");
    let (field, reason) = err(spec_with(doc, 2));
    assert_eq!(
        (field.as_str(), reason.as_str()),
        ("protocol.document.phases[1].turns[0].prompt.user", "unknown slot {histroy}")
    );

    let mut spec = spec_with(red_blue(), 5);
    assert_eq!(err(spec.clone()).0, "rounds");
    spec["rounds"] = json!(2);
    spec["protocol"]["name"] = json!("round-robin");
    assert!(err(spec.clone()).1.contains("built-in"));
    spec["protocol"]["name"] = json!("blue-red");
    assert!(err(spec.clone()).1.contains("named 'red-blue'"));
    spec["protocol"]["name"] = json!("red-blue");
    spec["protocol"]["adversary"] = json!(1);
    assert_eq!(err(spec.clone()).0, "protocol.adversary");
    spec["protocol"].as_object_mut().unwrap().remove("adversary");
    spec["protocol"]["consensus"] = json!("judge");
    assert_eq!(err(spec.clone()).0, "protocol.consensus");
    spec["protocol"].as_object_mut().unwrap().remove("consensus");
    spec["panel"].as_array_mut().unwrap().pop();
    assert_eq!(err(spec.clone()), ("panel".into(), "red-blue needs at least 3 seats; it has 2".into()));
    // The document's reason for its bounds, as a built-in's, and its round unit.
    spec["protocol"]["document"]["seats"]["why"] = json!("two red seats and a blue one");
    assert_eq!(err(spec.clone()).1, "red-blue needs at least 3 seats (two red seats and a blue one); it has 2");
    spec["panel"].as_array_mut().unwrap().push(json!({"id": "b", "model": "m/b"}));
    spec["rounds"] = json!(5);
    assert_eq!(err(spec).1, "red-blue runs at most 4 rounds (the attack, then the defence); 5 asked");
}

/// Hosts check a document on its own (a file, before any spec): the
/// document comes back normalized, and an error names its JSON path.
#[test]
fn a_document_alone_is_checked_and_normalized() {
    let normalized: Value = serde_json::from_str(&agon_core::check_document(&red_blue().to_string()).unwrap()).unwrap();
    assert_eq!(normalized["name"], "red-blue");
    // Defaults the author left out are written out: the quorum is the spec's.
    assert_eq!(normalized["quorum"], "spec");
    let mut doc = red_blue();
    doc["phases"][0]["turns"][1]["prompt"]["system"] = json!("{persona}{histroy}");
    match agon_core::check_document(&doc.to_string()) {
        Err(Error::InvalidSpec { field, reason }) => {
            assert_eq!(
                (field.as_str(), reason.as_str()),
                ("protocol.phases[0].turns[1].prompt.system", "unknown slot {histroy}")
            )
        }
        other => panic!("{other:?}"),
    }
    match agon_core::check_document("{\"version\": 2}") {
        Err(Error::InvalidSpec { field, reason }) => {
            assert!(field == "protocol.version" && reason.contains("version 1"), "{field}: {reason}")
        }
        other => panic!("{other:?}"),
    }
}

/// A host builds a spec for a document as for a built-in: the request names
/// the document's protocol and carries it as the option `document`.
#[test]
fn a_spec_request_may_carry_a_document() {
    let request = json!({
        "question": "Ship on Monday?",
        "protocol": "red-blue",
        "models": ["m/r1", "m/r2", "m/b"],
        "options": {"document": red_blue()},
    });
    let spec = agon_core::build_spec(agon_core::SpecRequest::from_json(&request.to_string()).unwrap()).unwrap();
    assert_eq!(spec.protocol.name, "red-blue");
    assert_eq!(spec.protocol.options["document"]["phases"][1]["phase"], "rebuttal");
    let ids: Vec<&str> = spec.panel.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(spec.judge.as_ref().unwrap().model, "m/r1", "the first seat's model judges, as for a built-in");

    // A document of a fixed size, given one model: the model plays every seat.
    let mut one = request.clone();
    one["models"] = json!(["m/one"]);
    let spec = agon_core::build_spec(agon_core::SpecRequest::from_json(&one.to_string()).unwrap()).unwrap();
    assert_eq!(spec.panel.iter().map(|p| p.model.as_str()).collect::<Vec<_>>(), ["m/one"; 3]);

    // `NAME:SEAT` names the adversary of a document that declares one, and only then.
    let mut doc = red_blue();
    doc["adversary"] = json!({"title": "red lead", "pick": "seeded"});
    let mut request = request.clone();
    request["options"]["document"] = doc;
    request["protocol"] = json!("red-blue:2");
    let spec = agon_core::build_spec(agon_core::SpecRequest::from_json(&request.to_string()).unwrap()).unwrap();
    assert_eq!(spec.protocol.options["adversary"], json!("2"));
    request["options"]["document"] = red_blue();
    let e = agon_core::build_spec(agon_core::SpecRequest::from_json(&request.to_string()).unwrap()).unwrap_err();
    assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "protocol.adversary"), "{e}");
}

#[test]
fn an_unreadable_reply_never_meets_a_stop_condition() {
    let session = Session::from_spec_json(&spec_with(red_blue(), 2).to_string()).unwrap();
    let script = vec![
        entry("r1", Phase::Critique, 1, r#"{"flaw": "x", "fatal": false}"#),
        entry("r2", Phase::Critique, 1, "No JSON here, but a flaw all the same."),
        entry("b", Phase::Rebuttal, 1, "z"),
        entry("r1", Phase::Critique, 2, r#"{"flaw": "x", "fatal": false}"#),
        entry("r2", Phase::Critique, 2, r#"{"flaw": "y", "fatal": false}"#),
        entry("b", Phase::Rebuttal, 2, "z"),
        entry("judge", Phase::Synthesis, 2, "## Verdict\nno"),
    ];
    let outcome = play(session, &script).unwrap().session.outcome().unwrap().clone();
    assert_eq!(outcome.rounds_run, 2, "{}", outcome.reason);
}

#[test]
fn a_spec_borne_document_survives_the_journal() {
    let spec = spec_with(red_blue(), 1);
    let session = Session::from_spec_json(&spec.to_string()).unwrap();
    let script = vec![
        entry("r1", Phase::Critique, 1, r#"{"flaw": "x", "fatal": true}"#),
        entry("r2", Phase::Critique, 1, r#"{"flaw": "y", "fatal": true}"#),
        entry("b", Phase::Rebuttal, 1, "z"),
        entry("judge", Phase::Synthesis, 1, "## Verdict\nno"),
    ];
    let played = play(session, &script).unwrap();
    let replayed = Session::from_journal(&played.session.journal()).unwrap();
    assert_eq!(replayed.transcript().to_json(), played.session.transcript().to_json());
}

/// A Borda aggregate in a document of one's own reads as ranked's does: the
/// same standings table and readings in the transcript, the same chart. The
/// ranked golden case's script, run by ranked's document under another name
/// (which draws other labels), then rendered as if ranked had run it.
#[test]
fn a_documents_borda_aggregate_renders_and_draws_as_rankeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/ranked-three-seats");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let script: Vec<ScriptEntry> = serde_json::from_str(&read("script.json")).unwrap();
    let (_, text) = agon_core::BUILTIN_DOCUMENTS.iter().find(|(name, _)| *name == "ranked").unwrap();
    let mut document: Value = serde_json::from_str(text).unwrap();
    document["name"] = json!("peer-review");
    let mut spec: Value = serde_json::from_str(&read("spec.json")).unwrap();
    spec["protocol"] = json!({"name": "peer-review", "document": document});
    let mine = play(Session::from_spec_json(&spec.to_string()).unwrap(), &script).unwrap().session.transcript();
    assert!(mine.results["aggregate"].data.as_array().is_some_and(|rows| rows.len() == 3), "{:?}", mine.results);

    let mut as_ranked = mine.clone();
    as_ranked.protocol = "ranked".into();
    let section = agon_core::results_markdown(&mine);
    assert!(section.contains("### Peer ranking (Borda count over anonymized answers)"), "{section}");
    assert!(section.contains("**Each seat's ranking of the others:**"), "{section}");
    assert_eq!(section, agon_core::results_markdown(&as_ranked));
    let charts = agon_core::picture::charts(&mine);
    assert_eq!(charts.len(), 1);
    assert_eq!(charts, agon_core::picture::charts(&as_ranked));
}

/// A random document: phases from a small set of kinds, each with one of a
/// few speaker plans, visibility, order and outputs; a stop rule; maybe a
/// ranking phase over labelled answers (drawn or anonymized labels, the
/// ranker's own answer hidden or not, a minimum of speakers), maybe a Borda
/// aggregate of its rankings; maybe a judge.
fn document() -> impl Strategy<Value = Value> {
    let kinds = prop::sample::subsequence(vec!["blind", "opening", "deliberation", "critique", "rebuttal"], 1..=3);
    let plans =
        prop::collection::vec((0usize..5, any::<bool>(), any::<bool>(), 0usize..4, 0usize..3, any::<bool>()), 3);
    let ranking = (0usize..3, any::<bool>(), any::<bool>(), 1u32..=3);
    (kinds, plans, 1u32..=3, 0usize..4, 0usize..4, any::<bool>(), ranking).prop_map(
        |(kinds, plans, max, adversary, stop, synthesis, (ranking, drawn, hide_own, min_speakers))| {
            let adversary = [None, Some(json!("seeded")), Some(json!({"seat": 2})), Some(json!({"rotate": {"start": 1, "step": 1}}))][adversary].clone();
            let phases: Vec<Value> = kinds
                .iter()
                .zip(&plans)
                .enumerate()
                .map(|(i, (kind, &(plan, parallel, once, sees, gated, json_out)))| {
                    let speakers: Vec<Value> = match plan {
                        0 => vec![json!("each")],
                        1 if adversary.is_some() => vec![json!("others"), json!("adversary")],
                        2 => vec![json!({"seat": 1}), json!({"seat": 2})],
                        3 if adversary.is_some() => vec![json!("adversary")],
                        _ => vec![json!({"seat": 2})],
                    };
                    let sees = match sees {
                        0 => json!({"turns": "none"}),
                        1 => json!({"turns": "all", "title": "SO FAR"}),
                        2 => json!({"turns": "own", "labels": "anonymized", "title": "YOURS"}),
                        _ => json!({"turns": {"phases": [kinds[0]]}, "title": "FIRST"}),
                    };
                    let field = if i > 0 && plans[0].5 { format!(" {{{}.claim}}", kinds[0]) } else { String::new() };
                    let turns: Vec<Value> = speakers
                        .into_iter()
                        .enumerate()
                        .map(|(k, s)| {
                            let adversarial = ["no", "marked", "gated"][if k == 1 { gated } else { 0 }];
                            let mut part = json!({
                                "speakers": s,
                                "sees": sees,
                                "prompt": {"system": format!("You are {{label}}, round {{round}}.{{persona}}{field}"),
                                           "user": "{question}{history}Go."},
                                "adversarial": adversarial,
                            });
                            if json_out {
                                part["output"] = json!({"json": {"claim": "text", "done": "flag"}});
                            }
                            part
                        })
                        .collect();
                    json!({"phase": kind, "once": once && i > 0, "order": if parallel { "parallel" } else { "sequential" }, "turns": turns})
                })
                .collect();
            let mut phases = phases;
            if ranking > 0 {
                let first = kinds[0];
                phases.push(json!({
                    "phase": "ranking", "order": "parallel", "min_speakers": min_speakers,
                    "labels": {"prefix": "Answer", "choice": "answer labels"},
                    "turns": [{
                        "speakers": "answered",
                        "sees": {"turns": {"phases": [first]}, "labels": if drawn { "drawn" } else { "anonymized" },
                                 "title": "ANSWERS", "hide_own": hide_own,
                                 "show": [{"phase": first, "heading": "Answers", "order": "labels"}]},
                        "prompt": {"system": "Rank them.{persona}", "user": "{question}{history}FINAL RANKING:"},
                        "output": {"ranking": {"marker": "FINAL RANKING"}},
                    }],
                }));
            }
            let stop = match stop {
                1 => json!({"consensus": {"phase": kinds[0]}}),
                2 if plans[0].5 => json!({"when": {"phase": kinds[0], "field": "done", "equals": true, "among": "any"}}),
                _ => json!("rounds"),
            };
            let mut doc = json!({
                "version": 1, "name": "random", "rounds": {"default": 1, "max": max},
                "seats": {"min": 2}, "phases": phases, "stop": stop,
            });
            if let Some(pick) = adversary {
                doc["adversary"] = json!({"title": "adversary", "pick": pick});
            }
            if synthesis {
                doc["aggregate"] = json!({"synthesis": {"sees": {"turns": "all", "title": "ALL"},
                    "prompt": {"system": "Judge.", "user": "{question}{history}Verdict."}}});
            }
            if ranking == 2 {
                doc["aggregate"]["borda"] = json!({"phase": "ranking", "result": "aggregate", "readings": "rankings",
                    "none": "no ranking could be read"});
            }
            doc
        },
    )
}

const REPLIES: [&str; 8] = [
    r#"{"claim": "build it", "done": true}"#,
    r#"{"claim": "do not", "done": false}"#,
    "Build it in two phases.\nVOTE: SAME — build it in two phases.",
    "I disagree with everyone; the costs are wrong.",
    "This is probably fine, just a minor nitpick.",
    r#"{"settled": true, "position": "build it", "holdouts": []}"#,
    "A is sound, B is not.\nFINAL RANKING:\n1. Answer B\n2. Answer A\n3. Answer C",
    "FINAL RANKING:\n1. Answer A\n2. Answer A\n3. Answer Z",
];

fn answer(r: &ModelRequest, pick: usize, fail: bool) -> Input {
    if fail {
        return Input::Failed { id: r.id, kind: FailureKind::ProviderError, message: "boom".into(), usage: None };
    }
    let mut text = REPLIES[pick % REPLIES.len()].repeat(1 + pick % 3);
    text.truncate(r.max_tokens as usize * 4);
    let prompt = r.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
    Input::Reply {
        id: r.id,
        text: text.clone(),
        usage: Some(Usage::new(prompt, estimate_tokens(&text))),
        stop: None,
        model: None,
    }
}

/// The generator is only as good as the valid documents it gives: those with a
/// ranking phase, a Borda aggregate or both must validate often enough to be run.
#[test]
fn the_random_documents_include_valid_ranking_and_borda_ones() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = document();
    let (mut ranked, mut borda) = (0, 0);
    for _ in 0..200 {
        let doc = strategy.new_tree(&mut runner).unwrap().current();
        let s = spec(json!({"name": "random", "document": doc.clone()}), &["a", "b", "c"], 1, true);
        if DebateSpec::from_json(&s.to_json()).is_ok() {
            ranked += usize::from(doc["phases"].as_array().unwrap().iter().any(|p| p["phase"] == "ranking"));
            borda += usize::from(doc["aggregate"].get("borda").is_some());
        }
    }
    assert!(ranked >= 40 && borda >= 20, "{ranked} valid documents rank, {borda} aggregate by Borda, of 200");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any valid document, any replies and failures: never more calls, prompt
    /// or completion tokens than the bound computed before the run; and its
    /// journal rebuilds the same transcript, byte for byte.
    #[test]
    fn no_document_run_exceeds_its_bound(
        doc in document(),
        seats in 2usize..=5,
        rounds in 1u32..=3,
        judge in any::<bool>(),
        judge_mode in any::<bool>(),
        budget in prop_oneof![Just(None), (1000u32..3000).prop_map(Some)],
        picks in prop::collection::vec(0usize..1000, 1..32),
        failures in prop::collection::vec(any::<bool>(), 1..8),
    ) {
        let ids = ["a", "b", "c", "d", "e"];
        let mut s = spec(json!({"name": "random", "document": doc.clone()}), &ids[..seats], rounds.min(doc["rounds"]["max"].as_u64().unwrap() as u32), judge);
        if judge && judge_mode && doc["stop"].get("consensus").is_some() {
            s.protocol.options.insert("consensus".into(), json!("judge"));
        }
        s.limits.context_budget = budget;
        let s = DebateSpec::from_json(&s.to_json());
        prop_assume!(s.is_ok(), "{:?}", s.err());
        let s = s.unwrap();
        let bound = worst_case(&s);
        let mut k = 0;
        let run = drive(Session::new(s).unwrap(), |r| {
            k += 1;
            answer(r, picks[k % picks.len()], failures[k % failures.len()] && k % 4 == 0)
        });
        prop_assert!(run.session.outcome().is_some());
        prop_assert!(run.requests.len() as u32 <= bound.calls, "{} calls, bound {}", run.requests.len(), bound.calls);
        let prompt: u64 = run.requests.iter().flat_map(|r| &r.messages).map(|m| estimate_tokens(&m.content) as u64).sum();
        prop_assert!(prompt <= bound.prompt_tokens, "{prompt} prompt tokens, bound {}", bound.prompt_tokens);
        let completion: u64 = run.requests.iter().map(|r| r.max_tokens as u64).sum();
        prop_assert!(completion <= bound.completion_tokens, "{completion} completion tokens, bound {}", bound.completion_tokens);
        let replayed = Session::from_journal(&run.session.journal()).unwrap();
        prop_assert_eq!(replayed.transcript().to_json(), run.session.transcript().to_json());
    }
}

/// Issue 34: a result named like a transcript field (`outcome`), a phase
/// (whose JSON rows are recorded under its name) or another result made the
/// transcript hold a name twice; each is refused where the document says it.
#[test]
fn a_result_may_not_take_a_name_the_transcript_already_uses() {
    let (_, steelman) = agon_core::BUILTIN_DOCUMENTS.iter().find(|(n, _)| *n == "steelman").unwrap();
    let base: Value = serde_json::from_str(steelman).unwrap();
    let at = "protocol.aggregate.synthesis.sections[0].result";
    for (name, why) in [
        ("outcome", "one of the transcript's own fields"),
        ("turns", "one of the transcript's own fields"),
        ("usage", "one of the transcript's own fields"),
        ("opening", "a phase's name"),
    ] {
        let mut doc = base.clone();
        doc["name"] = json!("steelman-renamed");
        doc["aggregate"]["synthesis"]["sections"][0]["result"] = json!(name);
        match agon_core::check_document(&doc.to_string()) {
            Err(Error::InvalidSpec { field, reason }) => {
                assert!(field == at && reason.contains(why), "{name}: {field}: {reason}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let mut doc = base.clone();
    doc["name"] = json!("steelman-renamed");
    let section = doc["aggregate"]["synthesis"]["sections"][0].clone();
    doc["aggregate"]["synthesis"]["sections"].as_array_mut().unwrap().push(section);
    match agon_core::check_document(&doc.to_string()) {
        Err(Error::InvalidSpec { field, reason }) => {
            assert!(field.ends_with("sections[1].result") && reason.contains("another result"), "{field}: {reason}")
        }
        other => panic!("{other:?}"),
    }
    let mut doc = base;
    doc["name"] = json!("steelman-renamed");
    agon_core::check_document(&doc.to_string()).expect("its own name is fine");
}
