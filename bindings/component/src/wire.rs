//! The `wire` interface: agon-wire behind the WIT. Conversion only.

use std::cell::RefCell;

use crate::convert;
use crate::exports::agon::debate::types as wt;
use crate::exports::agon::debate::wire::{
    self as w, Api, Call, Completion, GuestReader, HttpRequest, ServerModel, WireFailure,
};

impl w::Guest for crate::Engine {
    type Reader = ReaderResource;

    fn build_request(call: Call, request: wt::ModelRequest) -> HttpRequest {
        let core_call = agon_wire::Call {
            api: api_in(call.api),
            reference: &call.reference,
            model: &call.model,
            stream: call.stream,
            server: call.server.map(|s| agon_wire::ServerModel { context: s.context, thinking: s.thinking }),
        };
        http_out(agon_wire::request(&core_call, &convert::request_in(request)))
    }

    fn auth_header(api: Api, key: String) -> (String, String) {
        let (name, value) = agon_wire::auth_header(api_in(api), &key);
        (name.to_string(), value)
    }

    fn status_failure(
        status: u16,
        body: String,
        retry_after: Option<String>,
        url: String,
        hint: String,
    ) -> WireFailure {
        let headers: Vec<(&str, &str)> = retry_after.as_deref().map(|v| ("retry-after", v)).into_iter().collect();
        failure(agon_wire::status_failure(status, &body, &headers, &url, &hint))
    }

    fn show_request(model: String) -> (Vec<String>, String) {
        agon_wire::show_request(&model)
    }

    fn parse_show(body: String) -> ServerModel {
        let s = agon_wire::parse_show(&body);
        ServerModel { context: s.context, thinking: s.thinking }
    }
}

/// One reply being read; gone once finished.
pub struct ReaderResource {
    inner: RefCell<Option<agon_wire::Reader>>,
}

impl GuestReader for ReaderResource {
    fn new(request: HttpRequest, url: String, max_reply: u64) -> ReaderResource {
        let max = usize::try_from(max_reply).unwrap_or(usize::MAX);
        let reader = agon_wire::Reader::new(api_in(request.api), request.stream, &url, max, request.output_limit);
        ReaderResource { inner: RefCell::new(Some(reader)) }
    }

    fn feed(&self, bytes: Vec<u8>) -> Result<Vec<String>, WireFailure> {
        match self.inner.borrow_mut().as_mut() {
            Some(reader) => reader.feed(&bytes).map_err(failure),
            None => Err(finished()),
        }
    }

    fn finish(&self) -> Result<Completion, WireFailure> {
        let reader = self.inner.borrow_mut().take().ok_or_else(finished)?;
        let done = reader.finish().map_err(failure)?;
        Ok(Completion {
            text: done.text,
            usage: done.usage.map(convert::usage_out),
            stop: done.stop.map(convert::stop_out),
        })
    }
}

fn finished() -> WireFailure {
    let message = "this reply was already finished: make a reader per reply".to_string();
    WireFailure { kind: wt::FailureKind::ProviderError, message, retryable: false, retry_after_ms: None, usage: None }
}

fn failure(e: agon_wire::WireError) -> WireFailure {
    let (retryable, retry_after_ms) = match e.retry {
        agon_wire::Retry::No => (false, None),
        agon_wire::Retry::Yes { after_ms } => (true, after_ms),
    };
    WireFailure {
        kind: convert::failure_kind(e.kind),
        message: e.message,
        retryable,
        retry_after_ms,
        usage: e.usage.map(convert::usage_out),
    }
}

fn api_in(api: Api) -> agon_wire::Api {
    match api {
        Api::Openai => agon_wire::Api::OpenAi,
        Api::OpenaiCompatible => agon_wire::Api::OpenAiCompatible,
        Api::Anthropic => agon_wire::Api::Anthropic,
        Api::Gemini => agon_wire::Api::Gemini,
        Api::Ollama => agon_wire::Api::Ollama,
    }
}

fn api_out(api: agon_wire::Api) -> Api {
    match api {
        agon_wire::Api::OpenAi => Api::Openai,
        agon_wire::Api::OpenAiCompatible => Api::OpenaiCompatible,
        agon_wire::Api::Anthropic => Api::Anthropic,
        agon_wire::Api::Gemini => Api::Gemini,
        agon_wire::Api::Ollama => Api::Ollama,
    }
}

fn http_out(h: agon_wire::HttpRequest) -> HttpRequest {
    HttpRequest {
        api: api_out(h.api),
        path: h.path,
        query: h.query,
        headers: h.headers,
        body: h.body,
        stream: h.stream,
        output_limit: h.output_limit,
        note: h.note,
    }
}
