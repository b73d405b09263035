//! Sessions end to end: every run kept, listed, shown, exported; a run killed
//! with SIGKILL at any point loses no answered turn, and `agon resume`
//! finishes it with the same transcript as a run that was never interrupted,
//! calling only what was never answered.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

const KEY: &str = "sk-test-secret-session-7d3e1b";

struct Env {
    sandbox: Sandbox,
}

impl Env {
    fn new(name: &str) -> Env {
        Env { sandbox: Sandbox::new("sessions-e2e", name) }
    }

    fn data(&self) -> PathBuf {
        self.sandbox.root.join("data")
    }

    fn command(&self, server: &TestServer, args: &[&str]) -> Command {
        let mut cmd = self.sandbox.command(env!("CARGO_BIN_EXE_agon"));
        cmd.args(args).env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("OPENAI_API_KEY", KEY);
        cmd
    }

    fn agon(&self, server: &TestServer, args: &[&str]) -> Output {
        self.command(server, args).output().unwrap()
    }

    /// The one session folder (tests here run one debate per Env unless said otherwise).
    fn sessions(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(self.data())
            .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        dirs.sort();
        dirs
    }
}

const DEBATE: &[&str] =
    &["run", "Should we ship on Friday?", "--panel", "openai/a,openai/b", "--judge", "openai/judge", "--rounds", "2"];

fn server(latency_ms: u64) -> TestServer {
    TestServer::start(Config { latency_ms, replies_from_prompt: true, ..Default::default() }, 0).unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

fn journal_inputs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("journal.ndjson")).map_or(0, |t| t.lines().count().saturating_sub(1))
}

fn assert_no_key_under(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_no_key_under(&path);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            assert!(!String::from_utf8_lossy(&bytes).contains(KEY), "the key leaked into {}", path.display());
        }
    }
}

