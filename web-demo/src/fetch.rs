//! One model call over the page's own `fetch`, streamed chunk by chunk: the
//! transport agon-wire's exchange drives (send, stream the bytes, sleep).

use agon_core::{FailureKind, Input, ModelRequest};
use agon_wire::{Action, Attempt, Completion, Exchange, Retry, WireError};
use futures::future::{self, Either};
use gloo_net::http::Request;
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader};

use crate::chat;

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
    let exchange = chat::exchange(&endpoint.base_url, request, endpoint.timeout_seconds);
    let attempts = std::pin::pin!(drive(endpoint, exchange, signal, on_text));
    let deadline = std::pin::pin!(sleep(endpoint.timeout_seconds.saturating_mul(1000)));
    // Losing the race drops the attempts, which stops reading their stream.
    let result = match future::select(attempts, deadline).await {
        Either::Left((result, _)) => result,
        Either::Right(_) => Err(failure(
            FailureKind::Timeout,
            format!(
                "no complete answer from {}/chat/completions within {} s",
                endpoint.base_url.trim().trim_end_matches('/'),
                endpoint.timeout_seconds
            ),
        )),
    };
    match result {
        Ok(done) => Input::Reply { id, text: done.text, usage: done.usage, stop: done.stop, model: None },
        Err(e) => Input::Failed { id, kind: e.kind, message: e.message, usage: e.usage },
    }
}

/// Do what the exchange says until it has the answer or gives up.
async fn drive(
    endpoint: &Endpoint,
    mut exchange: Exchange,
    signal: &AbortSignal,
    on_text: &dyn Fn(&str),
) -> Result<Completion, WireError> {
    loop {
        let now = js_sys::Date::now() as u64;
        exchange = match exchange.next(now) {
            // The page shows the reply, not the notes on how it was got.
            Action::Note { exchange, .. } => exchange,
            Action::Wait { until_ms, exchange } => {
                sleep(u32::try_from(until_ms - now).unwrap_or(u32::MAX)).await;
                exchange
            }
            Action::Send(attempt) => send(endpoint, attempt, signal, on_text).await,
            Action::Ask(asking) => asking
                .answered(Err(failure(FailureKind::ProviderError, "the page calls HTTP endpoints only".into())), false),
            Action::Done(answer) => return Ok(answer.completion),
            Action::Failed(e) => return Err(e),
        };
    }
}

fn failure(kind: FailureKind, message: String) -> WireError {
    WireError { kind, message, retry: Retry::No, usage: None, code: None }
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

/// One attempt: send it, hand over the status and the bytes as they arrive.
async fn send(endpoint: &Endpoint, attempt: Attempt, signal: &AbortSignal, on_text: &dyn Fn(&str)) -> Exchange {
    let http = attempt.request();
    let url = chat::url(&endpoint.base_url, http);
    let mut builder = Request::post(&url).abort_signal(Some(signal));
    for (name, value) in &http.headers {
        builder = builder.header(name, value);
    }
    if let Some(key) = &endpoint.api_key {
        let (name, value) = agon_wire::auth_header(http.api, key);
        builder = builder.header(name, &value);
    }
    let built = match builder.body(http.body.clone()) {
        Ok(built) => built,
        Err(e) => {
            let e = failure(FailureKind::ProviderError, format!("could not build the request: {e}"));
            return attempt.transport_failed(e);
        }
    };
    let response = match built.send().await {
        Ok(response) => response,
        Err(e) => return attempt.transport_failed(transport_error(&e.to_string(), &url, signal)),
    };
    // What the wire layer reads of the headers: when, and whether, to try again.
    let headers: Vec<(&str, String)> = ["retry-after", "retry-after-ms", "x-should-retry"]
        .into_iter()
        .filter_map(|name| Some((name, response.headers().get(name)?)))
        .collect();
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut reply = attempt.status(response.status(), &headers, &url);
    let Some(stream) = response.body() else {
        return reply.transport_failed(failure(FailureKind::ProviderError, format!("{url} sent no body")));
    };
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    while reply.wants_more() {
        let result = match JsFuture::from(reader.read()).await {
            Ok(result) => result,
            Err(e) => return reply.transport_failed(transport_error(&describe(&e), &url, signal)),
        };
        if field(&result, "done").as_bool().unwrap_or(true) {
            break;
        }
        let bytes = Uint8Array::new(&field(&result, "value")).to_vec();
        for piece in reply.body(&bytes) {
            on_text(&piece);
        }
    }
    // An error body read as far as needed: the rest is not waited for.
    let _ = reader.cancel();
    reply.body_end()
}

/// The request never got an answer: stopped by the person, or unreachable.
fn transport_error(detail: &str, url: &str, signal: &AbortSignal) -> WireError {
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
