//! The strict server end to end: refusals with the real bodies, recorded in
//! the stats, and replies shaped the way reasoning models answer.

use std::io::{Read, Write};
use std::net::TcpStream;

use agon_testkit::{Config, Fault, ModelScript, TestServer};
use serde_json::{Value, json};

/// One HTTP answer, its chunked body (if any) put back together.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The `data:` payloads of an SSE body, parsed.
    fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect()
    }

    /// The lines of an NDJSON body, parsed.
    fn lines(&self) -> Vec<Value> {
        self.body.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

fn post(server: &TestServer, path: &str, headers: &[(&str, &str)], body: &Value) -> Answer {
    let body = body.to_string();
    let mut stream = TcpStream::connect(server.addr).unwrap();
    let mut request =
        format!("POST {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body =
        if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { unchunk(rest) } else { rest.to_string() };
    Answer { status, head: head.to_string(), body }
}

fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    out
}

fn server(models: &[(&str, ModelScript)]) -> TestServer {
    let mut config = Config { chunk_delay_ms: Some(0), ..Default::default() };
    for (name, script) in models {
        config.models.insert(name.to_string(), script.clone());
    }
    TestServer::start(config, 0).unwrap()
}

fn reply(text: &str) -> ModelScript {
    ModelScript { replies: vec![text.to_string(); 4], ..Default::default() }
}

const TEN: &str = "one two three four five six seven eight nine ten";
const ANTHROPIC: [(&str, &str); 1] = [("anthropic-version", "2023-06-01")];

fn openai(model: &str, extra: Value) -> Value {
    let mut body = json!({"model": model, "messages": [{"role": "user", "content": "Q?"}]});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        body[k] = v;
    }
    body
}

#[test]
fn gpt_5_with_max_completion_tokens_and_no_temperature_thinks_then_answers() {
    let server = server(&[("gpt-5", reply(TEN))]);
    let a = post(&server, "/v1/chat/completions", &[], &openai("gpt-5", json!({"max_completion_tokens": 500})));
    assert_eq!(a.status, 200, "{}", a.body);
    let r = a.json();
    assert_eq!(r["choices"][0]["message"]["content"], TEN);
    assert_eq!(r["choices"][0]["finish_reason"], "stop");
    assert_eq!(r["usage"]["completion_tokens"], 210, "200 reasoning tokens, then ten words");
    assert_eq!(r["usage"]["completion_tokens_details"]["reasoning_tokens"], 200);
}

#[test]
fn a_small_budget_leaves_a_reasoning_model_nothing_to_say() {
    let script = ModelScript { reasoning_tokens: Some(50), ..reply(TEN) };
    let server = server(&[("o3", script)]);
    let a = post(&server, "/v1/chat/completions", &[], &openai("o3", json!({"max_completion_tokens": 40})));
    let r = a.json();
    assert_eq!(
        (r["choices"][0]["message"]["content"].as_str(), r["choices"][0]["finish_reason"].as_str()),
        (Some(""), Some("length"))
    );
    assert_eq!(
        (
            r["usage"]["completion_tokens"].as_u64(),
            r["usage"]["completion_tokens_details"]["reasoning_tokens"].as_u64()
        ),
        (Some(40), Some(40))
    );
    // A little room after the thinking: partial text.
    let a = post(&server, "/v1/chat/completions", &[], &openai("o3", json!({"max_completion_tokens": 53})));
    let r = a.json();
    assert_eq!(
        (r["choices"][0]["message"]["content"].as_str(), r["choices"][0]["finish_reason"].as_str()),
        (Some("one two three "), Some("length"))
    );
    // Streamed, the same: no content, a length finish, usage with the reasoning.
    let body =
        openai("o3", json!({"max_completion_tokens": 40, "stream": true, "stream_options": {"include_usage": true}}));
    let events = post(&server, "/v1/chat/completions", &[], &body).events();
    assert!(events.iter().all(|e| e["choices"][0]["delta"]["content"].is_null()), "{events:?}");
    let last = events.last().unwrap();
    assert_eq!(
        (last["choices"][0]["finish_reason"].as_str(), last["usage"]["completion_tokens"].as_u64()),
        (Some("length"), Some(40))
    );
}

