//! Every provider's wire format against the project's test server, streamed
//! and whole; retries on 429 with Retry-After; fallback chains; command-line
//! models; and no key in anything agon prints or writes.

use std::path::PathBuf;
use std::process::{Command, Output};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, Fault, ModelScript, Seen, TestServer};
use serde_json::Value;

const KEYS: [(&str, &str); 4] = [
    ("OPENAI_API_KEY", "sk-openai-never-shown-1a2b"),
    ("ANTHROPIC_API_KEY", "sk-ant-never-shown-3c4d"),
    ("GEMINI_API_KEY", "gm-never-shown-5e6f"),
    ("GROQ_API_KEY", "gsk-never-shown-7a8b"),
];

struct Env {
    sandbox: Sandbox,
    root: PathBuf,
}

impl Env {
    fn new(name: &str) -> Env {
        let sandbox = Sandbox::new("providers", name);
        Env { root: sandbox.root.clone(), sandbox }
    }

    /// agon in the sandbox, every provider pointed at `server`, every key set.
    fn command(&self, server: &TestServer) -> Command {
        let url = server.url();
        let mut cmd = self.sandbox.command(env!("CARGO_BIN_EXE_agon"));
        cmd.env("OPENAI_BASE_URL", format!("{url}/v1"))
            .env("ANTHROPIC_BASE_URL", &url)
            .env("GEMINI_BASE_URL", format!("{url}/v1beta"))
            .env("GROQ_BASE_URL", format!("{url}/v1"));
        for (var, key) in KEYS {
            cmd.env(var, key);
        }
        cmd
    }

    /// `agon ARGS`, checking that no key was printed or written.
    fn agon(&self, server: &TestServer, args: &[&str]) -> Output {
        let out = self.command(server).args(args).output().unwrap();
        let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        for (var, key) in KEYS {
            assert!(!printed.contains(key), "{var}'s value was printed");
        }
        self.assert_no_key_written(&self.root.clone());
        out
    }

    fn assert_no_key_written(&self, dir: &PathBuf) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                self.assert_no_key_written(&path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                for (var, key) in KEYS {
                    assert!(!text.contains(key), "{var}'s value leaked into {}", path.display());
                }
            }
        }
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn transcript(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(out)))
}

fn debate<'a>(panel: &'a str, judge: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "Tabs or spaces?", "--panel", panel, "--judge", judge, "--rounds", "1", "--quiet"];
    args.extend(["--format", "json"]);
    args.extend(extra);
    args
}

fn key(var: &str) -> &'static str {
    KEYS.iter().find(|(v, _)| *v == var).unwrap().1
}

/// Every turn and the synthesis came back whole, with usage from the wire.
fn assert_complete_with_usage(t: &Value) {
    assert_eq!(t["outcome"]["kind"], "completed", "{}", t["outcome"]);
    for turn in t["turns"].as_array().unwrap() {
        assert!(turn["text"].as_str().unwrap().contains(" answer 1: I disagree"), "{turn}");
        assert!(turn["usage"]["prompt_tokens"].as_u64().unwrap() > 0, "{turn}");
        assert_eq!(turn["usage"]["completion_tokens"], 19, "nineteen words, one token each: {turn}");
    }
    assert!(t["synthesis"]["text"].as_str().unwrap().starts_with("judge answer 1"));
}

fn system_prompt(seen: &Seen) -> &str {
    seen.messages[0]["content"].as_str().filter(|_| seen.messages[0]["role"] == "system").unwrap_or("")
}

#[test]
fn anthropic_messages_streamed_and_whole() {
    for stream in [true, false] {
        let env = Env::new(&format!("anthropic-{stream}"));
        let server = TestServer::start(Config::default(), 0).unwrap();
        let extra: &[&str] = if stream { &[] } else { &["--no-stream"] };
        let out = env.agon(&server, &debate("anthropic/claude-a,anthropic/claude-b", "anthropic/judge", extra));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_complete_with_usage(&transcript(&out));
        let stats = server.stats();
        assert_eq!(stats.requests.len(), 3);
        for r in &stats.requests {
            assert_eq!((r.path.as_str(), r.stream), ("/v1/messages", stream));
            assert_eq!(r.auth_header.as_deref(), Some("x-api-key"));
            assert_eq!(r.authorization.as_deref(), Some(key("ANTHROPIC_API_KEY")));
            assert!(!system_prompt(r).is_empty(), "the system prompt travels in `system`");
        }
    }
}

