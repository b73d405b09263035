//! Model providers: turning a `ModelRequest` into a call and back.
//!
//! A model reference is `provider/model`. A provider is a wire format
//! (OpenAI-compatible, Anthropic, Gemini, Ollama, or a command-line program)
//! plus where it lives and which variables configure it; the named presets
//! (`groq/`, `openrouter/`, …) are OpenAI-compatible endpoints and differ only
//! in that. Every failure becomes a [`CallError`] with the kind the engine
//! understands; keys never appear in any message this module produces, and
//! base URLs appear only as [`base_url`] shows them (query values redacted).

mod anthropic;
pub mod base_url;
pub mod command;
pub mod gate;
mod gemini;
mod ollama;
mod openai;
pub mod retry;
pub mod sse;

use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use crate::config::Config;
use crate::engine::wit;
pub use base_url::{BaseUrl, Target};

/// How a provider's requests and replies are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Any OpenAI-compatible `/chat/completions` endpoint.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
    /// Google's Gemini `generateContent` / `streamGenerateContent`.
    Gemini,
    /// Ollama's native `/api/chat`.
    Ollama,
    /// A program run once per call (`cmd/NAME`).
    Command,
}

/// A provider as agon knows it out of the box.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    pub wire: Wire,
    pub default_url: &'static str,
    pub url_var: &'static str,
    pub key_var: Option<&'static str>,
    /// Hosted services refuse calls without a key; local servers need none.
    pub key_required: bool,
}

const fn preset(name: &'static str, wire: Wire, url: &'static str, url_var: &'static str, key: &'static str) -> Preset {
    Preset { name, wire, default_url: url, url_var, key_var: Some(key), key_required: true }
}

const fn local(name: &'static str, url: &'static str, url_var: &'static str, key: &'static str) -> Preset {
    Preset { name, wire: Wire::OpenAi, default_url: url, url_var, key_var: Some(key), key_required: false }
}