#[test]
fn a_chat_model_is_cut_at_max_tokens_and_an_unknown_name_is_not() {
    let server = server(&[("gpt-4o", reply(TEN)), ("m1", reply(TEN))]);
    let r = post(&server, "/v1/chat/completions", &[], &openai("gpt-4o", json!({"max_tokens": 4, "temperature": 0.7})))
        .json();
    assert_eq!(
        (r["choices"][0]["message"]["content"].as_str(), r["choices"][0]["finish_reason"].as_str()),
        (Some("one two three four "), Some("length"))
    );
    assert_eq!(r["usage"]["completion_tokens_details"]["reasoning_tokens"], 0);
    let r =
        post(&server, "/v1/chat/completions", &[], &openai("m1", json!({"max_tokens": 4, "anything": true}))).json();
    assert_eq!(
        (r["choices"][0]["message"]["content"].as_str(), r["choices"][0]["finish_reason"].as_str()),
        (Some(TEN), Some("stop"))
    );
    assert!(r["usage"].get("completion_tokens_details").is_none());
}

#[test]
fn a_refusal_is_answered_at_once_and_recorded_with_what_was_sent() {
    let server = server(&[]);
    let sent = openai("gpt-5", json!({"max_tokens": 100, "temperature": 0.7}));
    let a = post(&server, "/v1/chat/completions", &[], &sent);
    assert_eq!(a.status, 400);
    assert_eq!(a.json()["error"]["code"], "unsupported_parameter");
    let stats = server.stats();
    assert_eq!(stats.requests.len(), 1);
    let seen = &stats.requests[0];
    assert_eq!(seen.body, sent);
    let refusal = seen.refusal.as_ref().unwrap();
    assert_eq!((refusal.status, &refusal.body), (400, &a.json()));
    assert_eq!((stats.in_flight, stats.max_in_flight), (0, 0), "a refused request is never in flight");
    // It took no scripted reply: the next good call is the first answer.
    let r = post(&server, "/v1/chat/completions", &[], &openai("gpt-5", json!({}))).json();
    assert!(r["choices"][0]["message"]["content"].as_str().unwrap().starts_with("gpt-5 answer 1:"), "{r}");
    assert!(server.stats().requests[1].refusal.is_none());
}

fn claude(model: &str, extra: Value) -> Value {
    let mut body = json!({"model": model, "max_tokens": 1000, "messages": [{"role": "user", "content": "Q?"}]});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        body[k] = v;
    }
    body
}

#[test]
fn opus_4_7_refuses_temperature_and_sonnet_4_5_takes_it() {
    let server = server(&[]);
    let a = post(&server, "/v1/messages", &ANTHROPIC, &claude("claude-opus-4-7", json!({"temperature": 0.7})));
    assert_eq!(a.status, 400);
    assert_eq!(
        a.json(),
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": "`temperature` is deprecated for this model."}})
    );
    assert_eq!(post(&server, "/v1/messages", &ANTHROPIC, &claude("claude-opus-4-7", json!({}))).status, 200);
    assert_eq!(
        post(&server, "/v1/messages", &ANTHROPIC, &claude("claude-sonnet-4-5", json!({"temperature": 0.7}))).status,
        200
    );
    let seen = server.stats().requests;
    assert_eq!(seen[0].anthropic_version.as_deref(), Some("2023-06-01"));
    // Without the header, any model is refused, and the request still recorded.
    let a = post(&server, "/v1/messages", &[], &claude("claude-a", json!({})));
    assert_eq!((a.status, a.json()["error"]["message"].as_str()), (400, Some("anthropic-version: header is required")));
    assert_eq!(server.stats().requests.last().unwrap().anthropic_version, None);
}

