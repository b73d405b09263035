//! `agon eval`'s engine side, against arithmetic rather than examples: seats
//! that answer right with a known probability, driven through real sessions
//! of the vote document and read by the real scoring, land where the
//! binomial says; a report is the same bytes when scored again.

mod common;

use agon_core::eval::{self, Arm, Scoring};
use agon_core::{Purpose, Session};
use common::*;
use serde_json::{Value, json};

/// A small seeded generator (splitmix64): the test's randomness, independent of the engine's.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` arithmetic items whose answer is `i + 1`.
fn dataset(n: usize) -> String {
    (0..n)
        .map(|i| json!({"id": format!("q{i}"), "question": format!("What is {i} + 1?"), "answer": (i + 1).to_string(), "kind": "number"}).to_string() + "\n")
        .collect()
}

/// Run the vote document with `seats` seats over every item; each seat is
/// right with probability `p` (a wrong seat says the answer plus one), and
/// return the batch results file.
fn run_arm(items: usize, seats: usize, p: f64, rng: &mut Rng) -> String {
    let document: Value = serde_json::from_str(eval::VOTE_DOCUMENT).unwrap();
    let ids: Vec<String> = (0..seats).map(|i| format!("s{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut out = String::new();
    for i in 0..items {
        let mut s = spec(json!({"name": "vote", "document": document}), &ids, 1, false);
        s.question = format!("What is {i} + 1?");
        s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
        let run = drive(Session::new(s).unwrap(), |r| {
            assert_eq!(r.purpose, Purpose::Turn);
            let right = rng.unit() < p;
            let said = if right { i + 1 } else { i + 2 };
            reply(r, format!("Working it out.\nANSWER: {said}"))
        });
        let transcript = serde_json::to_string(&run.session.transcript()).unwrap();
        out.push_str(&agon_core::batch::result_line(&format!("q{i}"), "", &transcript).unwrap());
        out.push('\n');
    }
    out
}

fn accuracy(report: &eval::Report, arm: &str) -> f64 {
    let lines: Vec<Value> = report.items.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mine: Vec<&Value> = lines.iter().filter(|l| l["arm"] == arm).collect();
    mine.iter().filter(|l| l["correct"] == true).count() as f64 / mine.len() as f64
}

#[test]
fn simulated_seats_of_known_accuracy_score_as_the_binomial_says() {
    let n = 1500;
    let data = dataset(n);
    let mut rng = Rng(36);
    let single = run_arm(n, 1, 0.6, &mut rng);
    let vote = run_arm(n, 5, 0.6, &mut rng);
    let report = eval::report(
        "simulated",
        &data,
        &[
            Arm { name: "single", results: &single, scoring: Scoring::Vote },
            Arm { name: "vote-5", results: &vote, scoring: Scoring::Vote },
        ],
    );
    // Single: p = 0.6. A plurality of 5 with one wrong answer: P(X ≥ 3), X ~ B(5, 0.6) = 0.68256.
    // Each within three standard errors (√(pq/n) ≈ 0.0127 and 0.0120).
    let (a1, a5) = (accuracy(&report, "single"), accuracy(&report, "vote-5"));
    println!("single {a1:.4} (expected 0.6), vote of 5 {a5:.4} (expected 0.6826)");
    assert!((a1 - 0.6).abs() < 0.038, "single {a1}");
    assert!((a5 - 0.68256).abs() < 0.036, "vote {a5}");
    assert!(report.markdown.contains("| single | "), "{}", report.markdown);
    assert!(report.markdown.contains("single vs vote-5"), "{}", report.markdown);
    // Scored again from the same files: the same bytes, no call.
    let again = eval::report(
        "simulated",
        &data,
        &[
            Arm { name: "single", results: &single, scoring: Scoring::Vote },
            Arm { name: "vote-5", results: &vote, scoring: Scoring::Vote },
        ],
    );
    assert_eq!(again, report);
}

#[test]
fn an_unreadable_answer_is_wrong_and_counted_as_unreadable_and_a_missing_run_is_named() {
    let data = dataset(3);
    let document: Value = serde_json::from_str(eval::VOTE_DOCUMENT).unwrap();
    let mut results = String::new();
    for (i, text) in [(0, "ANSWER: 1"), (1, "ANSWER: 2 or 3")].into_iter() {
        let mut s = spec(json!({"name": "vote", "document": document}), &["a"], 1, false);
        s.question = format!("What is {i} + 1?");
        s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
        let run = drive(Session::new(s).unwrap(), |r| reply(r, text));
        let t = serde_json::to_string(&run.session.transcript()).unwrap();
        results.push_str(&agon_core::batch::result_line(&format!("q{i}"), "", &t).unwrap());
        results.push('\n');
    }
    let report = eval::report("three", &data, &[Arm { name: "single", results: &results, scoring: Scoring::Vote }]);
    let lines: Vec<Value> = report.items.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!((lines[0]["correct"].clone(), lines[0]["answer"].clone()), (json!(true), json!("1")));
    assert_eq!((lines[1]["correct"].clone(), lines[1]["no_answer"].clone()), (json!(false), json!(true)));
    assert_eq!((lines[2]["ran"].clone(), lines[2]["correct"].clone()), (json!(false), json!(false)));
    // 1 right of 3, 1 unreadable, 1 not run.
    assert!(report.markdown.contains("| single | 1/3 | 33.3 % |"), "{}", report.markdown);
    assert!(report.markdown.contains("| 1 | 1 |"), "{}", report.markdown);
}

#[test]
fn a_debate_is_scored_on_its_vote_or_on_its_judge_and_the_judge_is_asked_for_the_answer() {
    let data = dataset(1);
    let mut s = spec(json!({"name": "rotating-challenger"}), &["a", "b", "c"], 2, true);
    s.question = "What is 0 + 1?".into();
    s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
    let mut judge_prompt = String::new();
    let run = drive(Session::new(s).unwrap(), |r| match r.purpose {
        Purpose::Judge => {
            judge_prompt = r.messages.iter().map(|m| m.content.as_str()).collect();
            reply(r, "The panel erred; the sum is one.\nANSWER: 1")
        }
        // Every seat (challenger or not) says 2: the vote is wrong in every round.
        _ => reply(r, "ANSWER: 2"),
    });
    assert!(judge_prompt.contains("the council's final answer"), "{judge_prompt}");
    let t = serde_json::to_string(&run.session.transcript()).unwrap();
    let results = agon_core::batch::result_line("q0", "", &t).unwrap() + "\n";
    let report = eval::report(
        "one",
        &data,
        &[
            Arm { name: "rr (vote)", results: &results, scoring: Scoring::Vote },
            Arm { name: "rr (judge)", results: &results, scoring: Scoring::Judge },
        ],
    );
    let lines: Vec<Value> = report.items.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!((lines[0]["answer"].clone(), lines[0]["correct"].clone()), (json!("2"), json!(false)));
    // The blind answers first, then each of the two rounds: wrong in all three.
    assert_eq!(lines[0]["by_round"], json!([false, false, false]));
    assert_eq!((lines[1]["answer"].clone(), lines[1]["correct"].clone()), (json!("1"), json!(true)));
    assert!(report.markdown.contains("rr (vote) vs rr (judge)"), "{}", report.markdown);
    let files: Vec<&str> = report.pictures.iter().map(|p| p.file).collect();
    assert_eq!(files, ["accuracy.svg", "cost.svg", "rounds.svg"]);
}

#[test]
fn a_regex_item_is_right_only_when_the_whole_answer_matches() {
    let data = r#"{"id": "q0", "question": "Who wrote 1984?", "answer": "(george )?orwell", "kind": "regex"}"#;
    let document: Value = serde_json::from_str(eval::VOTE_DOCUMENT).unwrap();
    let mut results = String::new();
    for (arm, text) in [("full", "ANSWER: George Orwell"), ("part", "ANSWER: Orwell's friend")] {
        let mut s = spec(json!({"name": "vote", "document": document}), &["a"], 1, false);
        s.question = "Who wrote 1984?".into();
        s.answer = Some(serde_json::from_value(json!({})).unwrap());
        let run = drive(Session::new(s).unwrap(), |r| reply(r, text));
        let t = serde_json::to_string(&run.session.transcript()).unwrap();
        results.push_str(&format!("{arm}\t{}\n", agon_core::batch::result_line("q0", "", &t).unwrap()));
    }
    let arm = |name: &str| -> String {
        results.lines().filter_map(|l| l.strip_prefix(&format!("{name}\t"))).map(|l| format!("{l}\n")).collect()
    };
    let (full, part) = (arm("full"), arm("part"));
    let report = eval::report(
        "regex",
        data,
        &[
            Arm { name: "full", results: &full, scoring: Scoring::Vote },
            Arm { name: "part", results: &part, scoring: Scoring::Vote },
        ],
    );
    let lines: Vec<Value> = report.items.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["correct"], json!(true), "{}", report.items);
    assert_eq!(lines[1]["correct"], json!(false), "{}", report.items);
}

/// One vote-document debate of `seats` seats on "What is {i} + 1?", each seat replying as `say` says.
fn debate_line(i: usize, question: &str, seats: usize, say: impl Fn(usize) -> agon_core::Input + Copy) -> String {
    let document: Value = serde_json::from_str(eval::VOTE_DOCUMENT).unwrap();
    let ids: Vec<String> = (0..seats).map(|k| format!("s{k}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut s = spec(json!({"name": "vote", "document": document}), &ids, 1, false);
    s.question = question.to_string();
    s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
    let mut k = 0;
    let run = drive(Session::new(s).unwrap(), |r| {
        let mut input = say(k);
        k += 1;
        match &mut input {
            agon_core::Input::Reply { id, .. } | agon_core::Input::Failed { id, .. } => *id = r.id,
        }
        input
    });
    let t = serde_json::to_string(&run.session.transcript()).unwrap();
    agon_core::batch::result_line(&format!("q{i}"), "", &t).unwrap() + "\n"
}

fn said(text: &str) -> agon_core::Input {
    agon_core::Input::Reply { id: 0, text: text.into(), usage: None, stop: None, model: None }
}

#[test]
fn failures_cut_seats_and_stale_lines_are_counted_apart_from_wrong_answers() {
    let data = dataset(4);
    let mut results = String::new();
    // q0: right. q1: one seat's call failed, the others right: failed, still scored.
    results += &debate_line(0, "What is 0 + 1?", 1, |_| said("ANSWER: 1"));
    results += &debate_line(1, "What is 1 + 1?", 3, |k| match k {
        0 => agon_core::Input::Failed {
            id: 0,
            kind: agon_core::FailureKind::ProviderError,
            message: "HTTP 500".into(),
            usage: None,
        },
        _ => said("ANSWER: 2"),
    });
    // q2: a line for another question under the same id: stale, never scored.
    results += &debate_line(2, "What is 200 + 1?", 1, |_| said("ANSWER: 3"));
    // q3: two seats cut mid-working, one right: the cut seats are no vote.
    results += &debate_line(3, "What is 3 + 1?", 3, |k| match k {
        2 => said("ANSWER: 4"),
        _ => agon_core::Input::Reply {
            id: 0,
            text: "Working: 3 + 1, then 5".into(),
            usage: None,
            stop: Some(agon_core::StopReason::TokenLimit),
            model: None,
        },
    });
    let report = eval::report("four", &data, &[Arm { name: "vote", results: &results, scoring: Scoring::Vote }]);
    let lines: Vec<Value> = report.items.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[1]["failed"], json!(true), "{}", report.items);
    assert_eq!((lines[2]["stale"].clone(), lines[2]["ran"].clone()), (json!(true), json!(false)));
    assert_eq!((lines[3]["answer"].clone(), lines[3]["seats_cut"].clone()), (json!("4"), json!(2)));
    let json: Value = serde_json::from_str(&report.json).unwrap();
    let arm = &json["arms"][0];
    assert_eq!((arm["right"].clone(), arm["failed"].clone(), arm["stale"].clone()), (json!(3), json!(1), json!(1)));
    assert_eq!(arm["seats_cut"], json!(2));
    assert!(report.markdown.contains("**Failures**: vote (1 of 4)"), "{}", report.markdown);
    assert_eq!(json["dataset"]["items"], json!(4));
}

#[test]
fn repeats_are_clustered_by_item_and_fields_break_accuracy_down() {
    // Two items, two samples each: q0 right twice (subject a), q1 right once (subject b).
    let data = "{\"id\": \"q0\", \"question\": \"What is 0 + 1?\", \"answer\": \"1\", \"kind\": \"number\", \"subject\": \"a\"}\n\
                {\"id\": \"q1\", \"question\": \"What is 1 + 1?\", \"answer\": \"2\", \"kind\": \"number\", \"subject\": \"b\"}\n";
    let mut results = String::new();
    results += &debate_line(0, "What is 0 + 1?", 1, |_| said("ANSWER: 1"));
    results +=
        &debate_line(0, "What is 0 + 1?", 1, |_| said("ANSWER: 1")).replacen("\"id\":\"q0\"", "\"id\":\"q0~2\"", 1);
    results += &debate_line(1, "What is 1 + 1?", 1, |_| said("ANSWER: 2"));
    results +=
        &debate_line(1, "What is 1 + 1?", 1, |_| said("ANSWER: 5")).replacen("\"id\":\"q1\"", "\"id\":\"q1~2\"", 1);
    let options = eval::Options { by: vec!["subject".into()], ..Default::default() };
    let report =
        eval::report_with("two", data, &[Arm { name: "vote", results: &results, scoring: Scoring::Vote }], &options);
    let json: Value = serde_json::from_str(&report.json).unwrap();
    let arm = &json["arms"][0];
    // Item means 1 and 0.5: accuracy 0.75; clustered se √(((0.25)² + (0.25)²) / (2·1)) = 0.25.
    assert_eq!(arm["samples_per_item"], json!(2));
    assert!((arm["accuracy"].as_f64().unwrap() - 0.75).abs() < 1e-12, "{arm}");
    assert!((arm["standard_error_clustered"].as_f64().unwrap() - 0.25).abs() < 1e-12, "{arm}");
    assert_eq!(json["by"]["subject"][0]["value"], json!("a"));
    assert!((json["by"]["subject"][1]["accuracy"]["vote"].as_f64().unwrap() - 0.5).abs() < 1e-12);
    assert!(report.markdown.contains("## By subject"), "{}", report.markdown);
    assert!(report.markdown.contains("| b | 1 | 50.0 % |"), "{}", report.markdown);
}

#[test]
fn the_settings_line_keys_results_to_what_asked_them() {
    let spec_json = |model: &str, temperature: f64| {
        json!({"question": "q", "panel": [{"id": "a", "model": model}], "limits": {"temperature": temperature},
               "protocol": {"name": "vote"}, "seed": 0, "prices": {model: {"input": 1.0, "output": 2.0}}})
        .to_string()
    };
    let key = |s: &str| -> String {
        let v: Value = serde_json::from_str(&eval::settings_line(s).unwrap()).unwrap();
        v[eval::SETTINGS_FIELD]["key"].as_str().unwrap().to_string()
    };
    let base = key(&spec_json("openai/a", 0.0));
    assert_ne!(base, key(&spec_json("openai/b", 0.0)), "another model is another key");
    assert_ne!(base, key(&spec_json("openai/a", 0.7)), "another temperature is another key");
    // The item's question and the prices are not settings of the arm.
    let other_question = spec_json("openai/a", 0.0).replace("\"question\":\"q\"", "\"question\":\"r\"");
    assert_eq!(base, key(&other_question));
    let line = eval::settings_line(&spec_json("openai/a", 0.0)).unwrap();
    assert!(line.contains(agon_core::journal::ENGINE_VERSION) && !line.contains("prices"), "{line}");
    // The report names what produced an arm.
    let results = format!("{line}\n");
    let report = eval::report("none", &dataset(1), &[Arm { name: "vote", results: &results, scoring: Scoring::Vote }]);
    assert!(report.markdown.contains("| vote | the seats' vote | vote | openai/a | none |"), "{}", report.markdown);
}

/// A host that reads the dataset itself and hands over what it read passes the
/// lines it skipped: the report lists them as it lists those it skipped itself.
#[test]
fn lines_the_host_skipped_are_listed_as_the_engines_own() {
    let data = "{\"id\": \"q0\", \"question\": \"What is 0 + 1?\", \"answer\": \"1\", \"kind\": \"number\"}\n";
    let results = debate_line(0, "What is 0 + 1?", 1, |_| said("ANSWER: 1"));
    let arms = [Arm { name: "vote", results: &results, scoring: Scoring::Vote }];
    let raw = format!("{data}not an item\n");
    let own = eval::report("d", &raw, &arms);
    let options = eval::Options {
        skipped: vec!["line 2: expected ident at line 1 column 2; skipped".into()],
        ..Default::default()
    };
    let passed = eval::report_with("d", data, &arms, &options);
    assert!(own.markdown.contains("- line 2: expected ident at line 1 column 2; skipped"), "{}", own.markdown);
    assert_eq!(passed.markdown, own.markdown);
    assert_eq!(passed.json, own.json);
}

/// Three seats debate three rounds of round-robin. Each seat's first answer
/// is right with probability `P0`; in each later round a right seat turns
/// wrong with probability `A` and a wrong one turns right with probability
/// `B` (every wrong seat says the same wrong number, so a vote never ties).
/// The expected flips follow from those parameters alone; each count lands
/// within four binomial standard deviations of its expectation.
#[test]
fn transitions_per_round_land_where_the_known_flip_rates_put_them() {
    const N: usize = 600;
    const P0: f64 = 0.5;
    const A: f64 = 0.1; // right → wrong
    const B: f64 = 0.4; // wrong → right
    let data = dataset(N);
    let mut rng = Rng(52);
    let mut results = String::new();
    // What the simulation made each seat say: (item, round, seat) → right.
    let mut truth: std::collections::BTreeMap<(usize, u32, String), bool> = Default::default();
    for i in 0..N {
        let mut s = spec(json!({"name": "round-robin"}), &["a", "b", "c"], 3, false);
        s.question = format!("What is {i} + 1?");
        s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
        let mut right: std::collections::BTreeMap<String, bool> = Default::default();
        let run = drive(Session::new(s).unwrap(), |r| {
            let now = match right.get(&r.seat) {
                None => rng.unit() < P0,
                Some(true) => rng.unit() >= A,
                Some(false) => rng.unit() < B,
            };
            right.insert(r.seat.clone(), now);
            truth.insert((i, r.round, r.seat.clone()), now);
            let said = if now { i + 1 } else { i + 2 };
            agon_core::Input::Reply {
                id: r.id,
                text: format!("Working it out.\nANSWER: {said}"),
                usage: Some(agon_core::Usage::new(100, 10)),
                stop: None,
                model: None,
            }
        });
        let t = serde_json::to_string(&run.session.transcript()).unwrap();
        results.push_str(&agon_core::batch::result_line(&format!("q{i}"), "", &t).unwrap());
        results.push('\n');
    }
    let report = eval::report("flips", &data, &[Arm { name: "rr", results: &results, scoring: Scoring::Vote }]);
    let json: Value = serde_json::from_str(&report.json).unwrap();
    let sets = json["arms"][0]["rounds"]["turn_sets"].as_array().unwrap().clone();
    assert_eq!(sets.len(), 3, "{}", report.json);

    // Each seat's chance of being right after each set: p' = p(1 − A) + (1 − p)B.
    let mut p = vec![P0];
    for _ in 1..3 {
        let q = *p.last().unwrap();
        p.push(q * (1.0 - A) + (1.0 - q) * B);
    }
    let within = |what: &str, seen: f64, q: f64| {
        let (mean, sd) = (N as f64 * q, (N as f64 * q * (1.0 - q)).sqrt());
        println!("{what}: {seen} (expected {mean:.1} ± {sd:.1})");
        assert!((seen - mean).abs() <= 4.0 * sd + 1e-9, "{what}: {seen}, expected {mean:.1} ± 4 × {sd:.1}");
    };
    // The plurality of three, from each seat's pair of states (before, after),
    // enumerated over the 4³ joint outcomes of three independent seats.
    let plurality = |k: usize| {
        let pair = [
            (true, true, p[k - 1] * (1.0 - A)),
            (true, false, p[k - 1] * A),
            (false, true, (1.0 - p[k - 1]) * B),
            (false, false, (1.0 - p[k - 1]) * (1.0 - B)),
        ];
        let (mut lost, mut won) = (0.0, 0.0);
        for x in pair {
            for y in pair {
                for z in pair {
                    let before = u8::from(x.0) + u8::from(y.0) + u8::from(z.0) >= 2;
                    let after = u8::from(x.1) + u8::from(y.1) + u8::from(z.1) >= 2;
                    let chance = x.2 * y.2 * z.2;
                    if before && !after {
                        lost += chance;
                    }
                    if !before && after {
                        won += chance;
                    }
                }
            }
        }
        (lost, won)
    };
    for (k, set) in sets.iter().enumerate() {
        // Exactly one seat right: a right answer in the pool that the plurality loses.
        let gap = 3.0 * p[k] * (1.0 - p[k]).powi(2);
        within(
            &format!("set {} lost in the pool", k + 1),
            set["right_in_pool_lost_by_plurality"].as_f64().unwrap(),
            gap,
        );
        within(
            &format!("set {} accuracy", k + 1),
            set["accuracy"].as_f64().unwrap() * N as f64,
            3.0 * p[k].powi(2) - 2.0 * p[k].powi(3),
        );
        if k == 0 {
            continue;
        }
        for seat in set["seats"].as_array().unwrap() {
            let s = seat["seat"].as_str().unwrap();
            // Exactly the flips the simulation made.
            let truth = &truth;
            let round = |r: u32| (0..N).map(move |i| truth[&(i, r, s.to_string())]);
            let made = round(k as u32).zip(round(k as u32 + 1));
            let (lost, won) = made.fold((0, 0), |(l, w), (x, y)| (l + u64::from(x && !y), w + u64::from(!x && y)));
            assert_eq!((seat["right_to_wrong"].as_u64(), seat["wrong_to_right"].as_u64()), (Some(lost), Some(won)));
            within(&format!("set {} {s} right→wrong", k + 1), seat["right_to_wrong"].as_f64().unwrap(), p[k - 1] * A);
            within(
                &format!("set {} {s} wrong→right", k + 1),
                seat["wrong_to_right"].as_f64().unwrap(),
                (1.0 - p[k - 1]) * B,
            );
        }
        let (lost, won) = plurality(k);
        within(
            &format!("set {} plurality right→wrong", k + 1),
            set["plurality_right_to_wrong"].as_f64().unwrap(),
            lost,
        );
        within(&format!("set {} plurality wrong→right", k + 1), set["plurality_wrong_to_right"].as_f64().unwrap(), won);
        // Every call is 110 tokens, three a set: a set spends 330 tokens an item.
        assert!((set["tokens_per_item"].as_f64().unwrap() - 330.0).abs() < 1e-9, "{set}");
    }
    // Accuracy rises each round here (0.5, 0.65, 0.725 per seat): it never stopped rising.
    assert_eq!(json["arms"][0]["rounds"]["accuracy_stopped_rising_after"], json!(3));
    assert!(report.markdown.contains("## What each round did"), "{}", report.markdown);
    assert!(report.markdown.contains("accuracy rose, or held, to the last turn set (3)"), "{}", report.markdown);
    println!("{}", report.markdown);
    // Scored again: the same bytes.
    let again = eval::report("flips", &data, &[Arm { name: "rr", results: &results, scoring: Scoring::Vote }]);
    assert_eq!(again, report);
}

/// The self-correction arm's seats revise alone: every prompt shows the
/// seat's own earlier answers and never another seat's.
#[test]
fn a_self_correcting_seat_sees_its_own_answers_and_no_peer() {
    let document: Value = serde_json::from_str(eval::SELF_CORRECT_DOCUMENT).unwrap();
    let mut s = spec(json!({"name": "self-correct", "document": document}), &["a", "b", "c"], 3, false);
    s.question = "What is 2 + 2?".into();
    s.answer = Some(serde_json::from_value(json!({"kind": "number"})).unwrap());
    let mut prompts = Vec::new();
    let run = drive(Session::new(s).unwrap(), |r| {
        prompts.push((r.seat.clone(), r.round, r.messages.iter().map(|m| m.content.clone()).collect::<String>()));
        reply(r, format!("My working, mark-{}-{}.\nANSWER: 4", r.seat, r.round))
    });
    assert_eq!(prompts.len(), 9, "three seats, three rounds");
    for (seat, round, prompt) in &prompts {
        for earlier in 1..*round {
            assert!(
                prompt.contains(&format!("mark-{seat}-{earlier}")),
                "{seat} round {round} misses its own: {prompt}"
            );
        }
        for other in ["a", "b", "c"].iter().filter(|o| *o != seat) {
            assert!(!prompt.contains(&format!("mark-{other}-")), "{seat} round {round} sees {other}: {prompt}");
        }
    }
    assert!(run.session.transcript().synthesis.is_none());
}

/// Two seats of round-robin over four rounds, saying `said(seat, round)`, with the option or without.
fn until_unchanged(
    stop: Option<bool>,
    said: impl Fn(&str, u32) -> agon_core::Input,
) -> Result<common::Run, agon_core::Error> {
    let mut protocol = json!({"name": "round-robin"});
    if let Some(stop) = stop {
        protocol["stop_when_unchanged"] = json!(stop);
    }
    let s = unchanged_spec(protocol, Some(json!({"kind": "number"})))?;
    Ok(drive(Session::new(s)?, |r| match said(&r.seat, r.round) {
        agon_core::Input::Reply { text, usage, stop, model, .. } => {
            agon_core::Input::Reply { id: r.id, text, usage, stop, model }
        }
        other => other,
    }))
}

fn unchanged_spec(protocol: Value, answer: Option<Value>) -> Result<agon_core::DebateSpec, agon_core::Error> {
    let mut v = json!({
        "question": "What is 1 + 1?",
        "panel": [{"id": "a", "model": "openai/a"}, {"id": "b", "model": "openai/b"}],
        "protocol": protocol,
        "rounds": 4,
        "seed": 7,
    });
    if let Some(answer) = answer {
        v["answer"] = answer;
    }
    agon_core::DebateSpec::from_json(&v.to_string())
}

#[test]
fn a_debate_asked_to_stop_when_no_answer_changes_stops_there_and_says_why() {
    // a: 3, then 2 from round 2 on; b: 2 throughout. Round 3 changes nothing.
    let answer = |seat: &str, round: u32| said(&format!("ANSWER: {}", if seat == "a" && round == 1 { 3 } else { 2 }));
    let run = until_unchanged(Some(true), answer).unwrap();
    let outcome = serde_json::to_value(&run.session.transcript().outcome).unwrap();
    assert_eq!(outcome["rounds_run"], json!(3), "{outcome}");
    assert!(
        outcome["reason"]
            .as_str()
            .unwrap()
            .contains("stopped after round 3: no seat's answer changed from the round before"),
        "{outcome}"
    );
    assert_eq!(run.requests.len(), 6);
    // Without the option, all four rounds.
    let full = until_unchanged(None, answer).unwrap();
    assert_eq!(full.requests.len(), 8);
    // A turn cut at its limit is no answer: it never shows that nothing changed.
    let cut = until_unchanged(Some(true), |seat, round| match (seat, round) {
        ("b", 3) => agon_core::Input::Reply {
            id: 0,
            text: "ANSWER: 2".into(),
            usage: None,
            stop: Some(agon_core::StopReason::TokenLimit),
            model: None,
        },
        _ => answer(seat, round),
    })
    .unwrap();
    // Round 3 has a cut turn; round 4 is the last: the debate runs its four rounds.
    assert_eq!(cut.requests.len(), 8);
    // A debate that reads no answer cannot compare answers: refused, naming the option.
    let err = unchanged_spec(json!({"name": "round-robin", "stop_when_unchanged": true}), None).expect_err("refused");
    let err = err.to_string();
    assert!(err.contains("protocol.stop_when_unchanged"), "{err}");
}

/// Rotating-challenger honours the option too: its blind answers are the
/// round before round 1, and the challenger's turn is not its answer.
#[test]
fn rotating_challenger_stops_when_no_answer_changes_and_leaves_the_challenger_out() {
    let protocol = json!({"name": "rotating-challenger", "stop_when_unchanged": true});
    let mut v = json!({
        "question": "What is 1 + 1?",
        "panel": [{"id": "a", "model": "openai/a"}, {"id": "b", "model": "openai/b"}, {"id": "c", "model": "openai/c"}],
        "protocol": protocol, "rounds": 3, "seed": 7, "answer": {"kind": "number"},
    });
    let run = |v: &Value| {
        drive(Session::new(agon_core::DebateSpec::from_json(&v.to_string()).unwrap()).unwrap(), |r| {
            // The challenger says something else each time: never counted.
            // Round r's challenger is seat (r − 1) mod 3: a, b, c.
            let challenger = r.round > 0 && r.seat == ["a", "b", "c"][(r.round as usize - 1) % 3];
            let text = if challenger && r.purpose == Purpose::Turn {
                format!("I doubt it.\nANSWER: {}", 10 + r.round)
            } else {
                "It is two.\nANSWER: 2".to_string()
            };
            reply(r, text)
        })
    };
    let stopped = run(&v);
    let outcome = serde_json::to_value(&stopped.session.transcript().outcome).unwrap();
    assert_eq!(outcome["rounds_run"], json!(1), "{outcome}");
    assert!(outcome["reason"].as_str().unwrap().contains("no seat's answer changed"), "{outcome}");
    v["protocol"] = json!({"name": "rotating-challenger"});
    let full = run(&v);
    assert!(full.requests.len() > stopped.requests.len());
}
