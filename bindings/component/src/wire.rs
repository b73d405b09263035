//! The `wire` interface: agon-wire behind the WIT. Conversion only.

use std::cell::RefCell;

use crate::convert;
use crate::exports::agon::debate::types as wt;
use crate::exports::agon::debate::wire::{
    self as w, Api, Call, Completion, GuestExchange, GuestReader, HttpRequest, ServerModel, WireFailure,
};

impl w::Guest for crate::Engine {
    type Reader = ReaderResource;
    type Exchange = ExchangeResource;

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
        Ok(completion_out(reader.finish().map_err(failure)?))
    }
}

/// One call's exchange, in whichever state the host's last call left it.
pub struct ExchangeResource {
    slot: RefCell<Slot>,
}

enum Slot {
    Between(agon_wire::Exchange),
    Sending(Box<agon_wire::Attempt>),
    Receiving(Box<agon_wire::Receiving>),
    Asking(agon_wire::Asking),
    Over,
}

impl Slot {
    fn waiting_for(&self) -> &'static str {
        match self {
            Slot::Between(_) => "next",
            Slot::Sending(_) => "the status (or transport-failed)",
            Slot::Receiving(_) => "the body (body, body-end or transport-failed)",
            Slot::Asking(_) => "the answer (answered)",
            Slot::Over => "nothing: the call is over",
        }
    }
}

impl ExchangeResource {
    /// Move to the state `step` makes of the current one, or say what was expected.
    fn step(&self, what: &str, step: impl FnOnce(Slot) -> Result<Slot, Slot>) -> Result<(), String> {
        let mut slot = self.slot.borrow_mut();
        let current = std::mem::replace(&mut *slot, Slot::Over);
        match step(current) {
            Ok(next) => {
                *slot = next;
                Ok(())
            }
            Err(kept) => {
                let message = format!("{what} came out of turn: the exchange is waiting for {}", kept.waiting_for());
                *slot = kept;
                Err(message)
            }
        }
    }
}

impl GuestExchange for ExchangeResource {
    fn new(request: wt::ModelRequest, targets: Vec<w::Target>, settings: w::ExchangeSettings) -> ExchangeResource {
        let targets = targets.into_iter().map(target_in).collect();
        let settings = agon_wire::Settings {
            retry: agon_wire::RetryRule {
                attempts: settings.attempts,
                base_ms: settings.base_ms,
                max_wait_ms: settings.max_wait_ms,
            },
            stream: settings.stream,
            max_reply: usize::try_from(settings.max_reply).unwrap_or(usize::MAX),
            limits: settings.limits.into_iter().map(|l| agon_wire::WaitLimit { ms: l.ms, what: l.what }).collect(),
            raise_wait: settings.raise_wait,
            raise_reply: settings.raise_reply,
        };
        let exchange = agon_wire::Exchange::new(convert::request_in(request), targets, settings);
        ExchangeResource { slot: RefCell::new(Slot::Between(exchange)) }
    }

    fn next(&self, now_ms: u64) -> Result<w::Action, String> {
        let mut action = None;
        self.step("next", |slot| {
            let Slot::Between(exchange) = slot else { return Err(slot) };
            let (next, said) = match exchange.next(now_ms) {
                agon_wire::Action::Note { text, exchange } => (Slot::Between(exchange), w::Action::Note(text)),
                agon_wire::Action::Wait { until_ms, exchange } => (Slot::Between(exchange), w::Action::Wait(until_ms)),
                agon_wire::Action::Send(attempt) => {
                    let outgoing = w::Outgoing {
                        index: attempt.index() as u32,
                        attempt: attempt.number(),
                        request: http_out(attempt.request().clone()),
                    };
                    (Slot::Sending(Box::new(attempt)), w::Action::Send(outgoing))
                }
                agon_wire::Action::Ask(asking) => {
                    let turn = w::HostTurn {
                        index: asking.index() as u32,
                        attempt: asking.number(),
                        reference: asking.reference().to_string(),
                    };
                    (Slot::Asking(asking), w::Action::Ask(turn))
                }
                agon_wire::Action::Done(answer) => {
                    let answer = w::Answer {
                        completion: completion_out(answer.completion),
                        model: answer.model,
                        shown: answer.shown,
                    };
                    (Slot::Over, w::Action::Done(answer))
                }
                agon_wire::Action::Failed(e) => (Slot::Over, w::Action::Failed(failure(e))),
            };
            action = Some(said);
            Ok(next)
        })?;
        Ok(action.expect("set when the step was taken"))
    }

