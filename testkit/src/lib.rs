//! A model server for tests, bound to 127.0.0.1, that stops when dropped.
//!
//! It speaks OpenAI's `/v1/chat/completions` (whole or SSE), Ollama's
//! `/api/chat` (whole or NDJSON), Anthropic's `/v1/messages` (whole or SSE)
//! and Gemini's `/v1beta/models/M:generateContent` (or
//! `:streamGenerateContent?alt=sse`), all with usage. Each model name has a script: the replies
//! to serve in order, a fixed latency, and optionally a fault — HTTP 500,
//! 429 with Retry-After, a hang, a stream cut in the middle, garbage JSON, a
//! connection closed before any answer.
//! `GET /stats` reports what was asked and how many calls were in flight at
//! once, so tests can check concurrency without timing anything.
//!
//! It is strict: for model names of real families (`gpt-5`, `o3-2025-04-16`,
//! `gpt-4o`, `claude-opus-4-7`, `gemini-2.5-pro`…) it refuses what the real
//! API refuses — `max_tokens` for OpenAI reasoning models, any `temperature`
//! for Opus 4.7, a zero thinking budget for Gemini 2.5 Pro, unknown fields,
//! `think` for an Ollama model its script does not mark thinking — with the
//! real status and error body, and it answers the way reasoning models do:
//! thinking tokens spent first against the token budget, a reply cut with
//! `finish_reason: "length"` (or the wire's own word) when the budget runs
//! out, usage that counts the thinking. Names no family claims (`m1`,
//! `judge`, `claude-a`) are served leniently. Ollama honours `num_ctx`,
//! recording every prompt it would truncate in [`Stats::truncated_prompts`],
//! and answers `POST /api/show`. The rules and their sources are in
//! `strict.rs` and STRICT.md.

pub mod anthropic_cache;
pub mod cases;
pub mod file_server;
mod http;
pub mod prefix_cache;
mod reply;
pub mod sandbox;
mod strict;

pub use strict::{DEFAULT_REASONING_TOKENS, OLLAMA_DEFAULT_NUM_CTX, Refusal};

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What the server does, per model name.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub models: BTreeMap<String, ModelScript>,
    /// Latency added before every reply, for models without their own.
    pub latency_ms: u64,
    /// Hold every reply until this many calls are in flight at once (or 10 s
    /// pass): proves a host's concurrency without timing anything.
    pub hold_until_in_flight: Option<usize>,
    /// Pause between streamed chunks, so clients see a real stream (default 2 ms;
    /// 0 for benchmarks, where only `latency_ms` should count).
    pub chunk_delay_ms: Option<u64>,
    /// Unscripted replies depend on the request, not on how many calls came
    /// before: a request asked again (after a crash) gets the same answer.
    pub replies_from_prompt: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelScript {
    /// Replies served in order; once used up, a default reply is generated.
    pub replies: Vec<String>,
    pub latency_ms: Option<u64>,
    pub fault: Option<Fault>,
    /// Apply the fault only from this 1-based call on (default: every call).
    pub fault_from_call: Option<usize>,
    /// Apply the fault to this many calls only (default: every call from `fault_from_call` on).
    pub fault_calls: Option<usize>,
    /// Tokens a reasoning model spends thinking before its answer (default
    /// [`DEFAULT_REASONING_TOKENS`]); only real reasoning families (and
    /// thinking Ollama models) spend them.
    pub reasoning_tokens: Option<u32>,
    /// Ollama: the model can think (`capabilities` has "thinking"); without
    /// it, a request with `think` is refused as Ollama refuses it.
    pub thinking: Option<bool>,
    /// Ollama: the context length `/api/show` reports (default 8192).
    pub context_length: Option<u32>,
    /// The retry delay `rate-limited-body` names in its body (default 15 s).
    pub retry_delay_s: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// HTTP 500 with an error body.
    ServerError,
    /// HTTP 429 with `Retry-After: 1`.
    RateLimited,
    /// Accept the request, then say nothing for 10 s.
    Hang,
    /// Stream half the reply, then drop the connection.
    CutStream,
    /// A stream (or body) whose JSON is garbage.
    Garbage,
    /// Read the request, then close the connection without a byte of answer.
    Drop,
    /// The provider is overloaded: Anthropic's 529 `overloaded_error` (503 in
    /// the other wires' own words).
    Overloaded,
    /// HTTP 429 with no Retry-After header: when to come back is only in the
    /// body (Gemini's RESOURCE_EXHAUSTED with a RetryInfo `retryDelay`).
    RateLimitedBody,
    /// HTTP 429 with `Retry-After: 1` and `x-should-retry: false`: the
    /// provider's word (Anthropic's, OpenAI's) that another attempt fails alike.
    RateLimitedNoRetry,
    /// HTTP 429 for a quota spent until tomorrow: Gemini's names a quota per
    /// day (with a RetryInfo all the same), OpenAI's is `insufficient_quota`.
    QuotaSpent,
    /// The key is refused: HTTP 401 in the wire's own words (Gemini: 400
    /// with API_KEY_INVALID).
    Unauthorized,
}

