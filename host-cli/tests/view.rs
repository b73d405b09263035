//! What a person sees: the live view on a terminal (run under a real
//! pseudo-terminal with util-linux's `script`), plain lines when piped, and
//! `--events -` as pure NDJSON.

use std::process::{Command, Output};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};

/// `program` in its own sandbox, on the test server, with a colour-capable TERM and no NO_COLOR.
fn command(env: &Sandbox, server: &TestServer, program: &str) -> Command {
    let mut cmd = env.command(program);
    cmd.env_remove("NO_COLOR").env("TERM", "xterm-256color").env("OPENAI_BASE_URL", format!("{}/v1", server.url()));
    cmd
}

const JUDGE_REPLY: &str = "## Verdict\n\nUse **spaces**.";

fn server() -> TestServer {
    let mut config = Config::default();
    config
        .models
        .insert("judge".into(), agon_testkit::ModelScript { replies: vec![JUDGE_REPLY.into()], ..Default::default() });
    TestServer::start(config, 0).unwrap()
}

/// `agon run …` under a pseudo-terminal; everything the terminal received.
fn on_a_terminal(env: &Sandbox, server: &TestServer, no_color: bool) -> String {
    let agon = env!("CARGO_BIN_EXE_agon");
    let line = format!("{agon} run 'Tabs or spaces?' --panel openai/a,openai/b --judge openai/judge --rounds 1");
    let mut cmd = command(env, server, "script");
    cmd.args(["-qec", &line, "/dev/null"]);
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out: Output = cmd.output().expect("util-linux `script` runs the CLI under a pseudo-terminal");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn a_terminal_gets_status_lines_the_stream_and_the_rendered_synthesis() {
    let env = Sandbox::new("view", "tty");
    let server = server();
    let screen = on_a_terminal(&env, &server, false);
    assert!(screen.contains("a · openai/a") && screen.contains("tokens"), "a status line per call in flight");
    assert!(screen.contains("\x1b[2K"), "status lines are redrawn in place");
    assert!(screen.contains("a answer 1: I disagree"), "the reply streamed");
    assert!(screen.contains("judge · openai/judge (synthesis)"));
    // The synthesis is rendered: the Markdown heading and bold markers are gone, the words stay.
    assert!(screen.contains("Verdict") && !screen.contains("## Verdict") && !screen.contains("**spaces**"), "{screen}");
    assert!(screen.contains("Outcome: Completed — "), "the reason follows the headline as one sentence: {screen}");
    assert!(screen.contains("\x1b[36m") || screen.contains("\x1b[1m"), "colour and style by default");

    let plain = on_a_terminal(&env, &server, true);
    assert!(plain.contains("Outcome: Completed") && plain.contains("a answer "));
    for code in ["\x1b[36m", "\x1b[1m", "\x1b[2m", "\x1b[0m"] {
        assert!(!plain.contains(code), "NO_COLOR still printed {code:?}");
    }
}

#[test]
fn piped_output_is_plain_and_events_are_pure_ndjson() {
    let env = Sandbox::new("view", "piped");
    let server = server();
    let args = ["run", "Tabs or spaces?", "--panel", "openai/a,openai/b", "--judge", "openai/judge", "--rounds", "1"];
    let out = command(&env, &server, env!("CARGO_BIN_EXE_agon")).args(args).output().unwrap();
    assert!(out.status.success());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!stdout.contains('\x1b') && !stderr.contains('\x1b'), "no escape codes when not a terminal");
    assert!(stdout.starts_with("# Tabs or spaces?"), "the Markdown transcript on stdout");
    assert!(stderr.contains("a answer 1") && stderr.contains("Outcome: Completed"), "progress on stderr");

    let out = command(&env, &server, env!("CARGO_BIN_EXE_agon")).args(args).args(["--events", "-"]).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let kinds: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("not NDJSON: {l:?}: {e}")))
        .map(|v| v["type"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("debate-started"));
    assert_eq!(kinds.last().map(String::as_str), Some("debate-ended"));
}

