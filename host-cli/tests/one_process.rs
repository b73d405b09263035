//! One process per session (and per batch results file): a second `resume`,
//! or a `resume` while the run is still going, stops at once with exit code 2
//! and the holder's pid, and calls nothing. The test server holds the first
//! process mid-call for exactly as long as the test needs: nothing is timed.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

const RUN: [&str; 9] = ["run", "Tabs?", "--panel", "openai/a,openai/b", "--judge", "openai/j", "--rounds", "1", "-q"];

fn agon(env: &Sandbox, server: &TestServer) -> Command {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env_remove("OPENAI_API_KEY");
    cmd
}

fn spawn(env: &Sandbox, server: &TestServer, args: &[&str]) -> Child {
    agon(env, server).args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
}

fn run(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    agon(env, server).args(args).output().unwrap()
}

/// Until the server has seen `n` requests (the client is then blocked in a held call).
fn wait_for_requests(server: &TestServer, n: usize) {
    while server.stats().requests.len() < n {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

fn only_session(data: &Path) -> String {
    let ids: Vec<String> = std::fs::read_dir(data)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    ids[0].clone()
}

fn assert_refused_naming(out: &Output, holder: &Child) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in use") || stderr.contains("being written"), "{stderr}");
    assert!(stderr.contains(&format!("pid {}", holder.id())), "the holder is named: {stderr}");
}

/// The journal has one line per call and no id twice, and replays.
fn assert_journal_whole(env: &Sandbox, server: &TestServer, journal: &Path, calls: usize) {
    let text = std::fs::read_to_string(journal).unwrap();
    assert!(text.ends_with('\n'), "no torn line");
    let ids: Vec<u64> =
        text.lines().skip(1).map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_u64().unwrap()).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!((ids.len(), unique.len()), (calls, calls), "{ids:?}");
    let out = run(env, server, &["replay", journal.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_resume_while_the_run_is_going_is_refused_and_calls_nothing() {
    let env = Sandbox::new("one-process", "run-and-resume");
    let server = TestServer::start(Config::default(), 0).unwrap();
    server.hold_replies();
    let mut first = spawn(&env, &server, &RUN);
    wait_for_requests(&server, 1);
    let id = only_session(&env.root.join("data"));

    let second = run(&env, &server, &["resume", &id]);
    assert_refused_naming(&second, &first);
    assert_eq!(server.stats().requests.len(), 1, "the second process called nothing");

    server.release_replies();
    assert_eq!(first.wait().unwrap().code(), Some(0));
    assert_eq!(server.stats().requests.len(), 3, "two seats and the judge, once each");
    assert_journal_whole(&env, &server, &env.root.join("data").join(&id).join("journal.ndjson"), 3);
}

#[test]
fn two_resumes_of_one_session_run_one_at_a_time() {
    let env = Sandbox::new("one-process", "two-resumes");
    let server = TestServer::start(Config::default(), 0).unwrap();
    server.hold_replies();
    let mut interrupted = spawn(&env, &server, &RUN);
    wait_for_requests(&server, 1);
    let sent = Command::new("kill").args(["-INT", &interrupted.id().to_string()]).status().unwrap();
    assert!(sent.success());
    assert_eq!(interrupted.wait().unwrap().code(), Some(130));
    let id = only_session(&env.root.join("data"));

    let mut first = spawn(&env, &server, &["resume", &id, "-q"]);
    wait_for_requests(&server, 2);
    let second = run(&env, &server, &["resume", &id, "-q"]);
    assert_refused_naming(&second, &first);
    assert_eq!(server.stats().requests.len(), 2, "the second resume called nothing");

    server.release_replies();
    assert_eq!(first.wait().unwrap().code(), Some(0));
    assert_journal_whole(&env, &server, &env.root.join("data").join(&id).join("journal.ndjson"), 3);
}

#[test]
fn a_second_batch_on_the_same_results_is_refused() {
    let env = Sandbox::new("one-process", "batch");
    std::fs::write(env.root.join("questions.jsonl"), "Tabs?\nSpaces?\n").unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    server.hold_replies();
    let batch = [
        "batch",
        "questions.jsonl",
        "-o",
        "results.jsonl",
        "--panel",
        "openai/a,openai/b",
        "--no-judge",
        "--rounds",
        "1",
    ];
    let mut first = spawn(&env, &server, &batch);
    wait_for_requests(&server, 1);
    let second = run(&env, &server, &batch);
    assert_refused_naming(&second, &first);

    server.release_replies();
    assert_eq!(first.wait().unwrap().code(), Some(0));
    let results = std::fs::read_to_string(env.root.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2, "each question once: {results}");
    assert!(!env.root.join("results.jsonl.lock").exists(), "the lock file goes with its holder");
}

/// A process killed while it held the lock leaves its file behind, not its
/// lock: the OS let go with the process, and the next resume simply runs.
#[test]
fn a_lock_never_outlives_its_process() {
    let env = Sandbox::new("one-process", "killed");
    let server = TestServer::start(Config::default(), 0).unwrap();
    server.hold_replies();
    let mut killed = spawn(&env, &server, &RUN);
    wait_for_requests(&server, 1);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let id = only_session(&env.root.join("data"));
    let lock = env.root.join("data").join(&id).join("lock");
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), killed.id().to_string(), "the file names its dead holder");

    server.release_replies();
    let out = run(&env, &server, &["resume", &id, "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!lock.exists(), "and the resume took it, then removed it");
}
