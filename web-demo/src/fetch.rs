//! One model call over the page's own `fetch`, streamed chunk by chunk.

use agon_core::{FailureKind, Input, ModelRequest};
use agon_wire::{Completion, HttpRequest, WireError};
use futures::future::{self, Either};
use gloo_net::http::Request;
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader};

use crate::chat;

/// The largest reply accepted: the CLI's default `--max-reply`, far above
/// any real reply, far below filling the page's memory.
const MAX_REPLY: usize = 4 << 20;

/// Where calls go. The key is sent to this endpoint and nowhere else.
pub struct Endpoint {
    pub base_url: String,
    pub api_key: Option<String>,
    /// A call with no complete answer by then fails as a timeout.
    pub timeout_seconds: u32,
}

impl Endpoint {
    /// A blank key means none: the endpoint gets no credential header.
    pub fn new(base_url: String, api_key: String, timeout_seconds: u32) -> Endpoint {
        Endpoint { base_url, api_key: Some(api_key).filter(|k| !k.trim().is_empty()), timeout_seconds }
    }
}

/// Perform `request`, passing each piece of text to `on_text` as it streams
/// in, and turn whatever happens into the input the session expects.
pub async fn call(endpoint: &Endpoint, request: &ModelRequest, signal: &AbortSignal, on_text: &dyn Fn(&str)) -> Input {
    let id = request.id;
    let http = chat::http(&endpoint.base_url, request);
    let url = chat::url(&endpoint.base_url, &http);
    let attempt = std::pin::pin!(complete(endpoint, &http, &url, signal, on_text));
    let deadline = std::pin::pin!(sleep(endpoint.timeout_seconds.saturating_mul(1000)));
    // Losing the race drops the attempt, which stops reading its stream.
    let result = match future::select(attempt, deadline).await {
        Either::Left((result, _)) => result,
        Either::Right(_) => Err(failure(
            FailureKind::Timeout,
            format!("no complete answer from {url} within {} s", endpoint.timeout_seconds),
        )),
    };
    match result {
        Ok(done) => Input::Reply { id, text: done.text, usage: done.usage, stop: done.stop, model: None },
        Err(e) => Input::Failed { id, kind: e.kind, message: e.message, usage: e.usage },
    }
}

fn failure(kind: FailureKind, message: String) -> Failure {
    Failure { kind, message, usage: None }
}

/// Why a call came to nothing.
struct Failure {
    kind: FailureKind,
    message: String,
    usage: Option<agon_core::Usage>,
}

impl From<WireError> for Failure {
    fn from(e: WireError) -> Failure {
        Failure { kind: e.kind, message: e.message, usage: e.usage }
    }
}

#[wasm_bindgen]
extern "C" {
    /// The global `setTimeout`: there in windows, workers and extensions alike.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &Function, milliseconds: u32) -> JsValue;
}

async fn sleep(milliseconds: u32) {
    let _ = JsFuture::from(Promise::new(&mut |resolve, _| {
        set_timeout(&resolve, milliseconds);
    }))
    .await;
}

async fn complete(
    endpoint: &Endpoint,
    http: &HttpRequest,
    url: &str,
    signal: &AbortSignal,
    on_text: &dyn Fn(&str),
) -> Result<Completion, Failure> {
    let mut builder = Request::post(url).abort_signal(Some(signal));
    for (name, value) in &http.headers {
        builder = builder.header(name, value);
    }
    if let Some(key) = &endpoint.api_key {
        let (name, value) = agon_wire::auth_header(http.api, key);
        builder = builder.header(name, &value);
    }
    let sent = builder
        .body(http.body.clone())
        .map_err(|e| failure(FailureKind::ProviderError, format!("could not build the request: {e}")))?
        .send()
        .await;
    let response = sent.map_err(|e| transport_error(&e.to_string(), url, signal))?;
    let status = response.status();
    if !(200..300).contains(&status) {
        // What the wire layer reads of the headers: when, and whether, to try again.
        let headers: Vec<(&str, String)> = ["retry-after", "retry-after-ms", "x-should-retry"]
            .into_iter()
            .filter_map(|name| Some((name, response.headers().get(name)?)))
            .collect();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let body = response.text().await.unwrap_or_default();
        return Err(agon_wire::status_failure(status, &body, &headers, url, "").into());
    }
    let Some(stream) = response.body() else {
        return Err(failure(FailureKind::ProviderError, format!("{url} sent no body")));
    };
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut reply = http.reader(url, MAX_REPLY);
    loop {
        let result = JsFuture::from(reader.read()).await.map_err(|e| transport_error(&describe(&e), url, signal))?;
        if field(&result, "done").as_bool().unwrap_or(true) {
            break;
        }
        let bytes = Uint8Array::new(&field(&result, "value")).to_vec();
        for piece in reply.feed(&bytes)? {
            on_text(&piece);
        }
    }
    Ok(reply.finish()?)
}

/// The request never got an answer: stopped by the person, or unreachable.
fn transport_error(detail: &str, url: &str, signal: &AbortSignal) -> Failure {
    if signal.aborted() {
        return failure(FailureKind::Cancelled, "stopped by the person".into());
    }
    failure(
        FailureKind::ProviderError,
        format!("could not reach {url}: {detail} (is it running, and does it allow this page's origin?)"),
    )
}

fn field(object: &JsValue, name: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

pub(crate) fn describe(error: &JsValue) -> String {
    match error.dyn_ref::<js_sys::Error>() {
        Some(e) => e.message().into(),
        None => error.as_string().unwrap_or_else(|| format!("{error:?}")),
    }
}
