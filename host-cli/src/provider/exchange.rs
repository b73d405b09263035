//! One seat's call as agon-wire's exchange: each model of its fallback chain
//! (`a/x|b/y`) in turn, each tried again as the provider asks, until one
//! answers. The exchange decides; this drives it — sending over
//! `wire_call`, asking programs and the MCP client,
//! sleeping when told, timing each attempt.

use std::time::Duration;

use agon_wire::{Action, Exchange, HttpTarget, Settings, Target, WaitLimit};

use super::retry::RAISE_WAIT;
use super::{CallError, CallOptions, Completion, Environment, ModelRef, Wire, client_model, command, convert, human};
use crate::engine::wit;
use crate::timings::{Timing, now_ms};

/// What the caller hears of a call besides its outcome.
pub struct Hooks<'a> {
    /// Text as it arrives.
    pub on_text: &'a mut dyn FnMut(&str),
    /// Retries, fallbacks, notes on a request.
    pub note: &'a mut dyn FnMut(String),
    /// When each attempt started and ended.
    pub timed: &'a mut dyn FnMut(Timing),
    pub sleep: &'a mut dyn FnMut(Duration),
}

/// Call `request` with the models of `chain` in turn, each tried up to
/// `attempts` times in all.
pub fn call(
    env: &Environment,
    request: &wit::ModelRequest,
    chain: &[ModelRef],
    attempts: u32,
    options: CallOptions,
    hooks: Hooks<'_>,
) -> Result<Completion, CallError> {
    let Hooks { on_text, note, timed, sleep } = hooks;
    let secrets = env.secrets();
    let redact = |text: &str| super::redact(text, &secrets);
    let targets = chain.iter().map(|model| target(env, model, options)).collect();
    let settings = Settings {
        retry: agon_wire::RetryRule { attempts, ..env.retry.rule },
        stream: options.stream,
        max_reply: options.max_reply,
        limits: vec![WaitLimit {
            ms: options.timeout.as_millis() as u64,
            what: format!("the call's timeout of {} s (--timeout)", options.timeout.as_secs()),
        }],
        raise_wait: RAISE_WAIT.to_string(),
        raise_reply: " (--max-reply, or max_reply in agon.toml)".to_string(),
    };
    let mut exchange = Exchange::new(convert::request(request), targets, settings);
    // The clock never runs behind a wait already taken (a test's sleep takes no time).
    let mut floor = 0;
    // Whether the last attempt was an HTTP one: its whole reply is shown at the end.
    let mut over_http = false;
    loop {
        let now = now_ms().max(floor);
        exchange = match exchange.next(now) {
            Action::Note { text, exchange } => {
                note(redact(&text));
                exchange
            }
            Action::Wait { until_ms, exchange } => {
                sleep(Duration::from_millis(until_ms - now));
                floor = until_ms;
                exchange
            }
            Action::Send(attempt) => {
                let model = &chain[attempt.index()];
                let (n, fallback) = (attempt.number(), attempt.index() > 0);
                let _permit = env.gate.as_ref().map(|g| g.acquire(&model.provider));
                let _slot = env.slots.acquire(&model.provider);
                // Timed after the permit: waiting for one's turn is not the call.
                let start_ms = now_ms();
                let endpoint = env.endpoint(&model.provider).expect("an HTTP target has an endpoint");
                let next = super::wire_call::send(endpoint, attempt, options, on_text);
                over_http = true;
                timed(timing(request, model, n, fallback, start_ms, !next.answered()));
                next
            }
            Action::Ask(asking) => {
                let model = &chain[asking.index()];
                let (n, fallback) = (asking.number(), asking.index() > 0);
                let _permit = env.gate.as_ref().map(|g| g.acquire(&model.provider));
                let _slot = env.slots.acquire(&model.provider);
                let start_ms = now_ms();
                let mut shown = false;
                let result = ask(env, model, request, options, &mut |piece| {
                    shown = true;
                    on_text(piece)
                });
                over_http = false;
                timed(timing(request, model, n, fallback, start_ms, result.is_err()));
                match result {
                    // Shown as the program or client gave it: nothing more to show.
                    Ok(done) => asking.answered(Ok(convert::completion_in(done)), true),
                    Err(e) => asking.answered(Err(convert::wire_error(e)), shown),
                }
            }
            Action::Done(answer) => {
                if over_http && !answer.shown {
                    on_text(&answer.completion.text);
                }
                let done = answer.completion;
                return Ok(Completion {
                    text: done.text,
                    usage: done.usage.map(convert::usage),
                    stop: done.stop.map(convert::stop),
                    model: answer.model,
                });
            }
            Action::Failed(e) => {
                let e = convert::call_error(e);
                return Err(CallError { message: redact(&e.message), ..e });
            }
        };
    }
}

/// One model as the exchange sees it: an HTTP API, or one the host answers.
fn target(env: &Environment, model: &ModelRef, options: CallOptions) -> Target {
    let reference = model.reference();
    let endpoint = match env.endpoint(&model.provider) {
        Some(e) if model.provider != human::PROVIDER && model.provider != client_model::PROVIDER => e,
        _ => return Target::Host { reference },
    };
    let wire = endpoint.wire;
    let server = (wire == Wire::Ollama).then(|| endpoint.server_model(&model.model, options.timeout));
    Target::Http(HttpTarget {
        reference,
        model: model.model.clone(),
        wire,
        api: None,
        base_url: endpoint.base_url.clone(),
        server,
        key_var: endpoint.key_var.clone(),
        url_var: Some(endpoint.url_var.clone()),
    })
}

/// A model this host answers itself: a program, the MCP client; or none.
fn ask(
    env: &Environment,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    if model.provider == human::PROVIDER {
        // The host loop asks people itself (one at a time, the live view held back).
        return Err(CallError::provider(format!("{}: a person answers at the terminal, not here", model.reference())));
    }
    if model.provider == client_model::PROVIDER {
        return match &env.client {
            Some(client) => client.complete(request, options),
            None => Err(CallError::provider(client_model::NOT_HERE.to_string())),
        };
    }
    if model.provider == "cmd" {
        let Some(cmd) = env.commands.get(&model.model) else {
            return Err(CallError::provider(format!(
                "no command model '{}': define [commands.{}] in agon.toml (built in: {})",
                model.model,
                model.model,
                env.commands.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        };
        return command::complete(cmd, request, options, on_text);
    }
    Err(CallError::provider(format!("unknown provider '{}'", model.provider)))
}

fn timing(
    request: &wit::ModelRequest,
    model: &ModelRef,
    attempt: u32,
    fallback: bool,
    start_ms: u64,
    failed: bool,
) -> Timing {
    Timing {
        id: request.id,
        seat: request.seat.clone(),
        model: model.reference(),
        round: request.round,
        attempt,
        fallback,
        start_ms,
        end_ms: now_ms(),
        ok: !failed,
    }
}
