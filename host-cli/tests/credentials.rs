//! Credentials inside a base URL: a token in its query reaches the server
//! (after the path, where it belongs) and nothing else — no message, no
//! journal, no transcript, no export, no doctor output or cache; a user name
//! or password in it is refused. Model names cannot leave their path segment.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, Fault, ModelScript, TestServer};

const TOKEN: &str = "tok-never-written-4d5e6f";
const PASSWORD: &str = "hunter2-never-written";

/// A sandbox with a cache folder of its own (doctor writes there).
fn sandbox(name: &str) -> Sandbox {
    let env = Sandbox::new("credentials", name);
    std::fs::create_dir_all(env.root.join("cache")).unwrap();
    env
}

fn agon(env: &Sandbox, base_url: &str, args: &[&str]) -> Output {
    let mut cmd: Command = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("OPENAI_BASE_URL", base_url).args(args);
    cmd.output().unwrap()
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn every_file(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() { every_file(&path, found) } else { found.push(path) }
    }
}

/// `secret` is in no file under the sandbox and in nothing printed.
fn assert_nowhere(env: &Sandbox, secret: &str, printed: &[Output]) {
    for out in printed {
        assert!(!text(out).contains(secret), "printed: {}", text(out));
    }
    let mut files = Vec::new();
    every_file(&env.root, &mut files);
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains(secret), "{secret} was written into {}", file.display());
    }
}

#[test]
fn a_token_in_the_query_goes_to_the_server_only() {
    let env = sandbox("query");
    let mut config = Config::default();
    config.models.insert("dead".into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let base = format!("{}/v1?token={TOKEN}", server.url());
    let mut printed = Vec::new();

    let run = [
        "run",
        "Q?",
        "--panel",
        "openai/a,openai/b,openai/dead",
        "--judge",
        "openai/j",
        "--rounds",
        "1",
        "--retries",
        "0",
        "--format",
        "json",
        "-o",
        "out.json",
        "--journal",
        "copy.ndjson",
        "--events",
        "events.ndjson",
    ];
    let out = agon(&env, &base, &run);
    assert_eq!(out.status.code(), Some(3), "degraded: {}", text(&out));
    let transcript = std::fs::read_to_string(env.root.join("out.json")).unwrap();
    assert!(transcript.contains("/v1/chat/completions?token=***"), "the URL is still said, redacted: {transcript}");
    printed.push(out);
    for format in ["html", "json", "md"] {
        printed.push(agon(&env, &base, &["export", "last", "--format", format, "-o", &format!("export.{format}")]));
    }
    printed.push(agon(&env, &base, &["show", "last"]));
    let out = agon(&env, &base, &["doctor", "openai/dead", "openai/a"]);
    assert!(text(&out).contains("?token=***"), "{}", text(&out));
    assert!(env.root.join("cache").join("doctor.json").is_file());
    printed.push(out);

    // The token did reach the server, after the path.
    let paths: Vec<String> = server.stats().requests.into_iter().map(|r| r.path).collect();
    assert!(
        !paths.is_empty() && paths.iter().all(|p| p == &format!("/v1/chat/completions?token={TOKEN}")),
        "{paths:?}"
    );
    assert_nowhere(&env, TOKEN, &printed);
}

#[test]
fn a_password_in_the_url_is_refused_and_never_repeated() {
    let env = sandbox("userinfo");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let base = format!("http://agon:{PASSWORD}@{}/v1", server.addr);
    let out = agon(&env, &base, &["run", "Q?", "--panel", "openai/a,openai/b", "--no-judge"]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out);
    assert!(said.contains("OPENAI_BASE_URL") && said.contains("OPENAI_API_KEY"), "{said}");
    let doctor = agon(&env, &base, &["doctor", "openai/a"]);
    assert!(server.stats().requests.is_empty(), "nothing was sent anywhere");
    assert_nowhere(&env, PASSWORD, &[out, doctor]);
}

#[test]
fn a_model_name_stays_in_its_path_segment() {
    let env = sandbox("gemini-path");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("GEMINI_BASE_URL", format!("{}/v1beta", server.url())).env("GEMINI_API_KEY", "gm-test-key");
    let out = cmd.args(["run", "Q?", "--panel", "gemini/../../admin,gemini/b", "--no-judge", "--rounds", "1"]);
    let out = out.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let paths: Vec<String> = server.stats().requests.into_iter().map(|r| r.path).collect();
    assert!(paths.contains(&"/v1beta/models/..%2F..%2Fadmin:streamGenerateContent?alt=sse".to_string()), "{paths:?}");
    assert!(paths.iter().all(|p| p.starts_with("/v1beta/models/")), "{paths:?}");
}
