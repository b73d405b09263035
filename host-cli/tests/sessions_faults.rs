//! Every fault the test server injects, end to end with sessions: the run ends
//! with the right outcome, its journal holds every answered call, and a resume
//! calls nothing that was answered. (Retries are off here, so the server sees
//! exactly one request per journaled call.)

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use agon_testkit::sandbox::scratch;
use agon_testkit::{Config, Fault, ModelScript, TestServer};
use serde_json::Value;
use tempfile::TempDir;

const KEY: &str = "sk-test-secret-sessions-7d31e0";

/// A fresh, empty folder under the system temp folder.
fn work_dir(name: &str) -> TempDir {
    scratch(&format!("sessions-{name}"))
}

/// `agon ARGS` with AGON_DATA_DIR = `data`, talking to `openai` (and `ollama`) test servers.
fn command(data: &Path, openai: &str, ollama: Option<&str>, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agon"));
    cmd.args(args)
        .env("AGON_DATA_DIR", data)
        .env("AGON_CACHE_DIR", data.join(".cache"))
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{openai}/v1"))
        .env("OLLAMA_HOST", ollama.unwrap_or("http://127.0.0.1:9"))
        .env("XDG_CONFIG_HOME", data.join(".config"))
        .env_remove("AGON_CONFIG")
        .current_dir(data);
    cmd
}

fn agon(data: &Path, server: &TestServer, args: &[&str]) -> Output {
    let out = command(data, &server.url(), None, args).output().unwrap();
    assert_no_key(data, &out);
    out
}

fn spawn(data: &Path, server: &TestServer, args: &[&str]) -> Child {
    command(data, &server.url(), None, args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// The API key is in no file of the sessions folder, nor in what agon printed.
fn assert_no_key(data: &Path, out: &Output) {
    assert!(!text(&out.stdout).contains(KEY), "the API key leaked to stdout");
    assert!(!text(&out.stderr).contains(KEY), "the API key leaked to stderr");
    let mut stack = vec![data.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                assert!(!text(&bytes).contains(KEY), "the API key leaked into {}", path.display());
            }
        }
    }
}

/// The only session's ID in `data`.
fn only_session(data: &Path) -> String {
    let ids: Vec<String> = std::fs::read_dir(data)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "expected one session in {}: {ids:?}", data.display());
    ids[0].clone()
}

/// How many times each (model, messages) request arrived.
fn request_counts(server: &TestServer) -> BTreeMap<(String, String), usize> {
    let mut counts = BTreeMap::new();
    for seen in server.stats().requests {
        *counts.entry((seen.model.clone(), seen.messages.to_string())).or_insert(0) += 1;
    }
    counts
}

/// The journal's input lines (after the header), whole lines only.
fn journal_inputs(journal: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    text.split_inclusive('\n').skip(1).filter(|l| l.ends_with('\n')).map(|l| serde_json::from_str(l).unwrap()).collect()
}
const PANEL: &str = "openai/s1,openai/s2,openai/s3";

fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "Should the city build the tram?",
        "--panel",
        PANEL,
        "--judge",
        "openai/j",
        "--rounds",
        "2",
        "-q",
        "--retries",
        "0",
    ];
    args.extend_from_slice(extra);
    args
}

