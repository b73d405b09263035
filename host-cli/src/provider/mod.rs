//! Model providers: turning a `ModelRequest` into an HTTP call and back.
//!
//! A model reference is `provider/model`. Every failure becomes a
//! [`CallError`] with the kind the engine understands; keys never appear in
//! any message this module produces.

mod ollama;
mod openai;
pub mod sse;

use std::io::Read;
use std::time::Duration;

use crate::engine::wit;

/// Where and how to reach one provider.
#[derive(Clone)]
pub struct Endpoint {
    pub kind: ProviderKind,
    /// Base URL, without a trailing slash.
    pub base_url: String,
    /// The environment variable that sets `base_url`.
    pub url_var: &'static str,
    pub api_key: Option<String>,
    pub key_var: Option<&'static str>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Deliberately leaves the key out.
        f.debug_struct("Endpoint").field("kind", &self.kind).field("base_url", &self.base_url).finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// Any OpenAI-compatible `/chat/completions` endpoint.
    OpenAi,
    /// Ollama's native `/api/chat`.
    Ollama,
}

/// A parsed `provider/model` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    pub kind: ProviderKind,
    /// The model name as the provider knows it.
    pub model: String,
}

pub const PROVIDERS: &str = "openai, ollama";

impl ModelRef {
    pub fn parse(reference: &str) -> Result<ModelRef, String> {
        let Some((provider, model)) = reference.split_once('/') else {
            return Err(format!("model '{reference}' needs a provider: write provider/model, e.g. openai/{reference}"));
        };
        if model.is_empty() {
            return Err(format!("model '{reference}' has no model name after '{provider}/'"));
        }
        let kind = match provider {
            "openai" => ProviderKind::OpenAi,
            "ollama" => ProviderKind::Ollama,
            other => {
                return Err(format!("unknown provider '{other}' in '{reference}' (known: {PROVIDERS})"));
            }
        };
        Ok(ModelRef { kind, model: model.to_string() })
    }
}

/// The endpoints the environment configures.
#[derive(Debug, Clone)]
pub struct Environment {
    pub openai: Endpoint,
    pub ollama: Endpoint,
}

impl Environment {
    pub fn from_env() -> Environment {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let openai_base = var("OPENAI_BASE_URL").unwrap_or_else(|| "https://api.openai.com/v1".into());
        let mut ollama_host = var("OLLAMA_HOST").unwrap_or_else(|| "http://127.0.0.1:11434".into());
        if !ollama_host.contains("://") {
            ollama_host = format!("http://{ollama_host}");
        }
        Environment {
            openai: Endpoint {
                kind: ProviderKind::OpenAi,
                base_url: openai_base.trim_end_matches('/').to_string(),
                url_var: "OPENAI_BASE_URL",
                api_key: var("OPENAI_API_KEY"),
                key_var: Some("OPENAI_API_KEY"),
            },
            ollama: Endpoint {
                kind: ProviderKind::Ollama,
                base_url: ollama_host.trim_end_matches('/').to_string(),
                url_var: "OLLAMA_HOST",
                api_key: None,
                key_var: None,
            },
        }
    }

    pub fn endpoint(&self, kind: ProviderKind) -> &Endpoint {
        match kind {
            ProviderKind::OpenAi => &self.openai,
            ProviderKind::Ollama => &self.ollama,
        }
    }

    /// Every secret a message could leak, for redaction.
    pub fn secrets(&self) -> Vec<String> {
        [&self.openai, &self.ollama].iter().filter_map(|e| e.api_key.clone()).filter(|k| k.len() >= 4).collect()
    }
}

/// Why a call failed, in the engine's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    pub kind: wit::FailureKind,
    pub message: String,
}

impl CallError {
    pub fn provider(message: impl Into<String>) -> Self {
        CallError { kind: wit::FailureKind::ProviderError, message: message.into() }
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
}

/// Perform one request against its endpoint; `on_text` sees streamed text as it arrives.
pub fn complete(
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let agent: ureq::Agent =
        ureq::Agent::config_builder().timeout_global(Some(options.timeout)).http_status_as_error(false).build().into();
    let result = match endpoint.kind {
        ProviderKind::OpenAi => openai::complete(&agent, endpoint, model, request, options, on_text),
        ProviderKind::Ollama => ollama::complete(&agent, endpoint, model, request, options, on_text),
    };
    result.map_err(|e| CallError { kind: e.kind, message: redact(&e.message, endpoint) })
}

/// The request's messages in the `{"role", "content"}` shape both wire formats share.
fn chat_messages(request: &wit::ModelRequest) -> Vec<serde_json::Value> {
    request.messages.iter().map(|m| serde_json::json!({"role": openai::role(m.role), "content": m.content})).collect()
}

/// Map a transport error to a failure that names the URL and what to set.
fn transport_error(e: ureq::Error, url: &str, endpoint: &Endpoint, timeout: Duration) -> CallError {
    match e {
        ureq::Error::Timeout(_) => CallError {
            kind: wit::FailureKind::Timeout,
            message: format!("no complete answer from {url} within {} s", timeout.as_secs()),
        },
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => CallError {
            kind: wit::FailureKind::Timeout,
            message: format!("no complete answer from {url} within {} s", timeout.as_secs()),
        },
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => CallError::provider(format!(
            "cannot reach {url}: is the endpoint running? Set {} to one that is",
            endpoint.url_var
        )),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => CallError::provider(format!(
            "cannot reach {url} (connection refused): is the endpoint running? Set {} to one that is",
            endpoint.url_var
        )),
        other => CallError::provider(format!("request to {url} failed: {other}")),
    }
}

/// Map a non-success HTTP status to a failure.
fn status_error(status: u16, body: &mut dyn Read, url: &str, endpoint: &Endpoint) -> CallError {
    let mut text = String::new();
    let _ = body.take(2048).read_to_string(&mut text);
    let detail = one_line(&text, 300);
    let kind = match status {
        429 => wit::FailureKind::RateLimited,
        _ => wit::FailureKind::ProviderError,
    };
    let hint = match (status, endpoint.key_var) {
        (401 | 403, Some(var)) => format!(" (check {var})"),
        (404, _) => format!(" (is {} right, and does it serve this model?)", endpoint.url_var),
        _ => String::new(),
    };
    CallError { kind, message: format!("HTTP {status} from {url}{hint}: {detail}") }
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// Remove a key from any text that might echo it.
fn redact(message: &str, endpoint: &Endpoint) -> String {
    match &endpoint.api_key {
        Some(key) if key.len() >= 4 => message.replace(key.as_str(), "[redacted]"),
        _ => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references() {
        assert_eq!(
            ModelRef::parse("openai/gpt-4o").unwrap(),
            ModelRef { kind: ProviderKind::OpenAi, model: "gpt-4o".into() }
        );
        assert_eq!(ModelRef::parse("ollama/llama3.2:3b").unwrap().model, "llama3.2:3b");
        assert!(ModelRef::parse("gpt-4o").unwrap_err().contains("provider/model"));
        assert!(ModelRef::parse("acme/x").unwrap_err().contains("unknown provider 'acme'"));
        assert!(ModelRef::parse("openai/").is_err());
    }

    #[test]
    fn redacts_keys() {
        let e = Endpoint {
            kind: ProviderKind::OpenAi,
            base_url: "http://x".into(),
            url_var: "OPENAI_BASE_URL",
            api_key: Some("sk-secret-123".into()),
            key_var: Some("OPENAI_API_KEY"),
        };
        assert_eq!(redact("bad key sk-secret-123 given", &e), "bad key [redacted] given");
        assert!(!format!("{e:?}").contains("sk-secret"));
    }
}
