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

/// A 429 whose `RetryInfo` asks for 48 s waits 48 s (the default ceiling is
/// a minute); one that asks for 90 s is not waited for, and the failure says
/// why and how to raise the ceiling; raised, it is waited for.
#[test]
fn a_gemini_retry_delay_in_the_error_body_is_waited_for_up_to_the_ceiling() {
    for (asked, ceiling, waited) in
        [(15, None, Some(15)), (48, None, Some(48)), (90, None, None), (90, Some(120), Some(90))]
    {
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
        let mut toml = format!("[providers.gemini]\nbase_url = \"{}/v1beta\"\n", server.url());
        if let Some(seconds) = ceiling {
            toml = format!("[defaults]\nmax_retry_wait = {seconds}\n{toml}");
        }
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
            CallOptions::new(Duration::from_secs(180), true),
            &mut |_| {},
            &mut |n| notes.push(n),
            &mut |_| {},
            &mut |d| waits.push(d),
        );
        match waited {
            Some(waited) => {
                let done = done.unwrap();
                assert!(done.text.starts_with("gemini-2.5-flash answer 2"), "the second call answered: {}", done.text);
                assert_eq!(waits, [Duration::from_secs(waited)], "asked {asked} s");
                assert!(notes.iter().any(|n| n.contains(&format!("waiting {waited} s"))), "{notes:?}");
            }
            None => {
                let e = done.unwrap_err();
                assert!(waits.is_empty(), "{waits:?}");
                assert!(
                    e.message.contains(
                        "the provider asks to wait 90 s, longer than agon waits (60 s; raise it with --max-retry-wait"
                    ),
                    "{}",
                    e.message
                );
                assert_eq!(server.stats().requests.len(), 1, "one attempt");
            }
        }
    }
}

/// A provider that says not to try again (`x-should-retry: false`), and a
/// quota spent for the day (Gemini) or for good (OpenAI), are asked once:
/// the failure says why it was not retried, with the provider's own codes.
#[test]
fn what_the_provider_says_will_not_pass_is_not_retried() {
    let cases = [
        ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5", Fault::RateLimitedNoRetry, "(x-should-retry: false)"),
        (
            "gemini/gemini-2.5-flash",
            "gemini-2.5-flash",
            Fault::QuotaSpent,
            "a daily quota is spent (GenerateRequestsPerDayPerProjectPerModel-FreeTier)",
        ),
        ("openai/gpt-4o", "gpt-4o", Fault::QuotaSpent, "(insufficient_quota)"),
    ];
    for (reference, model, fault, says) in cases {
        let script = ModelScript { fault: Some(fault), ..script(&["Fine."]) };
        let server =
            TestServer::start(Config { models: BTreeMap::from([(model.into(), script)]), ..Config::default() }, 0)
                .unwrap();
        let toml = format!(
            "[providers.openai]\nbase_url = \"{u}/v1\"\n[providers.anthropic]\nbase_url = \"{u}\"\n[providers.gemini]\nbase_url = \"{u}/v1beta\"\n",
            u = server.url()
        );
        let env = Environment::new(&AgonConfig::parse(&toml, std::path::Path::new("agon.toml")).unwrap());
        let request = wit::ModelRequest {
            id: 1,
            seat: "s".into(),
            model: reference.into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![wit::Message { role: wit::Role::User, content: "Hi".into() }],
            max_tokens: 64,
            temperature: 0.5,
            expect: None,
            reasoning: None,
            traits: agon_cli::catalog::traits_of(reference),
            cache_marks: Vec::new(),
        };
        let mut waits = Vec::new();
        let e = agon_cli::host::call_seat(
            &env,
            &request,
            CallOptions::new(Duration::from_secs(30), false),
            &mut |_| {},
            &mut |_| {},
            &mut |_| {},
            &mut |d| waits.push(d),
        )
        .unwrap_err();
        assert_eq!((e.kind, waits.len()), (wit::FailureKind::RateLimited, 0), "{reference}: {}", e.message);
        assert!(e.message.contains(says) && e.message.contains("not tried again"), "{reference}: {}", e.message);
        assert_eq!(server.stats().requests.len(), 1, "{reference}: asked once");
    }
}