#[test]
fn a_degraded_debate_never_gets_the_normal_synthesis_heading() {
    let env = Sandbox::new("view", "degraded");
    let mut config = Config::default();
    config.models.insert(
        "c".into(),
        agon_testkit::ModelScript { fault: Some(agon_testkit::Fault::ServerError), ..Default::default() },
    );
    let server = TestServer::start(config, 0).unwrap();
    let args = ["run", "Q?", "--panel", "openai/a,openai/b,openai/c", "--judge", "openai/judge", "--rounds", "1"];
    let out = command(&env, &server, env!("CARGO_BIN_EXE_agon")).args(args).args(["--retries", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("== Synthesis of an incomplete debate — judge"), "{stderr}");
    assert!(!stderr.contains("== Synthesis —"), "{stderr}");
    assert!(stderr.contains("Outcome: Degraded"), "{stderr}");
}

#[test]
fn judge_mode_shows_the_judge_overruling_then_confirming_the_reader() {
    let env = Sandbox::new("view", "judge-mode");
    let script = |replies: &[&str]| agon_testkit::ModelScript {
        replies: replies.iter().map(|r| r.to_string()).collect(),
        ..Default::default()
    };
    let mut config = Config::default();
    // Round 1's challenger is a, round 2's is b; the others declare the same position each round.
    config.models.insert("a".into(), script(&["Phases.", "I disagree: nobody priced it.", "VOTE: SAME — phases."]));
    config.models.insert("b".into(), script(&["Phases.", "VOTE: SAME — phases.", "I disagree: the depot is late."]));
    config.models.insert("c".into(), script(&["Phases.", "VOTE: SAME — phases.", "VOTE: SAME — phases."]));
    config.models.insert(
        "judge".into(),
        script(&[
            r#"{"settled": false, "position": "", "holdouts": [{"speaker": "Speaker 3", "why": "it funds one phase only"}]}"#,
            r#"{"settled": true, "position": "Launch in phases.", "holdouts": []}"#,
            "## Synthesis\nPhases.",
        ]),
    );
    let server = TestServer::start(config, 0).unwrap();
    let args = [
        "run",
        "Phases or all at once?",
        "--protocol",
        "rotating-challenger",
        "--panel",
        "openai/a,openai/b,openai/c",
        "--judge",
        "openai/judge",
        "--rounds",
        "2",
        "--consensus",
        "judge",
        "--quality-gate",
        "off",
        "--format",
        "json",
    ];
    let out = command(&env, &server, env!("CARGO_BIN_EXE_agon")).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("reader saw agreement; judge disagreed"), "{stderr}");
    assert!(stderr.contains("consensus (confirmed by the judge)"), "{stderr}");
    assert!(!stderr.contains("\"settled\""), "the judge's JSON is not streamed to the screen: {stderr}");
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "consensus");
    assert_eq!(t["outcome"]["rounds_run"], 2);
    assert_eq!(t["consensus"][0]["judge"]["confirmed"], false);
    assert_eq!(t["consensus"][0]["judge"]["holdouts"][0]["seat"], "c");
    assert_eq!(t["consensus"][1]["judge"]["confirmed"], true);
    let models: Vec<String> = server.stats().requests.iter().map(|r| r.model.clone()).collect();
    assert_eq!(models.iter().filter(|m| *m == "judge").count(), 3, "two confirmations and the synthesis: {models:?}");
}

/// The protocol's named results follow the synthesis: rendered on a terminal
/// (no Markdown markers left), plain text with `--no-stream` piped.
#[test]
fn the_results_follow_the_synthesis_rendered_on_a_terminal_and_plain_when_piped() {
    let env = Sandbox::new("view", "results");
    let review = "## Competitive Review\n```json\n{\"concerns\": [{\"concern\": 1, \"score\": 4}], \"pulled_punches\": false, \"key_narratives\": [\"rollback\"], \"agreement_zones\": [], \"contested_zones\": [\"rollback\"]}\n```";
    let mut config = Config::default();
    config.models.insert(
        "judge".into(),
        agon_testkit::ModelScript { replies: vec![review.into(), review.into()], ..Default::default() },
    );
    let server = TestServer::start(config, 0).unwrap();
    let agon = env!("CARGO_BIN_EXE_agon");
    let line = format!(
        "{agon} run 'Review the RFC' --protocol adversarial --compete --quality-gate off --panel openai/adv,openai/chal --judge openai/judge"
    );
    let out = command(&env, &server, "script").args(["-qec", &line, "/dev/null"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = String::from_utf8_lossy(&out.stdout);
    let results = screen.find("Competitive review").expect("the review is shown");
    assert!(!screen.contains("### Competitive review"), "rendered, not raw Markdown: {screen}");
    assert!(results < screen.rfind("Outcome:").unwrap(), "before the outcome line");

    let args = ["run", "Review the RFC", "--protocol", "adversarial", "--compete", "--quality-gate", "off"];
    let more = ["--panel", "openai/adv,openai/chal", "--judge", "openai/judge", "--no-stream", "--format", "json"];
    let out = command(&env, &server, agon).args(args).args(more).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("### Competitive review") && stderr.contains("compete-result"), "{stderr}");
    assert!(!stderr.contains('\x1b'), "{stderr}");
}
