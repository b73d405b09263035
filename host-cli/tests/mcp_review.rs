//! The MCP `review` tool on the review golden case: the same diff and the
//! same scripted replies give the same findings and verdict the golden
//! transcript holds (which the core, the JS and the Python SDKs replay).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::{Value, json};

const CASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden/review-three-seats/");

fn read(file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{CASE}{file}")).unwrap()).unwrap()
}

/// Seat ids by panel position, so two runs with other seat ids compare.
fn by_position(review: &Value, participants: &Value) -> Value {
    let ids: Vec<&str> = participants.as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    let seat = |id: &Value| json!(ids.iter().position(|s| Some(*s) == id.as_str()).expect("a seat"));
    let findings: Vec<Value> = review["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut f = f.clone();
            for k in ["raised_by", "confirmed_by", "disputed_by"] {
                f[k] = Value::Array(f[k].as_array().unwrap().iter().map(seat).collect());
            }
            f
        })
        .collect();
    json!({"verdict": review["verdict"], "blocking": review["blocking"], "policy": review["policy"], "findings": findings})
}

#[test]
fn the_review_tool_decides_the_golden_case_as_every_host_does() {
    let (spec, script, golden) = (read("spec.json"), read("script.json"), read("transcript.json"));
    let mut config = Config::default();
    for seat in ["ada", "bo", "cy"] {
        let replies: Vec<String> = ["blind", "critique"]
            .iter()
            .map(|phase| {
                let entry = script.as_array().unwrap().iter().find(|e| e["seat"] == seat && e["phase"] == *phase);
                entry.unwrap()["text"].as_str().unwrap().to_string()
            })
            .collect();
        config.models.insert(format!("{seat}-model"), ModelScript { replies, ..Default::default() });
    }
    let server = TestServer::start(config, 0).unwrap();
    let env = Sandbox::new("mcp-review", "golden");
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("OPENAI_API_KEY", "test-key");
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut call = |id: u64, method: &str, params: Value| -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = lines.next().expect("an answer").unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v["result"].clone();
            }
        }
    };
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}});
    call(1, "initialize", init);
    let args = json!({"diff": spec["context"], "panel": ["openai/ada-model", "openai/bo-model", "openai/cy-model"]});
    let result = call(2, "tools/call", json!({"name": "review", "arguments": args}));
    assert_ne!(result["isError"], json!(true), "{result}");
    let data = &result["structuredContent"];
    assert_eq!(data["verdict"], "fail", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("## agon review: FAIL"), "{text}");
    let session = data["session"].as_str().unwrap();
    let shown = call(3, "tools/call", json!({"name": "show", "arguments": {"session": session, "format": "json"}}));
    let transcript: Value = serde_json::from_str(shown["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        by_position(&data["review"], &transcript["participants"]),
        by_position(&golden["results"]["review"]["data"], &golden["participants"]),
        "the MCP review and the golden case differ"
    );
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
}
