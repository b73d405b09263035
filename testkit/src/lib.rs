//! A model server for tests, bound to 127.0.0.1, that stops when dropped.
//!
//! It speaks OpenAI's `/v1/chat/completions` (whole or SSE) and Ollama's
//! `/api/chat` (whole or NDJSON). Each model name has a script: the replies
//! to serve in order, a fixed latency, and optionally a fault — HTTP 500,
//! 429 with Retry-After, a hang, a stream cut in the middle, garbage JSON.
//! `GET /stats` reports what was asked and how many calls were in flight at
//! once, so tests can check concurrency without timing anything.

pub mod cases;
mod http;

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
}

/// One request as the server saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Seen {
    pub path: String,
    pub model: String,
    pub stream: bool,
    pub max_tokens: Option<u64>,
    pub authorization: Option<String>,
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
}

struct Shared {
    config: Config,
    stats: Mutex<Stats>,
    /// Signalled whenever `stats.in_flight` changes.
    changed: Condvar,
    calls: Mutex<BTreeMap<String, usize>>,
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
        let shared =
            Arc::new(Shared { config, stats: Mutex::default(), changed: Condvar::new(), calls: Mutex::default() });
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
}

fn respond(request: http::Request, status: u16, content_type: &str, body: Box<dyn Read + Send>, len: Option<usize>) {
    http::respond(request, status, &[], content_type, body, len)
}

fn respond_json(request: http::Request, status: u16, body: Value) {
    let bytes = body.to_string().into_bytes();
    let len = bytes.len();
    respond(request, status, "application/json", Box::new(io::Cursor::new(bytes)), Some(len));
}

fn handle(request: http::Request, shared: &Shared) {
    let path = request.path.clone();
    match (request.method.as_str(), path.as_str()) {
        ("OPTIONS", _) => respond(request, 204, "text/plain", Box::new(io::empty()), Some(0)),
        ("GET", "/health") => respond_json(request, 200, json!({"status": "ok"})),
        ("GET", "/stats") => {
            let stats = serde_json::to_value(&*shared.stats.lock().unwrap()).unwrap();
            respond_json(request, 200, stats)
        }
        ("POST", "/v1/chat/completions" | "/api/chat") => {
            let body = String::from_utf8_lossy(&request.body).to_string();
            let authorization = request.header("Authorization").map(str::to_string);
            let Ok(body) = serde_json::from_str::<Value>(&body) else {
                return respond_json(request, 400, json!({"error": {"message": "body is not JSON"}}));
            };
            let ollama = path == "/api/chat";
            let seen = Seen {
                path: path.clone(),
                model: body["model"].as_str().unwrap_or_default().to_string(),
                stream: body["stream"].as_bool().unwrap_or(ollama),
                max_tokens: body["max_tokens"].as_u64().or(body["options"]["num_predict"].as_u64()),
                authorization,
                messages: body["messages"].clone(),
                arrived_us: std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_micros() as u64),
            };
            {
                let mut stats = shared.stats.lock().unwrap();
                stats.requests.push(seen.clone());
                stats.in_flight += 1;
                stats.max_in_flight = stats.max_in_flight.max(stats.in_flight);
                shared.changed.notify_all();
                if let Some(n) = shared.config.hold_until_in_flight {
                    let deadline = std::time::Instant::now() + Duration::from_secs(10);
                    while stats.max_in_flight < n && std::time::Instant::now() < deadline {
                        stats = shared.changed.wait_timeout(stats, Duration::from_millis(100)).unwrap().0;
                    }
                }
            }
            serve_completion(request, shared, &seen, ollama);
            shared.stats.lock().unwrap().in_flight -= 1;
            shared.changed.notify_all();
        }
        _ => respond_json(request, 404, json!({"error": {"message": format!("no route {path}")}})),
    }
}

fn serve_completion(request: http::Request, shared: &Shared, seen: &Seen, ollama: bool) {
    let script = shared.config.models.get(&seen.model).cloned().unwrap_or_default();
    let call = {
        let mut calls = shared.calls.lock().unwrap();
        let n = calls.entry(seen.model.clone()).or_insert(0);
        *n += 1;
        *n
    };
    let latency = script.latency_ms.unwrap_or(shared.config.latency_ms);
    thread::sleep(Duration::from_millis(latency));
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
    let fault = script.fault.filter(|_| call >= script.fault_from_call.unwrap_or(1));
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
        } else if ollama {
            json!({"model": seen.model, "message": {"role": "assistant", "content": text}, "done": true,
                   "prompt_eval_count": usage.0, "eval_count": usage.1})
            .to_string()
        } else {
            json!({"id": "test", "object": "chat.completion", "model": seen.model,
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1, "total_tokens": usage.0 + usage.1}})
            .to_string()
        };
        let len = body.len();
        return respond(request, 200, "application/json", Box::new(io::Cursor::new(body.into_bytes())), Some(len));
    }
    let mut chunks: Vec<String> = words
        .iter()
        .map(|w| {
            if ollama {
                format!("{}\n", json!({"model": seen.model, "message": {"role": "assistant", "content": w}, "done": false}))
            } else {
                format!("data: {}\n\n", json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": null}]}))
            }
        })
        .collect();
    if ollama {
        chunks.push(format!(
            "{}\n",
            json!({"model": seen.model, "message": {"role": "assistant", "content": ""}, "done": true,
                   "prompt_eval_count": usage.0, "eval_count": usage.1})
        ));
    } else {
        chunks.push(format!(
            "data: {}\n\n",
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1}})
        ));
        chunks.push("data: [DONE]\n\n".to_string());
    }
    match fault {
        Some(Fault::Garbage) => chunks.insert(chunks.len() / 2, "data: {not json at all\n\n".to_string()),
        Some(Fault::CutStream) => chunks.truncate(chunks.len() / 2),
        _ => {}
    }
    let cut = fault == Some(Fault::CutStream);
    let content_type = if ollama { "application/x-ndjson" } else { "text/event-stream" };
    let delay = Duration::from_millis(shared.config.chunk_delay_ms.unwrap_or(2));
    respond(request, 200, content_type, Box::new(Chunks { chunks, next: 0, offset: 0, cut, delay }), None);
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
