//! `agon run` end to end against the project's own test server: real HTTP,
//! real streaming, injected faults. Nothing here measures time; latency only
//! makes concurrent calls overlap so the server can count them.

use std::path::Path;
use std::process::{Command, Output};

use agon_testkit::sandbox::scratch;
use agon_testkit::{Config, Fault, ModelScript, TestServer};
use serde_json::Value;
use tempfile::TempDir;

const KEY: &str = "sk-test-never-written-4f2a9c";

fn work_dir(name: &str) -> TempDir {
    scratch(&format!("e2e-{name}"))
}

fn agon(server: Option<&TestServer>, args: &[&str]) -> Output {
    // Sessions and cache of this call's own, gone when it has answered.
    let home = scratch("e2e-home");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agon"));
    cmd.args(args)
        .env("AGON_CACHE_DIR", home.path().join("cache"))
        .env("AGON_DATA_DIR", home.path().join("data"))
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OLLAMA_HOST");
    match server {
        Some(s) => cmd.env("OPENAI_BASE_URL", format!("{}/v1", s.url())).env("OLLAMA_HOST", s.url()),
        None => cmd.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
    };
    cmd.output().unwrap()
}

fn script(replies: &[&str]) -> ModelScript {
    ModelScript { replies: replies.iter().map(|s| s.to_string()).collect(), ..Default::default() }
}

fn faulty(fault: Fault) -> ModelScript {
    ModelScript { fault: Some(fault), ..Default::default() }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn assert_no_key_in(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(!text.contains(KEY), "the API key leaked into {}", path.display());
    }
}

