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
    let Some(endpoint) = env.endpoint(&model.provider) else {
        return Err(CallError::provider(format!("unknown provider '{}'", model.provider)));
    };
    let result = wire_call::complete(endpoint, model, request, options, on_text, on_note);
    result.map_err(|e| CallError { message: redact(&e.message, &env.secrets()), ..e })
}
