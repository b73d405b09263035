//! `agon batch` against the test server: the global limit on requests in
//! flight holds across debates, a rerun runs only what is missing, and bad
//! lines are named and skipped.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    env.command(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .output()
        .unwrap()
}

fn results(env: &Sandbox) -> Vec<Value> {
    std::fs::read_to_string(env.root.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const ARGS: [&str; 12] = [
    "batch",
    "questions.jsonl",
    "--output",
    "results.jsonl",
    "--protocol",
    "rotating-challenger",
    "--panel",
    "openai/a,openai/b,openai/c",
    "--rounds",
    "1",
    "--concurrency",
    "2",
];

#[test]
fn many_debates_share_one_limit_on_requests_in_flight_and_resume() {
    let env = Sandbox::new("batch", "limit");
    // Question 2 holds raw UTF-8 and a C1 control, which a results line escapes.
    let extra = |i| if i == 2 { " Café \\u0085 ☕" } else { "" };
    let questions: String =
        (1..=4).map(|i| format!("{{\"id\": \"q{i}\", \"question\": \"Question {i}?{}\"}}\n", extra(i))).collect();
    std::fs::write(env.root.join("questions.jsonl"), questions).unwrap();
    // Two debates at once would put six blind calls in flight; the limit is four.
    // The server holds replies until four are in flight, so the limit is also reached.
    let server = TestServer::start(Config { hold_until_in_flight: Some(4), ..Default::default() }, 0).unwrap();
    let out = agon(&env, &server, &[&ARGS[..], &["--max-in-flight", "4"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats = server.stats();
    assert_eq!(stats.max_in_flight, 4, "the limit held across debates, and was reached");
    let lines = results(&env);
    let mut ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["q1", "q2", "q3", "q4"]);
    for l in &lines {
        assert!(matches!(l["outcome"].as_str(), Some("completed" | "consensus")), "{l}");
        assert!(l["synthesis"].as_str().unwrap().starts_with("a answer"), "the first panel model judges: {l}");
        assert_eq!(l["transcript"]["question"], l["question"]);
    }
    let per_debate = stats.requests.len() / 4;
    // The engine writes each line (agon.ray writes the same): byte for byte the
    // line this host derived itself before, from the transcript alone.
    for raw in std::fs::read_to_string(env.root.join("results.jsonl")).unwrap().lines() {
        let line: Value = serde_json::from_str(raw).unwrap();
        let t = &line["transcript"];
        let derived = serde_json::json!({
            "id": line["id"], "question": line["question"], "outcome": t["outcome"]["kind"],
            "reason": t["outcome"]["reason"], "synthesis": t["synthesis"]["text"],
            "cost_micro_usd": t["usage"]["total"]["cost_micro_usd"], "transcript": t,
        });
        assert_eq!(raw, agon_cli::output::json_text(&derived.to_string()), "the line as it was derived");
        assert!(!raw.contains('\u{85}'), "C1 controls escaped");
    }

    // Remove one finished line: a rerun debates only that question again.
    let kept: Vec<String> = lines.iter().filter(|l| l["id"] != "q3").map(|l| l.to_string()).collect();
    std::fs::write(env.root.join("results.jsonl"), kept.join("\n") + "\n").unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &ARGS);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 to run, 3 already in results.jsonl"));
    assert_eq!(server.stats().requests.len(), per_debate, "only q3 was debated again");
    assert!(server.stats().requests.iter().all(|r| r.messages.to_string().contains("Question 3?")));
    assert_eq!(results(&env).len(), 4);
}

#[test]
fn bad_lines_are_named_and_skipped() {
    let env = Sandbox::new("batch", "bad");
    std::fs::write(env.root.join("questions.jsonl"), "{\"id\": \"ok\", \"question\": \"Fine?\"}\n{oops\n").unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &ARGS);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("questions.jsonl: line 2 is not valid JSON"), "{stderr}");
    assert!(stderr.contains("1 complete") && stderr.contains("1 line(s) skipped"), "{stderr}");
    assert_eq!(results(&env).len(), 1);
}

/// Issue 34: a batch killed mid-debate started that debate again from
/// nothing, paying for every answered call twice. Each debate keeps a
/// journal while it runs: the rerun asks only what was never answered.
#[test]
fn a_killed_batch_resumes_each_debate_without_paying_twice() {
    use agon_testkit::ModelScript;
    let env = Sandbox::new("batch", "killed");
    std::fs::write(env.root.join("questions.jsonl"), "{\"id\": \"q/1\", \"question\": \"Tabs or spaces?\"}\n").unwrap();
    let args = [
        "batch",
        "questions.jsonl",
        "--output",
        "results.jsonl",
        "--protocol",
        "round-robin",
        "--panel",
        "openai/a,openai/b",
        "--judge",
        "openai/j",
        "--rounds",
        "1",
    ];
    // The judge never answers in time: the batch is killed while it waits.
    let mut config = Config::default();
    config.models.insert("j".into(), ModelScript { latency_ms: Some(120_000), ..Default::default() });
    let slow = TestServer::start(config, 0).unwrap();
    let mut child = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", slow.url()))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !slow.stats().requests.iter().any(|r| r.model == "j") {
        assert!(std::time::Instant::now() < deadline, "the judge was never asked");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: nothing is tidied up
    child.wait().unwrap();
    let panel_calls = slow.stats().requests.iter().filter(|r| r.model != "j").count();
    assert_eq!(panel_calls, 2);
    assert!(env.root.join("results.jsonl.journals/q%2F1.ndjson").exists(), "its journal is there");

    let fast = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &fast, &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let asked: Vec<String> = fast.stats().requests.iter().map(|r| r.model.clone()).collect();
    assert_eq!(asked, ["j"], "only the judge, whose call was never answered");
    let lines = results(&env);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["outcome"], "completed", "{}", lines[0]);
    assert_eq!(lines[0]["transcript"]["turns"].as_array().map(Vec::len), Some(2), "both turns, from the journal");
    assert!(!env.root.join("results.jsonl.journals/q%2F1.ndjson").exists(), "removed once its line is written");
}
