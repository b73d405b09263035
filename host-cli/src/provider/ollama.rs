//! Ollama's native `POST {host}/api/chat`, streamed as NDJSON.

use std::io::{self, BufRead, BufReader, Read};

use serde_json::{Value, json};

use super::{CallError, CallOptions, Completion, Endpoint, ModelRef};
use crate::engine::wit;

pub(super) fn complete(
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    let target = endpoint.target(&["api", "chat"], &[])?;
    let url = target.shown.as_str();
    let messages = super::chat_messages(request);
    let body = json!({
        "model": model.model,
        "messages": messages,
        "stream": options.stream,
        "options": {"num_predict": request.max_tokens, "temperature": request.temperature},
    });
    let response = super::post(endpoint, &target, &[], &body, options)?;
    let mut body = response.into_body();
    let mut reader = BufReader::new(body.as_reader());
    let mut text = String::new();
    let mut usage = None;
    let mut done = false;
    let mut line = String::new();
    loop {
        line.clear();
        let n = read_line_limited(&mut reader, &mut line, super::max_line(options))
            .map_err(|e| super::read_error(e, url, endpoint, options))?;
        if n == 0 {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let chunk: Value = serde_json::from_str(&line).map_err(|e| super::malformed(url, "NDJSON", e, &line))?;
        if let Some(error) = chunk.get("error") {
            return Err(CallError::provider(format!("{url} answered with an error: {error}")));
        }
        if let Some(piece) = chunk["message"]["content"].as_str() {
            super::grow(&mut text, piece, url, options)?;
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
        return Err(super::incomplete(url));
    }
    Ok(Completion { text, usage })
}

/// `read_line`, failing with `FileTooLarge` on a line longer than `max` bytes:
/// a server cannot make us buffer without end.
fn read_line_limited(reader: &mut impl BufRead, line: &mut String, max: usize) -> io::Result<usize> {
    let n = reader.take(max as u64 + 1).read_line(line)?;
    if n > max && !line.ends_with('\n') {
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, format!("a line longer than {max} bytes")));
    }
    Ok(n)
}
