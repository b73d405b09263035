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

/// `git diff | agon run … --file -`, then a follow-up: its speakers still read
/// the diff and the context (the parent's spec holds them) unless the
/// follow-up names its own; a parent whose kept file was altered is refused.
#[test]
fn a_follow_up_reads_the_parents_diff_and_context_unless_it_brings_its_own() {
    use std::io::Write;
    let env = Sandbox::new("continue", "material");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let diff = "--- a/pay.rs\n+++ b/pay.rs\n+    total.unwrap()\n";
    let mut review = env.command(env!("CARGO_BIN_EXE_agon"));
    review
        .args(["run", "Review this change", "--file", "-", "--context", "We never unwrap in payments."])
        .args(["--panel", "openai/a,openai/b", "--judge", "openai/j", "--rounds", "1", "-q"])
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "test-key")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = review.spawn().unwrap();
    child.stdin.take().unwrap().write_all(diff.as_bytes()).unwrap();
    let run = child.wait_with_output().unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let parent_dir = std::fs::read_dir(env.root.join("data")).unwrap().next().unwrap().unwrap().path();
    let parent: Value =
        serde_json::from_str(&std::fs::read_to_string(parent_dir.join("transcript.json")).unwrap()).unwrap();

    let calls = server.stats().requests.len();
    let follow = agon(&env, &server, &["continue", "last", "Is the fix safe?", "--format", "json"]);
    assert!(follow.status.success(), "{}", text(&follow.stderr));
    assert!(text(&follow.stderr).contains("context, files)"), "says what it took: {}", text(&follow.stderr));
    let child: Value = serde_json::from_slice(&follow.stdout).unwrap();
    assert_eq!(child["files"], parent["files"], "the same file, by path, size and hash");
    assert_eq!(child["context"], "We never unwrap in payments.");
    let (prompts, _) = seen(&server, calls);
    assert!(
        !prompts.is_empty()
            && prompts.iter().all(|p| p.contains(r"> +    total.unwrap()") && p.contains("never unwrap")),
        "{prompts:?}"
    );

    // Its own file replaces the parent's.
    std::fs::write(env.root.join("tests.md"), "Add a test for overflow.\n").unwrap();
    let calls = server.stats().requests.len();
    let own = agon(&env, &server, &["continue", "last", "And the tests?", "--file", "tests.md", "--format", "json"]);
    assert!(own.status.success(), "{}", text(&own.stderr));
    let own: Value = serde_json::from_slice(&own.stdout).unwrap();
    assert_eq!(own["files"][0]["path"], "tests.md");
    let (prompts, _) = seen(&server, calls);
    assert!(prompts.iter().all(|p| !p.contains("total.unwrap()")), "the parent's diff stays out: {prompts:?}");
    // An empty --context drops the parent's.
    let bare = agon(&env, &server, &["continue", "last", "And docs?", "--context", "", "--format", "json"]);
    assert!(bare.status.success(), "{}", text(&bare.stderr));
    let bare: Value = serde_json::from_slice(&bare.stdout).unwrap();
    assert!(bare.get("context").is_none(), "{bare}");

    // A kept file altered after the run no longer matches its transcript: refused by name.
    let journal = parent_dir.join("journal.ndjson");
    let kept = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(&journal, kept.replacen("total.unwrap()", "total.expect()", 1)).unwrap();
    let id = parent_dir.file_name().unwrap().to_str().unwrap().to_string();
    let calls = server.stats().requests.len();
    let refused = agon(&env, &server, &["continue", &id, "Is the fix safe?"]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("follows.files[0]"), "{}", text(&refused.stderr));
    assert_eq!(server.stats().requests.len(), calls, "nothing is called");
}
