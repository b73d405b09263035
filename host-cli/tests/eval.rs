//! `agon eval` against the test server: the single and vote arms answer the
//! same items, the report scores them with one reader (an unreadable answer
//! is wrong), a rerun pays for nothing, and `--rescore` gives the same
//! report without a call.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    env.command(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .output()
        .unwrap()
}

fn script(replies: &[&str]) -> ModelScript {
    ModelScript { replies: replies.iter().map(|r| r.to_string()).collect(), ..Default::default() }
}

const ARGS: [&str; 12] = [
    "eval",
    "data.jsonl",
    "--output",
    "out",
    "--arm",
    "single",
    "--arm",
    "vote",
    "--panel",
    "openai/a,openai/b,openai/c",
    "--concurrency",
    "1",
];

#[test]
fn arms_answer_the_same_items_and_are_scored_alike_then_rescored_without_a_call() {
    let env = Sandbox::new("eval", "arms");
    let data = [
        r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#,
        r#"{"id": "q2", "question": "What is 2+2?", "answer": "4", "kind": "number"}"#,
        "not an item",
        r#"{"id": "q3", "question": "What is 3+3?", "answer": "6", "kind": "number"}"#,
    ];
    std::fs::write(env.root.join("data.jsonl"), data.join("\n")).unwrap();
    let mut config = Config::default();
    // Single (a alone): right, wrong, unreadable. Vote (a, b, c): 2/2/3, 4/4/4, 7/6/6 — all right.
    config.models.insert(
        "a".into(),
        script(&["ANSWER: 2", "ANSWER: 5", "I am not sure.", "ANSWER: 2", "ANSWER: 4", "ANSWER: 7"]),
    );
    config.models.insert("b".into(), script(&["ANSWER: 2", "ANSWER: 4", "ANSWER: 6"]));
    config.models.insert("c".into(), script(&["ANSWER: 3", "ANSWER: 4", "ANSWER: 6"]));
    let server = TestServer::start(config, 0).unwrap();
    let out = agon(&env, &server, &ARGS);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("data.jsonl: line 3: "), "{stderr}");
    // One Ctrl-C handler for the whole evaluation, not one refused per arm.
    assert!(!stderr.contains("Ctrl-C cannot be caught"), "{stderr}");
    assert_eq!(server.stats().requests.len(), 3 + 9);
    // Every prompt asks for the answer line, with the same words.
    assert!(server.stats().requests.iter().all(|r| r.messages.to_string().contains("ANSWER:")));

    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("| single | 1/3 | 33.3 % |"), "{report}");
    assert!(report.contains("- line 3: expected ident at line 1 column 2; skipped"), "{report}");
    assert!(report.contains("| vote | 3/3 | 100.0 % |"), "{report}");
    // Only the vote right on q2 and q3: p = 2 · (1/2)² = 0.5.
    assert!(report.contains("| single vs vote | -66.7 points | 0 | 2 | 0.5000 |"), "{report}");
    let items: Vec<Value> = std::fs::read_to_string(env.root.join("out/items.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let q3 = items.iter().find(|i| i["arm"] == "single" && i["id"] == "q3").unwrap();
    assert_eq!((q3["correct"].clone(), q3["no_answer"].clone()), (Value::Bool(false), Value::Bool(true)));
    assert!(std::fs::read_to_string(env.root.join("out/accuracy.svg")).unwrap().starts_with("<svg"));

    // A rerun finds every debate done; --rescore makes no call and writes the same bytes.
    let again = agon(&env, &server, &ARGS);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let rescored = agon(&env, &server, &[&ARGS[..], &["--rescore"]].concat());
    assert!(rescored.status.success(), "{}", String::from_utf8_lossy(&rescored.stderr));
    assert_eq!(server.stats().requests.len(), 12, "no call after the first run");
    assert_eq!(std::fs::read_to_string(env.root.join("out/report.md")).unwrap(), report);
}

#[test]
fn a_protocol_whose_turns_have_a_shape_is_refused_by_name() {
    let env = Sandbox::new("eval", "refused");
    std::fs::write(
        env.root.join("data.jsonl"),
        r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#,
    )
    .unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(
        &env,
        &server,
        &["eval", "data.jsonl", "-o", "out", "--arm", "adversarial", "--panel", "openai/a,openai/b"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("answer") && stderr.contains("adversarial") && stderr.contains("round-robin"), "{stderr}");
    assert_eq!(server.stats().requests.len(), 0);
}

#[test]
fn an_evaluation_file_gives_each_arm_its_panel_and_scores_a_debate_by_vote_and_by_judge() {
    let env = Sandbox::new("eval", "file");
    std::fs::write(
        env.root.join("data.jsonl"),
        [
            r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#,
            r#"{"id": "q2", "question": "Who wrote 1984?", "answer": "(george )?orwell", "kind": "regex"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    std::fs::write(
        env.root.join("eval.toml"),
        r#"
[[arm]]
name = "judge-alone"
protocol = "single"
panel = ["openai/j"]

[[arm]]
name = "debate"
protocol = "rotating-challenger"
panel = ["openai/a", "openai/b", "openai/c"]
rounds = 1
judge = "openai/j"
score = "both"
"#,
    )
    .unwrap();
    let mut config = Config::default();
    // The panel is wrong on both items; the judge is right alone and as the judge.
    for seat in ["a", "b", "c"] {
        config.models.insert(seat.into(), script(&["ANSWER: 3"; 8]));
    }
    config.models.insert("j".into(), script(&["ANSWER: 2", "ANSWER: George Orwell", "ANSWER: 2", "ANSWER: Orwell"]));
    let server = TestServer::start(config, 0).unwrap();
    let args = ["eval", "data.jsonl", "-o", "out", "--arms-file", "eval.toml", "--concurrency", "1"];
    let out = agon(&env, &server, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("evaluation at worst: 4 debate(s) still to run (judge-alone 2; debate 2)"), "{stderr}");
    // The judge is only ever asked by model j; the arm's own panel, not the flags', answered.
    let models: Vec<String> = server.stats().requests.iter().map(|r| r.model.clone()).collect();
    assert!(models.iter().all(|m| ["a", "b", "c", "j"].contains(&m.as_str())), "{models:?}");
    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("| judge-alone | 2/2 | 100.0 % |"), "{report}");
    assert!(report.contains("| debate (vote) | 0/2 | 0.0 % |"), "{report}");
    assert!(report.contains("| debate (judge) | 2/2 | 100.0 % |"), "{report}");
    for picture in ["accuracy.svg", "cost.svg", "rounds.svg"] {
        let svg = std::fs::read_to_string(env.root.join("out").join(picture)).unwrap();
        assert!(svg.starts_with("<svg"), "{picture}");
    }
    // One results file for the arm scored twice.
    assert!(env.root.join("out/debate.jsonl").exists());
}

#[test]
fn the_whole_evaluations_worst_case_is_printed_first_and_held_to_max_cost() {
    let env = Sandbox::new("eval", "max-cost");
    let data: Vec<String> = (1..=20)
        .map(|i| format!(r#"{{"id": "q{i}", "question": "What is {i}+1?", "answer": "{}", "kind": "number"}}"#, i + 1))
        .collect();
    std::fs::write(env.root.join("data.jsonl"), data.join("\n")).unwrap();
    std::fs::write(env.root.join("prices.toml"), "[prices.\"openai/a\"]\ninput = 10\noutput = 30\n").unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    let run = |cap: &str| {
        agon(
            &env,
            &server,
            &["--config", "prices.toml", "eval", "data.jsonl", "-o", "out", "--arm", "single", "--arm", "vote"]
                .into_iter()
                .chain(["--panel", "openai/a", "--votes", "5", "--max-cost", cap])
                .collect::<Vec<_>>(),
        )
    };
    let refused = run("0.0001");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    let worst = stderr.find("evaluation at worst: 40 debate(s) still to run (single 20 × ≤ $").expect(&stderr);
    let refusal = stderr.find("is above --max-cost $0.0001").expect(&stderr);
    assert!(worst < refusal, "the worst case comes first: {stderr}");
    assert_eq!(server.stats().requests.len(), 0, "nothing is spent");

    let ran = run("100");
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    assert_eq!(server.stats().requests.len(), 20 + 100);
}

/// `--max-reply` holds in an evaluation as in a batch: a reply above it fails
/// its call, named, and the item counts as unanswered.
#[test]
fn a_reply_above_max_reply_fails_its_call_in_an_evaluation_too() {
    let env = Sandbox::new("eval", "max-reply");
    let data = r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#;
    std::fs::write(env.root.join("data.jsonl"), data).unwrap();
    let mut config = Config::default();
    let long = format!("{}\nANSWER: 2", "x".repeat(2048));
    // The same long reply to the run without a cap, then to the one with.
    config.models.insert("a".into(), script(&[&long, &long]));
    let server = TestServer::start(config, 0).unwrap();
    let out = agon(&env, &server, &["eval", "data.jsonl", "-o", "out", "--arm", "single", "--panel", "openai/a"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let args = ["eval", "data.jsonl", "-o", "capped", "--arm", "single", "--panel", "openai/a", "--max-reply", "1K"];
    let capped = agon(&env, &server, &args);
    let results = std::fs::read_to_string(env.root.join("capped/single.jsonl")).unwrap();
    assert!(results.contains("--max-reply"), "the failure names the flag: {results}");
    let report = std::fs::read_to_string(env.root.join("capped/report.md")).unwrap();
    assert!(report.contains("| single | 0/1 |"), "{report}\n{}", String::from_utf8_lossy(&capped.stderr));
    let uncapped = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(uncapped.contains("| single | 1/1 |"), "without the cap the same reply is read: {uncapped}");
}

/// A dataset with a byte-order mark and a line that is not UTF-8: the bad
/// line is named and skipped, the first item is not lost to the mark, the
/// rest runs; an output that is a file is refused by name before anything.
#[test]
fn a_bad_line_and_a_byte_order_mark_cost_only_that_line() {
    let env = Sandbox::new("eval", "bad-bytes");
    let mut data = b"\xEF\xBB\xBF".to_vec();
    data.extend_from_slice(br#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#);
    data.extend_from_slice(
        b"\n{\"id\": \"q2\", \"question\": \"caf\xe9?\", \"answer\": \"1\", \"kind\": \"number\"}\n",
    );
    data.extend_from_slice(br#"{"id": "q3", "question": "What is 3+3?", "answer": "6", "kind": "number"}"#);
    std::fs::write(env.root.join("data.jsonl"), data).unwrap();
    let mut config = Config::default();
    config.models.insert("a".into(), script(&["ANSWER: 2", "ANSWER: 6"]));
    let server = TestServer::start(config, 0).unwrap();
    let args = ["eval", "data.jsonl", "--output", "out", "--arm", "single", "--panel", "openai/a"];
    let out = agon(&env, &server, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("data.jsonl: line 2 is not UTF-8 text; skipped"), "{stderr}");
    // The report lists it too, as the engine's report of the raw file would.
    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("1 dataset line(s) skipped:\n\n- line 2 is not UTF-8 text; skipped\n"), "{report}");
    let results = std::fs::read_to_string(env.root.join("out/single.jsonl")).unwrap();
    // The settings line the results open with has no id.
    let mut ids: Vec<String> = results
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    assert_eq!(ids, ["q1", "q3"], "{results}");

    std::fs::write(env.root.join("taken.txt"), "mine").unwrap();
    let out = agon(&env, &server, &["eval", "data.jsonl", "-o", "taken.txt", "--arm", "single", "--panel", "openai/a"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("-o taken.txt: that is a file") && !stderr.contains("os error"), "{stderr}");
    assert_eq!(std::fs::read_to_string(env.root.join("taken.txt")).unwrap(), "mine");
}

#[test]
fn a_changed_setting_asks_again_and_keeps_the_old_results_aside() {
    let env = Sandbox::new("eval", "settings");
    let data = r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#;
    std::fs::write(env.root.join("data.jsonl"), data).unwrap();
    let mut config = Config::default();
    config.models.insert("a".into(), script(&["ANSWER: 3"]));
    config.models.insert("b".into(), script(&["ANSWER: 2"]));
    let server = TestServer::start(config, 0).unwrap();
    let run =
        |model: &str| agon(&env, &server, &["eval", "data.jsonl", "-o", "out", "--arm", "single", "--panel", model]);
    assert!(run("openai/a").status.success());
    let first = std::fs::read_to_string(env.root.join("out/single.jsonl")).unwrap();
    assert!(first.lines().next().unwrap().contains("eval_settings"), "the file opens with its settings: {first}");
    // The same settings again: nothing asked.
    assert!(run("openai/a").status.success());
    assert_eq!(server.stats().requests.len(), 1);
    // Another model under the same output: asked again, never the old answer reused.
    let changed = run("openai/b");
    let stderr = String::from_utf8_lossy(&changed.stderr);
    assert!(changed.status.success(), "{stderr}");
    assert!(stderr.contains("settings changed"), "{stderr}");
    assert_eq!(server.stats().requests.len(), 2, "the item is asked again");
    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("| single | 1/1 |"), "scored on the new answer: {report}");
    // Nothing answered is lost: the first run's results are kept beside.
    let aside: Vec<_> = std::fs::read_dir(env.root.join("out"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("single.settings-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(std::fs::read_to_string(aside[0].path()).unwrap(), first);
}

#[test]
fn an_arm_with_failed_calls_exits_non_zero_and_counts_them_apart_unless_allowed() {
    let env = Sandbox::new("eval", "failures");
    let data = r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#;
    std::fs::write(env.root.join("data.jsonl"), data).unwrap();
    let mut config = Config::default();
    let long = format!("{}\nANSWER: 2", "x".repeat(2048));
    config.models.insert("a".into(), script(&[&long, &long]));
    let server = TestServer::start(config, 0).unwrap();
    // A reply above --max-reply fails its call: an outage, not a wrong answer.
    let args = ["eval", "data.jsonl", "-o", "out", "--arm", "single", "--panel", "openai/a", "--max-reply", "1K"];
    let out = agon(&env, &server, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("failed call"), "{stderr}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(env.root.join("out/report.json")).unwrap()).unwrap();
    assert_eq!(json["arms"][0]["failed"], 1, "{json}");
    assert_eq!(json["arms"][0]["right"], 0, "{json}");
    // Asked to, the same evaluation exits 0 (the failed debate is asked again, and fails again).
    let allowed = agon(&env, &server, &[&args[..], &["--allow-failures"]].concat());
    assert!(allowed.status.success(), "{}", String::from_utf8_lossy(&allowed.stderr));
}

#[test]
fn the_shipped_mmlu_set_breaks_down_by_subject() {
    let env = Sandbox::new("eval", "by-subject");
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/eval/mmlu-100.jsonl");
    std::fs::copy(shipped, env.root.join("mmlu.jsonl")).unwrap();
    let mut config = Config::default();
    config.models.insert("a".into(), script(&["ANSWER: B"; 8]));
    let server = TestServer::start(config, 0).unwrap();
    let args = [
        "eval",
        "mmlu.jsonl",
        "-o",
        "out",
        "--arm",
        "single",
        "--panel",
        "openai/a",
        "--limit",
        "8",
        "--by",
        "subject",
    ];
    let out = agon(&env, &server, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("## By subject"), "{report}");
    assert!(report.contains("abstract_algebra") && report.contains("astronomy"), "{report}");
}

/// `agon eval --rescore` re-derives the published table of docs/src/eval.md
/// ("A published table re-derived") from LLM-Agora's committed replies, with
/// no server: the debate's plurality is right on 13 of 100 items, some
/// model's last answer on 24, and 47 items have no readable answer or a tie.
#[test]
fn rescore_re_derives_the_published_llm_agora_table() {
    let env = Sandbox::new("eval", "llm-agora");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/eval/llm-agora");
    std::fs::copy(fixtures.join("gsm8k.jsonl"), env.root.join("gsm8k.jsonl")).unwrap();
    std::fs::create_dir_all(env.root.join("out")).unwrap();
    std::fs::copy(fixtures.join("debate.jsonl"), env.root.join("out/vote.jsonl")).unwrap();
    let out = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args([
            "eval",
            "gsm8k.jsonl",
            "-o",
            "out",
            "--arm",
            "vote",
            "--panel",
            "openai/llama,openai/wizardlm,openai/orca",
        ])
        .arg("--rescore")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(env.root.join("out/report.json")).unwrap()).unwrap();
    let arm = &json["arms"][0];
    // The figures docs/src/eval.md gives for the debate: the plurality 13 %, some seat right 24 %, 47 unanswered.
    assert_eq!(
        (arm["right"].as_u64(), arm["some_seat_right"].as_u64(), arm["no_answer"].as_u64()),
        (Some(13), Some(24), Some(47)),
        "{arm}"
    );
    let docs =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/eval.md")).unwrap();
    assert!(
        docs.contains("| agon: the three models' plurality | 4 % | 6 % | 13 % |"),
        "docs/src/eval.md's table moved"
    );
    assert!(docs.contains("| agon: some model's answer right | | | 24 % |"), "docs/src/eval.md's table moved");
    assert!(docs.contains("never right: 47 of the"), "docs/src/eval.md's count moved");
}

/// The self-correct arm runs the panel's seats for the flags' rounds, each
/// revising alone (no prompt shows another seat's reply, no judge), and the
/// report says what each round did; `--rescore` gives it again without a call.
#[test]
fn the_self_correct_arm_revises_alone_and_the_report_shows_each_round() {
    let env = Sandbox::new("eval", "self-correct");
    std::fs::write(
        env.root.join("data.jsonl"),
        r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#,
    )
    .unwrap();
    let mut config = Config::default();
    // a: wrong, then right on revising; b: right twice. The first answers tie: no plurality.
    config.models.insert("a".into(), script(&["mark-a-1\nANSWER: 3", "mark-a-2\nANSWER: 2"]));
    config.models.insert("b".into(), script(&["mark-b-1\nANSWER: 2", "mark-b-2\nANSWER: 2"]));
    let server = TestServer::start(config, 0).unwrap();
    let args = [
        "eval",
        "data.jsonl",
        "-o",
        "out",
        "--arm",
        "self-correct",
        "--panel",
        "openai/a,openai/b",
        "--rounds",
        "2",
        "--concurrency",
        "1",
    ];
    let out = agon(&env, &server, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let requests = server.stats().requests;
    assert_eq!(requests.len(), 4, "two seats, two rounds, no judge");
    for r in &requests {
        let (own, other) = if r.model == "a" { ("mark-a", "mark-b") } else { ("mark-b", "mark-a") };
        let text = r.messages.to_string();
        assert!(!text.contains(other), "{} saw {other}: {text}", r.model);
        assert!(text.contains(own) || !text.contains("mark-"), "{text}");
    }
    assert!(requests.iter().filter(|r| r.messages.to_string().contains("mark-")).count() == 2, "round 2 sees round 1");
    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("## What each round did"), "{report}");
    // Set 2: the tie resolved to the right answer (wrong → right 1); seat a 0 / 1, b 0 / 0.
    assert!(report.contains("| 2 | 100.0 % | 0 | 1 | 0 (0.0 %) |"), "{report}");
    assert!(report.contains("a 0 / 1, b 0 / 0 |"), "{report}");
    assert!(report.contains("| 1 | 0.0 % | – | – | 1 (100.0 %) |"), "{report}");
    let rescored = agon(&env, &server, &[&args[..], &["--rescore"]].concat());
    assert!(rescored.status.success(), "{}", String::from_utf8_lossy(&rescored.stderr));
    assert_eq!(server.stats().requests.len(), 4, "no call to rescore");
    assert_eq!(std::fs::read_to_string(env.root.join("out/report.md")).unwrap(), report);
}

/// An arm with `stop_when_unchanged` stops each debate after a round that
/// changed no seat's answer, and the transcript says why.
#[test]
fn an_arm_asked_to_stop_when_unchanged_stops_there() {
    let env = Sandbox::new("eval", "unchanged");
    std::fs::write(
        env.root.join("data.jsonl"),
        r#"{"id": "q1", "question": "What is 1+1?", "answer": "2", "kind": "number"}"#,
    )
    .unwrap();
    std::fs::write(
        env.root.join("arms.toml"),
        "[[arm]]\nname = \"alone\"\nprotocol = \"self-correct\"\npanel = [\"openai/a\", \"openai/b\"]\nrounds = 4\nstop_when_unchanged = true\n",
    )
    .unwrap();
    let mut config = Config::default();
    config.models.insert("a".into(), script(&["ANSWER: 2"; 4]));
    config.models.insert("b".into(), script(&["ANSWER: 3", "ANSWER: 2", "ANSWER: 2", "ANSWER: 2"]));
    let server = TestServer::start(config, 0).unwrap();
    let out =
        agon(&env, &server, &["eval", "data.jsonl", "-o", "out", "--arms-file", "arms.toml", "--concurrency", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Round 2 changes b's answer; round 3 changes none: three rounds of two seats, not four.
    assert_eq!(server.stats().requests.len(), 6);
    let results = std::fs::read_to_string(env.root.join("out/alone.jsonl")).unwrap();
    assert!(results.contains("no seat's answer changed from the round before"), "{results}");
}