#[test]
fn claude_thinks_first_and_thinking_counts_against_max_tokens() {
    let script = ModelScript { reasoning_tokens: Some(30), ..reply(TEN) };
    let server = server(&[("claude-sonnet-4-5", script)]);
    let thinking = json!({"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2000});
    let r = post(&server, "/v1/messages", &ANTHROPIC, &claude("claude-sonnet-4-5", thinking.clone())).json();
    assert_eq!(r["content"][0]["type"], "thinking");
    assert!(r["content"][0]["signature"].is_string() && !r["content"][0]["thinking"].as_str().unwrap().is_empty());
    assert_eq!((r["content"][1]["type"].as_str(), r["content"][1]["text"].as_str()), (Some("text"), Some(TEN)));
    assert_eq!((r["stop_reason"].as_str(), r["usage"]["output_tokens"].as_u64()), (Some("end_turn"), Some(40)));
    // Streamed: the thinking block, its signature, then the text block.
    let mut body = claude("claude-sonnet-4-5", thinking);
    body["stream"] = json!(true);
    let events = post(&server, "/v1/messages", &ANTHROPIC, &body).events();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{}{}",
                e["type"].as_str().unwrap(),
                e["delta"]["type"].as_str().map(|t| format!(":{t}")).unwrap_or_default()
            )
        })
        .collect();
    let first = |k: &str| kinds.iter().position(|x| x == k).unwrap_or_else(|| panic!("{k} in {kinds:?}"));
    assert_eq!(events[first("content_block_start")]["content_block"]["type"], "thinking");
    assert!(first("content_block_delta:thinking_delta") < first("content_block_delta:signature_delta"));
    assert!(first("content_block_delta:signature_delta") < first("content_block_delta:text_delta"));
    assert_eq!(events[first("content_block_delta:text_delta")]["index"], 1);
    let end = events.iter().find(|e| e["type"] == "message_delta").unwrap();
    assert_eq!(
        (end["delta"]["stop_reason"].as_str(), end["usage"]["output_tokens"].as_u64()),
        (Some("end_turn"), Some(40))
    );
}

#[test]
fn adaptive_thinking_can_spend_the_whole_budget() {
    let server = server(&[("claude-opus-4-7", reply(TEN))]);
    let body = claude("claude-opus-4-7", json!({"thinking": {"type": "adaptive"}, "max_tokens": 150}));
    let r = post(&server, "/v1/messages", &ANTHROPIC, &body).json();
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["content"][0]["type"], "thinking");
    assert_eq!((r["stop_reason"].as_str(), r["usage"]["output_tokens"].as_u64()), (Some("max_tokens"), Some(150)));
}

fn gemini(config: Value) -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "Q?"}]}], "generationConfig": config})
}

#[test]
fn gemini_2_5_pro_refuses_a_zero_budget() {
    let server = server(&[]);
    let body = gemini(json!({"thinkingConfig": {"thinkingBudget": 0}}));
    let a = post(&server, "/v1beta/models/gemini-2.5-pro:generateContent", &[], &body);
    assert_eq!(a.status, 400);
    assert_eq!(
        a.json(),
        json!({"error": {"code": 400, "message": "Budget 0 is invalid. This model only works in thinking mode.", "status": "INVALID_ARGUMENT"}})
    );
    let a = post(&server, "/v1beta/models/gemini-2.5-flash:generateContent", &[], &body);
    assert_eq!(a.status, 200, "flash may stop thinking: {}", a.body);
    assert!(a.json()["usageMetadata"].get("thoughtsTokenCount").is_none());
}