/// One request as the server saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    pub path: String,
    pub model: String,
    pub stream: bool,
    pub max_tokens: Option<u64>,
    /// The credential's value, from whichever header carried it (see `auth_header`).
    pub authorization: Option<String>,
    /// `Authorization`, `x-api-key` or `x-goog-api-key`.
    #[serde(default)]
    pub auth_header: Option<String>,
    pub messages: Value,
    /// When the request arrived, in microseconds since the Unix epoch, so a
    /// benchmark can tell which calls overlapped and when the first one came.
    #[serde(default)]
    pub arrived_us: u64,
    /// The whole request body as received, so a test can assert on exactly
    /// what a client sent.
    #[serde(default)]
    pub body: Value,
    /// The `anthropic-version` header, if sent.
    #[serde(default)]
    pub anthropic_version: Option<String>,
    /// The refusal the server answered with, when the request broke a rule
    /// of the real API.
    #[serde(default)]
    pub refusal: Option<Refusal>,
}

/// A prompt longer than Ollama's context window, which Ollama truncates from
/// the front without a word to the client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    pub model: String,
    /// The prompt's size, estimated as characters / 4.
    pub prompt_tokens: u64,
    /// The window it was cut to (`options.num_ctx`, or Ollama's default).
    pub num_ctx: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    pub requests: Vec<Seen>,
    pub in_flight: usize,
    pub max_in_flight: usize,
    /// Requests that arrived and whose answer has not started yet. Unlike
    /// `in_flight`, which still counts a request while its thread finishes
    /// writing an answer the client may already have read, this can never
    /// count a client's next request together with the one it followed, so a
    /// client's own limit on requests in flight bounds `max_unanswered` exactly.
    #[serde(default)]
    pub unanswered: usize,
    #[serde(default)]
    pub max_unanswered: usize,
    /// Every Ollama prompt that did not fit its context window.
    #[serde(default)]
    pub truncated_prompts: Vec<Truncation>,
}

struct Shared {
    config: Config,
    stats: Mutex<Stats>,
    /// Signalled whenever `stats.in_flight` changes.
    changed: Condvar,
    calls: Mutex<BTreeMap<String, usize>>,
    /// While true, every reply waits (see [`TestServer::hold_replies`]).
    held: Mutex<bool>,
    released: Condvar,
}

/// A running server; dropping it stops it.
pub struct TestServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    _listener: http::Listener,
}

impl TestServer {
    /// Start on 127.0.0.1 with an ephemeral port (or `port` if non-zero).
    pub fn start(config: Config, port: u16) -> io::Result<TestServer> {
        let shared = Arc::new(Shared {
            config,
            stats: Mutex::default(),
            changed: Condvar::new(),
            calls: Mutex::default(),
            held: Mutex::new(false),
            released: Condvar::new(),
        });
        let sh = shared.clone();
        let listener = http::Listener::bind(port, move |request| handle(request, &sh))?;
        Ok(TestServer { addr: listener.addr, shared, _listener: listener })
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn stats(&self) -> Stats {
        self.shared.stats.lock().unwrap().clone()
    }

    /// Make every reply wait, once its request is counted in the stats, until
    /// [`release_replies`](Self::release_replies): a test can hold a client
    /// mid-call for exactly as long as it needs, without timing anything.
    pub fn hold_replies(&self) {
        *self.shared.held.lock().unwrap() = true;
    }

    pub fn release_replies(&self) {
        *self.shared.held.lock().unwrap() = false;
        self.shared.released.notify_all();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.release_replies();
    }
}

fn respond(request: http::Request, status: u16, content_type: &str, body: Box<dyn Read + Send>, len: Option<usize>) {
    http::respond(request, status, &[], content_type, body, len)
}

fn respond_json(request: http::Request, status: u16, body: Value) {
    let bytes = body.to_string().into_bytes();
    let len = bytes.len();
    respond(request, status, "application/json", Box::new(io::Cursor::new(bytes)), Some(len));
}

/// The wire format a request came in, and its reply goes out, in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    OpenAi,
    Ollama,
    Anthropic,
    Gemini,
}

