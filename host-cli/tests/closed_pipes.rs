//! A reader that goes away ends agon quietly: `agon sessions | head -1`,
//! `agon run … 2>&1 | head -2`, a pager quit early. Each command here writes
//! into a pipe whose reader is already closed (so every write fails, with no
//! race on how much fits in the pipe first), or into one read for a line and
//! then closed, as `head -1` does. It must end with 141 (a process killed by
//! SIGPIPE, as a shell reports it) or 0, never with a message, a panic (101
//! in this test build) or an abort (134 in the release build).

use std::io::{BufRead, BufReader, PipeWriter};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};

struct Env {
    sandbox: Sandbox,
    server: TestServer,
}

impl Env {
    /// A sandbox with one finished session (and its journal copy) in it.
    fn new(name: &str) -> Env {
        let env = Env {
            sandbox: Sandbox::new("closed-pipes", name),
            server: TestServer::start(Config::default(), 0).unwrap(),
        };
        let out =
            env.command(&[&["run", "Q?", "-q", "--journal", "copy.ndjson"][..], PANEL].concat()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        env
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.sandbox.command(env!("CARGO_BIN_EXE_agon"));
        cmd.args(args)
            .env("OPENAI_BASE_URL", format!("{}/v1", self.server.url()))
            .env("OPENAI_API_KEY", "sk-test-closed-pipes")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        cmd
    }
}

const PANEL: &[&str] = &["--panel", "openai/a,openai/b", "--judge", "openai/j"];

/// A pipe whose reader is gone: the writer's every write fails with EPIPE.
fn closed_pipe() -> PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

/// 141 or 0: what `head` leaves a well-behaved tool with.
fn ended_quietly(status: ExitStatus) -> bool {
    matches!(status.code(), Some(0 | 141)) || status.signal() == Some(13)
}

/// The commands that print, each with its output into a closed pipe.
const PRINTING: &[&[&str]] = &[
    &["sessions"],
    &["sessions", "--json"],
    &["show", "last"],
    &["show", "last", "--format", "json"],
    &["show", "last", "--timeline"],
    &["export", "last", "--format", "md"],
    &["export", "last", "--format", "html"],
    &["export", "last", "--format", "adr"],
    &["export", "last", "--format", "svg"],
    &["replay", "copy.ndjson"],
    &["protocols"],
    &["protocols", "--show", "round-robin"],
    &["models"],
    &["models", "--json"],
    &["config"],
    &["doctor", "openai/a"],
    &["doctor", "openai/a", "--json"],
    &["spec", "Q?", "--panel", "openai/a,openai/b"],
    &["run", "--help"],
    &["--version"],
    &["completions", "bash"],
    &["man"],
];

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let env = Env::new("stdout");
    for args in PRINTING {
        let out = env.command(args).stdout(closed_pipe()).output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(ended_quietly(out.status), "agon {args:?}: {:?}\n{said}", out.status);
        assert!(!said.contains("Broken pipe") && !said.contains("panicked"), "agon {args:?} said: {said}");
    }
}

#[test]
fn a_closed_stdout_and_stderr_end_every_command_quietly() {
    let env = Env::new("both");
    for args in PRINTING {
        let pipe = closed_pipe();
        let out = env.command(args).stdout(pipe.try_clone().unwrap()).stderr(pipe).status().unwrap();
        assert!(ended_quietly(out), "agon {args:?}: {out:?}");
    }
}

/// `agon run … | head`, `agon run … 2>&1 | head -2`, `--events - | head`:
/// the run stops at its first write, as a tool killed by SIGPIPE would.
#[test]
fn a_run_whose_reader_is_gone_ends_quietly() {
    let env = Env::new("run");
    let run = |extra: &[&str]| env.command(&[&["run", "Should we?"][..], PANEL, extra].concat());

    let out = run(&[]).stdout(closed_pipe()).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(ended_quietly(out.status), "{:?}\n{said}", out.status);
    assert!(!said.contains("Broken pipe") && !said.contains("panicked"), "{said}");

    for extra in [&[][..], &["--format", "json"], &["--events", "-"], &["-q"]] {
        let pipe = closed_pipe();
        let status = run(extra).stdout(pipe.try_clone().unwrap()).stderr(pipe).status().unwrap();
        assert!(ended_quietly(status), "run {extra:?}: {status:?}");
    }

    // The progress on stderr alone, its reader gone: the result still had a place to go.
    let out = run(&["-o", "out.md"]).stderr(closed_pipe()).output().unwrap();
    assert!(ended_quietly(out.status), "{:?}", out.status);

    // Interrupted so, the run is a session `agon resume` can finish.
    let sessions = env.command(&["sessions", "--json"]).output().unwrap();
    assert!(sessions.status.success());
    assert!(String::from_utf8_lossy(&sessions.stdout).lines().count() >= 2);
}

/// As `head -1` does it: read a line, then close.
#[test]
fn a_reader_that_stops_after_a_line_ends_the_command_quietly() {
    let env = Env::new("head");
    for _ in 0..3 {
        assert!(env.command(&[&["run", "Again?", "-q"][..], PANEL].concat()).output().unwrap().status.success());
    }
    for args in [&["sessions"][..], &["show", "last"], &["run", "Q?", "--panel", "openai/a,openai/b"]] {
        let mut child = env.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "agon {args:?} printed nothing");
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(ended_quietly(out.status), "agon {args:?}: {:?}\n{said}", out.status);
        assert!(!said.contains("Broken pipe") && !said.contains("panicked"), "agon {args:?} said: {said}");
    }
}