#[test]
fn gemini_generate_content_streamed_and_whole() {
    for stream in [true, false] {
        let env = Env::new(&format!("gemini-{stream}"));
        let server = TestServer::start(Config::default(), 0).unwrap();
        let extra: &[&str] = if stream { &[] } else { &["--no-stream"] };
        let out = env.agon(&server, &debate("gemini/gem-a,gemini/gem-b", "gemini/judge", extra));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_complete_with_usage(&transcript(&out));
        for r in &server.stats().requests {
            let method = if stream { ":streamGenerateContent?alt=sse" } else { ":generateContent" };
            assert!(r.path.starts_with("/v1beta/models/") && r.path.ends_with(method), "{}", r.path);
            assert!(!r.path.contains(key("GEMINI_API_KEY")), "the key never goes in the URL");
            assert_eq!(r.auth_header.as_deref(), Some("x-goog-api-key"));
            assert!(!system_prompt(r).is_empty(), "the system prompt travels in systemInstruction");
        }
    }
}

#[test]
fn presets_and_ollama_speak_their_formats() {
    let env = Env::new("presets");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let mut args = debate("groq/llama-a,ollama/llama-b", "openai/judge", &[]);
    args.push("--no-stream");
    // Ollama's host comes from OLLAMA_HOST, often written without a scheme.
    let host = server.url().trim_start_matches("http://").to_string();
    let out = env.command(&server).args(&args).env("OLLAMA_HOST", host).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let stats = server.stats();
    let groq = stats.requests.iter().find(|r| r.model == "llama-a").unwrap();
    assert_eq!(groq.path, "/v1/chat/completions");
    assert_eq!(groq.authorization.as_deref(), Some(format!("Bearer {}", key("GROQ_API_KEY")).as_str()));
    let ollama = stats.requests.iter().find(|r| r.model == "llama-b").unwrap();
    assert_eq!(ollama.path, "/api/chat");
    assert_eq!(ollama.authorization, None, "no key goes to a local server");
}

