//! OpenAI-compatible chat completions, minus the network: the request body,
//! the meaning of each streamed chunk, and which failure an HTTP status is.

use agon_core::{FailureKind, ModelRequest, Role, Usage};
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

/// What one streamed chunk says.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Chunk {
    pub text: Option<String>,
    pub usage: Option<Usage>,
    pub finished: bool,
}

/// Read one `data:` payload of the stream; `[DONE]` finishes it.
pub fn chunk(data: &str, url: &str) -> Result<Chunk, CallError> {
    if data.trim() == "[DONE]" {
        return Ok(Chunk { finished: true, ..Chunk::default() });
    }
    let value: Value = serde_json::from_str(data).map_err(|e| {
        let start: String = data.chars().take(80).collect();
        CallError::provider(format!("malformed stream event from {url}: {e}: {start}"))
    })?;
    if let Some(error) = value.get("error") {
        return Err(CallError::provider(format!("{url} reported an error mid-stream: {error}")));
    }
    let choice = &value["choices"][0];
    if choice["finish_reason"] == "content_filter" {
        return Err(CallError {
            kind: FailureKind::Refused,
            message: format!("{url} refused to answer (content filter)"),
        });
    }
    let usage = &value["usage"];
    Ok(Chunk {
        text: choice["delta"]["content"].as_str().map(String::from),
        usage: usage["prompt_tokens"]
            .as_u64()
            .zip(usage["completion_tokens"].as_u64())
            .map(|(p, c)| Usage { prompt_tokens: p as u32, completion_tokens: c as u32 }),
        finished: choice["finish_reason"].is_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_carry_text_usage_and_the_end() {
        let u = "http://x/v1/chat/completions";
        let piece = chunk(r#"{"choices":[{"delta":{"content":"Hi"}}]}"#, u).unwrap();
        assert_eq!(piece.text.as_deref(), Some("Hi"));
        assert!(!piece.finished);
        let last = chunk(r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#, u).unwrap();
        assert_eq!(last.usage.unwrap().completion_tokens, 4);
        assert!(chunk("[DONE]", u).unwrap().finished);
        assert!(chunk("{not json", u).is_err());
        let refused = chunk(r#"{"choices":[{"finish_reason":"content_filter"}]}"#, u);
        assert_eq!(refused.unwrap_err().kind, FailureKind::Refused);
    }

    #[test]
    fn statuses_map_to_failures() {
        assert_eq!(status_error(429, "u", "").kind, FailureKind::RateLimited);
        let e = status_error(500, "u", "{\"error\":\n \"boom\"}");
        assert_eq!(e.message, "HTTP 500 from u: {\"error\": \"boom\"}");
        assert_eq!(url(" http://h/v1/ "), "http://h/v1/chat/completions");
    }
}
