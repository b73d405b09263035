//! The conventions of a command-line tool, each as a user meets it: one word
//! for a format everywhere, a flag given twice replacing the first, `-q` on a
//! terminal still giving the result, `replay last`, help grouped under
//! headings with examples, completions, a manual page, and a version that
//! names the engine and the catalog. (Closed pipes: closed_pipes.rs; a
//! refused key and doctor's cache: doctor.rs.)

use std::process::{Command, Output};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

struct Env {
    sandbox: Sandbox,
    server: TestServer,
}

impl Env {
    fn new(name: &str) -> Env {
        Env { sandbox: Sandbox::new("conventions", name), server: TestServer::start(Config::default(), 0).unwrap() }
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = self.sandbox.command(program);
        cmd.env("OPENAI_BASE_URL", format!("{}/v1", self.server.url())).env("OPENAI_API_KEY", "sk-test-conventions");
        cmd
    }

    fn agon(&self, args: &[&str]) -> Output {
        self.command(env!("CARGO_BIN_EXE_agon")).args(args).output().unwrap()
    }

    /// `agon ARGS`, which must succeed; its stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.agon(args);
        assert!(out.status.success(), "agon {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// One finished debate, kept, with a journal copy at `copy.ndjson`.
    fn debate(&self) {
        self.ok(&[
            "run",
            "Tabs or spaces?",
            "--panel",
            "openai/a,openai/b",
            "--no-judge",
            "-q",
            "--journal",
            "copy.ndjson",
        ]);
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn md_and_markdown_are_one_format_everywhere() {
    let env = Env::new("formats");
    env.debate();
    for word in ["md", "markdown"] {
        let shown = env.ok(&["show", "last", "--format", word]);
        assert!(shown.starts_with("# Tabs or spaces?"), "show --format {word}: {shown}");
        assert_eq!(env.ok(&["export", "last", "--format", word]), shown, "export --format {word}");
        assert_eq!(env.ok(&["replay", "last", "-f", word]), shown, "replay -f {word}");
        let run = env.ok(&["run", "Q?", "--panel", "openai/a,openai/b", "--no-judge", "-q", "--no-save", "-f", word]);
        assert!(run.starts_with("# Q?"), "run -f {word}: {run}");
    }
    let out = env.agon(&["export", "last", "--format", "text"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("markdown"), "the error lists the formats: {}", stderr(&out));
}

#[test]
fn replay_takes_last_an_id_a_prefix_or_a_journal_file() {
    let env = Env::new("replay");
    env.debate();
    let calls = env.server.stats().requests.len();
    let from_file = env.ok(&["replay", "copy.ndjson"]);
    assert!(from_file.contains("Tabs or spaces?"));
    let sessions: Vec<Value> =
        env.ok(&["sessions", "--json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    assert_eq!(env.ok(&["replay", "last"]), from_file);
    assert_eq!(env.ok(&["replay", &id]), from_file);
    assert_eq!(env.ok(&["replay", &id[..id.len() - 2]]), from_file, "a prefix of the id");

    let out = env.agon(&["replay", "nothing-like-it"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("neither a journal file nor a kept session"), "{}", stderr(&out));
    let out = env.agon(&["replay", "missing.ndjson"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the journal missing.ndjson"), "{}", stderr(&out));
    assert_eq!(env.server.stats().requests.len(), calls, "replay called no model");
}

/// The docs: "a flag given again replaces the earlier one"; --panel too.
#[test]
fn a_flag_given_twice_replaces_the_first() {
    let env = Env::new("twice");
    let spec: Value = serde_json::from_str(&env.ok(&[
        "spec",
        "Q?",
        "--panel",
        "openai/a,openai/b",
        "--rounds",
        "1",
        "--panel",
        "openai/c,openai/d",
        "--rounds",
        "3",
    ]))
    .unwrap();
    let models: Vec<&str> = spec["panel"].as_array().unwrap().iter().map(|p| p["model"].as_str().unwrap()).collect();
    assert_eq!(models, ["openai/c", "openai/d"], "{spec}");
    assert_eq!(spec["rounds"], 3, "{spec}");

    // Flags that collect still collect.
    let spec: Value = serde_json::from_str(&env.ok(&[
        "spec",
        "Q?",
        "--protocol",
        "comparative",
        "--panel",
        "openai/a",
        "--option",
        "A",
        "--option",
        "B",
    ]))
    .unwrap();
    assert_eq!(spec["protocol"]["options"], serde_json::json!(["A", "B"]), "{spec}");

    std::fs::write(env.sandbox.root.join("q.txt"), "Q?\n").unwrap();
    let args = ["batch", "q.txt", "-o", "r.jsonl", "--panel", "openai/x", "--panel", "openai/a,openai/b", "--no-judge"];
    env.ok(&args);
    let asked: Vec<String> = env.server.stats().requests.iter().map(|r| r.model.clone()).collect();
    assert!(!asked.iter().any(|m| m == "x") && asked.iter().any(|m| m == "b"), "{asked:?}");
}

/// `-q` on a terminal: no progress, but the result (it printed nothing).
#[test]
fn quiet_on_a_terminal_still_gives_the_result() {
    let env = Env::new("quiet");
    let line = format!("{} run 'Tabs or spaces?' --panel openai/a,openai/b --no-judge -q", env!("CARGO_BIN_EXE_agon"));
    let out = env
        .command("script")
        .args(["-qec", &line, "/dev/null"])
        .env("TERM", "xterm-256color")
        .output()
        .expect("util-linux `script` runs the CLI under a pseudo-terminal");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(screen.contains("# Tabs or spaces?") && screen.contains("a answer 1"), "the result: {screen}");
    assert!(!screen.contains("\x1b[2K"), "no status lines: {screen:?}");
}

#[test]
fn help_is_grouped_under_headings_with_examples() {
    let env = Env::new("help");
    let help = env.ok(&["run", "--help"]);
    for heading in
        ["Council:", "What the council reads:", "Replies and reasoning:", "Cost:", "Output:", "Calls:", "Examples:"]
    {
        assert!(help.lines().any(|l| l == heading), "no {heading} in agon run --help:\n{help}");
    }
    // Under the bare "Options:" heading only what is every command's: --config and --help.
    let options: Vec<&str> = help
        .split("\nOptions:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .flat_map(|block| block.lines().next())
        .take_while(|line| line.starts_with(' '))
        .collect();
    assert!(options.iter().all(|l| l.contains("--config") || l.contains("--help")), "{options:?}");
    for command in
        [&["--help"][..], &["batch", "--help"], &["eval", "--help"], &["show", "--help"], &["doctor", "--help"]]
    {
        assert!(env.ok(command).contains("\nExamples:\n"), "agon {command:?} has no examples");
    }
    assert!(!help.contains("seed 00"), "help names behaviour, not a seed");
}

#[test]
fn completions_and_the_manual_page_come_from_the_parser() {
    let env = Env::new("manual");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = env.ok(&["completions", shell]);
        assert!(script.contains("agon") && script.contains("panel") && script.contains("replay"), "{shell}: {script}");
    }
    let bash = env.ok(&["completions", "bash"]);
    std::fs::write(env.sandbox.root.join("agon.bash"), &bash).unwrap();
    let checked = Command::new("bash").args(["-n", "agon.bash"]).current_dir(&env.sandbox.root).output().unwrap();
    assert!(checked.status.success(), "bash -n: {}", String::from_utf8_lossy(&checked.stderr));
    assert_eq!(env.agon(&["completions", "tcsh"]).status.code(), Some(2));

    let page = env.ok(&["man"]);
    assert!(page.starts_with(".ie") && page.contains(".TH agon 1") && page.contains("completions"), "{page}");
    let run = env.ok(&["man", "run"]);
    assert!(run.contains(".TH agon-run 1") && run.contains("\\-\\-max\\-cost"), "{run}");
    let out = env.agon(&["man", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no command 'nope'"), "{}", stderr(&out));
}

/// `--version` names the engine (as the component writes it into a journal)
/// and the catalog snapshot (as catalog/models.json states it).
#[test]
fn the_version_names_the_engine_and_the_catalog() {
    let env = Env::new("version");
    env.debate();
    let version = env.ok(&["--version"]);
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(env.sandbox.root.join("copy.ndjson")).unwrap().lines().next().unwrap(),
    )
    .unwrap();
    let engine = header["engine"].as_str().unwrap();
    assert!(version.contains(&format!("engine: agon-core {engine}")), "{version}");
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../catalog/models.json")).unwrap(),
    )
    .unwrap();
    let snapshot =
        format!("catalog: {} {}", catalog["source"].as_str().unwrap(), catalog["snapshot"].as_str().unwrap());
    assert!(version.contains(&snapshot), "{version}");
    assert_eq!(env.ok(&["-V"]).trim(), format!("agon {}", env!("CARGO_PKG_VERSION")));
}
