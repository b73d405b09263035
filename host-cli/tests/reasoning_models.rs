//! Today's models against a server that refuses what the real APIs refuse
//! (agon-testkit's strict emulator, testkit/STRICT.md): OpenAI's reasoning
//! models and Claude Opus 4.7 run a debate to its end; a reply cut at its
//! limit is marked, an empty one is a named failure; a provider's retry
//! delay in its error body is waited for.

use std::collections::BTreeMap;
use std::process::Output;
use std::time::Duration;

use agon_cli::config::Config as AgonConfig;
use agon_cli::engine::wit;
use agon_cli::provider::{CallOptions, Environment};
use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, Fault, ModelScript, TestServer};
use serde_json::Value;

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    env.command(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test-openai")
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-test-anthropic")
        .env("GEMINI_BASE_URL", format!("{}/v1beta", server.url()))
        .env("GEMINI_API_KEY", "test-gemini")
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn script(replies: &[&str]) -> ModelScript {
    ModelScript { replies: replies.iter().map(|r| r.to_string()).collect(), ..ModelScript::default() }
}

#[test]
fn gpt_5_o3_and_opus_4_7_debate_to_the_end_against_the_strict_emulator() {
    let env = Sandbox::new("reasoning", "strict");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(
        &env,
        &server,
        &[
            "run",
            "Monorepo or polyrepo?",
            "--panel",
            "openai/gpt-5,openai/o3,anthropic/claude-opus-4-7",
            "--judge",
            "openai/gpt-5",
            "--rounds",
            "2",
            "--format",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["outcome"]["kind"], "completed", "{}", t["outcome"]);
    assert_eq!(t["turns"].as_array().unwrap().len(), 6);
    let stats = server.stats();
    assert_eq!(stats.requests.len(), 7, "six turns and the judge");
    for seen in &stats.requests {
        assert!(seen.refusal.is_none(), "{} was refused: {:?}", seen.model, seen.refusal);
        let body = &seen.body;
        match seen.path.as_str() {
            "/v1/chat/completions" => {
                // What OpenAI's reasoning models take: the new limit, no temperature.
                assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none(), "{body}");
                assert!(body["max_completion_tokens"].as_u64().unwrap() > 512, "room to think: {body}");
            }
            "/v1/messages" => assert!(body.get("temperature").is_none(), "Opus 4.7 refuses any: {body}"),
            other => panic!("unexpected path {other}"),
        }
    }
    // Reasoning tokens are billed as output, and the transcript says how many.
    let usage = t["turns"][0]["usage"].clone();
    assert!(usage["reasoning_tokens"].as_u64().unwrap() > 0, "{usage}");
    assert!(usage["completion_tokens"].as_u64() > usage["reasoning_tokens"].as_u64(), "{usage}");
}

#[test]
fn the_old_request_shape_is_what_the_emulator_refuses() {
    // The test above can fail: gpt-5 answers 400 to `max_tokens` and to a temperature.
    let server = TestServer::start(Config::default(), 0).unwrap();
    let body = serde_json::json!({"model": "gpt-5", "messages": [{"role": "user", "content": "Hi"}],
        "max_tokens": 512, "temperature": 0.7, "stream": false});
    let response = ureq::post(format!("{}/v1/chat/completions", server.url()))
        .config()
        .http_status_as_error(false)
        .build()
        .send_json(&body)
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let text = response.into_body().read_to_string().unwrap();
    assert!(text.contains("Use 'max_completion_tokens' instead"), "{text}");
}

#[test]
fn a_cut_reply_is_marked_and_an_empty_one_is_a_named_failure() {
    let env = Sandbox::new("reasoning", "cut");
    let long = "Ship it in two steps: first the read path, then the write path, each behind a flag that can be \
turned off in seconds.";
    let config = Config {
        models: BTreeMap::from([
            // Thinks 2,000 tokens: its 300-token limit is gone before a word of answer.
            ("o3".to_string(), ModelScript { reasoning_tokens: Some(2_000), ..script(&[long]) }),
            // Answers at length: cut at 5 tokens, kept and marked.
            ("gpt-4o".to_string(), script(&[long, long])),
            ("gpt-4o-mini".to_string(), script(&["Staged."])),
            ("judge".to_string(), script(&["Two steps, behind flags."])),
        ]),
        ..Config::default()
    };
    let server = TestServer::start(config, 0).unwrap();
    let out = agon(
        &env,
        &server,
        &[
            "run",
            "Big-bang release or staged?",
            "--panel",
            "openai/o3,openai/gpt-4o,openai/gpt-4o-mini",
            "--judge",
            "openai/judge",
            "--rounds",
            "1",
            "--max-tokens",
            "5",
            "--judge-max-tokens",
            "50",
            "--thinking",
            "o3=295",
            "--format",
            "json",
        ],
    );
    let t: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(out.status.code(), Some(3), "degraded: {}", stderr(&out));
    let failure = &t["outcome"]["failures"][0];
    assert_eq!((failure["speaker"].as_str(), failure["kind"].as_str()), (Some("o3"), Some("token-limit")));
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("300") && message.contains("raise max_tokens"), "{message}");
    // The failed call was billed all the same, and counts.
    let o3 = t["usage"]["seats"].as_array().unwrap().iter().find(|s| s["seat"] == "o3").unwrap();
    assert_eq!(o3["completion_tokens"], 300, "{o3}");
    let turns = t["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "o3 has no turn: {turns:?}");
    assert_eq!((turns[0]["speaker"].as_str(), turns[0]["cut"].as_bool()), (Some("gpt-4o"), Some(true)));
    assert!(long.starts_with(turns[0]["text"].as_str().unwrap().trim()), "the cut text is kept as sent");
    assert_eq!(turns[1]["cut"], Value::Null, "a whole reply carries no mark");
    assert!(
        t["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["message"].as_str().unwrap().contains("cut at its token limit")),
        "{}",
        t["warnings"]
    );
    // The judge is told the turn was cut.
    let judge = server.stats().requests.into_iter().find(|r| r.model == "judge").unwrap();
    assert!(judge.messages.to_string().contains("cut off at its token limit"), "{}", judge.messages);
}

#[test]
fn a_gemini_retry_delay_in_the_error_body_is_waited_for_within_the_cap() {
    for (asked, waited) in [(15, 15), (90, 30)] {
        let flash = ModelScript {
            fault: Some(Fault::RateLimitedBody),
            fault_calls: Some(1),
            retry_delay_s: Some(asked),
            ..script(&["Fine."])
        };
        let server = TestServer::start(
            Config { models: BTreeMap::from([("gemini-2.5-flash".into(), flash)]), ..Config::default() },
            0,
        )
        .unwrap();
        let toml = format!("[providers.gemini]\nbase_url = \"{}/v1beta\"\n", server.url());
        let env = Environment::new(&AgonConfig::parse(&toml, std::path::Path::new("agon.toml")).unwrap());
        let request = wit::ModelRequest {
            id: 1,
            seat: "s".into(),
            model: "gemini/gemini-2.5-flash".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![wit::Message { role: wit::Role::User, content: "Hi".into() }],
            max_tokens: 64,
            temperature: 0.5,
            expect: None,
            // As the engine would ask it of a model the catalog says reasons.
            reasoning: Some(wit::ReasoningRequest { effort: None, budget: None, allowance: 1_024 }),
            traits: agon_cli::catalog::traits_of("gemini/gemini-2.5-flash"),
            cache_marks: Vec::new(),
        };
        let (mut waits, mut notes) = (Vec::new(), Vec::new());
        let done = agon_cli::host::call_seat(
            &env,
            &request,
            CallOptions::new(Duration::from_secs(10), true),
            &mut |_| {},
            &mut |n| notes.push(n),
            &mut |_| {},
            &mut |d| waits.push(d),
        )
        .unwrap();
        assert!(done.text.starts_with("gemini-2.5-flash answer 2"), "the second call answered: {}", done.text);
        assert_eq!(waits, [Duration::from_secs(waited)], "asked {asked} s");
        assert!(notes.iter().any(|n| n.contains(&format!("waiting {waited} s"))), "{notes:?}");
    }
}
