//! Connections that break before a reply: tried again at once (nothing was
//! shown, nothing can have been answered); when they keep failing, journaled
//! as `transport` failures, which a resume asks again once the endpoint is
//! back — the run killed by a dead endpoint finishes as if it never broke.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, Fault, ModelScript, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(out)))
}

fn dropping(models: &[&str], calls: Option<usize>) -> TestServer {
    let mut config = Config::default();
    for m in models {
        config
            .models
            .insert(m.to_string(), ModelScript { fault: Some(Fault::Drop), fault_calls: calls, ..Default::default() });
    }
    TestServer::start(config, 0).unwrap()
}

const RUN: [&str; 9] =
    ["run", "Tram?", "--panel", "openai/a,openai/b,openai/c", "--judge", "openai/j", "--rounds", "1", "-q"];

#[test]
fn a_connection_dropped_once_is_tried_again() {
    let env = Sandbox::new("transport", "dropped-once");
    let server = dropping(&["a"], Some(1));
    let out = agon(&env, &server, &[&RUN[..], &["--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t = json(&out);
    assert_eq!(t["outcome"]["kind"], "completed", "{}", t["outcome"]);
    let asked = server.stats().requests.iter().filter(|r| r.model == "a").count();
    assert_eq!(asked, 2, "dropped once, asked twice");
}

#[test]
fn a_connection_that_keeps_dropping_is_a_transport_failure() {
    let env = Sandbox::new("transport", "kept-dropping");
    let server = dropping(&["a"], None);
    let out = agon(&env, &server, &[&RUN[..], &["--format", "json", "--retries", "0"]].concat());
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let failure = &json(&out)["outcome"]["failures"][0];
    assert_eq!(failure["kind"], "transport", "{failure}");
    assert!(failure["message"].as_str().unwrap().contains("closed before any reply"), "{failure}");
}

/// The case: the endpoint dies, the debate ends with no quorum; once
/// it is back, resume finishes the debate instead of saying "nothing to call".
#[test]
fn a_run_a_dead_endpoint_ended_is_finished_by_resume() {
    let env = Sandbox::new("transport", "endpoint-back");
    let dead = dropping(&["a", "b", "c", "j"], None);
    let out = agon(&env, &dead, &[&RUN[..], &["--retries", "0"]].concat());
    assert_eq!(out.status.code(), Some(5), "no quorum: {}", stderr(&out));

    let back = TestServer::start(Config::default(), 0).unwrap();
    // Interrupted on the way, the session says so, not the old outcome.
    back.hold_replies();
    let mut resume = env.command(env!("CARGO_BIN_EXE_agon"));
    resume.env("OPENAI_BASE_URL", format!("{}/v1", back.url())).args(["resume", "last", "-q"]);
    let mut child = resume.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    while back.stats().requests.is_empty() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let list = agon(&env, &back, &["sessions", "--json"]);
    assert!(String::from_utf8_lossy(&list.stdout).contains("\"outcome\":\"interrupted\""));
    back.release_replies();

    let back = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &back, &["resume", "last", "-q", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["outcome"]["kind"], "completed");
    assert_eq!(back.stats().requests.len(), 4, "every seat and the judge, once each");
    let list = agon(&env, &back, &["sessions", "--json"]);
    let first: Value = serde_json::from_slice(list.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["outcome"], "completed");
}

#[test]
fn other_failures_are_asked_again_only_when_asked() {
    let env = Sandbox::new("transport", "retry-failed");
    let mut config = Config::default();
    config.models.insert("b".into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    let failing = TestServer::start(config, 0).unwrap();
    let out = agon(&env, &failing, &[&RUN[..], &["--retries", "0"]].concat());
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));

    let back = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &back, &["resume", "last", "-q"]);
    assert_eq!(out.status.code(), Some(3), "an HTTP 500 is the model's answer: kept");
    assert!(stderr(&out).contains("--retry-failed"), "{}", stderr(&out));
    assert!(back.stats().requests.is_empty());
    let out = agon(&env, &back, &["resume", "last", "-q", "--retry-failed", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["outcome"]["kind"], "completed");
}
