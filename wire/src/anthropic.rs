//! Anthropic's Messages API: `POST {base}/v1/messages`, streamed as SSE.
//!
//! The system prompt is a top-level field; the conversation must alternate
//! user and assistant and start with the user, so adjacent messages of one
//! role are joined. Extended thinking comes in `thinking` blocks
//! (`thinking_delta`, `signature_delta` when streamed): never answer text.

use agon_core::{ModelRequest, Role, StopReason};
use serde_json::{Value, json};

use crate::failure::WireError;
use crate::reply::{Progress, Stop, count};
use crate::request::{Call, HttpRequest, Shape, http, system_text};

/// The API version every request names.
pub(crate) const VERSION: &str = "2023-06-01";

/// Anthropic's smallest thinking budget.
const MIN_THINKING: u32 = 1_024;

pub(crate) fn request(call: &Call<'_>, request: &ModelRequest, shape: &Shape) -> HttpRequest {
    let mut messages: Vec<(&str, String)> = Vec::new();
    for m in request.messages.iter().filter(|m| m.role != Role::System) {
        let role = if m.role == Role::Assistant { "assistant" } else { "user" };
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
    // Thinking only when the seat asked for it (it is off by default here):
    // a budget of at least 1,024, below `max_tokens`, which must hold it and the reply.
    let thinking = shape.budget.filter(|_| shape.asked && shape.reasons()).map(|b| b.max(MIN_THINKING));
    let max_tokens = match thinking {
        Some(budget) => {
            let most = shape.traits.and_then(|t| t.max_output).unwrap_or(u32::MAX);
            shape.reply.saturating_add(budget).min(most)
        }
        None => shape.reply.min(shape.traits.and_then(|t| t.max_output).unwrap_or(u32::MAX)),
    };
    let mut body = json!({
        "model": call.model,
        "max_tokens": max_tokens,
        "messages": messages.iter().map(|(role, content)| json!({"role": role, "content": content})).collect::<Vec<_>>(),
        "stream": call.stream,
    });
    if let Some(system) = system_text(request) {
        body["system"] = json!(system);
    }
    match thinking {
        // Thinking takes no temperature but the default.
        Some(budget) => body["thinking"] = json!({"type": "enabled", "budget_tokens": budget.min(max_tokens - 1)}),
        // Newer models refuse a temperature: sent only to one known to take it.
        None if shape.temperature(false) => body["temperature"] = json!(request.temperature.min(1.0)),
        None => {}
    }
    let mut http = http(&["v1", "messages"], &[], body, shape);
    http.output_limit = max_tokens;
    http.headers.push(("anthropic-version".to_string(), VERSION.to_string()));
    http
}

/// One streamed event.
pub(crate) fn event(p: &mut Progress, event: &Value, url: &str) -> Result<(), WireError> {
    match event["type"].as_str().unwrap_or_default() {
        "message_start" => merge_usage(p, &event["message"]["usage"]),
        "content_block_start" => {
            if event["content_block"]["type"] == "text"
                && let Some(text) = event["content_block"]["text"].as_str()
            {
                p.push(text);
            }
        }
        "content_block_delta" => {
            // `thinking_delta` and `signature_delta` are thinking: never answer text.
            if event["delta"]["type"] == "text_delta"
                && let Some(piece) = event["delta"]["text"].as_str()
            {
                p.push(piece);
            }
        }
        "message_delta" => {
            merge_usage(p, &event["usage"]);
            if let Some(reason) = event["delta"]["stop_reason"].as_str() {
                p.stop(stop(reason), url)?;
            }
        }
        "message_stop" => p.finished = true,
        "error" => return Err(WireError::reported(url, &event["error"], true)),
        _ => {} // ping, content_block_stop
    }
    Ok(())
}

/// A whole reply.
pub(crate) fn whole(p: &mut Progress, reply: &Value, url: &str) -> Result<(), WireError> {
    if reply["type"] == "error" {
        return Err(WireError::reported(url, &reply["error"], false));
    }
    let Some(blocks) = reply["content"].as_array() else {
        return Err(WireError::provider(format!("{url} sent no content blocks")));
    };
    for block in blocks.iter().filter(|b| b["type"] == "text") {
        p.push(block["text"].as_str().unwrap_or_default());
    }
    merge_usage(p, &reply["usage"]);
    match reply["stop_reason"].as_str() {
        Some(reason) => p.stop(stop(reason), url),
        None => Ok(()),
    }
}

fn stop(reason: &str) -> Stop {
    match reason {
        "end_turn" | "stop_sequence" => Stop::Reason(StopReason::Complete),
        "max_tokens" | "model_context_window_exceeded" => Stop::Reason(StopReason::TokenLimit),
        "refusal" => Stop::Refused("refusal".into()),
        _ => Stop::Reason(StopReason::Other),
    }
}

/// Usage as the events give it: `message_start` the input, `message_delta`
/// the running output (and, lately, the input again). `input_tokens` leaves
/// out the tokens read from or written to the cache; the prompt is all three.
fn merge_usage(p: &mut Progress, u: &Value) {
    if !u.is_object() {
        return;
    }
    let mut merged = p.usage.unwrap_or_default();
    let cache_read = count(u, "cache_read_input_tokens");
    let cache_write = count(u, "cache_creation_input_tokens");
    if let Some(input) = count(u, "input_tokens") {
        let read = cache_read.or(merged.cached_tokens).unwrap_or(0);
        let write = cache_write.or(merged.cache_write_tokens).unwrap_or(0);
        merged.prompt_tokens = input.saturating_add(read).saturating_add(write);
    }
    merged.cached_tokens = cache_read.or(merged.cached_tokens);
    merged.cache_write_tokens = cache_write.or(merged.cache_write_tokens);
    if let Some(output) = count(u, "output_tokens") {
        merged.completion_tokens = output;
    }
    p.usage = Some(merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_tokens_count_in_the_prompt() {
        let mut p = Progress::default();
        merge_usage(
            &mut p,
            &json!({"input_tokens": 3, "cache_read_input_tokens": 1111, "cache_creation_input_tokens": 418, "output_tokens": 1}),
        );
        merge_usage(&mut p, &json!({"output_tokens": 57}));
        let u = p.usage.unwrap();
        assert_eq!(
            (u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.cache_write_tokens),
            (1532, 57, Some(1111), Some(418))
        );
    }
}
