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
    assert_eq!(server.stats().requests.len(), 3 + 9);
    // Every prompt asks for the answer line, with the same words.
    assert!(server.stats().requests.iter().all(|r| r.messages.to_string().contains("ANSWER:")));

    let report = std::fs::read_to_string(env.root.join("out/report.md")).unwrap();
    assert!(report.contains("| single | 1/3 | 33.3 % |"), "{report}");
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