/// Every HTTP provider. The presets only set a base URL and a key variable.
pub const PRESETS: &[Preset] = &[
    preset("openai", Wire::OpenAi, "https://api.openai.com/v1", "OPENAI_BASE_URL", "OPENAI_API_KEY"),
    preset("anthropic", Wire::Anthropic, "https://api.anthropic.com", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    preset(
        "gemini",
        Wire::Gemini,
        "https://generativelanguage.googleapis.com/v1beta",
        "GEMINI_BASE_URL",
        "GEMINI_API_KEY",
    ),
    Preset {
        name: "ollama",
        wire: Wire::Ollama,
        default_url: "http://127.0.0.1:11434",
        url_var: "OLLAMA_HOST",
        key_var: None,
        key_required: false,
    },
    preset("openrouter", Wire::OpenAi, "https://openrouter.ai/api/v1", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY"),
    preset("groq", Wire::OpenAi, "https://api.groq.com/openai/v1", "GROQ_BASE_URL", "GROQ_API_KEY"),
    preset("together", Wire::OpenAi, "https://api.together.xyz/v1", "TOGETHER_BASE_URL", "TOGETHER_API_KEY"),
    preset("deepseek", Wire::OpenAi, "https://api.deepseek.com/v1", "DEEPSEEK_BASE_URL", "DEEPSEEK_API_KEY"),
    preset("moonshot", Wire::OpenAi, "https://api.moonshot.ai/v1", "MOONSHOT_BASE_URL", "MOONSHOT_API_KEY"),
    preset("xai", Wire::OpenAi, "https://api.x.ai/v1", "XAI_BASE_URL", "XAI_API_KEY"),
    local("lmstudio", "http://127.0.0.1:1234/v1", "LMSTUDIO_BASE_URL", "LMSTUDIO_API_KEY"),
    local("vllm", "http://127.0.0.1:8000/v1", "VLLM_BASE_URL", "VLLM_API_KEY"),
    local("llamacpp", "http://127.0.0.1:8080/v1", "LLAMACPP_BASE_URL", "LLAMACPP_API_KEY"),
];

/// The provider names a reference may start with.
pub fn provider_names() -> String {
    let mut names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    names.push("cmd");
    names.join(", ")
}

/// Where and how to reach one HTTP provider.
#[derive(Clone)]
pub struct Endpoint {
    pub provider: String,
    pub wire: Wire,
    /// The base URL as messages show it: no trailing slash, query values redacted.
    pub base_url: String,
    /// Where calls go, or why the configured URL cannot be used.
    base: Result<BaseUrl, String>,
    /// What sets `base_url`: an environment variable, or agon.toml.
    pub url_var: String,
    pub api_key: Option<String>,
    pub key_var: Option<String>,
    pub key_required: bool,
    /// Shared by every call to this endpoint: connections are reused.
    agent: ureq::Agent,
}

impl Endpoint {
    /// The URL of one call: `segments` after the base's path, then `query`.
    pub fn target(&self, segments: &[&str], query: &[(&str, &str)]) -> Result<Target, CallError> {
        self.base.as_ref().map(|b| b.join(segments, query)).map_err(|e| CallError::provider(e.clone()))
    }

    /// The usable base URL, or why there is none (a message that names the variable).
    pub fn base(&self) -> Result<&BaseUrl, &str> {
        self.base.as_ref().map_err(String::as_str)
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Deliberately leaves the key out.
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("wire", &self.wire)
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

/// A parsed `provider/model` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// The provider's name: a preset's, or `cmd`.
    pub provider: String,
    /// The model name as the provider knows it (for `cmd/`, the command's name).
    pub model: String,
}

impl ModelRef {
    pub fn parse(reference: &str) -> Result<ModelRef, String> {
        let reference = reference.trim();
        let Some((provider, model)) = reference.split_once('/') else {
            return Err(format!("model '{reference}' needs a provider: write provider/model, e.g. openai/{reference}"));
        };
        if model.is_empty() {
            return Err(format!("model '{reference}' has no model name after '{provider}/'"));
        }
        if provider != "cmd" && !PRESETS.iter().any(|p| p.name == provider) {
            return Err(format!("unknown provider '{provider}' in '{reference}' (known: {})", provider_names()));
        }
        Ok(ModelRef { provider: provider.to_string(), model: model.to_string() })
    }

    /// A seat's model: one reference, or a fallback chain `a/x|b/y` tried in order.
    pub fn parse_chain(chain: &str) -> Result<Vec<ModelRef>, String> {
        chain.split('|').map(ModelRef::parse).collect()
    }

    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

/// Every endpoint and command model this run can call.
#[derive(Debug, Clone)]
pub struct Environment {
    pub endpoints: BTreeMap<String, Endpoint>,
    pub commands: BTreeMap<String, command::CommandModel>,
    pub retry: retry::RetryPolicy,
    /// Limits shared with other debates (`agon batch`); none for a single run.
    pub gate: Option<std::sync::Arc<gate::CallGate>>,
}

impl Environment {
    /// From the environment variables only.
    pub fn from_env() -> Environment {
        Environment::new(&Config::default())
    }

    /// From the environment variables, with agon.toml's `[providers]` and `[commands]`.
    pub fn new(config: &Config) -> Environment {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut endpoints = BTreeMap::new();
        for p in PRESETS {
            let settings = config.providers.get(p.name);
            let (mut raw_url, url_var) = match settings.and_then(|s| s.base_url.clone()) {
                Some(url) => (url, format!("[providers.{}] base_url in agon.toml", p.name)),
                None => (var(p.url_var).unwrap_or_else(|| p.default_url.to_string()), p.url_var.to_string()),
            };
            if p.wire == Wire::Ollama && !raw_url.contains("://") {
                raw_url = format!("http://{raw_url}"); // OLLAMA_HOST is often host:port
            }
            let key_var = settings.and_then(|s| s.key_env.clone()).or(p.key_var.map(str::to_string));
            let api_key = key_var.as_deref().and_then(var);
            // A key is required by the hosted service at its own address; an
            // OpenAI-compatible URL elsewhere (a local server) may need none.
            let key_required = p.key_required && (raw_url.trim_end_matches('/') == p.default_url || p.name != "openai");
            let base = BaseUrl::parse(&raw_url, &url_var, key_var.as_deref());
            let base_url = match &base {
                Ok(b) => b.shown(),
                Err(_) => format!("(the URL in {url_var}, unusable)"),
            };
            endpoints.insert(
                p.name.to_string(),
                Endpoint {
                    provider: p.name.to_string(),
                    wire: p.wire,
                    base_url,
                    base,
                    url_var,
                    api_key,
                    key_var,
                    key_required,
                    agent: agent.clone(),
                },
            );
        }
        let mut commands = command::builtin();
        for (name, c) in &config.commands {
            commands.insert(name.clone(), command::CommandModel::from_settings(name, c));
        }
        Environment { endpoints, commands, retry: retry::RetryPolicy::default(), gate: None }
    }

    pub fn endpoint(&self, provider: &str) -> Option<&Endpoint> {
        self.endpoints.get(provider)
    }

    /// Every secret a message could leak, for redaction: keys, and the
    /// values of base URLs' queries (a server may echo them).
    pub fn secrets(&self) -> Vec<String> {
        let keys = self.endpoints.values().filter_map(|e| e.api_key.clone()).filter(|k| k.len() >= 4);
        let in_urls = self.endpoints.values().filter_map(|e| e.base.as_ref().ok()).flat_map(BaseUrl::secrets);
        keys.chain(in_urls).collect()
    }
}

/// Why a call failed, in the engine's terms, and whether trying again may help.
#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    pub kind: wit::FailureKind,
    pub message: String,
    pub retry: Retry,
}

/// Whether a failed call is worth another attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    No,
    /// Yes; after the server's Retry-After, if it sent one.
    Yes {
        after: Option<Duration>,
    },
}

impl CallError {
    pub fn provider(message: impl Into<String>) -> Self {
        CallError { kind: wit::FailureKind::ProviderError, message: message.into(), retry: Retry::No }
    }

    /// The connection failed: refused, reset, or dropped before the reply was complete.
    fn transport(message: impl Into<String>) -> Self {
        CallError { kind: wit::FailureKind::Transport, message: message.into(), retry: Retry::No }
    }

    fn retryable(mut self, after: Option<Duration>) -> Self {
        self.retry = Retry::Yes { after };
        self
    }
}

/// A finished call.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub usage: Option<wit::Usage>,
}

/// How to perform calls.
#[derive(Debug, Clone, Copy)]
pub struct CallOptions {
    pub timeout: Duration,
    pub stream: bool,
    /// The largest reply accepted, in bytes of text: a larger one fails the
    /// call (provider-error) instead of filling memory and the journal.
    pub max_reply: usize,
}

/// `--max-reply`'s default: far above any real reply, far below trouble.
pub const DEFAULT_MAX_REPLY: usize = 4 << 20;

impl CallOptions {
    pub fn new(timeout: Duration, stream: bool) -> CallOptions {
        CallOptions { timeout, stream, max_reply: DEFAULT_MAX_REPLY }
    }
}

/// Perform one request with one model, once; `on_text` sees streamed text as it arrives.
pub fn complete(
    env: &Environment,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    if model.provider == "cmd" {
        let Some(cmd) = env.commands.get(&model.model) else {
            return Err(CallError::provider(format!(
                "no command model '{}': define [commands.{}] in agon.toml (built in: {})",
                model.model,
                model.model,
                env.commands.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        };
        return command::complete(cmd, request, options, on_text);
    }
    let Some(endpoint) = env.endpoint(&model.provider) else {
        return Err(CallError::provider(format!("unknown provider '{}'", model.provider)));
    };
    let result = match endpoint.wire {
        Wire::OpenAi => openai::complete(endpoint, model, request, options, on_text),
        Wire::Anthropic => anthropic::complete(endpoint, model, request, options, on_text),
        Wire::Gemini => gemini::complete(endpoint, model, request, options, on_text),
        Wire::Ollama => ollama::complete(endpoint, model, request, options, on_text),
        Wire::Command => unreachable!("command models have no endpoint"),
    };
    result.map_err(|e| CallError { message: redact(&e.message, &env.secrets()), ..e })
}

/// A POST with the call's timeout, JSON body and headers; the response or a
/// failure that names the URL (as shown).
fn post(
    endpoint: &Endpoint,
    target: &Target,
    headers: &[(&str, String)],
    body: &serde_json::Value,
    options: CallOptions,
) -> Result<ureq::http::Response<ureq::Body>, CallError> {
    let url = target.shown.as_str();
    let mut call = endpoint.agent.post(target.url.as_str()).config().timeout_global(Some(options.timeout)).build();
    call = call.header("Content-Type", "application/json");
    for (name, value) in headers {
        call = call.header(*name, value);
    }
    let response = call.send_json(body).map_err(|e| transport_error(e, url, endpoint, options.timeout))?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(response);
    }
    let retry_after =
        response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(retry::parse_retry_after);
    let mut body = response.into_body();
    Err(status_error(status, &mut body.as_reader(), url, endpoint, retry_after))
}

/// The request's messages in the `{"role", "content"}` shape OpenAI and Ollama share.
fn chat_messages(request: &wit::ModelRequest) -> Vec<serde_json::Value> {
    request.messages.iter().map(|m| serde_json::json!({"role": role(m.role), "content": m.content})).collect()
}

fn role(role: wit::Role) -> &'static str {
    match role {
        wit::Role::System => "system",
        wit::Role::User => "user",
        wit::Role::Assistant => "assistant",
    }
}

/// Map a transport error to a failure that names the URL and what to set.
/// A connection that failed before any reply came (refused, reset, closed)
/// is a `transport` failure, tried again: the request cannot have been answered.
fn transport_error(e: ureq::Error, url: &str, endpoint: &Endpoint, timeout: Duration) -> CallError {
    use std::io::ErrorKind as K;
    let unreachable = |why: &str| {
        CallError::transport(format!(
            "cannot reach {url}{why}: is the endpoint running? Set {} to one that is",
            endpoint.url_var
        ))
        .retryable(None)
    };
    match e {
        ureq::Error::Timeout(_) => timed_out(url, timeout),
        ureq::Error::Io(io) if io.kind() == K::TimedOut => timed_out(url, timeout),
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => unreachable(""),
        ureq::Error::Io(io) if io.kind() == K::ConnectionRefused => unreachable(" (connection refused)"),
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof | K::NotConnected
            ) =>
        {
            CallError::transport(format!("the connection to {url} was closed before any reply: {io}")).retryable(None)
        }
        other => CallError::provider(format!("request to {url} failed: {other}")),
    }
}

fn timed_out(url: &str, timeout: Duration) -> CallError {
    CallError {
        kind: wit::FailureKind::Timeout,
        message: format!("no complete answer from {url} within {} s", timeout.as_secs()),
        retry: Retry::No,
    }
}

/// Map a non-success HTTP status to a failure; 408, 429 and 5xx may be tried again.
fn status_error(
    status: u16,
    body: &mut dyn Read,
    url: &str,
    endpoint: &Endpoint,
    retry_after: Option<Duration>,
) -> CallError {
    let mut text = String::new();
    let _ = body.take(2048).read_to_string(&mut text);
    let detail = one_line(&text, 300);
    let kind = match status {
        429 => wit::FailureKind::RateLimited,
        _ => wit::FailureKind::ProviderError,
    };
    let hint = match (status, &endpoint.key_var) {
        (401 | 403, Some(var)) => format!(" (check {var})"),
        (404, _) => format!(" (is {} right, and does it serve this model?)", endpoint.url_var),
        _ => String::new(),
    };
    let error = CallError { kind, message: format!("HTTP {status} from {url}{hint}: {detail}"), retry: Retry::No };
    match status {
        408 | 429 | 500..=599 => error.retryable(retry_after),
        _ => error,
    }
}

/// A body that broke off while being read (the connection dropped, or ureq gave up).
fn read_error(e: std::io::Error, url: &str, endpoint: &Endpoint, options: CallOptions) -> CallError {
    if e.kind() == std::io::ErrorKind::FileTooLarge {
        return too_large(url, options);
    }
    match e.into_inner().map(|inner| inner.downcast::<ureq::Error>()) {
        Some(Ok(ureq_error)) => match transport_error(*ureq_error, url, endpoint, options.timeout) {
            // Once the reply has begun, the connection did not fail "before any reply".
            e if e.kind == wit::FailureKind::Transport => {
                CallError::transport(format!("the reply from {url} broke off: {}", e.message)).retryable(None)
            }
            e => e,
        },
        Some(Err(other)) => CallError::transport(format!("the reply from {url} broke off: {other}")).retryable(None),
        None => CallError::transport(format!("the reply from {url} broke off")).retryable(None),
    }
}

/// A reply larger than `--max-reply`: a failure, never a silent cut.
fn too_large(url: &str, options: CallOptions) -> CallError {
    CallError::provider(format!(
        "the reply from {url} is larger than the limit of {} (--max-reply, or max_reply in agon.toml); none of it was kept",
        size_name(options.max_reply)
    ))
}

/// Bytes as people say them: `4 MiB`, `512 KiB`, `900 bytes`.
pub fn size_name(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Add streamed text to a reply, failing once it passes the limit.
fn grow(text: &mut String, piece: &str, url: &str, options: CallOptions) -> Result<(), CallError> {
    if text.len() + piece.len() > options.max_reply {
        return Err(too_large(url, options));
    }
    text.push_str(piece);
    Ok(())
}

/// A whole (not streamed) body: at most twice the reply limit plus room for
/// the JSON around it; more is a too-large failure, not a read into memory.
fn read_body(reader: impl Read, url: &str, endpoint: &Endpoint, options: CallOptions) -> Result<String, CallError> {
    let limit = options.max_reply.saturating_mul(2).saturating_add(64 << 10);
    let mut text = String::new();
    reader.take(limit as u64 + 1).read_to_string(&mut text).map_err(|e| read_error(e, url, endpoint, options))?;
    if text.len() > limit {
        return Err(too_large(url, options));
    }
    Ok(text)
}

/// The longest line a stream may send (SSE or NDJSON): a whole reply and its JSON.
fn max_line(options: CallOptions) -> usize {
    options.max_reply.saturating_mul(2).saturating_add(64 << 10)
}

fn malformed(url: &str, what: &str, e: impl std::fmt::Display, raw: &str) -> CallError {
    CallError::provider(format!("malformed {what} from {url}: {e}: {}", one_line(raw, 120)))
}

fn incomplete(url: &str) -> CallError {
    CallError::provider(format!("the stream from {url} ended before the reply was complete")).retryable(None)
}

fn refused(url: &str, why: &str) -> CallError {
    CallError { kind: wit::FailureKind::Refused, message: format!("{url} refused to answer ({why})"), retry: Retry::No }
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// Remove every key from any text that might echo one.
pub fn redact(message: &str, secrets: &[String]) -> String {
    secrets.iter().fold(message.to_string(), |m, key| m.replace(key.as_str(), "[redacted]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references_and_chains() {
        assert_eq!(
            ModelRef::parse("openai/gpt-4o").unwrap(),
            ModelRef { provider: "openai".into(), model: "gpt-4o".into() }
        );
        assert_eq!(ModelRef::parse("ollama/llama3.2:3b").unwrap().model, "llama3.2:3b");
        assert_eq!(ModelRef::parse("openrouter/google/gemini-2.5-pro").unwrap().model, "google/gemini-2.5-pro");
        assert_eq!(ModelRef::parse("cmd/codex").unwrap().provider, "cmd");
        assert!(ModelRef::parse("gpt-4o").unwrap_err().contains("provider/model"));
        let err = ModelRef::parse("acme/x").unwrap_err();
        assert!(err.contains("unknown provider 'acme'") && err.contains("groq"), "{err}");
        assert!(ModelRef::parse("openai/").is_err());
        let chain = ModelRef::parse_chain("gemini/x | openrouter/y").unwrap();
        assert_eq!(chain.iter().map(ModelRef::reference).collect::<Vec<_>>(), ["gemini/x", "openrouter/y"]);
        assert!(ModelRef::parse_chain("gemini/x|nope").is_err());
    }

    #[test]
    fn every_preset_has_its_own_variables() {
        let mut url_vars: Vec<&str> = PRESETS.iter().map(|p| p.url_var).collect();
        url_vars.sort_unstable();
        url_vars.dedup();
        assert_eq!(url_vars.len(), PRESETS.len());
        for p in PRESETS {
            assert!(p.default_url.starts_with("http"), "{}", p.name);
            assert!(!p.default_url.ends_with('/'), "{}", p.name);
        }
    }

    #[test]
    fn agon_toml_overrides_url_and_key_variable() {
        let config = Config::parse(
            "[providers.groq]\nbase_url = \"http://127.0.0.1:9/v1/\"\nkey_env = \"AGON_TEST_UNSET_KEY_VAR\"\n",
            std::path::Path::new("agon.toml"),
        )
        .unwrap();
        let env = Environment::new(&config);
        let groq = env.endpoint("groq").unwrap();
        assert_eq!(groq.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(groq.key_var.as_deref(), Some("AGON_TEST_UNSET_KEY_VAR"));
        assert!(groq.url_var.contains("agon.toml"));
        assert_eq!(groq.api_key, None);
    }

    #[test]
    fn redacts_every_key() {
        let secrets = vec!["sk-secret-123".to_string(), "gm-key-456".to_string()];
        assert_eq!(redact("bad key sk-secret-123 and gm-key-456", &secrets), "bad key [redacted] and [redacted]");
    }

    #[test]
    fn statuses_that_may_pass_are_retried() {
        let env = Environment::from_env();
        let e = env.endpoint("openai").unwrap();
        let err = |status| status_error(status, &mut "{}".as_bytes(), "http://x", e, Some(Duration::from_secs(2)));
        assert_eq!(err(429).retry, Retry::Yes { after: Some(Duration::from_secs(2)) });
        assert_eq!(err(429).kind, wit::FailureKind::RateLimited);
        assert!(matches!(err(503).retry, Retry::Yes { .. }));
        assert!(matches!(err(408).retry, Retry::Yes { .. }));
        assert_eq!(err(400).retry, Retry::No);
        assert_eq!(err(401).retry, Retry::No);
        assert!(err(401).message.contains("check OPENAI_API_KEY"));
    }
}
