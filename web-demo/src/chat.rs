//! OpenAI-compatible chat completions, minus the network: the request body,
//! and which failure an HTTP status is. What each streamed chunk means is
//! agon-stream's, shared with the CLI.

use agon_core::{FailureKind, ModelRequest, Role};
use serde_json::{Value, json};

/// Why a call produced no reply; becomes an `Input::Failed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub kind: FailureKind,
    pub message: String,
}

impl CallError {
    pub fn provider(message: impl Into<String>) -> Self {
        CallError { kind: FailureKind::ProviderError, message: message.into() }
    }
}

/// `{base}/chat/completions`, whatever trailing slashes the person typed.
pub fn url(base: &str) -> String {
    format!("{}/chat/completions", base.trim().trim_end_matches('/'))
}

/// The JSON body for one request, streamed.
pub fn body(request: &ModelRequest) -> Value {
    let messages: Vec<Value> = request
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({"role": role, "content": m.content})
        })
        .collect();
    json!({
        "model": request.model,
        "messages": messages,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "stream": true,
        "stream_options": {"include_usage": true},
    })
}

/// A non-2xx answer, with the start of its body for the person to read.
pub fn status_error(status: u16, url: &str, body: &str) -> CallError {
    let kind = if status == 429 { FailureKind::RateLimited } else { FailureKind::ProviderError };
    let body: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let body: String = body.chars().take(200).collect();
    CallError { kind, message: format!("HTTP {status} from {url}: {body}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_failures() {
        assert_eq!(status_error(429, "u", "").kind, FailureKind::RateLimited);
        let e = status_error(500, "u", "{\"error\":\n \"boom\"}");
        assert_eq!(e.message, "HTTP 500 from u: {\"error\": \"boom\"}");
        assert_eq!(url(" http://h/v1/ "), "http://h/v1/chat/completions");
    }
}
