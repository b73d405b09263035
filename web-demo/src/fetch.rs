//! One model call over the page's own `fetch`, streamed chunk by chunk.

use agon_core::{FailureKind, Input, ModelRequest, Usage};
use agon_stream::openai::{self, ChunkError};
use agon_stream::{SseDecoder, SseEvent};
use futures::future::{self, Either};
use gloo_net::http::Request;
use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader};

use crate::chat::{self, CallError};

/// The longest event accepted: far above any real chunk, far below filling
/// the page's memory (the CLI's bound for a default `--max-reply`).
const MAX_EVENT: usize = (8 << 20) + (64 << 10);

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
    let attempt = std::pin::pin!(complete(endpoint, request, signal, on_text));
    let deadline = std::pin::pin!(sleep(endpoint.timeout_seconds.saturating_mul(1000)));
    // Losing the race drops the attempt, which stops reading its stream.
    let result = match future::select(attempt, deadline).await {
        Either::Left((result, _)) => result,
        Either::Right(_) => Err(CallError {
            kind: FailureKind::Timeout,
            message: format!(
                "no complete answer from {} within {} s",
                chat::url(&endpoint.base_url),
                endpoint.timeout_seconds
            ),
        }),
    };
    match result {
        Ok((text, usage)) => Input::Reply { id, text, usage },
        Err(CallError { kind, message }) => Input::Failed { id, kind, message },
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
    request: &ModelRequest,
    signal: &AbortSignal,
    on_text: &dyn Fn(&str),
) -> Result<(String, Option<Usage>), CallError> {
    let url = chat::url(&endpoint.base_url);
    let mut builder = Request::post(&url).abort_signal(Some(signal));
    if let Some(key) = &endpoint.api_key {
        builder = builder.header("Authorization", &format!("Bearer {key}"));
    }
    let sent = builder
        .json(&chat::body(request))
        .map_err(|e| CallError::provider(format!("could not build the request: {e}")))?
        .send()
        .await;
    let response = sent.map_err(|e| transport_error(&e.to_string(), &url, signal))?;
    let status = response.status();
    if !(200..300).contains(&status) {
        let body = response.text().await.unwrap_or_default();
        return Err(chat::status_error(status, &url, &body));
    }
    let Some(stream) = response.body() else {
        return Err(CallError::provider(format!("{url} sent no body")));
    };
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut decoder = SseDecoder::new(MAX_EVENT);
    let mut text = String::new();
    let mut usage = None;
    let mut finished = false;
    'read: loop {
        let result = JsFuture::from(reader.read()).await.map_err(|e| transport_error(&describe(&e), &url, signal))?;
        let done = field(&result, "done").as_bool().unwrap_or(true);
        let events = if done {
            decoder.finish()
        } else {
            let bytes = Uint8Array::new(&field(&result, "value")).to_vec();
            decoder.feed(&bytes).map_err(|e| CallError::provider(format!("{url} sent {e}")))?
        };
        for event in events {
            let data = match event {
                SseEvent::Done => {
                    finished = true;
                    break 'read;
                }
                SseEvent::Message { data, .. } => data,
            };
            let chunk = openai::parse_chunk(&data).map_err(|e| match e {
                // The stream's end cut the last event short.
                ChunkError::Malformed(_) if done => incomplete(&url),
                ChunkError::Malformed(e) => {
                    let start: String = data.chars().take(80).collect();
                    CallError::provider(format!("malformed stream event from {url}: {e}: {start}"))
                }
                ChunkError::Reported(error) => {
                    CallError::provider(format!("{url} reported an error mid-stream: {error}"))
                }
            })?;
            if let Some(piece) = &chunk.text {
                text.push_str(piece);
                on_text(piece);
            }
            if chunk.refused() {
                let message = format!("{url} refused to answer (content filter)");
                return Err(CallError { kind: FailureKind::Refused, message });
            }
            if let Some(u) = chunk.usage {
                usage = Some(Usage { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens });
            }
            finished |= chunk.finish_reason.is_some();
        }
        if done {
            break;
        }
    }
    if !finished {
        return Err(incomplete(&url));
    }
    Ok((text, usage))
}

fn incomplete(url: &str) -> CallError {
    CallError::provider(format!("the stream from {url} ended before the reply was complete"))
}

/// The request never got an answer: stopped by the person, or unreachable.
fn transport_error(detail: &str, url: &str, signal: &AbortSignal) -> CallError {
    if signal.aborted() {
        return CallError { kind: FailureKind::Cancelled, message: "stopped by the person".into() };
    }
    CallError::provider(format!(
        "could not reach {url}: {detail} (is it running, and does it allow this page's origin?)"
    ))
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
