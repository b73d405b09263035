//! Protocols of your own: `--protocol-file` in JSON, TOML or YAML,
//! agon.toml's `[protocols]` (under the trust rules), `agon protocols` and
//! `--show`, and bad documents named by file and JSON path. Runs against the
//! test server with scripted replies, so the documents' structured parts
//! really parse.

use std::path::{Path, PathBuf};
use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

const AGON: &str = env!("CARGO_BIN_EXE_agon");

/// An example document of `examples/protocols/`.
fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/protocols").join(name)
}

/// The guide's document, as the book builds it.
fn red_blue() -> PathBuf {
    example("red-blue.toml")
}

/// A test server serving these replies, in order, per model.
fn scripted(models: &[(&str, &[&str])]) -> TestServer {
    let mut config = Config::default();
    for (model, replies) in models {
        let replies = replies.iter().map(|r| r.to_string()).collect();
        config.models.insert(model.to_string(), ModelScript { replies, ..Default::default() });
    }
    TestServer::start(config, 0).unwrap()
}

/// Two rounds of attack and defence: both red seats find a fatal flaw in
/// round 1 and none in round 2, so the document's stop ends the run there.
fn red_blue_server() -> TestServer {
    red_blue_runs(1)
}

/// The replies of [`red_blue_server`], for `runs` runs one after another.
fn red_blue_runs(runs: usize) -> TestServer {
    let script = |replies: &[&str]| ModelScript {
        replies: replies.repeat(runs).iter().map(|r| r.to_string()).collect(),
        ..Default::default()
    };
    let mut config = Config::default();
    config.models.insert(
        "red1".into(),
        script(&[
            r#"{"flaw": "No rollback plan.", "fatal": true}"#,
            r#"{"flaw": "The on-call rota is thin.", "fatal": false}"#,
        ]),
    );
    config.models.insert(
        "red2".into(),
        script(&[
            r#"{"flaw": "Invoices were never load-tested.", "fatal": true}"#,
            r#"{"flaw": "Support has no runbook.", "fatal": false}"#,
        ]),
    );
    config.models.insert("blue".into(), script(&["We add a rollback drill and a load test.", "We extend the rota."]));
    config.models.insert(
        "judge".into(),
        script(&["## Scores\nRed 7/10: found the rollback gap. Blue 6/10: fixed it.\n## Verdict\nShip after a rollback drill."]),
    );
    TestServer::start(config, 0).unwrap()
}