/// Which wire a POST path speaks, and for Gemini the model and whether it streams.
/// A base URL's own query (`?api-version=…`) comes along on every path.
fn route(path: &str) -> Option<(Wire, Option<(String, bool)>)> {
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    match path {
        "/v1/chat/completions" => Some((Wire::OpenAi, None)),
        "/api/chat" => Some((Wire::Ollama, None)),
        "/v1/messages" => Some((Wire::Anthropic, None)),
        _ => {
            let rest = path.strip_prefix("/v1beta/models/")?;
            let (model, method) = rest.rsplit_once(':')?;
            let stream = match method {
                "generateContent" => false,
                "streamGenerateContent" => query.split('&').any(|q| q == "alt=sse"),
                _ => return None,
            };
            Some((Wire::Gemini, Some((model.to_string(), stream))))
        }
    }
}

fn handle(request: http::Request, shared: &Shared) {
    let path = request.path.clone();
    if request.method == "POST"
        && let Some((wire, gemini)) = route(&path)
    {
        return handle_completion(request, shared, wire, gemini);
    }
    match (request.method.as_str(), path.as_str()) {
        ("OPTIONS", _) => respond(request, 204, "text/plain", Box::new(io::empty()), Some(0)),
        ("GET", "/health") => respond_json(request, 200, json!({"status": "ok"})),
        ("GET", "/stats") => {
            let stats = serde_json::to_value(&*shared.stats.lock().unwrap()).unwrap();
            respond_json(request, 200, stats)
        }
        ("POST", "/api/show") => show(request, shared),
        _ => respond_json(request, 404, json!({"error": {"message": format!("no route {path}")}})),
    }
}

/// Ollama's `POST /api/show {"model": M}`: the model's context length and
/// capabilities, which a client reads before choosing `num_ctx` or `think`
/// (docs.ollama.com, api-reference/show-model-details). Every model "exists";
/// its architecture is reported as "llama".
fn show(request: http::Request, shared: &Shared) {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let Some(model) = body["model"].as_str().or(body["name"].as_str()) else {
        return respond_json(request, 400, json!({"error": "model is required"}));
    };
    let script = shared.config.models.get(model).cloned().unwrap_or_default();
    let mut capabilities = vec!["completion"];
    if script.thinking == Some(true) {
        capabilities.push("thinking");
    }
    let context = script.context_length.unwrap_or(8192);
    respond_json(
        request,
        200,
        json!({"model_info": {"general.architecture": "llama", "llama.context_length": context},
            "capabilities": capabilities, "details": {"format": "gguf", "family": "llama"}}),
    )
}

/// The request's messages as `[{"role", "content"}]`, whatever the wire
/// (Anthropic's `system` and Gemini's `systemInstruction` become a system message).
fn messages_of(wire: Wire, body: &Value) -> Value {
    let text_of = |parts: &Value| -> String {
        parts.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("")
    };
    match wire {
        Wire::OpenAi | Wire::Ollama => body["messages"].clone(),
        Wire::Anthropic => {
            let mut out = Vec::new();
            if let Some(system) = body["system"].as_str() {
                out.push(json!({"role": "system", "content": system}));
            }
            // A message's content is a string, or text blocks (cut where the
            // client asked for the prompt to be cached).
            for m in body["messages"].as_array().into_iter().flatten() {
                let content = match &m["content"] {
                    Value::Array(blocks) => Value::from(text_of(&Value::Array(blocks.clone()))),
                    other => other.clone(),
                };
                out.push(json!({"role": m["role"], "content": content}));
            }
            Value::Array(out)
        }
        Wire::Gemini => {
            let mut out = Vec::new();
            if body["systemInstruction"].is_object() {
                out.push(json!({"role": "system", "content": text_of(&body["systemInstruction"]["parts"])}));
            }
            for c in body["contents"].as_array().into_iter().flatten() {
                let role = if c["role"] == "model" { "assistant" } else { "user" };
                out.push(json!({"role": role, "content": text_of(&c["parts"])}));
            }
            Value::Array(out)
        }
    }
}

