//! A seat's fallback chain (`a/x|b/y`): each model in turn, each with its
//! retries, until one answers.

use std::time::Duration;

use crate::engine::wit;
use crate::provider::{self, CallOptions, Environment, ModelRef, retry};
use crate::timings::{Timing, now_ms};

/// One seat's call: each model of its fallback chain in turn, each with its
/// retries, until one answers. `note` hears about retries and fallbacks,
/// `timed` when each attempt started and ended.
pub fn call_seat(
    env: &Environment,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
    note: &mut dyn FnMut(String),
    timed: &mut dyn FnMut(Timing),
    sleep: &mut dyn FnMut(Duration),
) -> Result<provider::Completion, provider::CallError> {
    // References were checked before the run; a bad one here still fails only this call.
    let chain = ModelRef::parse_chain(&request.model).map_err(provider::CallError::provider)?;
    // Both the attempts and the waits between them have something to say.
    let note = std::cell::RefCell::new(note);
    let mut failures: Vec<String> = Vec::new();
    let mut last = None;
    for (i, model) in chain.iter().enumerate() {
        let mut wait = |d: Duration| {
            if d >= Duration::from_secs(1) {
                (note.borrow_mut())(format!("{}: waiting {} s before trying again", model.reference(), d.as_secs()));
            }
            sleep(d)
        };
        let mut attempt = |n: u32| {
            if n > 1 {
                (note.borrow_mut())(format!("{}: attempt {n}", model.reference()));
            }
            let _permit = env.gate.as_ref().map(|g| g.acquire(&model.provider));
            let _slot = env.slots.acquire(&model.provider);
            let mut streamed = false;
            // Timed after the permit: waiting for one's turn is not the call.
            let start_ms = now_ms();
            let mut notes = Vec::new();
            let result = provider::complete(
                env,
                model,
                request,
                options,
                &mut |piece: &str| {
                    streamed = true;
                    on_text(piece)
                },
                &mut |n| notes.push(n),
            );
            for n in notes {
                (note.borrow_mut())(n);
            }
            timed(Timing {
                id: request.id,
                seat: request.seat.clone(),
                model: model.reference(),
                round: request.round,
                attempt: n,
                fallback: i > 0,
                start_ms,
                end_ms: now_ms(),
                ok: result.is_ok(),
            });
            (result, streamed)
        };
        match retry::with_retries(env.retry, options.timeout, &mut wait, &mut attempt) {
            Ok(mut done) => {
                if i > 0 {
                    (note.borrow_mut())(format!("answered by {} after {}", model.reference(), failures.join("; ")));
                    // The transcript names it, and its price is the reply's.
                    done.model = Some(model.reference());
                }
                return Ok(done);
            }
            Err(e) => {
                if i + 1 < chain.len() {
                    let next = chain[i + 1].reference();
                    (note.borrow_mut())(format!("{} failed ({}); trying {next}", model.reference(), e.message));
                }
                failures.push(format!("{} failed", model.reference()));
                last = Some(e);
            }
        }
    }
    let e = last.expect("a chain has at least one model");
    if chain.len() == 1 {
        return Err(e);
    }
    Err(provider::CallError {
        message: format!("every model of '{}' failed; the last: {}", request.model, e.message),
        ..e
    })
}