#[test]
fn gemini_spends_its_thoughts_first() {
    let server = server(&[("gemini-2.5-flash", reply(TEN))]);
    let path = "/v1beta/models/gemini-2.5-flash:generateContent";
    let r = post(&server, path, &[], &gemini(json!({"maxOutputTokens": 100}))).json();
    assert_eq!(r["candidates"][0]["finishReason"], "MAX_TOKENS");
    assert!(r["candidates"][0].get("content").is_none(), "{r}");
    let usage = &r["usageMetadata"];
    assert_eq!((usage["thoughtsTokenCount"].as_u64(), usage.get("candidatesTokenCount")), (Some(100), None));
    assert_eq!(usage["totalTokenCount"].as_u64(), Some(usage["promptTokenCount"].as_u64().unwrap() + 100));
    // Room enough, and the thoughts shown: thought parts come first.
    let body = gemini(json!({"maxOutputTokens": 1000, "thinkingConfig": {"includeThoughts": true}}));
    let r = post(&server, path, &[], &body).json();
    let parts = &r["candidates"][0]["content"]["parts"];
    assert_eq!((parts[0]["thought"].as_bool(), parts[1]["text"].as_str()), (Some(true), Some(TEN)));
    assert_eq!(
        (r["usageMetadata"]["candidatesTokenCount"].as_u64(), r["usageMetadata"]["thoughtsTokenCount"].as_u64()),
        (Some(10), Some(200))
    );
    // Streamed, out of tokens: one last chunk with the reason and no content.
    let events = post(
        &server,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        &[],
        &gemini(json!({"maxOutputTokens": 100})),
    )
    .events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["candidates"][0]["finishReason"], "MAX_TOKENS");
}