/// Every reasoning model of OpenAI, Anthropic and Google the catalog lists,
/// asked nothing, a low and a high effort, and a budget, against the strict
/// emulator: each is asked in the terms its family takes (adaptive thinking
/// for Opus 4.7+, budgets for older Claude and Gemini 2.5, levels for Gemini
/// 3, `reasoning_effort` for OpenAI), none is refused, and the output limit
/// sent is within what the engine counts (reply plus allowance).
#[test]
fn every_reasoning_family_in_the_catalog_is_asked_as_it_takes_it() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let toml = format!(
        "[providers.openai]\nbase_url = \"{u}/v1\"\n[providers.anthropic]\nbase_url = \"{u}\"\n[providers.gemini]\nbase_url = \"{u}/v1beta\"\n",
        u = server.url()
    );
    let env = Environment::new(&AgonConfig::parse(&toml, std::path::Path::new("agon.toml")).unwrap());
    let catalog = agon_cli::catalog::catalog();
    let models: Vec<&String> = catalog
        .models
        .iter()
        .filter(|(m, e)| {
            e.reasoning == Some(true) && ["openai/", "anthropic/", "gemini/"].iter().any(|p| m.starts_with(p))
        })
        .map(|(m, _)| m)
        .collect();
    assert!(models.len() > 30, "{models:?}");
    let asks = [
        (None, None),
        (Some(agon_core::Effort::Low), None),
        (Some(agon_core::Effort::High), None),
        (None, Some(3_000)),
    ];
    let mut sent = 0;
    for model in &models {
        for (effort, budget) in asks {
            let traits = catalog.resolve(model, &BTreeMap::new()).and_then(|e| e.traits());
            let asked = agon_core::Reasoning { effort, budget };
            // The engine's allowance for this seat: what its cost bound counts.
            let plan = agon_core::thinking_plan(model, traits.as_ref(), asked, 256).unwrap();
            let wit_effort = effort.map(|e| match e {
                agon_core::Effort::Low => wit::Effort::Low,
                agon_core::Effort::Medium => wit::Effort::Medium,
                agon_core::Effort::High => wit::Effort::High,
            });
            let request = wit::ModelRequest {
                id: 1,
                seat: "s".into(),
                model: model.to_string(),
                purpose: wit::Purpose::Turn,
                round: 1,
                phase: wit::Phase::Opening,
                messages: vec![wit::Message { role: wit::Role::User, content: "Monorepo or polyrepo?".into() }],
                max_tokens: 256,
                temperature: 0.7,
                expect: None,
                reasoning: Some(wit::ReasoningRequest { effort: wit_effort, budget, allowance: plan.room }),
                traits: agon_cli::catalog::traits_of(model),
                cache_marks: Vec::new(),
            };
            let done = agon_cli::host::call_seat(
                &env,
                &request,
                CallOptions::new(Duration::from_secs(10), false),
                &mut |_| {},
                &mut |_| {},
                &mut |_| {},
                &mut |_| {},
            );
            let stats = server.stats();
            let seen = stats.requests.last().unwrap();
            assert!(seen.refusal.is_none(), "{model} {asked:?} was refused: {:?}\n{}", seen.refusal, seen.body);
            assert!(done.is_ok(), "{model} {asked:?}: {:?}", done.err().map(|e| format!("{e:?}")));
            let limit = seen.max_tokens.unwrap();
            assert!(limit <= 256 + plan.room as u64, "{model} {asked:?}: sent {limit}, counted {}", 256 + plan.room);
            sent += 1;
        }
    }
    assert_eq!(server.stats().requests.len(), sent);
}

/// Claude Opus 4.7 takes adaptive thinking with an effort and refuses a
/// budget: a seat with `--effort low` and one with `--thinking` both answer,
/// and each request carries `thinking.type: adaptive` with its effort.
#[test]
fn an_opus_4_7_seat_thinks_adaptively_with_effort_and_with_thinking() {
    for (flag, value, effort) in [("--effort", "low", "low"), ("--thinking", "3000", "medium")] {
        let env = Sandbox::new("reasoning", "opus-adaptive");
        let server = TestServer::start(Config::default(), 0).unwrap();
        let out = agon(
            &env,
            &server,
            &[
                "run",
                "Monorepo or polyrepo?",
                "--panel",
                "anthropic/claude-opus-4-7,openai/gpt-5",
                "--judge",
                "openai/gpt-5.1",
                "--rounds",
                "1",
                flag,
                value,
                "--format",
                "json",
            ],
        );
        assert!(out.status.success(), "{flag} {value}: {}", stderr(&out));
        let t: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(t["outcome"]["kind"], "completed", "{flag}: {}", t["outcome"]);
        let stats = server.stats();
        let opus: Vec<_> = stats.requests.iter().filter(|s| s.path == "/v1/messages").collect();
        assert_eq!(opus.len(), 1, "{flag}");
        assert!(opus[0].refusal.is_none(), "{flag}: {:?}", opus[0].refusal);
        assert_eq!(opus[0].body["thinking"], serde_json::json!({"type": "adaptive"}), "{flag}: {}", opus[0].body);
        assert_eq!(opus[0].body["output_config"]["effort"], effort, "{flag}: {}", opus[0].body);
        assert!(opus[0].max_tokens.unwrap() > 512, "room to think and answer: {}", opus[0].body);
    }
}

/// Budgeted thinking is what Opus 4.7 refuses: the test above can fail.
#[test]
fn the_emulator_refuses_a_budget_for_opus_4_7_as_anthropic_does() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let body = serde_json::json!({"model": "claude-opus-4-7", "max_tokens": 4000, "messages": [{"role": "user", "content": "Hi"}],
        "thinking": {"type": "enabled", "budget_tokens": 2048}});
    let response = ureq::post(format!("{}/v1/messages", server.url()))
        .header("anthropic-version", "2023-06-01")
        .config()
        .http_status_as_error(false)
        .build()
        .send_json(&body)
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let text = response.into_body().read_to_string().unwrap();
    assert!(text.contains("\\\"thinking.type.enabled\\\" is not supported for this model"), "{text}");
}
