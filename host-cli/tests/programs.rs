//! Programs agon starts: found only in PATH's absolute entries, asked for
//! their version within a bound that a lingering child cannot stretch, and
//! seated with only the environment they need, in their read-only modes.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agon_testkit::sandbox::Sandbox;

fn script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `agon ARGS` on a machine of the test's making: no local server answers,
/// PATH is `path`, and the keys are the test's.
fn agon(env: &Sandbox, path: &str, args: &[&str]) -> Command {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.args(args).env("PATH", path).env("OLLAMA_HOST", "http://127.0.0.1:9");
    for var in ["LMSTUDIO_BASE_URL", "VLLM_BASE_URL", "LLAMACPP_BASE_URL"] {
        cmd.env(var, "http://127.0.0.1:9/v1");
    }
    for var in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY"] {
        cmd.env_remove(var);
    }
    cmd
}

/// The command's output, or a failure once `bound` passes: a hang, never a wait.
fn within(mut cmd: Command, bound: Duration) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > bound {
            let _ = child.kill();
            panic!("still running after {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// `.`, an empty entry and a relative `bin` on PATH all mean the folder agon
/// runs in: a cloned repository's `./codex` there is never run, not for its
/// version and not as a seat.
#[test]
fn a_program_in_the_working_folder_is_never_run() {
    let env = Sandbox::new("programs", "dot-path");
    let ran = env.root.join("ran");
    for at in ["codex", "bin/claude"] {
        script(&env.root.join(at), &format!("echo \"$0 $*\" >> {}\necho 'codex 6.6.6'", ran.display()));
    }
    let out = agon(&env, ".::bin", &["doctor"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("cmd/codex") && !stdout.contains("cmd/claude"), "{stdout}");
    let out = agon(&env, ".::bin", &["run", "Q?", "--rounds", "1", "--no-save"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "nothing to seat: {}", String::from_utf8_lossy(&out.stderr));
    // Named as a seat, a bare name is looked for in PATH's absolute entries only.
    let out = agon(&env, ".::bin", &["run", "Q?", "--panel", "cmd/codex,cmd/claude", "--rounds", "1", "--no-save"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not on PATH"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!ran.exists(), "ran: {}", std::fs::read_to_string(&ran).unwrap_or_default());
}

/// A `--version` that prints and exits but leaves a child holding its
/// output: `agon doctor` reads the line and goes on, the child killed.
#[test]
fn a_version_that_leaves_its_output_open_does_not_hold_doctor() {
    let env = Sandbox::new("programs", "lingering");
    let bin = env.root.join("bin");
    script(
        &bin.join("codex"),
        "if [ \"$1\" = --version ]; then echo 'codex-cli 1.0 (test)'; /bin/sleep 120 & exit 0; fi",
    );
    let out = within(agon(&env, bin.to_str().unwrap(), &["doctor"]), Duration::from_secs(40));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("program  cmd/codex:") && stdout.contains("(codex-cli 1.0 (test))"), "{stdout}");
}

/// A seat starts with the basics and its own CLI's variables, not every key
/// of the user; the coding agents' CLIs run with their tools off or
/// read-only.
#[test]
fn a_seat_gets_only_the_environment_it_needs_and_runs_read_only() {
    let env = Sandbox::new("programs", "environment");
    let bin = env.root.join("bin");
    // Each prints its arguments and the names of the variables it was given.
    let dump = "cat >/dev/null\necho \"ARGS: $*\"\nfor v in OPENAI_API_KEY ANTHROPIC_API_KEY GITHUB_TOKEN AWS_SECRET_ACCESS_KEY MY_TOKEN HOME; do\n  eval \"x=\\${$v-}\"; [ -n \"$x\" ] && echo \"HAS $v\"\ndone\necho done";
    script(&bin.join("codex"), dump);
    script(&bin.join("claude"), dump);
    script(&env.root.join("mine.sh"), dump);
    let config = env.root.join("mine.toml");
    std::fs::write(
        &config,
        format!("[commands.mine]\nprogram = \"{}\"\nenv = [\"MY_*\"]\n", env.root.join("mine.sh").display()),
    )
    .unwrap();
    let mut cmd = agon(
        &env,
        &format!("{}:/usr/bin:/bin", bin.display()),
        &["--config", config.to_str().unwrap(), "run", "Q?", "--panel", "cmd/codex,cmd/claude,cmd/mine", "--no-judge"],
    );
    cmd.args(["--rounds", "1", "--quiet", "--format", "json", "--no-save"]);
    for (var, value) in [
        ("OPENAI_API_KEY", "sk-o"),
        ("ANTHROPIC_API_KEY", "sk-a"),
        ("GITHUB_TOKEN", "ghp"),
        ("AWS_SECRET_ACCESS_KEY", "aws"),
        ("MY_TOKEN", "mine"),
    ] {
        cmd.env(var, value);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let said = |seat: &str| -> String {
        t["turns"].as_array().unwrap().iter().find(|turn| turn["speaker"] == seat).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (codex, claude, mine) = (said("codex"), said("claude"), said("mine"));
    assert!(codex.contains("ARGS: exec --sandbox read-only -"), "{codex}");
    assert!(claude.contains("ARGS: -p --tools "), "{claude}");
    assert!(codex.contains("HAS OPENAI_API_KEY") && !codex.contains("HAS ANTHROPIC_API_KEY"), "{codex}");
    assert!(claude.contains("HAS ANTHROPIC_API_KEY") && !claude.contains("HAS OPENAI_API_KEY"), "{claude}");
    assert!(mine.contains("HAS MY_TOKEN") && !mine.contains("API_KEY"), "{mine}");
    for text in [&codex, &claude, &mine] {
        assert!(text.contains("HAS HOME"), "the basics: {text}");
        assert!(!text.contains("GITHUB_TOKEN") && !text.contains("AWS_SECRET"), "{text}");
    }
}
