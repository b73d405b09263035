//! `agon run` against the real embedded local model (SmolLM2-135M through
//! llama.cpp's server). scripts/test.sh starts the model, exports
//! OPENAI_BASE_URL and runs these with `--include-ignored`.

use std::process::{Command, Output};

use agon_testkit::sandbox::scratch;
use serde_json::Value;

fn base_url() -> String {
    std::env::var("OPENAI_BASE_URL")
        .expect("OPENAI_BASE_URL must point at the local model: run scripts/test.sh, which starts it")
}

fn agon(args: &[&str]) -> Output {
    // Sessions and cache of this call's own, gone when it has answered.
    let home = scratch("local-home");
    Command::new(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .env("OPENAI_BASE_URL", base_url())
        .env("AGON_CACHE_DIR", home.path().join("cache"))
        .env("AGON_DATA_DIR", home.path().join("data"))
        .output()
        .unwrap()
}

fn dir(name: &str) -> tempfile::TempDir {
    scratch(&format!("local-{name}"))
}

#[test]
#[ignore = "needs the local model; scripts/test.sh runs it"]
fn streams_a_rotating_challenger_debate_from_the_local_model() {
    let scratch_dir = dir("stream");
    let d = scratch_dir.path();
    let (journal, output) = (d.join("j.ndjson"), d.join("t.json"));
    let out = agon(&[
        "run",
        "Is it better to walk or to cycle to work?",
        "--protocol",
        "rotating-challenger",
        "--panel",
        "openai/smollm2,openai/smollm2,openai/smollm2",
        "--rounds",
        "1",
        "--max-tokens",
        "60",
        "--judge-max-tokens",
        "80",
        "--format",
        "json",
        "--output",
        output.to_str().unwrap(),
        "--journal",
        journal.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert!(matches!(t["outcome"]["kind"].as_str(), Some("completed" | "consensus")), "{}", t["outcome"]);
    let turns = t["turns"].as_array().unwrap();
    assert_eq!(turns.iter().filter(|x| x["phase"] == "blind").count(), 3);
    assert!(turns.iter().any(|x| x["challenger"] == true));
    let text: usize = turns.iter().map(|x| x["text"].as_str().unwrap().len()).sum();
    assert!(text > 0, "the model said nothing at all");
    assert!(
        turns.iter().all(|x| x["usage"]["completion_tokens"].as_u64().is_some()),
        "usage from the last stream chunk"
    );
    assert!(t["synthesis"]["text"].is_string());
    // The progress view on stderr streamed the same words.
    let first = turns[0]["text"].as_str().unwrap().split_whitespace().next().unwrap_or("");
    assert!(stderr.contains(first), "streamed text missing from the live view");
    let replayed = agon(&["replay", journal.to_str().unwrap(), "--format", "json"]);
    assert_eq!(String::from_utf8(replayed.stdout).unwrap(), std::fs::read_to_string(&output).unwrap());
}

#[test]
#[ignore = "needs the local model; scripts/test.sh runs it"]
fn runs_a_round_robin_debate_without_streaming() {
    let out = agon(&[
        "run",
        "Name one benefit of unit tests.",
        "--panel",
        "openai/smollm2,openai/smollm2",
        "--rounds",
        "1",
        "--max-tokens",
        "40",
        "--no-stream",
        "--format",
        "markdown",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with("# Name one benefit of unit tests."));
    assert!(md.contains("## Round 1") && md.contains("## Synthesis — judge") && md.contains("**Completed**"), "{md}");
}

#[test]
#[ignore = "needs the local model; scripts/test.sh runs it"]
fn every_protocol_ends_honestly_against_the_local_model() {
    let scratch_dir = dir("every");
    let d = scratch_dir.path();
    let items = d.join("items.txt");
    std::fs::write(&items, "reply to the auditor\nfix the build\n").unwrap();
    let items = items.to_str().unwrap().to_string();
    let one = "openai/smollm2";
    let two = "openai/smollm2,openai/smollm2";
    // Every protocol the binary lists (not a copy of the list), each with what it needs.
    let listed = agon(&["protocols"]);
    let listed = String::from_utf8(listed.stdout).unwrap();
    let names: Vec<String> = listed
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect();
    assert!(names.len() >= 12, "{listed}");
    let cases: Vec<(&str, Vec<&str>)> = names
        .iter()
        .map(|name| {
            let extra = match name.as_str() {
                "rotating-challenger" => vec!["--panel", "openai/smollm2,openai/smollm2,openai/smollm2"],
                "role-council" | "steelman" => vec!["--panel", one],
                "adversarial" => vec!["--panel", one, "--compete"],
                "comparative" => vec!["--panel", one, "--option", "trains", "--option", "buses"],
                "priority-vote" => vec!["--panel", one, "--items", &items],
                // One model on purpose (the only one here): challenge refuses that unless insisted on.
                "challenge" => vec!["--panel", two, "--allow-one-model"],
                _ => vec!["--panel", two],
            };
            (name.as_str(), extra)
        })
        .collect();
    for (protocol, extra) in cases {
        let mut args = vec!["run", "Is public transport worth funding?", "--protocol", protocol, "--rounds", "1"];
        args.extend(["--max-tokens", "40", "--judge-max-tokens", "60", "--format", "json", "--quiet"]);
        args.extend(extra);
        let out = agon(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // A tiny model may well produce JSON nobody can parse: the run must still end with an honest outcome.
        assert!(matches!(out.status.code(), Some(0 | 3 | 4 | 5)), "{protocol}: {:?}\n{stderr}", out.status);
        let t: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{protocol}: {e}\n{stderr}"));
        assert_eq!(t["protocol"], protocol);
        assert!(t["outcome"]["kind"].is_string(), "{protocol}: {}", t["outcome"]);
        assert!(!t["turns"].as_array().unwrap().is_empty(), "{protocol}: no turn at all");
    }
}
