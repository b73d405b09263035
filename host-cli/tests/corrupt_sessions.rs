//! `agon sessions` names a session's broken file and why, and still lists
//! the healthy sessions beside it.

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

#[test]
fn a_corrupt_session_is_named_and_the_healthy_ones_still_listed() {
    let env = Sandbox::new("corrupt-sessions", "list");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let agon = |args: &[&str]| {
        let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
        cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(args).output().unwrap()
    };
    for question in ["Tabs?", "Spaces?"] {
        let out = agon(&["run", question, "--panel", "openai/a,openai/b", "--no-judge", "--rounds", "1", "-q"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let data = env.root.join("data");
    let spaces = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|dir| std::fs::read_to_string(dir.join("journal.ndjson")).unwrap().contains("Spaces?"))
        .unwrap();
    let broken = spaces.join("transcript.json");
    std::fs::write(&broken, "{\"outcome\": ").unwrap();

    let out = agon(&["sessions"]);
    assert!(out.status.success());
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.contains("Tabs?"), "the healthy session is listed: {listing}");
    assert!(listing.contains(&format!("corrupt: {}: EOF while parsing", broken.display())), "{listing}");

    let out = agon(&["sessions", "--json"]);
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    let corrupt: Vec<&Value> = lines.iter().filter(|l| l.get("corrupt").is_some()).collect();
    assert_eq!(corrupt.len(), 1, "{lines:?}");
    assert!(corrupt[0]["corrupt"].as_str().unwrap().starts_with(&broken.display().to_string()));
    assert_eq!(corrupt[0]["question"], "Spaces?", "what can be read still is");
}
