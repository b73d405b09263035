//! OpenAI's chat completions (`POST {base}/chat/completions`) and the servers
//! that speak it: the body, each streamed chunk, a whole reply.
//!
//! A chunk: `{"choices":[{"delta":{"content":"Hel"},"finish_reason":null}]}`;
//! with `stream_options.include_usage` a last one with `"choices":[]` and
//! the usage. Reasoning arrives apart from the answer where a server shows
//! it at all (`reasoning_content` from DeepSeek, `reasoning` from OpenRouter
//! and Groq) and is never answer text.

use agon_core::{ModelRequest, StopReason, ThinkingParam, Usage};
use serde_json::{Value, json};

use crate::failure::WireError;
use crate::progress::{Progress, Stop, count};
use crate::request::{Api, Call, HttpRequest, Shape, chat_messages, http};

pub(crate) fn request(call: &Call<'_>, request: &ModelRequest, shape: &Shape) -> HttpRequest {
    let official = call.api == Api::OpenAi;
    let mut body = json!({
        "model": call.model,
        "messages": chat_messages(request),
        "stream": call.stream,
    });
    // Always an output limit: some local servers generate without end otherwise.
    // OpenAI's reasoning models take only `max_completion_tokens`, which all
    // of its current models accept; other servers know `max_tokens`.
    let limit_key = if official { "max_completion_tokens" } else { "max_tokens" };
    body[limit_key] = json!(shape.output_limit());
    // OpenAI itself: no temperature unless the model is known to take one
    // (its reasoning models refuse any but the default). Elsewhere, unless
    // known to refuse it.
    if shape.temperature(!official) {
        body["temperature"] = json!(request.temperature);
    }
    // Effort is the only thinking OpenAI's API takes; a compatible server
    // gets it only where the seat asked (the engine's plan says which).
    if let ThinkingParam::Effort(effort) = shape.param() {
        body["reasoning_effort"] = json!(effort.as_str());
    }
    if call.stream {
        // The last chunk then carries the usage.
        body["stream_options"] = json!({"include_usage": true});
    }
    http(&["chat", "completions"], &[], body, shape)
}

/// One streamed chunk.
pub(crate) fn chunk(p: &mut Progress, chunk: &Value, url: &str) -> Result<(), WireError> {
    if let Some(u) = usage(&chunk["usage"]) {
        p.usage = Some(u);
    }
    if let Some(error) = chunk.get("error") {
        // After the model stopped, an error (OpenRouter's "Token limit
        // reached" after `length`) adds nothing to why: the stop stands.
        if p.stop.is_some() {
            return Ok(());
        }
        return Err(WireError::reported(url, error, true));
    }
    let choice = &chunk["choices"][0];
    if let Some(piece) = choice["delta"]["content"].as_str() {
        p.push(piece);
    }
    if let Some(refusal) = choice["delta"]["refusal"].as_str().filter(|r| !r.is_empty()) {
        return Err(WireError::refused(url, refusal));
    }
    match choice["finish_reason"].as_str() {
        Some(reason) => p.stop(stop(reason), url),
        None => Ok(()),
    }
}

/// A whole reply.
pub(crate) fn whole(p: &mut Progress, reply: &Value, url: &str) -> Result<(), WireError> {
    if let Some(error) = reply.get("error") {
        return Err(WireError::reported(url, error, false));
    }
    p.usage = usage(&reply["usage"]);
    let choice = &reply["choices"][0];
    let message = &choice["message"];
    if let Some(refusal) = message["refusal"].as_str().filter(|r| !r.is_empty()) {
        return Err(WireError::refused(url, refusal));
    }
    match &message["content"] {
        Value::String(text) => p.push(text),
        // A reasoning model cut before its answer sends no content at all.
        Value::Null if choice["finish_reason"].is_string() => {}
        _ => return Err(WireError::provider(format!("{url} sent no choices[0].message.content"))),
    }
    if let Some(reason) = choice["finish_reason"].as_str() {
        p.stop(stop(reason), url)?;
    }
    Ok(())
}

fn stop(reason: &str) -> Stop {
    match reason {
        "stop" => Stop::Reason(StopReason::Complete),
        "length" => Stop::Reason(StopReason::TokenLimit),
        "content_filter" => Stop::Refused("content filter".into()),
        _ => Stop::Reason(StopReason::Other),
    }
}

/// A `usage` object, if it has both counts. OpenAI's `completion_tokens`
/// includes the reasoning tokens (as DeepSeek's, OpenRouter's and Groq's
/// do); xAI's leaves them out and bills them on top, which its
/// `total_tokens` shows (prompt + completion + reasoning): where the total
/// says so, the reasoning is added to the output billed. `prompt_tokens`
/// includes the cached ones, reported in `prompt_tokens_details` or, by
/// DeepSeek, as `prompt_cache_hit_tokens`.
pub(crate) fn usage(u: &Value) -> Option<Usage> {
    let prompt = count(u, "prompt_tokens")?;
    let completion = count(u, "completion_tokens")?;
    let reasoning = count(&u["completion_tokens_details"], "reasoning_tokens");
    let apart = match (reasoning, count(u, "total_tokens")) {
        (Some(r), Some(total)) if r > 0 => {
            let inside = u64::from(prompt) + u64::from(completion);
            u64::from(total) != inside && u64::from(total) == inside + u64::from(r)
        }
        _ => false,
    };
    Some(Usage {
        prompt_tokens: prompt,
        completion_tokens: if apart { completion.saturating_add(reasoning.unwrap_or(0)) } else { completion },
        reasoning_tokens: reasoning,
        cached_tokens: count(&u["prompt_tokens_details"], "cached_tokens")
            .or_else(|| count(u, "prompt_cache_hit_tokens")),
        cache_write_tokens: count(&u["prompt_tokens_details"], "cache_write_tokens"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_billed_apart_is_added_where_the_total_says_so() {
        // xAI's grok-3-mini: total 2,718 = 50 prompt + 352 completion + 2,316 reasoning.
        let xai = json!({"prompt_tokens": 50, "completion_tokens": 352, "total_tokens": 2718,
            "completion_tokens_details": {"reasoning_tokens": 2316}});
        let u = usage(&xai).unwrap();
        assert_eq!((u.completion_tokens, u.reasoning_tokens), (2_668, Some(2_316)));
        // OpenAI's o3-mini: the reasoning is inside the completion, and the total says so.
        let openai = json!({"prompt_tokens": 10, "completion_tokens": 300, "total_tokens": 310,
            "completion_tokens_details": {"reasoning_tokens": 256}});
        assert_eq!(usage(&openai).unwrap().completion_tokens, 300);
        // No total: the OpenAI convention.
        let bare = json!({"prompt_tokens": 10, "completion_tokens": 300, "completion_tokens_details": {"reasoning_tokens": 256}});
        assert_eq!(usage(&bare).unwrap().completion_tokens, 300);
        // DeepSeek's cache hits.
        let deepseek = json!({"prompt_tokens": 1200, "completion_tokens": 5, "total_tokens": 1205,
            "prompt_cache_hit_tokens": 1024, "prompt_cache_miss_tokens": 176});
        assert_eq!(usage(&deepseek).unwrap().cached_tokens, Some(1_024));
    }
}
