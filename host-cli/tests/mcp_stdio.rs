//! `agon mcp` over stdio, spoken to line by line: a request that is not JSON
//! (bad UTF-8, a syntax error, nesting too deep) is answered with a JSON-RPC
//! parse error instead of silence; a tool call cannot seat a `cmd/` model
//! unless the server was started with `--allow-programs`; and a debate's
//! result has model text made inert as `show` and transcript.md have it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::{Value, json};

struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    fn start(env: &Sandbox, args: &[&str], server: Option<&TestServer>) -> Mcp {
        Mcp::start_with(env, args, server, |_| {})
    }

    fn start_with(
        env: &Sandbox,
        args: &[&str],
        server: Option<&TestServer>,
        more: impl FnOnce(&mut std::process::Command),
    ) -> Mcp {
        let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
        cmd.arg("mcp").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(s) = server {
            cmd.env("OPENAI_BASE_URL", format!("{}/v1", s.url())).env("OPENAI_API_KEY", "test-key");
        }
        more(&mut cmd);
        let mut child = cmd.spawn().expect("agon runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Mcp { child, stdin, lines }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message on stdout; a server that says nothing fails the test.
    fn next(&self, timeout: Duration) -> Value {
        let line = self.lines.recv_timeout(timeout).expect("an answer on stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The answer to request `id`, past any notification.
    fn answer(&self, id: u64, timeout: Duration) -> Value {
        loop {
            let message = self.next(timeout);
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    fn initialize(&mut self) {
        self.send(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#);
        assert_eq!(self.answer(1, Duration::from_secs(60))["result"]["serverInfo"]["name"], "agon");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// `tools/call` of `debate`: the result.
    fn debate(&mut self, id: u64, arguments: Value) -> Value {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "debate", "arguments": arguments}});
        self.send(call.to_string().as_bytes());
        self.answer(id, Duration::from_secs(120))["result"].clone()
    }
}

fn assert_parse_error(message: &Value, about: &str) {
    assert_eq!(message["id"], Value::Null, "{about}: {message}");
    assert_eq!(message["error"]["code"], -32700, "{about}: {message}");
}

#[test]
fn requests_that_are_not_json_get_a_parse_error() {
    let env = Sandbox::new("mcp-stdio", "parse-errors");
    let mut mcp = Mcp::start(&env, &[], None);
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let bad: [(&[u8], &str); 4] = [
        (b"this is not json", "syntax"),
        (b"\xff\xfe{\"a\":1}", "bad UTF-8"),
        (deep.as_bytes(), "too deep"),
        (b"{\"jsonrpc\":", "cut"),
    ];
    for (line, about) in bad {
        mcp.send(line);
        assert_parse_error(&mcp.next(Duration::from_secs(10)), about);
    }
    // The session goes on as if nothing happened.
    mcp.initialize();
    mcp.send(b"{oops");
    assert_parse_error(&mcp.next(Duration::from_secs(10)), "after initialize");
    mcp.send(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
    assert_eq!(mcp.answer(7, Duration::from_secs(10))["result"], json!({}));
}

fn text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

#[test]
fn cmd_models_need_allow_programs() {
    let env = Sandbox::new("mcp-stdio", "programs");
    let mut mcp = Mcp::start(&env, &[], None);
    mcp.initialize();
    let calls = [
        json!({"question": "q", "panel": ["cmd/codex", "openai/a"]}),
        json!({"question": "q", "panel": ["openai/a", "openai/b"], "judge": "cmd/claude"}),
        json!({"question": "q", "panel": ["openai/a|cmd/gemini", "openai/b"]}),
    ];
    for (n, arguments) in calls.into_iter().enumerate() {
        let result = mcp.debate(10 + n as u64, arguments.clone());
        assert_eq!(result["isError"], true, "{arguments}: {result}");
        assert!(text(&result).contains("--allow-programs"), "{arguments}: {result}");
    }

    // Allowed, the same call goes on to the command itself (none such here).
    let mut allowed = Mcp::start(&env, &["--allow-programs"], None);
    allowed.initialize();
    let result = allowed.debate(20, json!({"question": "q", "panel": ["cmd/no-such-command", "openai/a"]}));
    assert!(!text(&result).contains("--allow-programs"), "{result}");
}

/// No panel in the call or in agon.toml: the server seats what the machine
/// offers, as `agon run` does, and a program only when programs are allowed:
/// without `--allow-programs`, none is run, not even for its version.
#[cfg(unix)]
#[test]
fn with_no_panel_anywhere_the_server_seats_what_the_machine_offers() {
    use std::os::unix::fs::PermissionsExt;
    let env = Sandbox::new("mcp-stdio", "discover");
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let codex = bin.join("codex");
    let asked = env.root.join("version-asked");
    std::fs::write(
        &codex,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo x > {}; echo 'codex-cli 9.9 (test)'; exit 0; fi\n\
             while read -r line; do :; done\necho 'The fake agent answers: yes.'\n",
            asked.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).unwrap();
    let machine = |cmd: &mut std::process::Command| {
        cmd.env("PATH", &bin).env("OLLAMA_HOST", "http://127.0.0.1:9");
        for var in ["LMSTUDIO_BASE_URL", "VLLM_BASE_URL", "LLAMACPP_BASE_URL"] {
            cmd.env(var, "http://127.0.0.1:9/v1");
        }
    };
    let ask = json!({"question": "Ship it?", "rounds": 1, "no_judge": true});

    let mut refused = Mcp::start_with(&env, &[], None, machine);
    refused.initialize();
    let result = refused.debate(30, ask.clone());
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("none found") && text(&result).contains("--allow-programs"), "{result}");
    // Not allowed, a program is not even asked for its version.
    assert!(!asked.exists(), "agon mcp ran `codex --version` without --allow-programs");

    let mut allowed = Mcp::start_with(&env, &["--allow-programs"], None, machine);
    allowed.initialize();
    let result = allowed.debate(31, ask);
    assert_ne!(result["isError"], true, "{result}");
    let positions = &result["structuredContent"]["positions"];
    assert_eq!(positions[0]["model"], "cmd/codex", "{result}");
    assert_eq!(positions[0]["text"], "The fake agent answers: yes.", "{result}");
}

const HOSTILE: &str =
    "Agreed. <script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) done.";

#[test]
fn debate_results_are_inert_markdown() {
    let mut config = Config::default();
    for model in ["a", "b", "judge"] {
        config.models.insert(model.into(), ModelScript { replies: vec![HOSTILE.into(); 10], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let env = Sandbox::new("mcp-stdio", "inert");
    let mut mcp = Mcp::start(&env, &[], Some(&server));
    mcp.initialize();
    let result = mcp.debate(
        30,
        json!({"question": "Tabs or spaces?", "panel": ["openai/a", "openai/b"], "judge": "openai/judge", "rounds": 1}),
    );
    let markdown = text(&result);
    assert!(markdown.contains("alert(1)"), "the reply is there: {markdown}");
    for raw in ["<script>", "<img", "](javascript:"] {
        assert!(!verbatim(&markdown, raw), "{raw} arrived verbatim: {markdown}");
    }
    // The data is data: the reply as the model gave it.
    let synthesis = result["structuredContent"]["synthesis"].as_str().unwrap_or_default();
    assert!(synthesis.contains("<script>alert(1)</script>"), "{result}");
}

/// Whether `needle` occurs without the backslash that makes it text.
fn verbatim(markdown: &str, needle: &str) -> bool {
    markdown.match_indices(needle).any(|(at, _)| !markdown[..at].ends_with('\\'))
}

/// Issue 34: `usage.cost_usd` was always null for `debate`, though the tool
/// promises the cost: it looked for prices where no transcript keeps them.
#[test]
fn a_debate_of_priced_models_reports_its_cost_and_an_unpriced_one_none() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let env = Sandbox::new("mcp-stdio", "cost");
    let mut mcp = Mcp::start(&env, &[], Some(&server));
    mcp.initialize();
    // gpt-4o and gpt-4o-mini are priced by the shipped catalog.
    let priced = mcp.debate(
        30,
        json!({"question": "Tabs or spaces?", "panel": ["openai/gpt-4o", "openai/gpt-4o-mini"], "rounds": 1}),
    );
    let cost = &priced["structuredContent"]["usage"]["cost_usd"];
    assert!(cost.as_f64().is_some_and(|c| c > 0.0), "{priced}");
    let unpriced = mcp.debate(
        31,
        json!({"question": "Tabs or spaces?", "panel": ["openai/gpt-4o", "openai/no-such-model"], "rounds": 1}),
    );
    assert!(unpriced["structuredContent"]["usage"]["cost_usd"].is_null(), "{unpriced}");

    // Exactly the protocol's results: a consensus check is the transcript's, not a result.
    let checked = mcp.debate(
        32,
        json!({"question": "Tabs or spaces?", "panel": ["openai/a", "openai/b", "openai/c"], "protocol": "consensus-check", "rounds": 1}),
    );
    let results = &checked["structuredContent"]["results"];
    assert!(results.is_object() || results.is_null(), "{checked}");
    for field in agon_core::TRANSCRIPT_FIELDS {
        assert!(results.get(field).is_none(), "{field} listed as a result: {checked}");
    }
}

/// Issue 37: `files` are read only inside the server's roots; `..`, an
/// absolute path elsewhere, a symlink leading out and standard input are
/// refused by name, before any call.
#[test]
fn files_are_read_only_inside_the_roots() {
    let env = Sandbox::new("mcp-stdio", "roots");
    let root = env.root.join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(env.root.join("secret.txt"), "not for the models\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.root.join("secret.txt"), root.join("link.txt")).unwrap();
    let mut config = Config::default();
    for model in ["a", "b"] {
        config.models.insert(model.into(), ModelScript { replies: vec!["Fine.".into()], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let mut mcp = Mcp::start(&env, &["--root", root.to_str().unwrap()], Some(&server));
    mcp.initialize();
    let secret = env.root.join("secret.txt").display().to_string();
    let mut refused = vec![
        ("../secret.txt".to_string(), "'../secret.txt' leaves its folder with '..'".to_string()),
        (secret.clone(), format!("'{secret}' is outside the server's roots")),
        ("-".to_string(), "standard input".to_string()),
    ];
    if cfg!(unix) {
        refused.push(("link.txt".into(), "'link.txt' leads outside the server's roots (a symlink)".into()));
    }
    for (n, (file, words)) in refused.iter().enumerate() {
        let arguments =
            json!({"question": "q", "panel": ["openai/a", "openai/b"], "no_judge": true, "rounds": 1, "files": [file]});
        let result = mcp.debate(10 + n as u64, arguments);
        assert_eq!(result["isError"], true, "{file}: {result}");
        assert!(text(&result).contains(words), "{file}: {result}");
        assert!(!text(&result).contains("not for the models"));
    }
    assert!(server.stats().requests.is_empty(), "a refused file cost a call");
    // Inside the root: read, quoted, and recorded by path relative to the root.
    let arguments = json!({"question": "q", "panel": ["openai/a", "openai/b"], "no_judge": true, "rounds": 1, "files": ["src/*.rs"]});
    let result = mcp.debate(20, arguments);
    assert_ne!(result["isError"], true, "{result}");
    let prompts: Vec<String> = server.stats().requests.iter().map(|r| r.messages.to_string()).collect();
    assert!(
        !prompts.is_empty() && prompts.iter().all(|p| p.contains(r"FILE 1 of 1: src/a.rs (10 bytes)\n> fn a() {}")),
        "{prompts:?}"
    );
    let show = json!({"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {"name": "show", "arguments": {"session": "last", "format": "json"}}});
    mcp.send(show.to_string().as_bytes());
    let shown = text(&mcp.answer(30, Duration::from_secs(60))["result"]);
    assert!(shown.contains("\"path\": \"src/a.rs\"") && shown.contains("\"sha256\""), "{shown}");
}

/// Issue 37: `continue` follows up a finished session: the new debate runs on
/// the parent's panel, its prompts quote the parent's synthesis, it returns
/// what `debate` returns, and its transcript names the parent; a session that
/// does not exist is refused by name, before any call.
#[test]
fn continue_follows_up_a_finished_session() {
    let env = Sandbox::new("mcp-stdio", "continue");
    let mut config = Config::default();
    for model in ["a", "b", "j"] {
        let reply = if model == "j" { "Ship it on Fridays." } else { "Fine." };
        config.models.insert(model.into(), ModelScript { replies: vec![reply.into()], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let mut mcp = Mcp::start(&env, &[], Some(&server));
    mcp.initialize();
    let first = mcp.debate(
        10,
        json!({"question": "When do we ship?", "panel": ["openai/a", "openai/b"], "judge": "openai/j", "rounds": 1}),
    );
    assert_ne!(first["isError"], true, "{first}");
    let parent = first["structuredContent"]["session"].as_str().unwrap().to_string();
    let calls = server.stats().requests.len();

    let call = |id: u64, arguments: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "continue", "arguments": arguments}});
    mcp.send(call(20, json!({"session": "19990101", "question": "Which Friday?"})).to_string().as_bytes());
    let missing = mcp.answer(20, Duration::from_secs(60))["result"].clone();
    assert_eq!(missing["isError"], true, "{missing}");
    assert!(text(&missing).contains("no session '19990101'"), "{missing}");
    assert_eq!(server.stats().requests.len(), calls, "a refused follow-up cost a call");

    mcp.send(call(21, json!({"session": parent, "question": "Which Friday?"})).to_string().as_bytes());
    let result = mcp.answer(21, Duration::from_secs(120))["result"].clone();
    assert_ne!(result["isError"], true, "{result}");
    let data = &result["structuredContent"];
    assert_ne!(data["session"], json!(parent), "a new session");
    assert_eq!(data["outcome"]["kind"], "completed", "{data}");
    let prompts: Vec<String> = server.stats().requests[calls..].iter().map(|r| r.messages.to_string()).collect();
    assert!(
        !prompts.is_empty()
            && prompts.iter().all(|p| p.contains(&format!("EARLIER DEBATE (session {parent};"))
                && p.contains(r"The judge's synthesis:\n> Ship it on Fridays.")),
        "{prompts:?}"
    );
    let models: Vec<String> = server.stats().requests[calls..].iter().map(|r| r.model.clone()).collect();
    for model in ["a", "b", "j"] {
        assert!(models.iter().any(|m| m == model), "the parent's panel and judge: {models:?}");
    }
    let show = json!({"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {"name": "show", "arguments": {"session": data["session"], "format": "json"}}});
    mcp.send(show.to_string().as_bytes());
    let shown = text(&mcp.answer(30, Duration::from_secs(60))["result"]);
    assert!(shown.contains(&format!("\"session\": \"{parent}\"")), "{shown}");
}

/// A follow-up whose parent read two files, one changed since: the
/// unchanged one is quoted again, the changed one left out and named.
#[test]
fn continue_keeps_the_parents_unchanged_files() {
    let env = Sandbox::new("mcp-stdio", "continue-files");
    let root = env.root.join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(root.join("src/b.rs"), "fn b() {}\n").unwrap();
    let mut config = Config::default();
    for model in ["a", "b"] {
        config.models.insert(model.into(), ModelScript { replies: vec!["Fine.".into()], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let mut mcp = Mcp::start(&env, &["--root", root.to_str().unwrap()], Some(&server));
    mcp.initialize();
    let arguments = json!({"question": "q", "panel": ["openai/a", "openai/b"], "no_judge": true, "rounds": 1, "files": ["src/*.rs"]});
    let first = mcp.debate(10, arguments);
    assert_ne!(first["isError"], true, "{first}");
    let parent = first["structuredContent"]["session"].as_str().unwrap().to_string();
    std::fs::write(root.join("src/a.rs"), "fn a() { changed() }\n").unwrap();
    let calls = server.stats().requests.len();
    let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {"name": "continue", "arguments": {"session": parent, "question": "And now?"}}});
    mcp.send(call.to_string().as_bytes());
    let result = mcp.answer(20, Duration::from_secs(120))["result"].clone();
    assert_ne!(result["isError"], true, "{result}");
    let prompts: Vec<String> = server.stats().requests[calls..].iter().map(|r| r.messages.to_string()).collect();
    assert!(
        !prompts.is_empty()
            && prompts.iter().all(|p| p.contains(r"src/b.rs (10 bytes)\n> fn b() {}") && !p.contains("fn a()")),
        "{prompts:?}"
    );
}

/// `wait: false` with every debate slot busy answers at once, queued, with
/// a ticket that `status` follows to the debate's session and result.
#[test]
fn a_debate_without_waiting_is_queued_at_once_when_every_slot_is_busy() {
    let env = Sandbox::new("mcp-stdio", "queued");
    let mut config = Config::default();
    for model in ["a", "b"] {
        config.models.insert(model.into(), ModelScript { replies: vec!["Fine.".into()], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    server.hold_replies();
    let mut mcp = Mcp::start(&env, &["--concurrency", "1"], Some(&server));
    mcp.initialize();
    let args =
        json!({"question": "q", "panel": ["openai/a", "openai/b"], "no_judge": true, "rounds": 1, "wait": false});
    let first = mcp.debate(10, args.clone());
    assert_eq!(first["structuredContent"]["outcome"]["kind"], "running", "{first}");
    let second = mcp.debate(11, args);
    let data = &second["structuredContent"];
    assert_eq!(data["outcome"]["kind"], "queued", "{second}");
    let ticket = data["session"].as_str().unwrap().to_string();
    let status = |mcp: &mut Mcp, id: u64, session: &str| {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "status", "arguments": {"session": session}}});
        mcp.send(call.to_string().as_bytes());
        mcp.answer(id, Duration::from_secs(60))["result"]["structuredContent"].clone()
    };
    assert_eq!(status(&mut mcp, 12, &ticket)["outcome"]["kind"], "queued");
    server.release_replies();
    let mut id = 20;
    let done = loop {
        id += 1;
        let now = status(&mut mcp, id, &ticket);
        if !matches!(now["outcome"]["kind"].as_str(), Some("queued" | "running")) {
            break now;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done["outcome"]["kind"], "completed", "{done}");
    assert_ne!(done["session"], json!(ticket), "the ticket leads to the debate's own session");
}

/// A client that starts servers in `/` (Claude Desktop) or the home folder
/// chose no root: such a server reads no file until it is started with
/// `--root`, and says so at start-up; dotfiles are never read.
#[test]
fn started_in_the_filesystem_root_or_home_it_reads_no_file_until_given_a_root() {
    let env = Sandbox::new("mcp-stdio", "no-root");
    let home = env.root.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    std::fs::write(home.join("notes.md"), "notes\n").unwrap();
    let estimate = |id: u64, file: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "estimate", "arguments":
            {"question": "q", "panel": ["openai/a", "openai/b"], "files": [file]}}})
    };
    for (folder, file) in [(std::path::Path::new("/"), "etc/passwd"), (home.as_path(), "notes.md")] {
        let at = |cmd: &mut std::process::Command| {
            cmd.current_dir(folder).env("HOME", &home);
        };
        let mut mcp = Mcp::start_with(&env, &[], None, at);
        mcp.initialize();
        mcp.send(estimate(10, file).to_string().as_bytes());
        let result = mcp.answer(10, Duration::from_secs(60))["result"].clone();
        assert_eq!(result["isError"], true, "{folder:?} {file}: {result}");
        assert!(text(&result).contains("--root DIR"), "{result}");
        assert!(!text(&result).contains("root:x:0"), "{result}");

        // Said at start-up, on stderr.
        let out = env
            .command(env!("CARGO_BIN_EXE_agon"))
            .arg("mcp")
            .current_dir(folder)
            .env("HOME", &home)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("agon mcp: no file is read") && stderr.contains("--root"), "{stderr}");
    }
    // Named, the home folder is a root; its dotfiles still are not read.
    let mut mcp = Mcp::start_with(&env, &["--root", home.to_str().unwrap()], None, |_| {});
    mcp.initialize();
    mcp.send(estimate(11, "notes.md").to_string().as_bytes());
    let result = mcp.answer(11, Duration::from_secs(60))["result"].clone();
    assert_ne!(result["isError"], true, "{result}");
    mcp.send(estimate(12, ".ssh/id_ed25519").to_string().as_bytes());
    let result = mcp.answer(12, Duration::from_secs(60))["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("is under '.ssh', which the server never reads"), "{result}");
}

/// Every tool's description and schema stays in the agent's context for the
/// whole session: the whole `tools/list` answer costs under 2,000 tokens
/// (characters / 4, as agon estimates tokens).
#[test]
fn the_tool_list_costs_under_two_thousand_tokens() {
    let env = Sandbox::new("mcp-stdio", "tools-list");
    let mut mcp = Mcp::start(&env, &[], None);
    mcp.initialize();
    mcp.send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let line = mcp.lines.recv_timeout(Duration::from_secs(30)).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    let tools = answer["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["debate", "review", "protocols", "estimate", "sessions", "show", "status", "continue", "resume"]
    );
    let tokens = line.chars().count() / 4;
    eprintln!("tools/list: {} bytes, about {tokens} tokens", line.len());
    assert!(tokens < 2000, "tools/list is about {tokens} tokens ({} bytes)", line.len());
    // Small, but still every argument a call needs, described.
    let debate = &tools[0]["inputSchema"]["properties"];
    for field in ["question", "context", "files", "protocol", "panel", "judge", "rounds", "max_cost", "options", "wait"]
    {
        assert!(debate[field]["description"].is_string(), "debate.{field} is not described: {debate}");
    }
}

/// A reply whose code span opens on one line and closes on the next, with
/// an image after it, and a fence it never closes: the `debate` and `show`
/// results render none of it live (read by a real CommonMark renderer), and
/// the sections after it are still sections.
#[test]
fn a_span_across_lines_and_an_open_fence_stay_inert_in_results() {
    const SPLIT: &str = "a `b\nc` <img src=x onerror=alert(1)> `d`\n\n```\nunclosed <b>";
    let mut config = Config::default();
    for model in ["a", "b", "judge"] {
        config.models.insert(model.into(), ModelScript { replies: vec![SPLIT.into(); 10], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let env = Sandbox::new("mcp-stdio", "split-span");
    let mut mcp = Mcp::start(&env, &[], Some(&server));
    mcp.initialize();
    let result = mcp.debate(
        30,
        json!({"question": "Tabs or spaces?", "panel": ["openai/a", "openai/b"], "judge": "openai/judge", "rounds": 1}),
    );
    let show = json!({"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": {"name": "show", "arguments": {"session": "last"}}});
    mcp.send(show.to_string().as_bytes());
    let shown = text(&mcp.answer(31, Duration::from_secs(60))["result"]);
    for (what, markdown) in [("debate", text(&result)), ("show", shown)] {
        let mut headings = Vec::new();
        let mut in_heading = false;
        for event in pulldown_cmark::Parser::new_ext(&markdown, pulldown_cmark::Options::all()) {
            use pulldown_cmark::{Event, Tag, TagEnd};
            match event {
                Event::Html(h) | Event::InlineHtml(h) => panic!("{what}: raw HTML {h:?} in\n{markdown}"),
                Event::Start(Tag::Image { dest_url, .. }) => panic!("{what}: an image of {dest_url}"),
                Event::Start(Tag::Heading { .. }) => in_heading = true,
                Event::End(TagEnd::Heading(_)) => in_heading = false,
                Event::Text(t) if in_heading => headings.push(t.to_string()),
                _ => {}
            }
        }
        let last = if what == "debate" { "Final positions" } else { "Outcome" };
        assert!(headings.iter().any(|h| h == last), "{what}: {last} swallowed: {headings:?}\n{markdown}");
    }
}

/// `domain`, `seat_domains` and `blind` reach the debate as `--domain` and
/// `--blind` do; a seat id that is none is refused by name before any call.
#[test]
fn debate_takes_domains_and_blind_first_answers() {
    let env = Sandbox::new("mcp-stdio", "domains");
    let mut config = Config::default();
    for (model, first) in [("a", "Alpha opens."), ("b", "Bravo opens.")] {
        config
            .models
            .insert(model.into(), ModelScript { replies: vec![first.into(), "Later.".into()], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let mut mcp = Mcp::start(&env, &[], Some(&server));
    mcp.initialize();
    let refused = mcp.debate(
        5,
        json!({"question": "q", "panel": ["openai/a", "openai/b"], "no_judge": true, "seat_domains": {"x y": "law"}}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&refused).contains("seat_domains: 'x y' is not a seat id"), "{refused}");
    assert!(server.stats().requests.is_empty(), "a refused call cost a model call");

    let arguments = json!({"question": "q", "panel": ["openai/a", "openai/b"], "no_judge": true, "rounds": 2,
        "protocol": "round-robin", "domain": "security", "seat_domains": {"b": "EU privacy law"}, "blind": true});
    let result = mcp.debate(10, arguments);
    assert_ne!(result["isError"], true, "{result}");
    let requests = server.stats().requests;
    let prompts_to = |model: &str| -> Vec<String> {
        requests.iter().filter(|r| r.model == model).map(|r| r.messages.to_string()).collect()
    };
    let (a, b) = (prompts_to("a"), prompts_to("b"));
    assert_eq!((a.len(), b.len()), (2, 2), "{requests:?}");
    assert!(a.iter().all(|p| p.contains("security") && !p.contains("EU privacy law")), "{a:?}");
    assert!(b.iter().all(|p| p.contains("EU privacy law")), "{b:?}");
    // Blind: in round 1 neither seat read the other's answer; in round 2 both do.
    assert!(!b[0].contains("Alpha opens.") && !a[0].contains("Bravo opens."), "{a:?} {b:?}");
    assert!(b[1].contains("Alpha opens.") && a[1].contains("Bravo opens."), "{a:?} {b:?}");
}
