//! Ollama's native `POST {host}/api/chat`, streamed as NDJSON.

use std::io::{BufRead, BufReader};

use serde_json::{Value, json};

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
    let url = format!("{}/api/chat", endpoint.base_url);
    let messages = super::chat_messages(request);
    let body = json!({
        "model": model.model,
        "messages": messages,
        "stream": options.stream,
        "options": {"num_predict": request.max_tokens, "temperature": request.temperature},
    });
    let response =
        agent.post(&url).send_json(&body).map_err(|e| transport_error(e, &url, endpoint, options.timeout))?;
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut reader = BufReader::new(body.as_reader());
    if !(200..300).contains(&status) {
        return Err(status_error(status, &mut reader, &url, endpoint));
    }
    let mut text = String::new();
    let mut usage = None;
    let mut done = false;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .map_err(|e| CallError::provider(format!("the reply from {url} broke off: {e}")))?;
        if n == 0 {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let chunk: Value = serde_json::from_str(&line).map_err(|e| {
            CallError::provider(format!("malformed NDJSON from {url}: {e}: {}", super::one_line(&line, 120)))
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(CallError::provider(format!("{url} answered with an error: {error}")));
        }
        if let Some(piece) = chunk["message"]["content"].as_str() {
            text.push_str(piece);
            on_text(piece);
        }
        if chunk["done"].as_bool() == Some(true) {
            done = true;
            if let (Some(p), Some(c)) = (chunk["prompt_eval_count"].as_u64(), chunk["eval_count"].as_u64()) {
                usage = Some(wit::Usage { prompt_tokens: p as u32, completion_tokens: c as u32 });
            }
            break;
        }
    }
    if !done {
        return Err(CallError::provider(format!("the stream from {url} ended before the reply was complete")));
    }
    Ok(Completion { text, usage })
}
