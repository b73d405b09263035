//! Anthropic's Messages API: `POST {base}/v1/messages`, streamed as SSE.
//!
//! The system prompt is a top-level field, not a message; the conversation
//! must alternate user and assistant and start with the user, so adjacent
//! messages of one role are joined.

use serde_json::{Value, json};

use super::sse::{SseEvent, SseEvents, event_json};
use super::{CallError, CallOptions, Completion, Endpoint, ModelRef};
use crate::engine::wit;

const VERSION: &str = "2023-06-01";

/// The request body (without `stream`).
fn body(model: &ModelRef, request: &wit::ModelRequest) -> Value {
    let system: Vec<&str> =
        request.messages.iter().filter(|m| m.role == wit::Role::System).map(|m| m.content.as_str()).collect();
    let mut messages: Vec<(&str, String)> = Vec::new();
    for m in request.messages.iter().filter(|m| m.role != wit::Role::System) {
        let role = if m.role == wit::Role::Assistant { "assistant" } else { "user" };
        match messages.last_mut() {
            Some((last, text)) if *last == role => {
                text.push_str("\n\n");
                text.push_str(&m.content);
            }
            _ => messages.push((role, m.content.clone())),
        }
    }
    if messages.first().is_none_or(|(role, _)| *role != "user") {
        messages.insert(0, ("user", "Go on.".to_string()));
    }
    let mut body = json!({
        "model": model.model,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature.min(1.0), // Anthropic's range is 0 to 1
        "messages": messages.iter().map(|(role, content)| json!({"role": role, "content": content})).collect::<Vec<_>>(),
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    body
}

pub(super) fn complete(
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let target = endpoint.target(&["v1", "messages"], &[])?;
    let url = target.shown.as_str();
    let mut body = body(model, request);
    body["stream"] = json!(options.stream);
    let mut headers = vec![("anthropic-version", VERSION.to_string())];
    if let Some(key) = &endpoint.api_key {
        headers.push(("x-api-key", key.clone()));
    }
    let response = super::post(endpoint, &target, &headers, &body, options)?;
    let mut body = response.into_body();
    let reader = body.as_reader();
    if options.stream {
        return read_stream(reader, url, endpoint, options, on_text);
    }
    let text = super::read_body(reader, url, endpoint, options)?;
    let reply: Value = serde_json::from_str(&text).map_err(|e| super::malformed(url, "JSON", e, &text))?;
    if reply["type"] == "error" {
        return Err(CallError::provider(format!("{url} answered with an error: {}", reply["error"])));
    }
    if reply["stop_reason"] == "refusal" {
        return Err(super::refused(url, "refusal"));
    }
    let Some(blocks) = reply["content"].as_array() else {
        return Err(CallError::provider(format!("{url} sent no content blocks")));
    };
    let content: String = blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
    if content.len() > options.max_reply {
        return Err(super::too_large(url, options));
    }
    on_text(&content);
    let usage = match (reply["usage"]["input_tokens"].as_u64(), reply["usage"]["output_tokens"].as_u64()) {
        (Some(p), Some(c)) => Some(wit::Usage { prompt_tokens: p as u32, completion_tokens: c as u32 }),
        _ => None,
    };
    Ok(Completion { text: content, usage })
}

fn read_stream(
    reader: impl std::io::Read,
    url: &str,
    endpoint: &Endpoint,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let (mut text, mut prompt, mut completion, mut finished) = (String::new(), None, None, false);
    let mut events = SseEvents::new(reader, super::max_line(options));
    while let Some(event) = events.next() {
        let SseEvent::Message { data, .. } = event.map_err(|e| super::read_error(e, url, endpoint, options))? else {
            continue; // `[DONE]` is OpenAI's; here `message_stop` ends the reply
        };
        let data = event_json(&data, url, events.ended())?;
        match data["type"].as_str().unwrap_or_default() {
            "message_start" => prompt = data["message"]["usage"]["input_tokens"].as_u64(),
            "content_block_delta" => {
                if let Some(piece) = data["delta"]["text"].as_str() {
                    super::grow(&mut text, piece, url, options)?;
                    on_text(piece);
                }
            }
            "message_delta" => {
                if let Some(c) = data["usage"]["output_tokens"].as_u64() {
                    completion = Some(c);
                }
                if data["delta"]["stop_reason"] == "refusal" {
                    return Err(super::refused(url, "refusal"));
                }
            }
            "message_stop" => {
                finished = true;
                break;
            }
            "error" => {
                let error = CallError::provider(format!("{url} reported an error mid-stream: {}", data["error"]));
                // Overloaded mid-stream is worth another try if nothing was shown yet.
                return Err(if data["error"]["type"] == "overloaded_error" { error.retryable(None) } else { error });
            }
            _ => {} // ping, content_block_start/stop
        }
    }
    if !finished {
        return Err(super::incomplete(url));
    }
    let usage = match (prompt, completion) {
        (Some(p), Some(c)) => Some(wit::Usage { prompt_tokens: p as u32, completion_tokens: c as u32 }),
        _ => None,
    };
    Ok(Completion { text, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: wit::Role, content: &str) -> wit::Message {
        wit::Message { role, content: content.into() }
    }

    fn request(messages: Vec<wit::Message>) -> wit::ModelRequest {
        wit::ModelRequest {
            id: 0,
            seat: "a".into(),
            model: "anthropic/claude".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages,
            max_tokens: 100,
            temperature: 1.5,
            expect: None,
        }
    }

    #[test]
    fn system_goes_on_top_and_roles_alternate() {
        let model = ModelRef { provider: "anthropic".into(), model: "claude-x".into() };
        let body = body(
            &model,
            &request(vec![
                msg(wit::Role::System, "Be brief."),
                msg(wit::Role::User, "Q1"),
                msg(wit::Role::User, "Q2"),
                msg(wit::Role::Assistant, "A"),
            ]),
        );
        assert_eq!(body["system"], "Be brief.");
        assert_eq!(
            body["messages"],
            json!([{"role": "user", "content": "Q1\n\nQ2"}, {"role": "assistant", "content": "A"}])
        );
        assert_eq!(body["temperature"], 1.0);
        assert_eq!(body["max_tokens"], 100);
    }

    #[test]
    fn reads_a_stream_with_usage() {
        let stream = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let env = super::super::Environment::from_env();
        let endpoint = env.endpoint("anthropic").unwrap();
        let options = CallOptions::new(std::time::Duration::from_secs(1), true);
        let mut seen = String::new();
        let done = read_stream(stream.as_bytes(), "u", endpoint, options, &mut |p| seen.push_str(p)).unwrap();
        assert_eq!((done.text.as_str(), seen.as_str()), ("Hello", "Hello"));
        assert_eq!(done.usage, Some(wit::Usage { prompt_tokens: 12, completion_tokens: 5 }));
        let cut = &stream[..stream.find("event: message_stop").unwrap()];
        assert!(
            read_stream(cut.as_bytes(), "u", endpoint, options, &mut |_| {})
                .unwrap_err()
                .message
                .contains("ended before")
        );
    }
}
