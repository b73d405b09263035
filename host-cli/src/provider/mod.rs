//! Model providers: turning a `ModelRequest` into a call and back. What each
//! API takes and answers is agon-wire's (shared with every host); this module
//! is the transport, command models and people.
//!
//! A model reference is `provider/model`. A provider is a wire format
//! (OpenAI-compatible, Anthropic, Gemini, Ollama, or a command-line program)
//! plus where it lives and which variables configure it; the named presets
//! (`groq/`, `openrouter/`, …) are OpenAI-compatible endpoints and differ only
//! in that. Every failure becomes a [`CallError`] with the kind the engine
//! understands; keys never appear in any message this module produces, and
//! base URLs appear only as [`base_url`] shows them (query values redacted).

pub mod base_url;
mod call;
pub mod client_model;
pub mod command;
pub mod convert;
mod endpoint;
mod environment;
pub mod exchange;
mod failure;
pub mod gate;
pub mod human;
mod limits;
mod literal_resolver;
mod model_ref;
mod presets;
pub mod retry;
mod wire_call;

pub use base_url::{BaseUrl, Target};
pub use call::{CallError, CallOptions, Completion, DEFAULT_MAX_REPLY, Retry, refuses_credential};
pub use endpoint::Endpoint;
pub use environment::{Environment, redact};
pub use limits::size_name;
pub use model_ref::ModelRef;
pub use presets::{PRESETS, Preset, Wire, provider_names};

use crate::engine::wit;

/// Perform one request with one model, once; `on_text` sees streamed text
/// as it arrives, `on_note` what the person should know about the call.
pub fn complete(
    env: &Environment,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
    on_note: &mut dyn FnMut(String),
) -> Result<Completion, CallError> {
    let hooks = exchange::Hooks { on_text, note: on_note, timed: &mut |_| {}, sleep: &mut |_| {} };
    exchange::call(env, request, std::slice::from_ref(model), 1, options, hooks)
}
