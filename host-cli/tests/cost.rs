//! Cost from the terminal: the worst case printed before the run, a run
//! refused when it could cost more than --max-cost, a debate stopped by the
//! engine at the limit, and the spending in the transcript.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    env.command(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

const RUN: [&str; 8] =
    ["run", "Tabs or spaces?", "--panel", "openai/gpt-4o-mini,openai/gpt-4o", "--rounds", "1", "--format", "json"];

#[test]
fn the_worst_case_is_printed_and_the_spending_reported() {
    let env = Sandbox::new("cost", "printed");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &RUN);
    assert!(out.status.success(), "{}", stderr(&out));
    // Two turns and the judge (the first panel model): 3 calls.
    let line = stderr(&out).lines().find(|l| l.contains("worst case")).map(str::to_string).unwrap_or_default();
    assert!(line.starts_with("agon: worst case 3 calls, ≤ ") && line.contains(" completion tokens, ≤ $"), "{line}");
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let seats = t["usage"]["seats"].as_array().unwrap();
    let mini = seats.iter().find(|s| s["seat"] == "gpt-4o-mini").unwrap();
    // The test server reports usage; gpt-4o-mini costs $0.15 / $0.60 per million tokens.
    let (p, c) = (mini["prompt_tokens"].as_u64().unwrap(), mini["completion_tokens"].as_u64().unwrap());
    // ($0.15 p + $0.60 c) / 1e6 tokens = (15 p + 60 c) / 100 micro-dollars, rounded half up.
    let expected = (p * 15 + c * 60 + 50) / 100;
    assert_eq!(mini["cost_micro_usd"].as_u64(), Some(expected));
    assert!(
        t["usage"]["total"]["cost_micro_usd"].as_u64().unwrap() > expected,
        "the judge's and gpt-4o's calls count too"
    );
}

#[test]
fn a_run_that_could_cost_more_than_max_cost_is_refused() {
    let env = Sandbox::new("cost", "refused");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &[&RUN[..], &["--max-cost", "0.0001"]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("is above --max-cost $0.0001") && err.contains("--rounds"), "{err}");
    assert!(server.stats().requests.is_empty(), "nothing was spent");

    // agon.toml's limit is the default; a flag still overrides it.
    std::fs::write(env.root.join("agon.toml"), "[defaults]\nmax_cost = 0.0001\n").unwrap();
    assert_eq!(agon(&env, &server, &RUN).status.code(), Some(2));
    assert!(agon(&env, &server, &[&RUN[..], &["--max-cost", "5"]].concat()).status.success());
}

#[test]
fn the_engine_stops_at_the_limit_when_the_bound_cannot_be_priced() {
    let env = Sandbox::new("cost", "stopped");
    let server = TestServer::start(Config::default(), 0).unwrap();
    // One unpriced model: the bound has no cost, so the run starts; the engine
    // then refuses every batch whose priced worst case passes the limit.
    let args = ["run", "Q?", "--panel", "openai/gpt-4o,openai/in-house", "--no-judge", "--format", "json"];
    let out = agon(&env, &server, &[&args[..], &["--max-cost", "0.000001"]].concat());
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(stderr(&out).contains("no price"), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "cost-limit");
    assert!(t["outcome"]["reason"].as_str().unwrap().contains("stopped at the cost limit of $0.000001"));
    assert!(server.stats().requests.is_empty());
}
