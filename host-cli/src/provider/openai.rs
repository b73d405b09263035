//! OpenAI-compatible `POST {base}/chat/completions`, streamed as SSE.

use std::io::Read;

use agon_stream::openai::{self, ChunkError};
use serde_json::{Value, json};

use super::sse::{SseEvent, SseEvents};
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
        read_stream(reader, url, endpoint, options, on_text)
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
        Ok(Completion { text: content.to_string(), usage: openai::usage(&reply["usage"]).map(usage) })
    }
}

fn read_stream(
    reader: impl Read,
    url: &str,
    endpoint: &Endpoint,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let mut text = String::new();
    let mut usage_seen = None;
    let mut finished = false;
    let mut events = SseEvents::new(reader, super::max_line(options));
    while let Some(event) = events.next() {
        let data = match event.map_err(|e| super::read_error(e, url, endpoint, options))? {
            SseEvent::Done => {
                finished = true;
                break;
            }
            SseEvent::Message { data, .. } => data,
        };
        let chunk = openai::parse_chunk(&data).map_err(|e| match e {
            ChunkError::Malformed(_) if events.ended() => super::incomplete(url),
            ChunkError::Malformed(e) => super::malformed(url, "stream event", e, &data),
            ChunkError::Reported(error) => CallError::provider(format!("{url} reported an error mid-stream: {error}")),
        })?;
        if let Some(u) = chunk.usage {
            usage_seen = Some(usage(u));
        }
        if let Some(piece) = &chunk.text {
            super::grow(&mut text, piece, url, options)?;
            on_text(piece);
        }
        if chunk.refused() {
            return Err(super::refused(url, "content filter"));
        }
        finished |= chunk.finish_reason.is_some();
    }
    if !finished {
        return Err(super::incomplete(url));
    }
    Ok(Completion { text, usage: usage_seen })
}

fn usage(u: openai::Usage) -> wit::Usage {
    wit::Usage { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens }
}