fn sessions_json(data: &std::path::Path, server: &TestServer) -> Vec<Value> {
    let out = agon(data, server, &["sessions", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Run with `s3` faulty; check the outcome, the journal, and that a resume
/// against a healthy server calls nothing that was answered — except, for a
/// failure on the way to the model (`retried`), what was planned after it.
fn fault_case(name: &str, fault: Fault, extra: &[&str], expected_outcome: &str, retried: bool) {
    let mut config = Config::default();
    config.models.insert("s3".into(), ModelScript { fault: Some(fault), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let data_dir = work_dir(name);
    let data = data_dir.path().to_path_buf();
    let out = agon(&data, &server, &run_args(extra));
    let id = only_session(&data);
    let list = sessions_json(&data, &server);
    assert_eq!(list[0]["outcome"], expected_outcome, "{name}: {}", text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{name}: degraded exits 3");

    // Every call the server saw got its line: the good ones with the server's exact reply.
    let inputs = journal_inputs(&data.join(&id).join("journal.ndjson"));
    let stats = server.stats();
    assert_eq!(inputs.len(), stats.requests.len(), "{name}: one journal line per call");
    for model in ["s1", "s2", "j"] {
        let calls = stats.requests.iter().filter(|r| r.model == model).count();
        assert!(calls > 0);
        for n in 1..=calls {
            let reply = format!("{model} answer {n}: ");
            assert!(
                inputs.iter().any(|i| i["type"] == "reply" && i["text"].as_str().unwrap().starts_with(&reply)),
                "{name}: {reply} is not in the journal"
            );
        }
    }
    let failed = inputs.iter().filter(|i| i["type"] == "failed").count();
    assert_eq!(failed, stats.requests.iter().filter(|r| r.model == "s3").count(), "{name}");

    let healthy = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&data, &healthy, &["resume", &id]);
    if !retried {
        // The fault removed: resume has nothing left to call.
        assert_eq!(out.status.code(), Some(3), "{name}: {}", text(&out.stderr));
        assert!(healthy.stats().requests.is_empty(), "{name}: resume called an answered turn again");
        return;
    }
    // The connection broke: the model never answered, so resume asks again.
    assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
    assert_eq!(sessions_json(&data, &healthy)[0]["outcome"], "completed", "{name}");
    assert_no_blind_answer_asked_again(&server, &healthy);
    assert!(data.join(&id).join("journal.ndjson.1").is_file(), "{name}: the previous journal is kept");
}

/// s1's and s2's blind answers were in before anything failed: never asked again.
fn assert_no_blind_answer_asked_again(first: &TestServer, again: &TestServer) {
    let again = request_counts(again);
    for model in ["s1", "s2"] {
        let blind = first.stats().requests.into_iter().find(|r| r.model == model).unwrap();
        assert!(!again.contains_key(&(model.to_string(), blind.messages.to_string())), "{model}'s blind answer");
    }
}

#[test]
fn a_server_error_degrades_the_run() {
    fault_case("server-error", Fault::ServerError, &[], "degraded", false);
}

#[test]
fn a_rate_limit_degrades_the_run() {
    fault_case("rate-limited", Fault::RateLimited, &[], "degraded", false);
}

#[test]
fn a_hang_times_out_and_degrades_the_run() {
    fault_case("hang", Fault::Hang, &["--timeout", "1"], "degraded", false);
}

#[test]
fn a_cut_stream_degrades_the_run() {
    fault_case("cut-stream", Fault::CutStream, &[], "degraded", true);
}

#[test]
fn garbage_degrades_the_run() {
    fault_case("garbage", Fault::Garbage, &[], "degraded", false);
}

/// A seat whose endpoint stops accepting connections mid-run: its later calls
/// are refused, the run degrades; once the endpoint is back, a resume asks the
/// refused calls again (and what was planned after them), nothing answered before.
#[test]
fn a_refused_connection_degrades_the_run() {
    let slow = Config { latency_ms: 150, ..Default::default() };
    let server = TestServer::start(slow, 0).unwrap();
    let ollama = TestServer::start(Config::default(), 0).unwrap();
    let data_dir = work_dir("refused");
    let data = data_dir.path().to_path_buf();
    let args =
        ["run", "Tram?", "--panel", "openai/s1,openai/s2,ollama/s3", "--judge", "openai/j", "--rounds", "3", "-q"];
    let mut child = command(&data, &server.url(), Some(&ollama.url()), &args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once s3 has answered once, its endpoint goes away.
    while ollama.stats().requests.is_empty() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(ollama);
    let status = child.wait().unwrap();
    let id = only_session(&data);
    assert_eq!(status.code(), Some(3));
    assert_eq!(sessions_json(&data, &server)[0]["outcome"], "degraded");
    let inputs = journal_inputs(&data.join(&id).join("journal.ndjson"));
    assert!(inputs.iter().any(|i| i["type"] == "failed"), "s3's refused calls are journaled as failures");
    let openai_calls = server.stats().requests.len();
    let replies = inputs.iter().filter(|i| i["type"] == "reply").count();
    assert!(replies >= openai_calls, "every openai call was answered and journaled");

    let failed_kinds: Vec<&Value> = inputs.iter().filter(|i| i["type"] == "failed").map(|i| &i["kind"]).collect();
    assert!(failed_kinds.iter().all(|k| *k == "transport"), "the journal says why: {failed_kinds:?}");

    let healthy = TestServer::start(Config::default(), 0).unwrap();
    let out = command(&data, &healthy.url(), Some(&healthy.url()), &["resume", &id]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("asking again"), "{}", text(&out.stderr));
    assert_eq!(sessions_json(&data, &healthy)[0]["outcome"], "completed");
    assert_no_blind_answer_asked_again(&server, &healthy);
    assert!(healthy.stats().requests.iter().any(|r| r.model == "s3"), "the refused seat is asked again");
    assert_no_key(&data, &out);
}

/// An endpoint that refuses from the start: agon says which and keeps no session.
#[test]
fn a_refused_endpoint_is_named_before_anything_is_kept() {
    let data_dir = work_dir("refused-at-start");
    let data = data_dir.path().to_path_buf();
    let out = command(&data, "http://127.0.0.1:9", None, &run_args(&[])).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("OPENAI_BASE_URL"), "{}", text(&out.stderr));
    assert!(std::fs::read_dir(&data).unwrap().next().is_none(), "no session for a run that never started");
    assert_no_key(&data, &out);
}

/// A connection that goes silent (a hang) and a Ctrl-C: the run stops with
/// 130, and a resume against a healthy server asks only the silent call again.
#[test]
fn a_hung_call_interrupted_is_the_only_call_a_resume_repeats() {
    let mut config = Config::default();
    config.models.insert("s3".into(), ModelScript { fault: Some(Fault::Hang), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let data_dir = work_dir("hang-interrupted");
    let data = data_dir.path().to_path_buf();
    let mut child = spawn(&data, &server, &run_args(&["--timeout", "60"]));
    while !server.stats().requests.iter().any(|r| r.model == "s3") {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let id = only_session(&data);
    assert_eq!(sessions_json(&data, &server)[0]["outcome"], "interrupted");
    let first: Vec<(String, String)> = request_counts(&server).into_keys().collect();
    let hung: Vec<_> = first.iter().filter(|(m, _)| m == "s3").cloned().collect();
    assert_eq!(hung.len(), 1);

    let healthy = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&data, &healthy, &["resume", &id, "-q", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let again: Vec<_> = request_counts(&healthy).into_keys().filter(|k| first.contains(k)).collect();
    assert_eq!(again, hung, "only the call nobody answered is asked again");
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "completed");
    assert_eq!(sessions_json(&data, &healthy)[0]["outcome"], "completed");
}
