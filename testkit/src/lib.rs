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

pub mod cases;
mod http;
pub mod sandbox;

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
        _ => respond_json(request, 404, json!({"error": {"message": format!("no route {path}")}})),
    }
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
            out.extend(body["messages"].as_array().cloned().unwrap_or_default());
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
    if wire == Wire::Anthropic && request.header("anthropic-version").is_none() {
        return respond_json(
            request,
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "anthropic-version header is required"}}),
        );
    }
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
        Wire::OpenAi | Wire::Anthropic => body["max_tokens"].as_u64(),
    };
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
    };
    {
        let mut stats = shared.stats.lock().unwrap();
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
    serve_completion(request, shared, &seen, wire);
    shared.stats.lock().unwrap().in_flight -= 1;
    shared.changed.notify_all();
}

fn serve_completion(request: http::Request, shared: &Shared, seen: &Seen, wire: Wire) {
    let script = shared.config.models.get(&seen.model).cloned().unwrap_or_default();
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
        Some(Fault::Drop) => return http::drop_connection(request),
        Some(Fault::Hang) => {
            thread::sleep(Duration::from_secs(10));
            return respond_json(request, 504, json!({"error": {"message": "hung"}}));
        }
        _ => {}
    }
    let words: Vec<String> = text.split_inclusive(' ').map(str::to_string).collect();
    let usage = (count_prompt(&seen.messages), words.len() as u64);
    if !seen.stream {
        let body = if fault == Some(Fault::Garbage) {
            "{\"choices\": [garbage".to_string()
        } else {
            whole(wire, seen, &text, usage).to_string()
        };
        let len = body.len();
        return respond(request, 200, "application/json", Box::new(io::Cursor::new(body.into_bytes())), Some(len));
    }
    let mut chunks = stream(wire, seen, &words, usage);
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

/// A whole (non-streamed) reply in the wire's own shape, with usage.
fn whole(wire: Wire, seen: &Seen, text: &str, (prompt, completion): (u64, u64)) -> Value {
    match wire {
        Wire::OpenAi => json!({"id": "test", "object": "chat.completion", "model": seen.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}),
        Wire::Ollama => json!({"model": seen.model, "message": {"role": "assistant", "content": text}, "done": true,
            "prompt_eval_count": prompt, "eval_count": completion}),
        Wire::Anthropic => json!({"id": "msg_test", "type": "message", "role": "assistant", "model": seen.model,
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": prompt, "output_tokens": completion}}),
        Wire::Gemini => {
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": completion, "totalTokenCount": prompt + completion}})
        }
    }
}

/// A streamed reply, one chunk per word, ending the way the wire ends, with usage.
fn stream(wire: Wire, seen: &Seen, words: &[String], (prompt, completion): (u64, u64)) -> Vec<String> {
    let sse = |event: Option<&str>, data: Value| match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    };
    let mut chunks = Vec::new();
    match wire {
        Wire::OpenAi => {
            for w in words {
                chunks.push(sse(None, json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": null}]})));
            }
            chunks.push(sse(None, json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion}})));
            chunks.push("data: [DONE]\n\n".to_string());
        }
        Wire::Ollama => {
            for w in words {
                chunks.push(format!(
                    "{}\n",
                    json!({"model": seen.model, "message": {"role": "assistant", "content": w}, "done": false})
                ));
            }
            chunks.push(format!(
                "{}\n",
                json!({"model": seen.model, "message": {"role": "assistant", "content": ""}, "done": true,
                "prompt_eval_count": prompt, "eval_count": completion})
            ));
        }
        Wire::Anthropic => {
            chunks.push(sse(Some("message_start"), json!({"type": "message_start", "message": {"id": "msg_test", "type": "message",
                "role": "assistant", "model": seen.model, "content": [], "usage": {"input_tokens": prompt, "output_tokens": 1}}})));
            chunks.push(sse(
                Some("content_block_start"),
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ));
            chunks.push(sse(Some("ping"), json!({"type": "ping"})));
            for w in words {
                chunks.push(sse(
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}),
                ));
            }
            chunks.push(sse(Some("content_block_stop"), json!({"type": "content_block_stop", "index": 0})));
            chunks.push(sse(Some("message_delta"), json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": completion}})));
            chunks.push(sse(Some("message_stop"), json!({"type": "message_stop"})));
        }
        Wire::Gemini => {
            let last = words.len().saturating_sub(1);
            for (i, w) in words.iter().enumerate() {
                let mut chunk = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": w}]}, "index": 0}],
                    "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": i as u64 + 1}});
                if i == last {
                    chunk["candidates"][0]["finishReason"] = json!("STOP");
                    chunk["usageMetadata"]["candidatesTokenCount"] = json!(completion);
                }
                chunks.push(sse(None, chunk));
            }
        }
    }
    chunks
}

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