#[test]
fn the_html_export_shows_a_protocols_result_as_a_table() {
    let env = Env::new("export-results");
    let case = agon_testkit::cases::CASES.iter().find(|c| c.protocol == "priority-vote").unwrap();
    let server = TestServer::start(case.config(Config::default()), 0).unwrap();
    let items = env.sandbox.root.join("items.txt");
    std::fs::write(&items, "- answer the <b>auditor</b>\n- fix the build\n").unwrap();
    let mut args = case.run_args(items.to_str().unwrap());
    args.push("--quiet");
    let out = env.agon(&server, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = text(&env.agon(&server, &["export", "last", "--format", "html"]).stdout);
    let results = &html[html.find("<h2 id=\"results\">Results</h2>").unwrap_or_else(|| panic!("no results: {html}"))..];
    // The engine's ranking table, as HTML: a row per item, the lenses' priorities in cells.
    assert!(results.contains("<h3>Priority ranking (Borda count)</h3>"), "{results}");
    assert!(results.contains("<th>item</th><th>urgency</th><th>impact</th>"), "{results}");
    assert!(results.contains("<td>answer the &lt;b&gt;auditor&lt;/b&gt;</td><td>P0</td><td>P1</td>"), "{results}");
    assert!(results.contains("<td>fix the build ⚑</td><td>P3</td><td>P0</td>"), "flagged: {results}");
    assert!(results.contains("<li>urgency P3: later</li>\n<li>impact P0: unblocks all</li>"), "{results}");
    // The data stays in the JSON transcript; the page has no dump of it, and no markup from the items.
    assert!(!html.contains("\"urgency\"") && !html.contains("<b>auditor"), "{html}");
}

#[test]
fn every_run_is_kept_listed_shown_and_exported() {
    let env = Env::new("kept");
    let server = server(0);
    let mut args = DEBATE.to_vec();
    args.extend(["--quiet", "--format", "json"]);
    let out = env.agon(&server, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);

    let dirs = env.sessions();
    assert_eq!(dirs.len(), 1);
    let id = dirs[0].file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(std::fs::read_to_string(dirs[0].join("transcript.json")).unwrap(), printed);
    assert!(std::fs::read_to_string(dirs[0].join("transcript.md")).unwrap().contains("Should we ship on Friday?"));
    assert_eq!(journal_inputs(&dirs[0]), 5, "four turns and the synthesis");

    let list = text(&env.agon(&server, &["sessions"]).stdout);
    let row = list.lines().find(|l| l.starts_with(&id)).unwrap_or_else(|| panic!("{list}"));
    assert!(row.contains("round-robin") && row.contains("completed") && row.contains("Should we ship"), "{row}");
    let json: Value = serde_json::from_str(text(&env.agon(&server, &["sessions", "--json"]).stdout).trim()).unwrap();
    assert_eq!((json["id"].as_str(), json["outcome"].as_str()), (Some(id.as_str()), Some("completed")));

    assert_eq!(text(&env.agon(&server, &["show", &id[..17], "--format", "json"]).stdout), printed, "by prefix");
    assert_eq!(text(&env.agon(&server, &["show", "last", "--format", "json"]).stdout), printed);
    let yaml: Value =
        serde_yaml_ng::from_str(&text(&env.agon(&server, &["show", "last", "--format", "yaml"]).stdout)).unwrap();
    assert_eq!(yaml, serde_json::from_str::<Value>(&printed).unwrap(), "the YAML holds the same transcript");
    let md = text(&env.agon(&server, &["export", "last", "--format", "md"]).stdout);
    assert!(md.contains("Should we ship on Friday?"));
    let page = env.sandbox.root.join("page.html");
    let out = env.agon(&server, &["export", &id, "--format", "html", "--output", page.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.starts_with("<!doctype html>")
            && html.contains("<h2 id=\"outcome\">Completed</h2>")
            && html.contains("judge answer")
    );

    let out = env.agon(&server, &["show", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no session 'nope'"));
    assert_no_key_under(&env.data());
}

#[test]
fn no_save_keeps_nothing() {
    let env = Env::new("nosave");
    let server = server(0);
    let mut args = DEBATE.to_vec();
    args.extend(["--quiet", "--no-save"]);
    assert!(env.agon(&server, &args).status.success());
    assert!(env.sessions().is_empty());
}

/// The transcript of the same debate, never interrupted, and how many calls it made.
fn uninterrupted() -> (String, usize) {
    let env = Env::new("reference");
    let server = server(0);
    let mut args = DEBATE.to_vec();
    args.extend(["--quiet", "--format", "json"]);
    let out = env.agon(&server, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (text(&out.stdout), server.stats().requests.len())
}

/// Start the debate, wait until its journal holds `inputs` answers, then stop
/// it with `signal` (SIGKILL via Child::kill, or SIGINT via `kill -INT`).
fn interrupt_after(env: &Env, server: &TestServer, inputs: usize, sigint: bool) -> (PathBuf, Output) {
    let mut args = DEBATE.to_vec();
    args.extend(["--format", "json"]);
    let mut child = env.command(server, &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let dir = loop {
        if let Some(dir) = env.sessions().pop()
            && dir.join("journal.ndjson").exists()
            && journal_inputs(&dir) >= inputs
        {
            break dir;
        }
        assert!(Instant::now() < deadline, "the run never reached {inputs} answers");
        std::thread::sleep(Duration::from_millis(2));
    };
    if sigint {
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    } else {
        child.kill().unwrap();
    }
    (dir, child.wait_with_output().unwrap())
}

/// The server's request count once the killed run's last requests have
/// landed: a request sent just before the kill may reach the server (or
/// leave its backlog) after the kill, and must not count as the resume's.
fn settled_requests(server: &TestServer) -> usize {
    let mut seen = server.stats().requests.len();
    loop {
        std::thread::sleep(Duration::from_millis(400));
        let stats = server.stats();
        if stats.in_flight == 0 && stats.requests.len() == seen {
            return seen;
        }
        seen = stats.requests.len();
    }
}

#[test]
fn sigkill_at_any_point_loses_nothing_and_resume_finishes_the_same_debate() {
    let (reference, calls) = uninterrupted();
    assert_eq!(calls, 5);
    for inputs in 0..calls {
        let env = Env::new(&format!("kill{inputs}"));
        // Latency keeps each call in flight long enough for the kill to land between answers.
        let server = server(150);
        let (dir, killed) = interrupt_after(&env, &server, inputs, false);
        assert!(!killed.status.success());
        let answered = journal_inputs(&dir);
        assert!(answered >= inputs, "the journal kept every answer the run had");
        let before = settled_requests(&server);

        let out = env.agon(&server, &["resume", "last", "--quiet", "--format", "json"]);
        assert!(out.status.success(), "resume after {inputs}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), reference, "resumed after {inputs} answers: not the same debate");
        assert_eq!(
            server.stats().requests.len() - before,
            calls - answered,
            "resume after {answered} answers called something already answered"
        );
        assert_eq!(std::fs::read_to_string(dir.join("transcript.json")).unwrap(), reference);
        // Resuming a finished session calls nothing.
        let before = server.stats().requests.len();
        let again = env.agon(&server, &["resume", "last", "--quiet", "--format", "json"]);
        assert!(again.status.success() && text(&again.stderr).contains("already finished"));
        assert_eq!(server.stats().requests.len(), before);
        assert_no_key_under(&env.data());
    }
}

#[test]
fn ctrl_c_keeps_the_session_and_says_how_to_resume() {
    let (reference, _) = uninterrupted();
    let env = Env::new("sigint");
    let server = server(150);
    let (dir, out) = interrupt_after(&env, &server, 2, true);
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let id = dir.file_name().unwrap().to_str().unwrap();
    assert!(text(&out.stderr).contains(&format!("resume with: agon resume {id}")), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains(KEY) && !text(&out.stdout).contains(KEY));
    let list = text(&env.agon(&server, &["sessions"]).stdout);
    assert!(list.lines().any(|l| l.starts_with(id) && l.contains("interrupted")), "{list}");
    // show renders the unfinished debate from its journal.
    let shown: Value =
        serde_json::from_str(&text(&env.agon(&server, &["show", id, "--format", "json"]).stdout)).unwrap();
    assert!(shown["turns"].as_array().unwrap().len() >= 2);
    let out = env.agon(&server, &["resume", id, "--quiet", "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), reference);
}