/// The foundation's acceptance run: five seats, blind calls all in flight at
/// once, the challenger rotating, an early stop on consensus that does not
/// count the challenger, and a journal that replays to the same JSON offline.
#[test]
fn five_seat_rotating_challenger_stops_on_consensus_and_replays_offline() {
    // Replies are held until five calls are in flight: a sequential host would show 1.
    let mut config = Config { hold_until_in_flight: Some(5), ..Default::default() };
    let agree = "CONSENSUS: ship the tram in two phases.";
    config.models.insert("s1".into(), script(&["Phase it.", "I disagree with Speaker 3: the budget is fiction."]));
    config.models.insert("s2".into(), script(&["Build it.", agree]));
    config.models.insert("s3".into(), script(&["Build it.", agree]));
    config.models.insert("s4".into(), script(&["Maybe.", agree]));
    config.models.insert("s5".into(), script(&["Buses first.", "The depot site still needs a survey."]));
    let server = TestServer::start(config, 0).unwrap();
    let scratch_dir = work_dir("five");
    let dir = scratch_dir.path();
    let (journal, output, events) = (dir.join("journal.ndjson"), dir.join("out.json"), dir.join("events.ndjson"));
    let out = agon(
        Some(&server),
        &[
            "run",
            "Should the city build the tram?",
            "--protocol",
            "rotating-challenger",
            "--panel",
            "openai/s1,openai/s2,openai/s3,openai/s4,openai/s5",
            "--judge",
            "openai/judge",
            "--rounds",
            "3",
            "--format",
            "json",
            "--output",
            output.to_str().unwrap(),
            "--journal",
            journal.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let stats = server.stats();
    assert_eq!(stats.max_in_flight, 5, "the five blind calls were not in flight together");
    assert_eq!(stats.requests.len(), 5 + 5 + 1, "blind, one round, judge");
    assert!(stats.requests.iter().all(|r| r.stream && r.max_tokens.is_some()));
    assert!(stats.requests.iter().all(|r| r.authorization.as_deref() == Some(&format!("Bearer {KEY}")[..])));

    let t = read_json(&output);
    assert_eq!(t["protocol"], "rotating-challenger");
    assert_eq!(t["outcome"]["kind"], "consensus");
    assert_eq!(t["outcome"]["rounds_run"], 1);
    assert_eq!(t["participants"][0], serde_json::json!({"id": "s1", "name": "s1", "model": "openai/s1"}));
    let turns = t["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 10);
    let round1: Vec<&Value> = turns.iter().filter(|x| x["round"] == 1).collect();
    assert_eq!(round1.last().unwrap()["speaker"], "s1");
    assert_eq!(round1.last().unwrap()["challenger"], true);
    assert!(turns.iter().all(|x| x["model"].as_str().unwrap().starts_with("openai/s")));
    let check = &t["consensus"][0];
    assert_eq!(check["excluded"], "s1");
    let counted: Vec<&str> = check["seats"].as_array().unwrap().iter().map(|s| s["seat"].as_str().unwrap()).collect();
    assert_eq!(counted, ["s2", "s3", "s4", "s5"]);
    assert_eq!(check["agreeing"], serde_json::json!(["s2", "s3", "s4"]));
    assert_eq!(check["seats"][3]["verdict"], "silent");
    assert_eq!(t["synthesis"]["speaker"], "judge");

    let lines: Vec<Value> =
        std::fs::read_to_string(&events).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().enumerate().all(|(i, e)| e["seq"] == i as u64 && e["v"] == 2));
    assert_eq!(lines.last().unwrap()["type"], "debate-ended");

    drop(server); // the network is gone: replay must not need it
    let replayed = agon(None, &["replay", journal.to_str().unwrap(), "--format", "json"]);
    assert!(replayed.status.success(), "{}", stderr(&replayed));
    assert_eq!(String::from_utf8(replayed.stdout).unwrap(), std::fs::read_to_string(&output).unwrap());
    assert_no_key_in(dir);
}

fn run_with_faulty_seat(fault: Fault, extra: &[&str]) -> (Output, Value, String) {
    let mut config = Config::default();
    config.models.insert("bad".into(), faulty(fault));
    let server = TestServer::start(config, 0).unwrap();
    let scratch_dir = work_dir(&format!("{fault:?}{}", extra.len()));
    let dir = scratch_dir.path();
    let (journal, output) = (dir.join("journal.ndjson"), dir.join("out.json"));
    let mut args = vec![
        "run",
        "Tabs or spaces?",
        "--panel",
        "openai/ok1,openai/bad,openai/ok2",
        "--judge",
        "openai/judge",
        "--rounds",
        "1",
        "--format",
        "json",
        "--output",
        output.to_str().unwrap(),
        "--journal",
        journal.to_str().unwrap(),
        "--timeout",
        "2",
    ];
    args.extend_from_slice(extra);
    let out = agon(Some(&server), &args);
    let journal_text = std::fs::read_to_string(&journal).unwrap();
    assert_no_key_in(dir);
    (out, read_json(&output), journal_text)
}

fn assert_degraded_keeping_answers(out: &Output, t: &Value, journal: &str, message: &str) {
    assert_eq!(out.status.code(), Some(3), "degraded exit code; stderr: {}", stderr(out));
    assert!(stderr(out).contains("Outcome: Degraded"), "{}", stderr(out));
    assert_eq!(t["outcome"]["kind"], "degraded");
    let failure = &t["outcome"]["failures"][0];
    assert_eq!(failure["speaker"], "bad");
    assert!(failure["message"].as_str().unwrap().contains(message), "{failure}");
    let speakers: Vec<&str> = t["turns"].as_array().unwrap().iter().map(|x| x["speaker"].as_str().unwrap()).collect();
    assert_eq!(speakers, ["ok1", "ok2"], "every answered turn is kept");
    assert!(t["synthesis"]["text"].is_string());
    assert_eq!(
        journal.lines().filter(|l| l.contains("\"type\":\"reply\"")).count(),
        3,
        "two turns and the judge journaled"
    );
}

#[test]
fn an_http_500_degrades_the_run_and_keeps_every_answer() {
    let (out, t, journal) = run_with_faulty_seat(Fault::ServerError, &[]);
    assert_degraded_keeping_answers(&out, &t, &journal, "HTTP 500");
    assert_eq!(t["outcome"]["failures"][0]["kind"], "provider-error");
}

#[test]
fn a_quorum_of_every_seat_ends_the_run_at_the_dead_one_and_keeps_what_was_answered() {
    // Three seats, one answering HTTP 500: the default quorum (2) goes on, as
    // the test above shows; `--quorum 3` cannot.
    let (out, t, journal) = run_with_faulty_seat(Fault::ServerError, &["--quorum", "3"]);
    assert_eq!(t["outcome"]["kind"], "no-quorum", "{}", stderr(&out));
    assert_ne!(out.status.code(), Some(0));
    let speakers: Vec<&str> = t["turns"].as_array().unwrap().iter().map(|x| x["speaker"].as_str().unwrap()).collect();
    // The default protocol speaks in turn: ok2 is never asked once bad has
    // failed, and ok1's answer is kept, in the transcript and the journal.
    assert_eq!(speakers, ["ok1"], "the answered turn is kept");
    assert_eq!(journal.lines().filter(|l| l.contains("\"type\":\"reply\"")).count(), 1);
}

#[test]
fn a_quorum_comes_from_the_flag_or_agon_toml_and_a_bad_one_is_named() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let scratch_dir = work_dir("quorum-settings");
    let dir = scratch_dir.path();
    let spec = |args: &[&str]| {
        let out = agon(Some(&server), &[&["spec", "Q?", "--panel", "openai/a,openai/b,openai/c"][..], args].concat());
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), stderr(&out))
    };
    let quorum = |(code, stdout, err): (Option<i32>, String, String)| {
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str::<Value>(&stdout).unwrap()["limits"]["quorum"].clone()
    };
    assert_eq!(quorum(spec(&[])), Value::Null, "the engine's default unless asked");
    assert_eq!(quorum(spec(&["--quorum", "3"])), 3);
    let config = dir.join("agon.toml");
    std::fs::write(&config, "[defaults]\nquorum = 1\n").unwrap();
    let file = ["--config", config.to_str().unwrap()];
    assert_eq!(quorum(spec(&file)), 1);
    assert_eq!(quorum(spec(&[&file[..], &["--quorum", "2"]].concat())), 2, "the flag wins");
    for (args, naming) in [(vec!["--quorum", "0"], "quorum"), (vec!["--quorum", "4"], "limits.quorum")] {
        let (code, _, err) = spec(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(naming), "{args:?} should name {naming}: {err}");
    }
}