#[test]
fn a_missing_key_is_named_before_anything_is_spent() {
    let env = Env::new("nokey");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = env
        .command(&server)
        .args(debate("groq/x,openai/y", "openai/y", &[]))
        .env_remove("GROQ_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("GROQ_API_KEY is not set"), "{}", stderr(&out));
    assert!(server.stats().requests.is_empty());
}

#[test]
fn a_rate_limit_is_waited_out_as_the_server_asks() {
    let env = Env::new("retry");
    let mut config = Config::default();
    // Two 429s (Retry-After: 1), then an answer.
    config.models.insert(
        "busy".into(),
        ModelScript { fault: Some(Fault::RateLimited), fault_calls: Some(2), ..Default::default() },
    );
    let server = TestServer::start(config, 0).unwrap();
    let mut args = vec!["run", "Tabs or spaces?", "--panel", "openai/busy,openai/calm", "--no-judge", "--rounds", "1"];
    args.extend(["--format", "json"]);
    let out = env.agon(&server, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let t = transcript(&out);
    assert_eq!(t["outcome"]["kind"], "completed", "{}", t["outcome"]);
    let busy = server.stats().requests.iter().filter(|r| r.model == "busy").count();
    assert_eq!(busy, 3, "two rate-limited attempts and the one that answered");
    assert!(stderr(&out).contains("openai/busy: attempt 3"), "{}", stderr(&out));

    // With no retries allowed, the rate limit reaches the engine as what it is.
    let mut config = Config::default();
    config.models.insert("busy".into(), ModelScript { fault: Some(Fault::RateLimited), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    args.extend(["--retries", "0"]);
    let out = env.agon(&server, &args);
    let t = transcript(&out);
    assert_eq!(t["outcome"]["failures"][0]["kind"], "rate-limited", "{}", t["outcome"]);
    assert_eq!(server.stats().requests.iter().filter(|r| r.model == "busy").count(), 1);
}

#[test]
fn a_fallback_chain_answers_with_its_next_model() {
    let env = Env::new("fallback");
    let mut config = Config::default();
    config.models.insert("down".into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let mut args = vec!["run", "Tabs or spaces?", "--panel", "openai/down|gemini/backup,openai/b", "--no-judge"];
    args.extend(["--rounds", "1", "--format", "json", "--retries", "1"]);
    let out = env.agon(&server, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let t = transcript(&out);
    assert_eq!(t["outcome"]["kind"], "completed", "{}", t["outcome"]);
    assert_eq!(t["participants"][0]["id"], "down", "the seat keeps its first model's name");
    assert!(t["turns"][0]["text"].as_str().unwrap().starts_with("backup answer 1"));
    assert_eq!(t["turns"][0]["answered_by"], "gemini/backup", "the transcript names the model that answered");
    assert!(t["turns"][1].get("answered_by").is_none(), "{}", t["turns"][1]);
    let stats = server.stats();
    assert_eq!(stats.requests.iter().filter(|r| r.model == "down").count(), 2, "one retry, then the fallback");
    assert_eq!(stats.requests.iter().filter(|r| r.model == "backup").count(), 1);
    assert!(stderr(&out).contains("answered by gemini/backup"), "{}", stderr(&out));

    // When every model of the chain fails, the seat fails with all of it said.
    let mut config = Config::default();
    for m in ["down", "gone"] {
        config.models.insert(m.into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let mut args = vec!["run", "Q?", "--panel", "openai/down|openai/gone,openai/b,openai/c", "--no-judge"];
    args.extend(["--rounds", "1", "--format", "json", "--retries", "0"]);
    let out = env.agon(&server, &args);
    let t = transcript(&out);
    assert_eq!(t["outcome"]["kind"], "degraded", "{}", t["outcome"]);
    let message = t["outcome"]["failures"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("every model of 'openai/down|openai/gone' failed") && message.contains("HTTP 500"),
        "{message}"
    );
}

fn script(env: &Env, name: &str, body: &str) -> String {
    let path = env.root.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

#[test]
fn command_models_answer_time_out_fail_and_go_missing_clearly() {
    let env = Env::new("cmd");
    let echo = script(&env, "echo.sh", "words=$(wc -w); echo \"the prompt had $words words; spaces win\"");
    let argv = script(&env, "argv.sh", "echo \"argument mode: $# $2\"");
    let slow = script(&env, "slow.sh", "sleep 30; echo late");
    let fail = script(&env, "fail.sh", "echo 'model overloaded' >&2; exit 3");
    std::fs::write(
        env.root.join("agon.toml"),
        format!(
            "[commands.echo]\nprogram = \"{echo}\"\n[commands.argv]\nprogram = \"{argv}\"\nargs = [\"-q\"]\nprompt = \"argument\"\n\
             [commands.slow]\nprogram = \"{slow}\"\ntimeout = 1\n[commands.fail]\nprogram = \"{fail}\"\n\
             [commands.missing]\nprogram = \"agon-no-such-program\"\n"
        ),
    )
    .unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    // The working folder's agon.toml runs programs only once trusted.
    let out = env.agon(&server, &["trust"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let base = ["run", "Tabs or spaces?", "--no-judge", "--rounds", "1", "--format", "json"];

    let out = env.agon(&server, &[&base[..], &["--panel", "cmd/echo,cmd/argv"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let t = transcript(&out);
    let text = t["turns"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("the prompt had ") && text.ends_with("words; spaces win"), "{text}");
    assert_eq!(t["turns"][1]["text"], "argument mode: 3 --", "the flag, `--`, then the prompt");

    let out = env.agon(&server, &[&base[..], &["--panel", "cmd/echo,cmd/argv,cmd/slow"]].concat());
    let t = transcript(&out);
    assert_eq!(t["outcome"]["kind"], "degraded");
    let failure = &t["outcome"]["failures"][0];
    assert_eq!(failure["kind"], "timeout", "{failure}");
    assert!(failure["message"].as_str().unwrap().contains("cmd/slow: no answer within 1 s"), "{failure}");

    let out = env.agon(&server, &[&base[..], &["--panel", "cmd/echo,cmd/argv,cmd/fail"]].concat());
    let t = transcript(&out);
    let message = t["outcome"]["failures"][0]["message"].as_str().unwrap();
    assert!(message.contains("exit code 3") && message.contains("model overloaded"), "{message}");

    let out = env.agon(&server, &[&base[..], &["--panel", "cmd/echo,cmd/missing"]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("'agon-no-such-program' is not on PATH") && err.contains("[commands.missing]"), "{err}");
}