    fn status(&self, status: u16, headers: Vec<(String, String)>, url: String) -> Result<(), String> {
        self.step("status", |slot| match slot {
            Slot::Sending(attempt) => {
                let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                Ok(Slot::Receiving(Box::new((*attempt).status(status, &headers, &url))))
            }
            other => Err(other),
        })
    }

    fn body(&self, bytes: Vec<u8>) -> Result<Vec<String>, String> {
        match &mut *self.slot.borrow_mut() {
            Slot::Receiving(reply) => Ok(reply.body(&bytes)),
            other => Err(format!("body came out of turn: the exchange is waiting for {}", other.waiting_for())),
        }
    }

    fn wants_more(&self) -> bool {
        matches!(&*self.slot.borrow(), Slot::Receiving(reply) if reply.wants_more())
    }

    fn body_end(&self) -> Result<(), String> {
        self.step("body-end", |slot| match slot {
            Slot::Receiving(reply) => Ok(Slot::Between((*reply).body_end())),
            other => Err(other),
        })
    }

    fn transport_failed(&self, failure: WireFailure) -> Result<(), String> {
        let error = failure_in(failure);
        self.step("transport-failed", |slot| match slot {
            Slot::Sending(attempt) => Ok(Slot::Between((*attempt).transport_failed(error))),
            Slot::Receiving(reply) => Ok(Slot::Between((*reply).transport_failed(error))),
            other => Err(other),
        })
    }

    fn answered(&self, outcome: Result<Completion, WireFailure>, shown: bool) -> Result<(), String> {
        let outcome = outcome.map(completion_in).map_err(failure_in);
        self.step("answered", |slot| match slot {
            Slot::Asking(asking) => Ok(Slot::Between(asking.answered(outcome, shown))),
            other => Err(other),
        })
    }
}

fn target_in(t: w::Target) -> agon_wire::Target {
    match t {
        w::Target::Host(reference) => agon_wire::Target::Host { reference },
        w::Target::Http(t) => agon_wire::Target::Http(agon_wire::HttpTarget {
            reference: t.reference,
            model: t.model,
            wire: match t.family {
                w::WireFamily::Openai => agon_wire::Wire::OpenAi,
                w::WireFamily::Anthropic => agon_wire::Wire::Anthropic,
                w::WireFamily::Gemini => agon_wire::Wire::Gemini,
                w::WireFamily::Ollama => agon_wire::Wire::Ollama,
            },
            api: t.api.map(api_in),
            base_url: t.base_url,
            server: t.server.map(|s| agon_wire::ServerModel { context: s.context, thinking: s.thinking }),
            key_var: t.key_var,
            url_var: t.url_var,
        }),
    }
}

fn completion_out(done: agon_wire::Completion) -> Completion {
    Completion { text: done.text, usage: done.usage.map(convert::usage_out), stop: done.stop.map(convert::stop_out) }
}

fn completion_in(done: Completion) -> agon_wire::Completion {
    agon_wire::Completion {
        text: done.text,
        usage: done.usage.map(convert::usage_in),
        stop: done.stop.map(convert::stop_in),
    }
}

fn failure_in(f: WireFailure) -> agon_wire::WireError {
    agon_wire::WireError {
        kind: convert::failure_kind_in(f.kind),
        message: f.message,
        retry: if f.retryable { agon_wire::Retry::Yes { after_ms: f.retry_after_ms } } else { agon_wire::Retry::No },
        usage: f.usage.map(convert::usage_in),
        code: None,
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
