//! OpenAI-compatible `POST {base}/chat/completions`, streamed as SSE.

use std::io::{BufRead, BufReader, Read};

use serde_json::{Value, json};

use super::sse::SseReader;
use super::{CallError, CallOptions, Completion, Endpoint, ModelRef, status_error, transport_error};
use crate::engine::wit;

pub(super) fn complete(
    agent: &ureq::Agent,
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let url = format!("{}/chat/completions", endpoint.base_url);
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
        body["stream_options"] = json!({"include_usage": true});
    }
    let mut call = agent.post(&url).header("Content-Type", "application/json");
    if let Some(key) = &endpoint.api_key {
        call = call.header("Authorization", format!("Bearer {key}"));
    }
    let response = call.send_json(&body).map_err(|e| transport_error(e, &url, endpoint, options.timeout))?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut reader = body.as_reader();
    if !(200..300).contains(&status) {
        return Err(status_error(status, &mut reader, &url, endpoint));
    }
    if options.stream {
        read_stream(BufReader::new(reader), &url, endpoint, options, on_text)
    } else {
        let mut text = String::new();
        reader.read_to_string(&mut text).map_err(|e| read_error(e, &url, endpoint, options))?;
        let reply: Value =
            serde_json::from_str(&text).map_err(|e| CallError::provider(format!("malformed JSON from {url}: {e}")))?;
        if let Some(error) = reply.get("error") {
            return Err(CallError::provider(format!("{url} answered with an error: {error}")));
        }
        let choice = &reply["choices"][0];
        if choice["finish_reason"] == "content_filter" {
            return Err(refused(&url));
        }
        let Some(content) = choice["message"]["content"].as_str() else {
            return Err(CallError::provider(format!("{url} sent no choices[0].message.content")));
        };
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
    for event in SseReader::new(reader) {
        let event = event.map_err(|e| read_error(e, url, endpoint, options))?;
        if event.data.trim() == "[DONE]" {
            finished = true;
            break;
        }
        let chunk: Value = serde_json::from_str(&event.data).map_err(|e| {
            CallError::provider(format!(
                "malformed stream event from {url}: {e}: {}",
                super::one_line(&event.data, 120)
            ))
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(CallError::provider(format!("{url} reported an error mid-stream: {error}")));
        }
        if let Some(u) = usage(&chunk["usage"]) {
            usage_seen = Some(u);
        }
        let choice = &chunk["choices"][0];
        if let Some(piece) = choice["delta"]["content"].as_str() {
            text.push_str(piece);
            on_text(piece);
        }
        match choice["finish_reason"].as_str() {
            Some("content_filter") => return Err(refused(url)),
            Some(_) => finished = true,
            None => {}
        }
    }
    if !finished {
        return Err(CallError::provider(format!("the stream from {url} ended before the reply was complete")));
    }
    Ok(Completion { text, usage: usage_seen })
}

fn read_error(e: std::io::Error, url: &str, endpoint: &Endpoint, options: CallOptions) -> CallError {
    // ureq reports its own errors through io::Error while a body is read.
    match e.into_inner().map(|inner| inner.downcast::<ureq::Error>()) {
        Some(Ok(ureq_error)) => transport_error(*ureq_error, url, endpoint, options.timeout),
        Some(Err(other)) => CallError::provider(format!("the reply from {url} broke off: {other}")),
        None => CallError::provider(format!("the reply from {url} broke off")),
    }
}

fn refused(url: &str) -> CallError {
    CallError { kind: wit::FailureKind::Refused, message: format!("{url} refused to answer (content filter)") }
}

fn usage(v: &Value) -> Option<wit::Usage> {
    Some(wit::Usage {
        prompt_tokens: v.get("prompt_tokens")?.as_u64()? as u32,
        completion_tokens: v.get("completion_tokens")?.as_u64()? as u32,
    })
}

pub(super) fn role(role: wit::Role) -> &'static str {
    match role {
        wit::Role::System => "system",
        wit::Role::User => "user",
        wit::Role::Assistant => "assistant",
    }
}
