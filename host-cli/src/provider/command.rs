//! Command-line models (`cmd/NAME`): a program run once per call, the prompt
//! on its stdin or as its last argument after `--`, its stdout the reply.
//!
//! Each call ends in one of four ways, each a clear result: the reply; a
//! timeout (the program is killed); the program is not installed (say which
//! and how to set it up); an error exit (with its code and the tail of stderr).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use super::{CallError, Completion, Retry};
use crate::engine::wit;

/// One of agon.toml's `[commands.NAME]`: the program a `cmd/NAME` model runs.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CommandSettings {
    pub program: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// How the prompt reaches the program.
    #[serde(default)]
    pub prompt: PromptVia,
    /// Seconds before the program is killed.
    pub timeout: Option<u64>,
    /// Environment variables the program gets besides the basics (`NAME`, or
    /// `PREFIX_*`): a program starts without the rest of agon's environment.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
}

/// How the prompt reaches the program.
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PromptVia {
    #[default]
    Stdin,
    Argument,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandModel {
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
    pub prompt: PromptVia,
    /// Overrides the run's per-call timeout.
    pub timeout: Option<Duration>,
    /// How to get the program, for the not-installed message.
    pub install: Option<&'static str>,
    /// The variables it gets besides the basics ([`crate::programs::environment`]).
    pub env: Vec<String>,
}

impl CommandModel {
    /// A `[commands.NAME]` of agon.toml; one that takes a built-in's name
    /// keeps the variables that CLI reads.
    pub fn from_settings(name: &str, s: &CommandSettings) -> CommandModel {
        let mut env = builtin().remove(name).map(|b| b.env).unwrap_or_default();
        env.extend(s.env.iter().cloned());
        CommandModel {
            name: name.to_string(),
            program: s.program.clone(),
            args: s.args.clone(),
            prompt: s.prompt,
            timeout: s.timeout.map(Duration::from_secs),
            install: None,
            env,
        }
    }
}

/// The coding agents' own CLIs, in their non-interactive modes, each with
/// its tools off or read-only where the CLI has such a mode (a seat answers
/// in text; it has no business editing the folder or running commands), and
/// with only the variables it reads (its own key among them).
///
/// - Claude Code: `--tools ""` disables every built-in tool (Claude Code's
///   CLI reference, code.claude.com/docs/en/cli-reference).
/// - Codex: `exec --sandbox read-only` (openai/codex, docs/exec.md and
///   docs/sandbox.md), whatever its config.toml says.
/// - Gemini CLI and Qwen Code: `--approval-mode default`; without a person to
///   approve, headless runs leave out the tools that need approval, shell
///   and edits (google-gemini/gemini-cli #702 and the maintainers' answer on
///   #2226), whatever a settings file chose.
pub fn builtin() -> BTreeMap<String, CommandModel> {
    let cli = |name: &str, args: &[&str], env: &[&str], install| {
        (
            name.to_string(),
            CommandModel {
                name: name.to_string(),
                program: name.to_string(),
                args: args.iter().map(|a| a.to_string()).collect(),
                // Every built-in takes the prompt on stdin: text is never where an
                // option could be (`codex exec -` reads it; Gemini's and Qwen's CLIs
                // read piped input non-interactively).
                prompt: PromptVia::Stdin,
                timeout: None,
                install: Some(install),
                env: env.iter().map(|v| v.to_string()).collect(),
            },
        )
    };
    BTreeMap::from([
        cli("claude", &["-p", "--tools", ""], &["ANTHROPIC_*", "CLAUDE_*"], "npm install -g @anthropic-ai/claude-code"),
        cli(
            "codex",
            &["exec", "--sandbox", "read-only", "-"],
            &["OPENAI_*", "CODEX_*"],
            "npm install -g @openai/codex",
        ),
        cli("gemini", &["--approval-mode", "default"], &["GEMINI_*", "GOOGLE_*"], "npm install -g @google/gemini-cli"),
        cli(
            "qwen",
            &["--approval-mode", "default"],
            &["OPENAI_*", "DASHSCOPE_*", "QWEN_*"],
            "npm install -g @qwen-code/qwen-code",
        ),
    ])
}

/// The messages as one prompt: the system text first, then the conversation.
pub fn flatten(request: &wit::ModelRequest) -> String {
    let parts: Vec<String> = request
        .messages
        .iter()
        .map(|m| match m.role {
            wit::Role::System | wit::Role::User => m.content.clone(),
            wit::Role::Assistant => format!("(Your earlier reply:)\n{}", m.content),
        })
        .collect();
    parts.join("\n\n")
}

pub fn complete(
    cmd: &CommandModel,
    request: &wit::ModelRequest,
    options: super::CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let timeout = cmd.timeout.unwrap_or(options.timeout);
    let prompt = flatten(request);
    // Found in PATH's absolute entries only: never a program the working folder holds.
    let not_installed = || {
        let how = match cmd.install {
            Some(install) => format!("install it ({install}) or"),
            None => "install it, or".to_string(),
        };
        CallError::provider(format!(
            "cmd/{}: the program '{}' is not on PATH: {how} set [commands.{}] program in agon.toml",
            cmd.name, cmd.program, cmd.name
        ))
    };
    let program = crate::programs::resolve(&cmd.program).ok_or_else(not_installed)?;
    let mut command = Command::new(&program);
    command.args(&cmd.args);
    command.env_clear().envs(crate::programs::environment(&cmd.env));
    if cmd.prompt == PromptVia::Argument {
        // After `--`: a prompt starting with `-` (a protocol document decides
        // the system text, which comes first) is never read as an option.
        command.arg("--").arg(&prompt);
    }
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_installed()),
        Err(e) => return Err(CallError::provider(format!("cmd/{}: cannot start '{}': {e}", cmd.name, cmd.program))),
    };
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let feed = cmd.prompt == PromptVia::Stdin;
    let writer = thread::spawn(move || {
        if feed {
            let _ = stdin.write_all(prompt.as_bytes());
        }
        // Dropping stdin closes it: the program sees the end of its input.
    });
    let errors = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let watchdog = Watchdog::start(child, timeout);

    // The reply streams as the program writes it.
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    let mut shown = 0;
    let mut too_large = false;
    loop {
        match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) if reply.len() + n > options.max_reply => {
                too_large = true;
                watchdog.stop();
                break;
            }
            Ok(n) => {
                reply.extend_from_slice(&buf[..n]);
                // Show only whole UTF-8 characters.
                let valid = match std::str::from_utf8(&reply[shown..]) {
                    Ok(s) => s.len(),
                    Err(e) => e.valid_up_to(),
                };
                if valid > 0 {
                    on_text(std::str::from_utf8(&reply[shown..shown + valid]).expect("checked"));
                    shown += valid;
                }
            }
        }
    }
    let (status, timed_out) = watchdog.finish();
    let _ = writer.join();
    let stderr = errors.join().unwrap_or_default();
    if too_large {
        return Err(CallError::provider(format!(
            "cmd/{}: the reply is larger than the limit of {} (--max-reply, or max_reply in agon.toml); the program was stopped and none of it was kept",
            cmd.name,
            super::size_name(options.max_reply)
        )));
    }
    if timed_out {
        return Err(CallError {
            kind: wit::FailureKind::Timeout,
            message: format!("cmd/{}: no answer within {} s; the program was stopped", cmd.name, timeout.as_secs()),
            retry: Retry::No,
            usage: None,
        });
    }
    let text = without_blank_edges(&String::from_utf8_lossy(&reply)).to_string();
    match status {
        Some(0) if !text.is_empty() => Ok(Completion::text(text)),
        Some(0) => Err(CallError::provider(format!("cmd/{}: the program printed nothing{}", cmd.name, tail(&stderr)))),
        Some(code) => Err(CallError::provider(format!("cmd/{}: exit code {code}{}", cmd.name, tail(&stderr)))),
        None => Err(CallError::provider(format!("cmd/{}: killed by a signal{}", cmd.name, tail(&stderr)))),
    }
}

