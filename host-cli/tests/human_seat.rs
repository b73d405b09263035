//! A person in a seat (`human/NAME`): asked at the terminal, the prompt shown
//! sanitized, a multi-line answer read from stdin (here piped), no call
//! timeout; `batch` refuses such a seat.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Command {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test-human")
        .env_remove("EDITOR")
        .env_remove("VISUAL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Run with `answers` written to stdin, each after `pause`.
fn run_with_answers(env: &Sandbox, server: &TestServer, args: &[&str], answers: &[&str], pause: Duration) -> Output {
    let mut child = agon(env, server, args).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for a in answers {
        std::thread::sleep(pause);
        stdin.write_all(a.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

const QUESTION: &str = "Tabs or spaces?\x1b]52;c;cGF5bG9hZA==\x07";

#[test]
fn a_person_answers_at_the_terminal_with_no_timeout_and_the_prompt_sanitized() {
    let env = Sandbox::new("human", "answers");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let args = [
        "run",
        QUESTION,
        "--panel",
        "human/alice,openai/b",
        "--judge",
        "openai/judge",
        "--rounds",
        "1",
        "--format",
        "json",
        "--timeout",
        "1",
    ];
    // The answer comes after the call timeout has long passed: a person is never timed out.
    let out = run_with_answers(
        &env,
        &server,
        &args,
        &["Spaces, always.\n", "\nUnless the file says otherwise.\n.\n"],
        Duration::from_millis(1200),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "completed", "{}", t["outcome"]);
    let alice = t["turns"].as_array().unwrap().iter().find(|turn| turn["speaker"] == "alice").expect("alice spoke");
    assert_eq!(alice["text"], "Spaces, always.\n\nUnless the file says otherwise.");
    assert_eq!(alice["model"], "human/alice");
    // The view says whom it waits for; the prompt is shown, its control characters made visible.
    assert!(stderr.contains("waiting for alice (human/alice) to answer at the terminal"), "{stderr}");
    assert!(stderr.contains("alice, your turn"), "{stderr}");
    assert!(stderr.contains("Tabs or spaces?^[]52;c;cGF5bG9hZA==^G"), "{stderr}");
    assert!(!stderr.contains('\x1b') && !stderr.contains('\x07'), "a raw control character reached the terminal");
    // Nobody called a model for the person.
    assert!(server.stats().requests.iter().all(|r| r.model != "alice"));
    // The timeline shows how long the debate waited on her: from being asked
    // to the answer's last line, written 2.4 s after launch.
    let session = std::fs::read_dir(env.root.join("data")).unwrap().next().unwrap().unwrap().path();
    let timings = std::fs::read_to_string(session.join("timings.ndjson")).unwrap();
    let timed: Vec<Value> = timings.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let hers: Vec<&Value> = timed.iter().filter(|t| t["seat"] == "alice").collect();
    assert_eq!(hers.len(), 1, "{timings}");
    assert_eq!((&hers[0]["model"], &hers[0]["ok"]), (&Value::from("human/alice"), &Value::from(true)));
    let waited = hers[0]["end_ms"].as_u64().unwrap() - hers[0]["start_ms"].as_u64().unwrap();
    assert!(waited >= 2000, "{waited} ms");
    assert_eq!(timed.len(), 3, "b, the judge and alice: {timings}");
}

#[test]
fn a_person_can_answer_in_the_editor_and_no_answer_is_a_failed_turn() {
    let env = Sandbox::new("human", "editor");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let editor = env.root.join("editor.sh");
    std::fs::write(&editor, "printf 'Written in the editor.\\n' | cat - \"$1\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n")
        .unwrap();
    let args = ["run", "Q?", "--panel", "human/alice,openai/b", "--judge", "openai/judge", "--rounds", "1"];
    let mut cmd = agon(&env, &server, &[&args[..], &["--format", "json"]].concat());
    cmd.env("EDITOR", format!("sh {}", editor.display()));
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(b":e\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let alice = t["turns"].as_array().unwrap().iter().find(|turn| turn["speaker"] == "alice").unwrap();
    assert_eq!(alice["text"], "Written in the editor.");

    // The input ends with nothing said: the turn fails, the run says so, and the rest is kept.
    let args = ["run", "Q?", "--panel", "human/alice,openai/b,openai/c", "--judge", "openai/judge", "--rounds", "1"];
    let out = run_with_answers(&env, &server, &[&args[..], &["--format", "json"]].concat(), &[], Duration::ZERO);
    assert_eq!(out.status.code(), Some(3), "degraded: {}", String::from_utf8_lossy(&out.stderr));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "degraded");
    assert!(t.to_string().contains("no answer was given"), "{}", t["outcome"]);
    assert!(t["turns"].as_array().unwrap().iter().any(|turn| turn["speaker"] == "b"));
}

#[test]
fn batch_refuses_a_seat_held_by_a_person_naming_it() {
    let env = Sandbox::new("human", "batch");
    let server = TestServer::start(Config::default(), 0).unwrap();
    std::fs::write(env.root.join("q.jsonl"), "\"Q?\"\n").unwrap();
    let args = ["batch", "q.jsonl", "--output", "r.jsonl", "--panel", "openai/a,human/bob", "--judge", "openai/judge"];
    let out = agon(&env, &server, &args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("seat 'bob' is human/bob") && stderr.contains("agon run"), "{stderr}");
    assert!(server.stats().requests.is_empty(), "nothing was called");
    // A person is no model's fallback.
    let out = agon(&env, &server, &["spec", "Q?", "--panel", "openai/a,human/bob|openai/c"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fallback"));
}

/// Seed 001's confirmation: priority-vote's `--confirm-by human/you` seats the
/// person third; after the lenses are counted they get the split items and
/// answer one line per item. Their strict lines are read, nothing else guessed.
#[test]
fn a_person_confirms_the_items_the_lenses_split_on() {
    let env = Sandbox::new("human", "confirm");
    let votes = |levels: [u8; 3]| {
        let entries: Vec<String> = levels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{{\"item\": {}, \"priority\": \"P{l}\", \"why\": \"reason {}\"}}", i + 1, i + 1))
            .collect();
        format!("[{}]", entries.join(", "))
    };
    let mut config = Config::default();
    for (model, levels) in [("urgency", [0, 1, 3]), ("impact", [2, 1, 1])] {
        // One reply for each of the two runs below.
        let script = agon_testkit::ModelScript { replies: vec![votes(levels); 2], ..Default::default() };
        config.models.insert(model.to_string(), script);
    }
    let server = TestServer::start(config, 0).unwrap();
    std::fs::write(env.root.join("items.txt"), "Reply to the CEO\nFix the deploy pipeline\nWrite the hiring plan\n")
        .unwrap();
    let args = [
        "run",
        "Triage these.",
        "--protocol",
        "priority-vote",
        "--items",
        "items.txt",
        "--compete",
        "--panel",
        "openai/urgency,openai/impact",
        "--confirm-by",
        "human/you",
        "--format",
        "json",
    ];
    // Item 1 confirmed at P1; the line for item 3 is not "N: P0"–"N: P3", so item 3 stays to confirm.
    let out = run_with_answers(&env, &server, &args, &["1: P1\n3: later\n.\n"], Duration::ZERO);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("you, your turn") && stderr.contains("ITEMS THE LENSES SPLIT ON"), "{stderr}");
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let you = t["turns"].as_array().unwrap().iter().find(|turn| turn["speaker"] == "you").expect("you answered");
    assert_eq!((&you["phase"], &you["model"]), (&Value::from("confirmation"), &Value::from("human/you")));
    let r = &t["results"];
    assert_eq!(r["confirmed"]["data"]["items"][0]["priority"], "P1", "{t}");
    let left: Vec<&Value> = r["to_confirm"]["data"].as_array().unwrap().iter().map(|i| &i["item"]).collect();
    assert_eq!(left, [&Value::from(3)]);
    let row = r["ranking"]["data"].as_array().unwrap().iter().find(|r| r["item"] == 1).unwrap();
    assert_eq!(row["confirmed"], "P1");

    // Without a terminal, --confirm asks no one: the split items are listed to confirm.
    let args = [&args[..args.len() - 4], &["--confirm", "--format", "json"]].concat();
    let out = run_with_answers(&env, &server, &args, &[], Duration::ZERO);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("--confirm needs a terminal"), "{stderr}");
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["results"]["to_confirm"]["data"].as_array().map(Vec::len), Some(2), "{t}");
    assert!(t.get("confirmed").is_none());
}