fn agon(sandbox: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    sandbox
        .command(AGON)
        .args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const PANEL: [&str; 6] =
    ["--panel", "openai/red1,openai/red2,openai/blue", "--judge", "openai/judge", "--format", "json"];

/// Run the red/blue exercise with these protocol flags; the transcript, checked.
fn run_red_blue(sandbox: &Sandbox, protocol: &[&str]) -> Value {
    let server = red_blue_server();
    let mut args = vec!["run", "Ship the billing rewrite on Monday?", "--no-save"];
    args.extend(protocol);
    args.extend(PANEL);
    let out = agon(sandbox, &server, &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    assert_eq!(t["protocol"], "red-blue");
    assert_eq!(t["outcome"]["rounds_run"], 2, "the stop condition ended round 2: {}", t["outcome"]);
    assert!(t["outcome"]["reason"].as_str().unwrap().contains("fatal"), "{}", t["outcome"]);
    // The judge's sections and the red seats' parsed JSON are named transcript results.
    assert_eq!(t["results"]["verdict"]["data"], "Ship after a rollback drill.", "{t:#}");
    assert!(t["results"]["scores"]["data"].as_str().unwrap().starts_with("Red 7/10"), "{t:#}");
    let fatal: Vec<&Value> =
        t["results"]["critique"]["data"].as_array().unwrap().iter().map(|c| &c["fields"]["fatal"]).collect();
    assert_eq!(fatal, [true, true, false, false]);
    // The blue seat's round-2 prompt quotes the flaws parsed from that round's red JSON.
    let requests = server.stats().requests;
    let blue: Vec<String> = requests.iter().filter(|r| r.model == "blue").map(|r| r.messages.to_string()).collect();
    assert_eq!(blue.len(), 2);
    assert!(
        blue[1].contains("The on-call rota is thin.") && blue[1].contains("Support has no runbook."),
        "{}",
        blue[1]
    );
    assert!(!blue[0].contains("on-call"), "round 1 sees round 1's flaws only");
    assert_eq!(requests.len(), 7, "two rounds of three turns, and the judge");
    t
}

/// Everything but what differs between two runs of one debate (times, ids).
fn comparable(mut t: Value) -> Value {
    for key in ["id", "started_at", "ended_at", "created_at", "duration_ms", "usage", "spec"] {
        t.as_object_mut().unwrap().remove(key);
    }
    t
}

#[test]
fn a_protocol_file_runs_in_toml_yaml_and_json_alike() {
    let sandbox = Sandbox::new("protocol-files", "formats");
    let toml = run_red_blue(&sandbox, &["--protocol-file", red_blue().to_str().unwrap()]);

    // The same document in the other forms, as `--show` writes them from agon.toml's entry.
    let file = format!("[protocols.red-blue]\nfile = {:?}\n", red_blue().display().to_string());
    let config = sandbox.root.join("mine.toml");
    std::fs::write(&config, file).unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();
    for (format, name) in [("yaml", "red-blue.yaml"), ("json", "red-blue.json")] {
        let config = config.to_str().unwrap();
        let out = agon(&sandbox, &server, &["--config", config, "protocols", "--show", "red-blue", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        std::fs::write(sandbox.root.join(name), &out.stdout).unwrap();
        let other = run_red_blue(&sandbox, &["--protocol-file", name]);
        assert_eq!(comparable(other), comparable(toml.clone()), "{format}");
    }
}

/// `--show FILE` turns a TOML or YAML document into the JSON the page and the
/// SDKs take, checked: the guide's red/blue TOML is its golden case's document.
#[test]
fn show_converts_a_document_file_to_json_checked() {
    let sandbox = Sandbox::new("protocol-files", "show-file");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&sandbox, &server, &["protocols", "--show", red_blue().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/red-blue-document/spec.json");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    std::fs::write(sandbox.root.join("golden.json"), spec["protocol"]["document"].to_string()).unwrap();
    let out = agon(&sandbox, &server, &["protocols", "--show", "golden.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(shown, serde_json::from_slice::<Value>(&out.stdout).unwrap(), "both normalized alike");
    assert_eq!(shown["quorum"], "spec", "defaults written out");

    std::fs::write(sandbox.root.join("broken.yaml"), "version: 1\nname: Not A Name\nphases: []\n").unwrap();
    let out = agon(&sandbox, &server, &["protocols", "--show", "./broken.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("broken.yaml: protocol.name"), "{}", stderr(&out));
    let out = agon(&sandbox, &server, &["protocols", "--show", "missing.toml"]);
    assert!(stderr(&out).contains("cannot read the protocol document missing.toml"), "{}", stderr(&out));
}

#[test]
fn agon_toml_names_protocols_once_the_folder_is_trusted() {
    let sandbox = Sandbox::new("protocol-files", "agon-toml");
    std::fs::copy(red_blue(), sandbox.root.join("red-blue.toml")).unwrap();
    std::fs::write(sandbox.root.join("agon.toml"), "[protocols.red-blue]\nfile = \"red-blue.toml\"\n").unwrap();
    let server = TestServer::start(Config::default(), 0).unwrap();

    // Untrusted: the file's protocols are left out, and it says so.
    let out = agon(&sandbox, &server, &["protocols"]);
    assert!(stderr(&out).contains("[protocols]") && stderr(&out).contains("agon trust"), "{}", stderr(&out));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("red-blue"));
    let out = agon(&sandbox, &server, &["spec", "Q?", "--protocol", "red-blue", "--panel", "openai/a"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let out = agon(&sandbox, &server, &["trust"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = agon(&sandbox, &server, &["protocols"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = String::from_utf8(out.stdout).unwrap();
    let own = listed.split("Your protocols").nth(1).unwrap_or_else(|| panic!("no section of one's own: {listed}"));
    assert!(own.contains("red-blue") && own.contains("Two red seats attack"), "{own}");
    assert!(own.contains("3 seats · rounds: 2 by default, at most 3"), "{own}");
    assert!(listed.contains("agon protocols --show round-robin"), "built-in documents are marked");

    run_red_blue(&sandbox, &["--protocol", "red-blue"]);
}

#[test]
fn bad_documents_are_named_by_file_and_json_path() {
    let sandbox = Sandbox::new("protocol-files", "bad");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let text = std::fs::read_to_string(red_blue())
        .unwrap()
        .replace("{question}{history}The flaws", "{question}{histroy}The flaws");
    std::fs::write(sandbox.root.join("typo.toml"), text).unwrap();
    let out = agon(
        &sandbox,
        &server,
        &["run", "Q?", "--protocol-file", "typo.toml", "--panel", "openai/a,openai/b,openai/c"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("typo.toml: protocol.phases[1].turns[0].prompt.user: unknown slot {histroy}"),
        "{}",
        stderr(&out)
    );
    std::fs::write(sandbox.root.join("broken.json"), "{\"version\": 1,").unwrap();
    let out = agon(&sandbox, &server, &["spec", "Q?", "--protocol-file", "broken.json", "--panel", "openai/a"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("broken.json: "), "{}", stderr(&out));

    // agon.toml's entry must bear its document's name; a broken entry does not hide the list.
    std::fs::copy(red_blue(), sandbox.root.join("red-blue.toml")).unwrap();
    let config = sandbox.root.join("mine.toml");
    std::fs::write(&config, "[protocols.blue-red]\nfile = \"red-blue.toml\"\n").unwrap();
    let out = agon(&sandbox, &server, &["--config", config.to_str().unwrap(), "protocols"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("protocols.blue-red: the document in") && stderr(&out).contains("named 'red-blue'"),
        "{}",
        stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("round-robin"), "the built-ins are still listed");

    // A protocol the format cannot say has no document to show.
    let out = agon(&sandbox, &server, &["protocols", "--show", "priority-vote"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot say it yet"), "{}", stderr(&out));
}

/// The pre-mortem: blind JSON causes in round 1, which the deliberation
/// quotes, and a consensus stop read from the VOTE lines in round 2.
#[test]
fn the_pre_mortem_example_runs() {
    let sandbox = Sandbox::new("protocol-files", "pre-mortem");
    let agreed = "VOTE: SAME — freeze month-end and rehearse the restore.";
    let server = scripted(&[
        (
            "a",
            &[
                r#"{"cause": "The migration ran during month-end billing.", "likelihood": 4}"#,
                "Freeze migrations at month-end.\nVOTE: DIFFERENT — freeze month-end only.",
                &format!("Freeze month-end and rehearse the restore.\n{agreed}"),
            ],
        ),
        (
            "b",
            &[
                r#"{"cause": "The restore was never rehearsed.", "likelihood": 5}"#,
                "Rehearse the restore first.\nVOTE: PARTLY — rehearse, then decide.",
                agreed,
            ],
        ),
        (
            "c",
            &[
                r#"{"cause": "Nobody owned the cut-over.", "likelihood": 3}"#,
                "Name an owner.\nVOTE: DIFFERENT — an owner matters most.",
                agreed,
            ],
        ),
        (
            "judge",
            &["## Top risks\n1. An unrehearsed restore.\n## Safeguards\nRehearse the restore; freeze month-end."],
        ),
    ]);
    let file = example("pre-mortem.yaml");
    let out = agon(
        &sandbox,
        &server,
        &[
            "run",
            "Migrate the billing database this quarter?",
            "--no-save",
            "--protocol-file",
            file.to_str().unwrap(),
            "--panel",
            "openai/a,openai/b,openai/c",
            "--judge",
            "openai/judge",
            "--rounds",
            "3",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["protocol"], "pre-mortem");
    assert_eq!(
        (t["outcome"]["kind"].as_str(), t["outcome"]["rounds_run"].as_u64()),
        (Some("consensus"), Some(2)),
        "{}",
        t["outcome"]
    );
    let likelihood: Vec<&Value> =
        t["results"]["blind"]["data"].as_array().unwrap().iter().map(|b| &b["fields"]["likelihood"]).collect();
    assert_eq!(likelihood, [4, 5, 3]);
    assert_eq!(t["results"]["safeguards"]["data"], "Rehearse the restore; freeze month-end.");
    let requests = server.stats().requests;
    let first_deliberation = requests.iter().filter(|r| r.model == "a").nth(1).unwrap().messages.to_string();
    assert!(
        first_deliberation.contains("Nobody owned the cut-over."),
        "the blind causes are quoted: {first_deliberation}"
    );
    assert_eq!(requests.len(), 3 + 6 + 1);
}

/// The design review through agon.toml with `NAME:SEAT`: seat 3 is the
/// skeptic, whose JSON the authors' revisions quote and whose `blocking`
/// ends the review. (The skeptic's part is gated: a reply without a word of
/// disagreement would be asked again, so the scripted ones carry one.)
#[test]
fn the_design_review_example_runs() {
    let sandbox = Sandbox::new("protocol-files", "design-review");
    let server = scripted(&[
        (
            "a",
            &[
                "Put a queue between billing and invoicing.",
                "Add an idempotency key to each message.",
                "Name an owner.",
            ],
        ),
        ("b", &["Write invoices synchronously.", "Keep the queue; add a dead-letter queue.", "The team owns it."]),
        (
            "c",
            &[
                r#"{"issue": "A flaw: messages can be delivered twice, so invoices can double.", "blocking": true}"#,
                r#"{"issue": "A risk: the dead-letter queue has no owner.", "blocking": false}"#,
            ],
        ),
        (
            "judge",
            &["## Decision\nApprove with changes.\n## Changes\nIdempotency keys; an owner for the dead-letter queue."],
        ),
    ]);
    let config = sandbox.root.join("mine.toml");
    std::fs::write(
        &config,
        format!("[protocols.design-review]\nfile = {:?}\n", example("design-review.json").display().to_string()),
    )
    .unwrap();
    let out = agon(
        &sandbox,
        &server,
        &[
            "--config",
            config.to_str().unwrap(),
            "run",
            "Split invoicing out of billing?",
            "--no-save",
            "--protocol",
            "design-review:3",
            "--panel",
            "openai/a,openai/b,openai/c",
            "--judge",
            "openai/judge",
            "--rounds",
            "3",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["protocol"], "design-review");
    assert_eq!(t["outcome"]["rounds_run"], 2, "{}", t["outcome"]);
    assert_eq!(t["results"]["decision"]["data"], "Approve with changes.");
    let skeptic: Vec<(&str, bool)> = t["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["phase"] == "critique")
        .map(|turn| (turn["speaker"].as_str().unwrap(), turn["challenger"].as_bool().unwrap()))
        .collect();
    assert_eq!(skeptic, [("c", true), ("c", true)]);
    let requests = server.stats().requests;
    let revision = requests.iter().filter(|r| r.model == "b").nth(1).unwrap().messages.to_string();
    assert!(revision.contains("messages can be delivered twice"), "{revision}");
    assert_eq!(requests.len(), 2 + 2 * 3 + 1);
}

/// `--show` prints a built-in's shipped document, which runs as one's own
/// once renamed (the starting point the book promises).
#[test]
fn a_shown_built_in_is_a_starting_point() {
    let sandbox = Sandbox::new("protocol-files", "show");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&sandbox, &server, &["protocols", "--show", "steelman"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["name"], "steelman");
    doc["name"] = "my-steelman".into();
    std::fs::write(sandbox.root.join("mine.json"), doc.to_string()).unwrap();
    let out = agon(
        &sandbox,
        &server,
        &["run", "Q?", "--no-save", "--protocol-file", "mine.json", "--panel", "openai/a,openai/b", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((t["protocol"].as_str(), t["outcome"]["kind"].as_str()), (Some("my-steelman"), Some("completed")));
}

/// Every example document has its run above; a new one needs its own.
#[test]
fn every_example_has_a_test() {
    let mut found: Vec<String> = std::fs::read_dir(example(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, ["design-review.json", "pre-mortem.yaml", "red-blue.toml"]);
}

/// The book's "Write your own protocol" (docs/src/own-protocol.md) builds
/// red-blue.toml block by block; together the blocks are exactly the file
/// the tests above run.
#[test]
fn the_books_guide_is_the_example_file() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/own-protocol.md")).unwrap();
    let marker = "<!-- examples/protocols/red-blue.toml -->\n```toml\n";
    let blocks: Vec<&str> =
        readme.split(marker).skip(1).map(|rest| &rest[..rest.find("\n```\n").expect("a closed block") + 1]).collect();
    assert!(blocks.len() >= 5, "the guide builds the file in steps: {} blocks", blocks.len());
    assert_eq!(blocks.join("\n"), std::fs::read_to_string(red_blue()).unwrap());
}

/// `agon mcp`'s `debate` tool takes a protocol document, and agon.toml's
/// `[protocols]` by name: the red/blue exercise runs over stdio both ways as
/// it does from the command line, the `protocols` tool lists it, and a bad
/// document is refused with its JSON path.
#[test]
fn the_mcp_debate_tool_takes_a_document() {
    use std::io::{BufRead, BufReader, Write};
    let sandbox = Sandbox::new("protocol-files", "mcp");
    let server = red_blue_runs(2);
    let config = sandbox.root.join("mine.toml");
    std::fs::write(&config, format!("[protocols.red-blue]\nfile = {:?}\n", red_blue().display().to_string())).unwrap();
    // The guide's document as JSON, converted from its TOML here.
    let toml: toml::Value = toml::from_str(&std::fs::read_to_string(red_blue()).unwrap()).unwrap();
    let document = serde_json::to_value(toml).unwrap();
    let mut child = sandbox
        .command(AGON)
        .args(["--config", config.to_str().unwrap(), "mcp", "--timeout", "30"])
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    // The answer to request `id`, past any notification.
    let mut answer = |id: u64| loop {
        let line = lines.next().expect("agon mcp answers").unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == id {
            break v;
        }
    };
    send(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}));
    assert!(answer(1)["result"]["serverInfo"].is_object());
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = |id: u64, tool: &str, arguments: Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
    };
    let red_blue = |extra: Value| {
        let mut arguments = serde_json::json!({
            "question": "Ship the billing rewrite on Monday?",
            "panel": ["openai/red1", "openai/red2", "openai/blue"], "judge": "openai/judge", "rounds": 3,
        });
        arguments.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        arguments
    };
    // Once as a document, once by agon.toml's name for it: the same exercise.
    for (id, extra) in
        [(2, serde_json::json!({"document": document})), (3, serde_json::json!({"protocol": "red-blue"}))]
    {
        send(call(id, "debate", red_blue(extra)));
        let result = answer(id)["result"].clone();
        assert_ne!(result["isError"], true, "{result}");
        let data = &result["structuredContent"];
        assert_eq!(data["outcome"]["kind"], "completed", "{data}");
        assert!(data["outcome"]["reason"].as_str().unwrap().contains("stopped in round 2"), "{data}");
        assert_eq!(data["results"]["verdict"]["data"], "Ship after a rollback drill.", "{data}");
    }
    send(call(4, "protocols", serde_json::json!({})));
    let listed = answer(4)["result"]["structuredContent"]["protocols"].clone();
    let own = listed.as_array().unwrap().iter().find(|p| p["name"] == "red-blue").expect("red-blue is listed").clone();
    assert!(own["file"].as_str().unwrap().ends_with("red-blue.toml"), "{own}");
    assert_eq!((own["min_seats"].as_u64(), own["max_rounds"].as_u64()), (Some(3), Some(3)));

    let mut broken = document.clone();
    broken["phases"][1]["turns"][0]["prompt"]["user"] = "{question}{histroy}".into();
    send(call(5, "debate", serde_json::json!({"question": "Q?", "panel": ["openai/a"], "document": broken})));
    let refused = answer(5);
    let text = refused.to_string();
    assert!(text.contains("document: protocol.phases[1].turns[0].prompt.user: unknown slot {histroy}"), "{text}");
    send(call(6, "estimate", red_blue(serde_json::json!({"document": document, "protocol": "blue-red"}))));
    let text = answer(6).to_string();
    assert!(text.contains("protocol: 'blue-red', but the document is named 'red-blue'"), "{text}");
    drop(stdin);
    child.kill().ok();
    child.wait().unwrap();
}

/// The golden case every host replays (tests/golden/red-blue-document) runs
/// exactly the guide's document, as the CLI reads it from its TOML.
#[test]
fn the_golden_red_blue_case_carries_the_example_document() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/red-blue-document/spec.json");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(spec).unwrap()).unwrap();
    let document = agon_cli::protocol_file::read(&red_blue()).unwrap();
    assert_eq!(spec["protocol"]["document"], document);
}