/// The last lines of stderr, where programs say what went wrong.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let last = lines[lines.len().saturating_sub(5)..].join(" | ");
    let chars: Vec<char> = last.chars().collect();
    let cut: String = chars[chars.len().saturating_sub(500)..].iter().collect();
    format!(": {cut}")
}

/// The child, whether the call is done with it, and whether the watchdog killed it.
type Watched = (Child, bool, bool);

/// Kills the child (and whatever it started) when the timeout passes before it exits.
struct Watchdog {
    state: Arc<(Mutex<Watched>, Condvar)>,
    thread: thread::JoinHandle<()>,
}

impl Watchdog {
    fn start(child: Child, timeout: Duration) -> Watchdog {
        let state = Arc::new((Mutex::new((child, false, false)), Condvar::new()));
        let shared = state.clone();
        let thread = thread::spawn(move || {
            let (lock, cv) = &*shared;
            let guard = lock.lock().unwrap();
            let (mut guard, result) = cv.wait_timeout_while(guard, timeout, |s| !s.1).unwrap();
            if result.timed_out() {
                kill_group(&mut guard.0);
                guard.2 = true;
            }
        });
        Watchdog { state, thread }
    }

    /// Kill the child (and its group) now; `finish` then reaps it.
    fn stop(&self) {
        kill_group(&mut self.state.0.lock().unwrap().0);
    }

