//! The HTTP request every wire format sends, and the message shape OpenAI
//! and Ollama share.

use super::failure::{status_error, transport_error};
use super::{CallError, CallOptions, Endpoint, Target, retry};
use crate::engine::wit;

/// A POST with the call's timeout, JSON body and headers; the response or a
/// failure that names the URL (as shown).
pub(super) fn post(
    endpoint: &Endpoint,
    target: &Target,
    headers: &[(&str, String)],
    body: &serde_json::Value,
    options: CallOptions,
) -> Result<ureq::http::Response<ureq::Body>, CallError> {
    let url = target.shown.as_str();
    let mut call = endpoint.agent.post(target.url.as_str()).config().timeout_global(Some(options.timeout)).build();
    call = call.header("Content-Type", "application/json");
    for (name, value) in headers {
        call = call.header(*name, value);
    }
    let response = call.send_json(body).map_err(|e| transport_error(e, url, endpoint, options.timeout))?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(response);
    }
    let retry_after =
        response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(retry::parse_retry_after);
    let mut body = response.into_body();
    Err(status_error(status, &mut body.as_reader(), url, endpoint, retry_after))
}

/// The request's messages in the `{"role", "content"}` shape OpenAI and Ollama share.
pub(super) fn chat_messages(request: &wit::ModelRequest) -> Vec<serde_json::Value> {
    request.messages.iter().map(|m| serde_json::json!({"role": role(m.role), "content": m.content})).collect()
}

pub(super) fn role(role: wit::Role) -> &'static str {
    match role {
        wit::Role::System => "system",
        wit::Role::User => "user",
        wit::Role::Assistant => "assistant",
    }
}
