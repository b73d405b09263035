//! `agon continue SESSION "QUESTION"` against the test server: a follow-up
//! runs on the parent's panel and judge, its prompts quote the parent's
//! synthesis, `agon sessions` and `agon show` name the parent, flags choose
//! another panel; a session that does not exist or never finished is refused
//! by name, before any call.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.args(args).env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("OPENAI_API_KEY", "test-key");
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// The prompts and models the server saw from call `from` on.
fn seen(server: &TestServer, from: usize) -> (Vec<String>, Vec<String>) {
    let requests = server.stats().requests;
    let later = &requests[from..];
    (later.iter().map(|r| r.messages.to_string()).collect(), later.iter().map(|r| r.model.clone()).collect())
}

#[test]
fn a_follow_up_reads_its_parent_and_names_it() {
    let env = Sandbox::new("continue", "follow-up");
    let mut config = Config::default();
    config.models.insert("j".into(), ModelScript { replies: vec!["Ship on Fridays.".into()], ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let run = agon(
        &env,
        &server,
        &["run", "When do we ship?", "--panel", "openai/a,openai/b", "--judge", "openai/j", "--rounds", "1", "-q"],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let sessions = agon(&env, &server, &["sessions", "--json"]);
    let parent: Value = serde_json::from_str(text(&sessions.stdout).lines().next().unwrap()).unwrap();
    let parent = parent["id"].as_str().unwrap().to_string();
    let calls = server.stats().requests.len();

    // Nothing to follow: refused by name, no call made.
    let missing = agon(&env, &server, &["continue", "19990101", "Which Friday?"]);
    assert!(!missing.status.success());
    assert!(text(&missing.stderr).contains("no session '19990101'"), "{}", text(&missing.stderr));
    let unfinished = env.root.join("data").join("20990101-000000-abcd");
    std::fs::create_dir_all(&unfinished).unwrap();
    let header = std::fs::read_to_string(env.root.join("data").join(&parent).join("journal.ndjson")).unwrap();
    std::fs::write(unfinished.join("journal.ndjson"), format!("{}\n", header.lines().next().unwrap())).unwrap();
    let refused = agon(&env, &server, &["continue", "20990101", "Which Friday?"]);
    let why = text(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        why.contains("session 20990101-000000-abcd has not finished")
            && why.contains("agon resume 20990101-000000-abcd"),
        "{why}"
    );
    assert_eq!(server.stats().requests.len(), calls, "a refused follow-up cost a call");
    std::fs::remove_dir_all(&unfinished).unwrap();

    // The follow-up: the parent's panel and judge, its synthesis quoted in every prompt.
    let child = agon(&env, &server, &["continue", &parent, "Which Friday?", "--format", "json"]);
    assert!(child.status.success(), "{}", text(&child.stderr));
    assert!(text(&child.stderr).contains(&format!("following up session {parent}")), "{}", text(&child.stderr));
    let transcript: Value = serde_json::from_slice(&child.stdout).unwrap();
    assert_eq!(transcript["question"], "Which Friday?");
    assert_eq!(transcript["parent"]["session"], Value::from(parent.clone()));
    let (prompts, models) = seen(&server, calls);
    assert!(
        !prompts.is_empty()
            && prompts.iter().all(|p| p.contains(&format!("EARLIER DEBATE (session {parent};"))
                && p.contains(r"The judge's synthesis:\n> Ship on Fridays.")),
        "{prompts:?}"
    );
    for model in ["a", "b", "j"] {
        assert!(models.iter().any(|m| m == model), "the parent's panel and judge: {models:?}");
    }

    // Lineage in the list and in show.
    let list = text(&agon(&env, &server, &["sessions"]).stdout);
    assert!(list.contains(&format!("↳ {parent}: Which Friday?")), "{list}");
    let shown = text(&agon(&env, &server, &["show", "last"]).stdout);
    assert!(shown.contains(&format!("**Follows:** session `{parent}`")), "{shown}");

    // Flags choose another panel, and no judge.
    let calls = server.stats().requests.len();
    let other =
        agon(&env, &server, &["continue", &parent, "And Mondays?", "--panel", "openai/c,openai/d", "--no-judge"]);
    assert!(other.status.success(), "{}", text(&other.stderr));
    let (_, models) = seen(&server, calls);
    assert!(models.iter().all(|m| m == "c" || m == "d") && !models.is_empty(), "{models:?}");
}