    /// Wait for the child to exit (or be killed); (exit code, timed out).
    fn finish(self) -> (Option<i32>, bool) {
        let (lock, cv) = &*self.state;
        let status = loop {
            {
                let mut s = lock.lock().unwrap();
                match s.0.try_wait() {
                    Ok(Some(status)) => break status.code(),
                    Ok(None) => {}
                    Err(_) => break None,
                }
            }
            thread::sleep(Duration::from_millis(5));
        };
        lock.lock().unwrap().1 = true;
        cv.notify_all();
        let _ = self.thread.join();
        let timed_out = lock.lock().unwrap().2;
        (status, timed_out)
    }
}

/// The child runs in its own process group, so a shell script's own children
/// go with it (they would otherwise keep its stdout open).
fn kill_group(child: &mut Child) {
    crate::programs::kill_group(child);
}

/// The reply without blank lines around it, its first line's indentation
/// kept: indented, a line is code, and code counts for no vote (trimmed,
/// `    VOTE: SAME` would have become a vote).
fn without_blank_edges(text: &str) -> &str {
    let text = text.trim_end();
    let start = text
        .find(|c: char| !c.is_whitespace())
        .map_or(text.len(), |first| text[..first].rfind('\n').map_or(0, |newline| newline + 1));
    &text[start..]
}

#[cfg(all(test, unix))]
mod tests {
    use std::time::Instant;

    use super::*;

    fn request(text: &str) -> wit::ModelRequest {
        wit::ModelRequest {
            id: 0,
            seat: "a".into(),
            model: "cmd/x".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![
                wit::Message { role: wit::Role::System, content: text.into() },
                wit::Message { role: wit::Role::User, content: "Q".into() },
            ],
            max_tokens: 16,
            temperature: 0.0,
            expect: None,
            reasoning: None,
            traits: Vec::new(),
            cache_marks: Vec::new(),
        }
    }

