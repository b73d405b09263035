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

/// A cost cap with a model it cannot price is refused before any call,
/// naming the model and how to price it (it used to start, and stop at
/// "$0.00 spent").
#[test]
fn an_unpriced_model_under_a_cost_cap_is_refused_before_any_call() {
    let env = Sandbox::new("cost", "unpriced-cap");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let args = ["run", "Tabs or spaces?", "--panel", "openai/my-own-model,openai/gpt-4o", "--rounds", "1"];
    let out = agon(&env, &server, &[&args[..], &["--max-cost", "1"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("openai/my-own-model has no price"), "{err}");
    assert!(err.contains("[prices.\"openai/my-own-model\"]") && err.contains("agon models"), "{err}");
    assert!(server.stats().requests.is_empty(), "nothing was called");
    // Priced in agon.toml, the same run goes ahead.
    std::fs::write(env.root.join("agon.toml"), "[prices.\"openai/my-own-model\"]\ninput = 1.0\noutput = 2.0\n")
        .unwrap();
    assert!(agon(&env, &server, &["trust"]).status.success());
    let out = agon(&env, &server, &[&args[..], &["--max-cost", "1"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
}

/// What a run spent, and its tokens, is the last line it prints: the
/// engine's own usage report, to the micro-dollar.
#[test]
fn the_last_line_of_a_run_is_what_it_spent() {
    let env = Sandbox::new("cost", "last-line");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &RUN);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let last = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default();
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = &t["usage"]["total"];
    let micro = total["cost_micro_usd"].as_u64().unwrap();
    let dollars = format!("${}.{}", micro / 1_000_000, format!("{:06}", micro % 1_000_000).trim_end_matches('0'));
    assert!(last.starts_with(&format!("agon: spent {dollars} · {} calls · ", total["calls"])), "{last}\n{dollars}");
    let completion = total["completion_tokens"].as_u64().unwrap();
    assert!(last.ends_with(&format!("+ {completion} completion tokens")), "{last}");
}