fn handle_completion(request: http::Request, shared: &Shared, wire: Wire, gemini: Option<(String, bool)>) {
    let body = String::from_utf8_lossy(&request.body).to_string();
    // OpenAI-style bearer, Anthropic's x-api-key, Gemini's x-goog-api-key: which one, and its value.
    let (auth_header, authorization) = ["Authorization", "x-api-key", "x-goog-api-key"]
        .iter()
        .find_map(|h| request.header(h).map(|v| (Some(h.to_string()), Some(v.to_string()))))
        .unwrap_or_default();
    let Ok(body) = serde_json::from_str::<Value>(&body) else {
        return respond_json(request, 400, json!({"error": {"message": "body is not JSON"}}));
    };
    let (model, stream) = match &gemini {
        Some((model, stream)) => (model.clone(), *stream),
        None => (
            body["model"].as_str().unwrap_or_default().to_string(),
            body["stream"].as_bool().unwrap_or(wire == Wire::Ollama),
        ),
    };
    let max_tokens = match wire {
        Wire::Ollama => body["options"]["num_predict"].as_u64(),
        Wire::Gemini => body["generationConfig"]["maxOutputTokens"].as_u64(),
        Wire::OpenAi => body["max_tokens"].as_u64().or(body["max_completion_tokens"].as_u64()),
        Wire::Anthropic => body["max_tokens"].as_u64(),
    };
    let script = shared.config.models.get(&model).cloned().unwrap_or_default();
    let headers = strict::Headers {
        anthropic_version: request.header("anthropic-version"),
        anthropic_beta: request.header("anthropic-beta"),
    };
    let verdict = strict::check(wire, &model, &body, headers, &script);
    let seen = Seen {
        path: request.path.clone(),
        model,
        stream,
        max_tokens,
        authorization,
        auth_header,
        messages: messages_of(wire, &body),
        arrived_us: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64),
        anthropic_version: request.header("anthropic-version").map(str::to_string),
        body,
        refusal: verdict.as_ref().err().cloned(),
    };
    // A refused request is answered at once: it never reaches a model, so it
    // takes no scripted reply, no latency and no place among the calls in flight.
    let plan = match verdict {
        Ok(plan) => plan,
        Err(refusal) => {
            shared.stats.lock().unwrap().requests.push(seen);
            return respond_json(request, refusal.status, refusal.body);
        }
    };
    {
        let mut stats = shared.stats.lock().unwrap();
        if let Some(num_ctx) = plan.context
            && count_prompt(&seen.messages) > num_ctx
        {
            let prompt_tokens = count_prompt(&seen.messages);
            stats.truncated_prompts.push(Truncation { model: seen.model.clone(), prompt_tokens, num_ctx });
        }
        stats.requests.push(seen.clone());
        stats.in_flight += 1;
        stats.max_in_flight = stats.max_in_flight.max(stats.in_flight);
        stats.unanswered += 1;
        stats.max_unanswered = stats.max_unanswered.max(stats.unanswered);
        shared.changed.notify_all();
        if let Some(n) = shared.config.hold_until_in_flight {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while stats.max_in_flight < n && std::time::Instant::now() < deadline {
                stats = shared.changed.wait_timeout(stats, Duration::from_millis(100)).unwrap().0;
            }
        }
    }
    {
        let mut held = shared.held.lock().unwrap();
        while *held {
            held = shared.released.wait(held).unwrap();
        }
    }
    serve_completion(request, shared, &seen, wire, &script, &plan);
    shared.stats.lock().unwrap().in_flight -= 1;
    shared.changed.notify_all();
}

