//! `agon mcp --http`: loopback by default, a bearer token required anywhere
//! else, and when set, required of every request. (The tools themselves are
//! tested through the official MCP Python SDK and the conformance suite:
//! scripts/test-mcp.sh.)

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

use agon_testkit::sandbox::Sandbox;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `agon mcp --http ADDRESS`; the URL it serves, read from its first line on stderr.
fn serve(env: &Sandbox, address: &str, token: Option<&str>) -> (Server, String) {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.args(["mcp", "--http", address]).stdout(Stdio::null()).stderr(Stdio::piped());
    match token {
        Some(t) => cmd.env("AGON_MCP_TOKEN", t),
        None => cmd.env_remove("AGON_MCP_TOKEN"),
    };
    let mut child = cmd.spawn().expect("agon runs");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let url =
        line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{line}")).to_string();
    (Server(child), url)
}

fn post(url: &str, authorization: Option<&str>) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    if let Some(a) = authorization {
        request = request.header("Authorization", a);
    }
    let mut response = request.send(INITIALIZE).expect("an answer");
    (response.status().as_u16(), response.body_mut().read_to_string().unwrap_or_default())
}

#[test]
fn another_address_than_loopback_needs_a_token() {
    let env = Sandbox::new("mcp-http", "no-token");
    let out = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(["mcp", "--http", "0.0.0.0:0"])
        .env_remove("AGON_MCP_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("AGON_MCP_TOKEN") && stderr.contains("not a loopback address"), "{stderr}");
}

#[test]
fn loopback_serves_without_a_token() {
    let env = Sandbox::new("mcp-http", "loopback");
    let (_server, url) = serve(&env, "127.0.0.1:0", None);
    let (status, body) = post(&url, None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""name":"agon""#), "{body}");
}

#[test]
fn a_token_once_set_is_required_of_every_request() {
    let env = Sandbox::new("mcp-http", "token");
    let (_server, url) = serve(&env, "127.0.0.1:0", Some("s3cret"));
    assert_eq!(post(&url, None).0, 401);
    assert_eq!(post(&url, Some("Bearer wrong")).0, 401);
    let (status, body) = post(&url, Some("Bearer s3cret"));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""name":"agon""#), "{body}");
}
