//! The HTTP request for one call, written by its API's module from the
//! parts every API shares ([`crate::request`]).

use agon_core::ModelRequest;

use crate::request::{Api, Call, HttpRequest, Shape};

/// The HTTP request for `request`, sent to `call`'s model.
pub fn request(call: &Call<'_>, request: &ModelRequest) -> HttpRequest {
    let traits = request.traits.get(call.reference).copied();
    let shape = Shape::new(call, request, traits);
    let mut http = match call.api {
        Api::OpenAi | Api::OpenAiCompatible => crate::openai::request(call, request, &shape),
        #[cfg(feature = "anthropic")]
        Api::Anthropic => crate::anthropic::request(call, request, &shape),
        #[cfg(feature = "gemini")]
        Api::Gemini => crate::gemini::request(call, request, &shape),
        #[cfg(feature = "ollama")]
        Api::Ollama => crate::ollama::request(call, request, &shape),
        #[allow(unreachable_patterns)]
        other => unreachable!("agon-wire was built without the {other:?} API"),
    };
    http.api = call.api;
    http.stream = call.stream;
    http
}
