//! One HTTP attempt over ureq: the exchange says what to send and reads what
//! comes back; this sends it and hands over the status and the bytes as they
//! arrive. Only the transport is here: the URL, the key, the timeout, the
//! connection's failures.

use std::io::Read;

use agon_wire::{Attempt, Exchange};

use super::failure::{read_error, transport_error};
use super::{CallOptions, Endpoint, convert};

/// Send `attempt` to `endpoint`; what came of it, as the exchange's next state.
pub(super) fn send(
    endpoint: &Endpoint,
    attempt: Attempt,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Exchange {
    let http = attempt.request();
    let segments: Vec<&str> = http.path.iter().map(String::as_str).collect();
    let query: Vec<(&str, &str)> = http.query.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let target = match endpoint.target(&segments, &query) {
        Ok(target) => target,
        Err(e) => return attempt.transport_failed(convert::wire_error(e)),
    };
    let url = target.shown.as_str();
    let mut call = endpoint.agent.post(target.url.as_str()).config().timeout_global(Some(options.timeout)).build();
    for (name, value) in &http.headers {
        call = call.header(name.as_str(), value.as_str());
    }
    if let Some(key) = &endpoint.api_key {
        let (name, value) = agon_wire::auth_header(http.api, key);
        call = call.header(name, value.as_str());
    }
    let response = match call.send(http.body.as_bytes()) {
        Ok(response) => response,
        Err(e) => {
            return attempt.transport_failed(convert::wire_error(transport_error(e, url, endpoint, options.timeout)));
        }
    };
    let status = response.status().as_u16();
    let headers: Vec<(&str, &str)> =
        response.headers().iter().filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?))).collect();
    let mut reply = attempt.status(status, &headers, url);
    let mut body = response.into_body();
    let mut body = body.as_reader();
    let mut buf = [0u8; 8192];
    while reply.wants_more() {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // An error's body is read for its message only: what came is enough.
            Err(_) if !(200..300).contains(&status) => break,
            Err(e) => return reply.transport_failed(convert::wire_error(read_error(e, url, endpoint, options))),
        };
        for piece in reply.body(&buf[..n]) {
            on_text(&piece);
        }
    }
    reply.body_end()
}
