//! Every protocol, end to end through the CLI against the test server, with
//! replies scripted so each protocol's structured parts really parse.

use std::process::Command;

use agon_testkit::cases::CASES;
use agon_testkit::sandbox::scratch;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

#[test]
fn every_protocol_runs_end_to_end_through_the_cli() {
    let scratch_dir = scratch("every-protocol");
    let dir = scratch_dir.path();
    let items = dir.join("items.txt");
    std::fs::write(&items, "- answer the auditor\n- fix the build\n").unwrap();
    let listed = Command::new(env!("CARGO_BIN_EXE_agon")).arg("protocols").output().unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    // A protocol's line starts at the margin; its details are indented below it.
    let names: Vec<&str> =
        listed.lines().filter(|l| !l.starts_with(' ')).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names.len(), CASES.len(), "a case per protocol: {names:?}");
    for case in CASES {
        assert!(names.contains(&case.protocol), "{} is listed", case.protocol);
        let server = TestServer::start(case.config(Config::default()), 0).unwrap();
        let mut args = case.run_args(items.to_str().unwrap());
        args.extend(["--format", "json"]);
        let out = Command::new(env!("CARGO_BIN_EXE_agon"))
            .args(&args)
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("AGON_CACHE_DIR", dir.join("cache"))
            .env("AGON_DATA_DIR", dir.join("data"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let t: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", case.protocol));
        assert_eq!(t["protocol"], case.protocol);
        assert_eq!(t["outcome"]["kind"], case.outcome, "{}: {}\n{stderr}", case.protocol, t["outcome"]);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", case.protocol);
        if let Some(field) = case.field {
            let found = if t[field].is_null() { &t["results"][field]["data"] } else { &t[field] };
            assert!(!found.is_null(), "{}: no {field} in {t}", case.protocol);
        }
        assert!(!server.stats().requests.is_empty());
    }
}