#[test]
fn rate_limited_body_says_when_only_in_the_body() {
    let script = ModelScript { fault: Some(Fault::RateLimitedBody), retry_delay_s: Some(3), ..Default::default() };
    let server = server(&[("gemini-2.5-pro", script)]);
    let a = post(&server, "/v1beta/models/gemini-2.5-pro:generateContent", &[], &gemini(json!({})));
    assert_eq!(a.status, 429);
    assert!(!a.head.to_ascii_lowercase().contains("retry-after"), "{}", a.head);
    let e = a.json()["error"].clone();
    assert_eq!((e["code"].as_u64(), e["status"].as_str()), (Some(429), Some("RESOURCE_EXHAUSTED")));
    let retry = e["details"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.RetryInfo")
        .unwrap();
    assert_eq!(retry["retryDelay"], "3s");
}

#[test]
fn overloaded_is_anthropics_529() {
    let server = server(&[("claude-a", ModelScript { fault: Some(Fault::Overloaded), ..Default::default() })]);
    let a = post(&server, "/v1/messages", &ANTHROPIC, &claude("claude-a", json!({})));
    assert_eq!(a.status, 529);
    assert_eq!(a.json(), json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
}

fn ollama(model: &str, extra: Value) -> Value {
    let mut body = json!({"model": model, "messages": [{"role": "user", "content": "Q?"}], "stream": false});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        body[k] = v;
    }
    body
}

#[test]
fn ollama_think_on_a_model_that_cannot_is_refused() {
    let server = server(&[]);
    let a = post(&server, "/api/chat", &[], &ollama("llama3.2", json!({"think": true})));
    assert_eq!((a.status, a.json()), (400, json!({"error": "\"llama3.2:latest\" does not support thinking"})));
}

#[test]
fn a_thinking_ollama_model_thinks_apart_from_its_answer() {
    let script = ModelScript { thinking: Some(true), reasoning_tokens: Some(5), ..reply(TEN) };
    let server = server(&[("qwen3", script)]);
    let r = post(&server, "/api/chat", &[], &ollama("qwen3", json!({"think": true}))).json();
    assert_eq!(r["message"]["content"], TEN);
    let thought = r["message"]["thinking"].as_str().unwrap();
    assert!(!thought.is_empty() && !r["message"]["content"].as_str().unwrap().contains(thought));
    assert_eq!((r["eval_count"].as_u64(), r["done_reason"].as_str()), (Some(15), Some("stop")));
    // num_predict counts the thinking too.
    let r = post(&server, "/api/chat", &[], &ollama("qwen3", json!({"options": {"num_predict": 8}}))).json();
    assert_eq!((r["message"]["content"].as_str(), r["done_reason"].as_str()), (Some("one two three "), Some("length")));
    // Streamed: thinking lines first, never in content.
    let lines = post(&server, "/api/chat", &[], &ollama("qwen3", json!({"stream": true}))).lines();
    assert!(lines[0]["message"]["thinking"].is_string() && lines[0]["message"]["content"] == "");
    assert!(lines.iter().filter(|l| l["message"]["thinking"].is_string()).all(|l| l["message"]["content"] == ""));
    // think: false turns it off.
    let r = post(&server, "/api/chat", &[], &ollama("qwen3", json!({"think": false}))).json();
    assert!(r["message"].get("thinking").is_none() && r["eval_count"] == 10);
}

#[test]
fn ollama_cuts_a_long_prompt_to_num_ctx_and_says_so_in_the_stats() {
    let server = server(&[]);
    let long = "word ".repeat(400); // 2000 characters: 500 tokens
    let body = json!({"model": "llama3", "messages": [{"role": "user", "content": long}], "stream": false, "options": {"num_ctx": 256}});
    let r = post(&server, "/api/chat", &[], &body).json();
    assert_eq!(r["prompt_eval_count"], 256, "the model reads only its window");
    let truncated = server.stats().truncated_prompts;
    assert_eq!(truncated.len(), 1);
    assert_eq!((truncated[0].model.as_str(), truncated[0].prompt_tokens, truncated[0].num_ctx), ("llama3", 500, 256));
    // Ollama's default window holds it.
    let mut fits = body.clone();
    fits["options"] = json!({});
    post(&server, "/api/chat", &[], &fits);
    assert_eq!(server.stats().truncated_prompts.len(), 1);
}

#[test]
fn ollama_show_reports_context_length_and_capabilities() {
    let script = ModelScript { thinking: Some(true), context_length: Some(32768), ..Default::default() };
    let server = server(&[("qwen3", script)]);
    let r = post(&server, "/api/show", &[], &json!({"model": "qwen3"})).json();
    let arch = r["model_info"]["general.architecture"].as_str().unwrap();
    assert_eq!(r["model_info"][format!("{arch}.context_length")], 32768);
    assert_eq!(r["capabilities"], json!(["completion", "thinking"]));
    let r = post(&server, "/api/show", &[], &json!({"model": "llama3"})).json();
    assert_eq!(
        (r["model_info"]["llama.context_length"].as_u64(), &r["capabilities"]),
        (Some(8192), &json!(["completion"]))
    );
    assert_eq!(post(&server, "/api/show", &[], &json!({})).status, 400);
    assert!(server.stats().requests.is_empty(), "/api/show is not a completion");
}

#[test]
fn configs_with_and_without_the_new_fields_parse() {
    let old: Config =
        serde_json::from_str(r#"{"models": {"a": {"replies": ["x"], "fault": "rate-limited"}}}"#).unwrap();
    assert_eq!(old.models["a"].fault, Some(Fault::RateLimited));
    let new: Config = serde_json::from_str(
        r#"{"models": {"qwen3": {"thinking": true, "reasoning_tokens": 9, "context_length": 4096, "retry_delay_s": 2, "fault": "rate-limited-body"},
            "claude-opus-4-7": {"fault": "overloaded"}}}"#,
    )
    .unwrap();
    let q = &new.models["qwen3"];
    assert_eq!(
        (q.thinking, q.reasoning_tokens, q.context_length, q.retry_delay_s),
        (Some(true), Some(9), Some(4096), Some(2))
    );
    assert_eq!(new.models["claude-opus-4-7"].fault, Some(Fault::Overloaded));
    assert!(
        serde_json::from_str::<Config>(r#"{"models": {"a": {"reasoning": 1}}}"#).is_err(),
        "unknown fields still refused"
    );
}
