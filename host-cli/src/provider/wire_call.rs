//! One HTTP call, whatever the provider: agon-wire says what to send and
//! reads what comes back; this host sends it over ureq and hands it the
//! bytes as they arrive. Only the transport is here: the URL, the key, the
//! timeout, the connection's failures.

use std::io::Read;
use std::time::Duration;

use agon_wire::{Api, Call, WireError};

use super::failure::{read_error, transport_error};
use super::{CallError, CallOptions, Completion, Endpoint, ModelRef, Retry, Wire, convert, retry};
use crate::engine::wit;

/// Perform one request with one HTTP model, once.
pub(super) fn complete(
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
    on_note: &mut dyn FnMut(String),
) -> Result<Completion, CallError> {
    let request = convert::request(request);
    let reference = model.reference();
    let api = api(endpoint, request.traits.contains_key(&reference));
    let server = (api == Api::Ollama).then(|| endpoint.server_model(&model.model, options.timeout));
    let call = Call { api, reference: &reference, model: &model.model, stream: options.stream, server };
    let http = agon_wire::request(&call, &request);
    if let Some(note) = &http.note {
        on_note(format!("{reference}: {note}"));
    }
    let segments: Vec<&str> = http.path.iter().map(String::as_str).collect();
    let query: Vec<(&str, &str)> = http.query.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let target = endpoint.target(&segments, &query)?;
    let url = target.shown.as_str();
    let mut headers = http.headers.clone();
    if let Some(key) = &endpoint.api_key {
        let (name, value) = agon_wire::auth_header(api, key);
        headers.push((name.to_string(), value));
    }
    let mut call = endpoint.agent.post(target.url.as_str()).config().timeout_global(Some(options.timeout)).build();
    for (name, value) in &headers {
        call = call.header(name.as_str(), value.as_str());
    }
    let response = call.send(http.body.as_bytes()).map_err(|e| transport_error(e, url, endpoint, options.timeout))?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        // What the wire layer reads of the headers: when, and whether, to try again.
        let headers: Vec<(String, String)> = ["retry-after", "retry-after-ms", "x-should-retry"]
            .into_iter()
            .filter_map(|name| Some((name.to_string(), response.headers().get(name)?.to_str().ok()?.to_string())))
            .collect();
        let mut body = String::new();
        // Enough for any real error body: its code and type must not be cut off.
        let _ = response.into_body().as_reader().take(16 << 10).read_to_string(&mut body);
        return Err(status_error(status, &body, &headers, url, endpoint));
    }
    let mut reader = http.reader(url, options.max_reply).with_limit_hint(" (--max-reply, or max_reply in agon.toml)");
    let mut body = response.into_body();
    let mut body = body.as_reader();
    let mut buf = [0u8; 8192];
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(e, url, endpoint, options)),
        };
        for piece in reader.feed(&buf[..n]).map_err(call_error)? {
            on_text(&piece);
        }
    }
    let done = reader.finish().map_err(call_error)?;
    if !options.stream {
        on_text(&done.text);
    }
    Ok(Completion {
        text: done.text,
        usage: done.usage.map(convert::usage),
        stop: done.stop.map(convert::stop),
        model: None,
    })
}

/// Which API an endpoint speaks for a model. OpenAI's own conventions
/// (`max_completion_tokens`, no temperature for an unknown model) hold at its
/// address and for the models the catalog knows; an unknown model behind
/// `OPENAI_BASE_URL` elsewhere is a compatible server's.
fn api(endpoint: &Endpoint, known: bool) -> Api {
    match endpoint.wire {
        Wire::OpenAi if endpoint.provider == "openai" && (known || endpoint.is_default_url()) => Api::OpenAi,
        Wire::OpenAi => Api::OpenAiCompatible,
        Wire::Anthropic => Api::Anthropic,
        Wire::Gemini => Api::Gemini,
        Wire::Ollama => Api::Ollama,
        Wire::Command => unreachable!("command models have no endpoint"),
    }
}

/// A non-2xx answer, with what to check and when to try again.
fn status_error(status: u16, body: &str, headers: &[(String, String)], url: &str, endpoint: &Endpoint) -> CallError {
    let hint = match (status, &endpoint.key_var) {
        (401 | 403, Some(var)) => format!(" (check {var})"),
        (404, _) => format!(" (is {} right, and does it serve this model?)", endpoint.url_var),
        _ => String::new(),
    };
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut error = call_error(agon_wire::status_failure(status, body, &headers, url, &hint));
    // A Retry-After given as an HTTP date needs a clock: the wire layer has none.
    let retry_after = headers.iter().find(|(k, _)| *k == "retry-after").map(|(_, v)| *v);
    if let (Retry::Yes { after: None }, Some(date)) = (error.retry, retry_after) {
        error.retry = Retry::Yes { after: retry::parse_retry_after(date) };
    }
    error
}

fn call_error(e: WireError) -> CallError {
    CallError {
        kind: convert::failure_kind(e.kind),
        message: e.message,
        retry: match e.retry {
            agon_wire::Retry::No => Retry::No,
            agon_wire::Retry::Yes { after_ms } => Retry::Yes { after: after_ms.map(Duration::from_millis) },
        },
        usage: e.usage.map(convert::usage),
    }
}