#[test]
fn a_hung_call_times_out() {
    let (out, t, journal) = run_with_faulty_seat(Fault::Hang, &[]);
    assert_degraded_keeping_answers(&out, &t, &journal, "within 2 s");
    assert_eq!(t["outcome"]["failures"][0]["kind"], "timeout");
}

#[test]
fn malformed_sse_is_a_provider_error() {
    let (out, t, journal) = run_with_faulty_seat(Fault::Garbage, &[]);
    assert_degraded_keeping_answers(&out, &t, &journal, "malformed stream event");
}

#[test]
fn a_stream_cut_midway_is_a_provider_error_not_a_short_reply() {
    let (out, t, journal) = run_with_faulty_seat(Fault::CutStream, &[]);
    assert_degraded_keeping_answers(&out, &t, &journal, "");
    assert!(!journal.contains("bad answer"), "a partial reply must not be recorded as an answer");
}

#[test]
fn a_rate_limit_is_reported_as_such() {
    let (out, t, journal) = run_with_faulty_seat(Fault::RateLimited, &["--no-stream"]);
    assert_degraded_keeping_answers(&out, &t, &journal, "HTTP 429");
    assert_eq!(t["outcome"]["failures"][0]["kind"], "rate-limited");
}

#[test]
fn ollama_streams_ndjson_and_whole_replies_work_too() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    for extra in [&[][..], &["--no-stream"][..]] {
        let mut args = vec![
            "run",
            "Q?",
            "--panel",
            "ollama/llama3,openai/m2",
            "--judge",
            "ollama/llama3",
            "--rounds",
            "1",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = agon(Some(&server), &args);
        assert!(out.status.success(), "{}", stderr(&out));
        let t: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(t["outcome"]["kind"], "completed");
        assert!(t["turns"][0]["text"].as_str().unwrap().starts_with("llama3 answer"));
        assert!(t["turns"][0]["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    }
    let paths: Vec<String> = server.stats().requests.iter().map(|r| r.path.clone()).collect();
    assert!(paths.contains(&"/api/chat".to_string()) && paths.contains(&"/v1/chat/completions".to_string()));
}

#[test]
fn events_dash_writes_only_ndjson_to_stdout() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(Some(&server), &["run", "Q?", "--panel", "openai/a,openai/b", "--rounds", "1", "--events", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.is_empty());
    for line in stdout.lines() {
        let e: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("not NDJSON: {line}"));
        assert!(e["type"].is_string());
    }
}

#[test]
fn advocate_is_deprecated_and_maps_to_challenger() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(
        Some(&server),
        &[
            "run",
            "Q?",
            "--protocol",
            "rotating-challenger",
            "--panel",
            "openai/a,openai/b,openai/c",
            "--advocate",
            "2",
            "--rounds",
            "1",
            "--format",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("--advocate is deprecated"));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let challenger = t["turns"].as_array().unwrap().iter().find(|x| x["challenger"] == true).unwrap();
    assert_eq!(challenger["speaker"], "b");
}

#[test]
fn bad_input_gets_one_clear_line_and_exit_code_2() {
    let cases: [(&[&str], &str); 4] = [
        (&["run", "Q?", "--panel", "openai/a", "--protocol", "shouting-match"], "unknown protocol 'shouting-match'"),
        (&["run", "Q?", "--panel", ""], "the panel is empty"),
        (&["run", "Q?", "--panel", "openai/a"], "cannot reach http://127.0.0.1:9/v1"),
        (&["run", "Q?", "--panel", "acme/a"], "unknown provider 'acme'"),
    ];
    for (args, expected) in cases {
        let out = agon(None, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    let dead = stderr(&agon(None, &["run", "Q?", "--panel", "openai/a"]));
    assert!(dead.contains("OPENAI_BASE_URL"), "{dead}");
    let dir = work_dir("badjournal");
    let bad = dir.path().join("j.ndjson");
    std::fs::write(&bad, "not a journal\n").unwrap();
    let out = agon(None, &["replay", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid journal at line 1"), "{}", stderr(&out));
}

/// The endpoints are probed at once; the failure told is the dead one's, and
/// of several dead ones, the first in the panel's order.
#[test]
fn of_several_endpoints_the_dead_one_is_named() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let run = |openai: &str, ollama: &str| {
        let home = scratch("e2e-home");
        Command::new(env!("CARGO_BIN_EXE_agon"))
            .args(["run", "Q?", "--panel", "openai/a,ollama/b", "--no-judge", "--rounds", "1", "-q"])
            .env("AGON_CACHE_DIR", home.path().join("cache"))
            .env("AGON_DATA_DIR", home.path().join("data"))
            .env("OPENAI_API_KEY", KEY)
            .env("OPENAI_BASE_URL", openai)
            .env("OLLAMA_HOST", ollama)
            .output()
            .unwrap()
    };
    let live = format!("{}/v1", server.url());
    let out = run(&live, "http://127.0.0.1:9");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("cannot reach http://127.0.0.1:9") && err.contains("OLLAMA_HOST"), "{err}");
    assert!(server.stats().requests.is_empty(), "nothing is sent before every endpoint answers");

    let err = stderr(&run("http://127.0.0.1:9/v1", "http://127.0.0.1:9"));
    assert!(err.contains("OPENAI_BASE_URL") && !err.contains("OLLAMA_HOST"), "{err}");

    let out = run(&live, &server.url());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(server.stats().requests.len(), 2);
}
