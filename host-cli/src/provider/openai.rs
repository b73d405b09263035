//! OpenAI-compatible `POST {base}/chat/completions`, streamed as SSE.

use std::io::{BufRead, BufReader};

use serde_json::{Value, json};

use super::sse::SseReader;
use super::{CallError, CallOptions, Completion, Endpoint, ModelRef};
use crate::engine::wit;

pub(super) fn complete(
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let target = endpoint.target(&["chat", "completions"], &[])?;
    let url = target.shown.as_str();
    let messages = super::chat_messages(request);
    let mut body = json!({
        "model": model.model,
        "messages": messages,
        // Always sent: some local servers generate without end otherwise.
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "stream": options.stream,
    });
    if options.stream {
        // The last chunk then carries the usage.
        body["stream_options"] = json!({"include_usage": true});
    }
    let headers: Vec<(&str, String)> =
        endpoint.api_key.iter().map(|key| ("Authorization", format!("Bearer {key}"))).collect();
    let response = super::post(endpoint, &target, &headers, &body, options)?;
    let mut body = response.into_body();
    let reader = body.as_reader();
    if options.stream {
        read_stream(BufReader::new(reader), url, endpoint, options, on_text)
    } else {
        let text = super::read_body(reader, url, endpoint, options)?;
        let reply: Value = serde_json::from_str(&text).map_err(|e| super::malformed(url, "JSON", e, &text))?;
        if let Some(error) = reply.get("error") {
            return Err(CallError::provider(format!("{url} answered with an error: {error}")));
        }
        let choice = &reply["choices"][0];
        if choice["finish_reason"] == "content_filter" {
            return Err(super::refused(url, "content filter"));
        }
        let Some(content) = choice["message"]["content"].as_str() else {
            return Err(CallError::provider(format!("{url} sent no choices[0].message.content")));
        };
        if content.len() > options.max_reply {
            return Err(super::too_large(url, options));
        }
        on_text(content);
        Ok(Completion { text: content.to_string(), usage: usage(&reply["usage"]) })
    }
}

fn read_stream(
    reader: impl BufRead,
    url: &str,
    endpoint: &Endpoint,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let mut text = String::new();
    let mut usage_seen = None;
    let mut finished = false;
    for event in SseReader::new(reader, super::max_line(options)) {
        let event = event.map_err(|e| super::read_error(e, url, endpoint, options))?;
        if event.data.trim() == "[DONE]" {
            finished = true;
            break;
        }
        let chunk: Value =
            serde_json::from_str(&event.data).map_err(|e| super::malformed(url, "stream event", e, &event.data))?;
        if let Some(error) = chunk.get("error") {
            return Err(CallError::provider(format!("{url} reported an error mid-stream: {error}")));
        }
        if let Some(u) = usage(&chunk["usage"]) {
            usage_seen = Some(u);
        }
        let choice = &chunk["choices"][0];
        if let Some(piece) = choice["delta"]["content"].as_str() {
            super::grow(&mut text, piece, url, options)?;
            on_text(piece);
        }
        match choice["finish_reason"].as_str() {
            Some("content_filter") => return Err(super::refused(url, "content filter")),
            Some(_) => finished = true,
            None => {}
        }
    }
    if !finished {
        return Err(super::incomplete(url));
    }
    Ok(Completion { text, usage: usage_seen })
}

fn usage(v: &Value) -> Option<wit::Usage> {
    Some(wit::Usage {
        prompt_tokens: v.get("prompt_tokens")?.as_u64()? as u32,
        completion_tokens: v.get("completion_tokens")?.as_u64()? as u32,
    })
}