fn serve_completion(
    request: http::Request,
    shared: &Shared,
    seen: &Seen,
    wire: Wire,
    script: &ModelScript,
    plan: &strict::Plan,
) {
    let call = {
        let mut calls = shared.calls.lock().unwrap();
        let n = calls.entry(seen.model.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let latency = script.latency_ms.unwrap_or(shared.config.latency_ms);
    thread::sleep(Duration::from_millis(latency));
    shared.stats.lock().unwrap().unanswered -= 1;
    let text = script.replies.get(call - 1).cloned().unwrap_or_else(|| {
        let label = if shared.config.replies_from_prompt {
            // FNV-1a of the messages: stable across runs and processes.
            let digest = seen
                .messages
                .to_string()
                .bytes()
                .fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
            format!("{digest:016x}")
        } else {
            call.to_string()
        };
        format!(
            "{} answer {label}: I disagree with Speaker 1 about the cost, and I see a risk in the timeline.",
            seen.model
        )
    });
    let first = script.fault_from_call.unwrap_or(1);
    let fault = script.fault.filter(|_| call >= first && script.fault_calls.is_none_or(|n| call < first + n));
    match fault {
        Some(Fault::ServerError) => {
            return respond_json(request, 500, json!({"error": {"message": "injected server error"}}));
        }
        Some(Fault::RateLimited) => {
            let bytes = json!({"error": {"message": "injected rate limit"}}).to_string().into_bytes();
            let len = bytes.len();
            http::respond(
                request,
                429,
                &[("Retry-After", "1")],
                "application/json",
                Box::new(io::Cursor::new(bytes)),
                Some(len),
            );
            return;
        }
        Some(Fault::RateLimitedNoRetry) => {
            let refusal = strict::rate_limited(wire, 1);
            let bytes = refusal.body.to_string().into_bytes();
            let len = bytes.len();
            let headers = [("Retry-After", "1"), ("x-should-retry", "false")];
            http::respond(request, 429, &headers, "application/json", Box::new(io::Cursor::new(bytes)), Some(len));
            return;
        }
        Some(Fault::QuotaSpent) => {
            let refusal = strict::quota_spent(wire);
            return respond_json(request, refusal.status, refusal.body);
        }
        Some(Fault::RateLimitedBody) => {
            let refusal = strict::rate_limited(wire, script.retry_delay_s.unwrap_or(15));
            return respond_json(request, refusal.status, refusal.body);
        }
        Some(Fault::Overloaded) => {
            let refusal = strict::overloaded(wire);
            return respond_json(request, refusal.status, refusal.body);
        }
        Some(Fault::Unauthorized) => {
            let refusal = strict::unauthorized(wire);
            return respond_json(request, refusal.status, refusal.body);
        }
        Some(Fault::Drop) => return http::drop_connection(request),
        Some(Fault::Hang) => {
            thread::sleep(Duration::from_secs(10));
            return respond_json(request, 504, json!({"error": {"message": "hung"}}));
        }
        _ => {}
    }
    // The prompt a model actually reads: Ollama's is cut to its window.
    let prompt = count_prompt(&seen.messages).min(plan.context.unwrap_or(u64::MAX));
    let reply = reply::Reply::new(&text, plan, prompt);
    if !seen.stream {
        let body = if fault == Some(Fault::Garbage) {
            "{\"choices\": [garbage".to_string()
        } else {
            reply::whole(wire, &seen.model, &reply).to_string()
        };
        let len = body.len();
        return respond(request, 200, "application/json", Box::new(io::Cursor::new(body.into_bytes())), Some(len));
    }
    let mut chunks = reply::stream(wire, &seen.model, &reply);
    match fault {
        Some(Fault::Garbage) => chunks.insert(chunks.len() / 2, "data: {not json at all\n\n".to_string()),
        Some(Fault::CutStream) => chunks.truncate(chunks.len() / 2),
        _ => {}
    }
    let cut = fault == Some(Fault::CutStream);
    let content_type = if wire == Wire::Ollama { "application/x-ndjson" } else { "text/event-stream" };
    let delay = Duration::from_millis(shared.config.chunk_delay_ms.unwrap_or(2));
    respond(request, 200, content_type, Box::new(Chunks { chunks, next: 0, offset: 0, cut, delay }), None);
}

/// A prompt's size in tokens, estimated as its characters / 4.
fn count_prompt(messages: &Value) -> u64 {
    let chars: usize =
        messages.as_array().map(|m| m.iter().map(|x| x["content"].as_str().map_or(0, str::len)).sum()).unwrap_or(0);
    (chars / 4) as u64
}

/// A body that yields one chunk per read, pausing briefly between chunks so
/// the client sees a real stream; with `cut`, it fails after the last chunk.
struct Chunks {
    chunks: Vec<String>,
    next: usize,
    offset: usize,
    cut: bool,
    delay: Duration,
}

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(chunk) = self.chunks.get(self.next) else {
            return if self.cut { Err(io::Error::other("injected cut")) } else { Ok(0) };
        };
        if self.offset == 0 && self.next > 0 && !self.delay.is_zero() {
            thread::sleep(self.delay);
        }
        let bytes = &chunk.as_bytes()[self.offset..];
        let n = bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&bytes[..n]);
        self.offset += n;
        if self.offset == chunk.len() {
            self.next += 1;
            self.offset = 0;
        }
        Ok(n)
    }
}
