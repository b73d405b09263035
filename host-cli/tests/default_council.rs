//! A stranger with only a key: `agon run "Q"` with no panel seats a council
//! by the catalog's rule (one model per lab whose key is set; three of one
//! lab's models with its key alone), judged by a model off the panel, says
//! so with the worst case before the first call, warns about nothing it
//! chose itself, and ends with what it spent. The providers' addresses point
//! at the test server.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

const KEYS: [&str; 9] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "TOGETHER_API_KEY",
    "DEEPSEEK_API_KEY",
    "MOONSHOT_API_KEY",
    "XAI_API_KEY",
];

/// `agon run` with only `keys` set, every provider's address at `server`,
/// and no local server to be found.
fn run(env: &Sandbox, server: &TestServer, keys: &[&str], args: &[&str]) -> Output {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    for key in KEYS {
        cmd.env_remove(key);
    }
    for key in keys {
        cmd.env(key, "sk-test");
    }
    // Nothing listens on the discard port: no local server is found.
    for var in ["OLLAMA_HOST", "LMSTUDIO_BASE_URL", "VLLM_BASE_URL", "LLAMACPP_BASE_URL"] {
        cmd.env(var, "http://127.0.0.1:9");
    }
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("GEMINI_BASE_URL", format!("{}/v1beta", server.url()))
        .env("XAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENROUTER_BASE_URL", format!("{}/v1", server.url()))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// The models the transcript seated, and its judge's.
fn seats(out: &Output) -> (Vec<String>, String) {
    let t: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(out)));
    let panel =
        t["participants"].as_array().unwrap().iter().map(|p| p["model"].as_str().unwrap().to_string()).collect();
    (panel, t["judge"]["model"].as_str().unwrap_or_default().to_string())
}

fn no_warning(err: &str) {
    assert!(!err.contains('⚠') && !err.to_lowercase().contains("warning"), "a default path warned:\n{err}");
}

/// The council line and the worst case come before the first call; what it
/// spent is the last line.
fn said_before_and_after(err: &str) {
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    let council = lines.iter().position(|l| l.starts_with("agon: no panel given; seating")).expect(err);
    let worst = lines.iter().position(|l| l.starts_with("agon: worst case")).expect(err);
    assert!(council < worst && lines[worst].contains("≤ $"), "{err}");
    assert!(lines.last().unwrap().starts_with("agon: spent $"), "{err}");
}

#[test]
fn one_key_seats_three_of_its_lab_s_models_with_a_judge_off_the_panel() {
    let env = Sandbox::new("council", "one-key");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = run(&env, &server, &["OPENAI_API_KEY"], &["run", "Tabs or spaces?", "--rounds", "1", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (panel, judge) = seats(&out);
    assert_eq!(panel.len(), 3, "{panel:?}");
    let mut distinct = panel.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "three distinct models: {panel:?}");
    assert!(panel.iter().all(|m| m.starts_with("openai/")), "{panel:?}");
    assert!(judge.starts_with("openai/") && !panel.contains(&judge), "judge {judge} on {panel:?}");
    let err = stderr(&out);
    assert!(
        err.contains("no panel given; seating 3 current models of openai, the only lab whose key is set"),
        "said plainly: {err}"
    );
    no_warning(&err);
    said_before_and_after(&err);
    // Every call went to the stand-in, none refused.
    assert!(server.stats().requests.iter().all(|r| r.refusal.is_none()));
}

#[test]
fn three_keys_seat_one_model_per_lab() {
    let env = Sandbox::new("council", "three-keys");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let keys = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"];
    let out = run(&env, &server, &keys, &["run", "Tabs or spaces?", "--rounds", "1", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (panel, judge) = seats(&out);
    let labs: Vec<&str> = panel.iter().map(|m| m.split('/').next().unwrap()).collect();
    assert_eq!(labs, ["openai", "anthropic", "gemini"], "{panel:?}");
    assert!(!judge.is_empty() && !panel.contains(&judge), "judge {judge} on {panel:?}");
    let err = stderr(&out);
    assert!(err.contains("one model per lab whose key is set"), "{err}");
    no_warning(&err);
    said_before_and_after(&err);
    assert!(
        server.stats().requests.iter().all(|r| r.refusal.is_none()),
        "{:?}",
        server.stats().requests.iter().filter_map(|r| r.refusal.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn one_openrouter_key_seats_three_labs_through_it() {
    let env = Sandbox::new("council", "openrouter");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out =
        run(&env, &server, &["OPENROUTER_API_KEY"], &["run", "Tabs or spaces?", "--rounds", "1", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (panel, judge) = seats(&out);
    let labs: Vec<&str> = panel.iter().map(|m| m.split('/').nth(1).unwrap()).collect();
    assert!(panel.iter().all(|m| m.starts_with("openrouter/")), "{panel:?}");
    assert_eq!(labs, ["openai", "anthropic", "google"], "{panel:?}");
    assert!(judge.starts_with("openrouter/openai/") && !panel.contains(&judge), "judge {judge} on {panel:?}");
    let err = stderr(&out);
    assert!(err.contains("seating one model per lab through openrouter, the only key set"), "{err}");
    no_warning(&err);
    said_before_and_after(&err);
    // Priced from the catalog's OpenRouter entries: what it spent is a sum, not "unpriced".
    assert!(!err.contains("unpriced"), "{err}");
    // OpenRouter is called with its own model ids, the vendor in front.
    let models: Vec<String> = server.stats().requests.iter().map(|r| r.model.clone()).collect();
    assert!(models.iter().any(|m| m == "anthropic/claude-sonnet-5"), "{models:?}");
    assert!(server.stats().requests.iter().all(|r| r.refusal.is_none()));
}

#[test]
fn a_panel_without_a_judge_gets_one_off_the_panel_and_no_warning() {
    let env = Sandbox::new("council", "panel-no-judge");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let args = ["run", "Tabs or spaces?", "--panel", "openai/gpt-5,openai/gpt-4o", "--rounds", "1", "--format", "json"];
    let out = run(&env, &server, &["OPENAI_API_KEY"], &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let (panel, judge) = seats(&out);
    assert!(judge.starts_with("openai/") && !panel.contains(&judge), "judge {judge} on {panel:?}");
    no_warning(&stderr(&out));
    // A judge the user chose on the panel is still said.
    let chosen = [&args[..], &["--judge", "openai/gpt-5"]].concat();
    let out = run(&env, &server, &["OPENAI_API_KEY"], &chosen);
    assert!(stderr(&out).contains("also sits on the panel"), "{}", stderr(&out));
}