    /// A prompt that starts like an option (a document decides the system
    /// text, which comes first) is never one: the built-ins read it on stdin,
    /// an argument-mode command gets it after `--`.
    #[test]
    fn a_hostile_prompt_is_never_an_option() {
        let hostile = "--dangerously-bypass-approvals-and-sandbox -c sandbox=off";
        // A stand-in for each CLI: each argument on its own line, then `stdin:` and what came on stdin.
        let script = "for a in \"$@\"; do printf 'arg:%s\\n' \"$a\"; done; printf 'stdin:'; cat";
        let mut models: Vec<CommandModel> = builtin().into_values().collect();
        models.push(CommandModel::from_settings(
            "mine",
            &CommandSettings {
                program: "mine".into(),
                args: vec![],
                prompt: PromptVia::Argument,
                timeout: None,
                env: vec![],
            },
        ));
        for model in models {
            let mut stand_in = model.clone();
            stand_in.program = "sh".into();
            stand_in.args = ["-c".to_string(), script.to_string(), "sh".to_string()]
                .into_iter()
                .chain(model.args.clone())
                .collect();
            let options = super::super::CallOptions::new(Duration::from_secs(20), false);
            let reply = complete(&stand_in, &request(hostile), options, &mut |_| {}).unwrap().text;
            let args: Vec<&str> = reply.lines().filter_map(|l| l.strip_prefix("arg:")).collect();
            let (before, after) = args.split_at(args.iter().position(|a| *a == "--").unwrap_or(args.len()));
            assert!(
                before.iter().all(|a| !a.contains("dangerously")),
                "cmd/{}: the prompt reached the options: {args:?}",
                model.name
            );
            match model.prompt {
                PromptVia::Stdin => {
                    assert!(after.is_empty(), "cmd/{}: {args:?}", model.name);
                    assert!(reply.contains(&format!("stdin:{hostile}")), "cmd/{}: {reply}", model.name);
                }
                PromptVia::Argument => assert!(after[1].starts_with(hostile), "cmd/{}: {args:?}", model.name),
            }
        }
    }

    #[test]
    fn a_reply_keeps_its_first_lines_indentation() {
        assert_eq!(without_blank_edges("\n  \n    VOTE: SAME\n\n"), "    VOTE: SAME");
        assert_eq!(without_blank_edges("\tcode\nmore \n"), "\tcode\nmore");
        assert_eq!(without_blank_edges("plain"), "plain");
        assert_eq!(without_blank_edges(" \n\t\n"), "");
    }

    /// Issue 33: wholly indented code from a command model counted as a vote.
    #[test]
    fn an_indented_vote_from_a_command_stays_code() {
        let cmd = CommandModel::from_settings(
            "indented",
            &CommandSettings {
                program: "sh".into(),
                args: vec!["-c".into(), "printf '\\n    VOTE: SAME\\n    CONSENSUS: I agree.\\n'".into()],
                prompt: PromptVia::Stdin,
                timeout: None,
                env: Vec::new(),
            },
        );
        let options = super::super::CallOptions::new(Duration::from_secs(20), false);
        let text = complete(&cmd, &request("x"), options, &mut |_| {}).unwrap().text;
        assert_eq!(text, "    VOTE: SAME\n    CONSENSUS: I agree.");
        let read = agon_core::stance::read(&text, true);
        assert_eq!(read.verdict, agon_core::stance::Verdict::Silent, "code counts for nothing: {read:?}");
    }

    #[test]
    fn a_timeout_kills_the_program_and_what_it_started() {
        // `sleep` inherits the script's stdout: unless the whole group dies,
        // the reply stays open for 30 s after the script is killed.
        let cmd = CommandModel {
            name: "slow".into(),
            program: "sh".into(),
            args: vec!["-c".into(), "sleep 30; echo late".into()],
            prompt: PromptVia::Stdin,
            timeout: Some(Duration::from_millis(300)),
            install: None,
            env: Vec::new(),
        };
        let request = wit::ModelRequest {
            id: 0,
            seat: "a".into(),
            model: "cmd/slow".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![wit::Message { role: wit::Role::User, content: "Q".into() }],
            max_tokens: 16,
            temperature: 0.0,
            expect: None,
            reasoning: None,
            traits: Vec::new(),
            cache_marks: Vec::new(),
        };
        let started = Instant::now();
        let options = super::super::CallOptions::new(Duration::from_secs(60), true);
        let error = complete(&cmd, &request, options, &mut |_| {}).unwrap_err();
        assert_eq!(error.kind, wit::FailureKind::Timeout, "{}", error.message);
        assert!(started.elapsed() < Duration::from_secs(10), "the group outlived the timeout: {:?}", started.elapsed());
    }
}
