//! A seat's fallback chain (`a/x|b/y`): each model in turn, each with its
//! retries, until one answers — agon-wire's exchange, driven by the provider
//! module's transport.

use std::time::Duration;

use crate::engine::wit;
use crate::provider::{self, CallOptions, Environment, ModelRef, exchange};
use crate::timings::Timing;

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
    let hooks = exchange::Hooks { on_text, note, timed, sleep };
    exchange::call(env, request, &chain, env.retry.rule.attempts, options, hooks)
}
