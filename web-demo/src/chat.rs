//! The page's calls, minus the network: which API its endpoint speaks, the
//! URL, and the HTTP request for a model request. What is sent and what a
//! reply means is agon-wire's, shared with the CLI and the SDKs.

use agon_core::ModelRequest;
use agon_wire::{Api, Call, HttpRequest};

/// The page speaks OpenAI's chat completions: OpenAI's own conventions at
/// its address, a compatible server's elsewhere (a local llama.cpp, OpenRouter).
pub fn api(base: &str) -> Api {
    if base.contains("://api.openai.com") { Api::OpenAi } else { Api::OpenAiCompatible }
}

/// The request for `request` to the endpoint at `base`, streamed.
pub fn http(base: &str, request: &ModelRequest) -> HttpRequest {
    // The model is what the person typed: the name the endpoint knows.
    let call = Call { api: api(base), reference: &request.model, model: &request.model, stream: true, server: None };
    agon_wire::request(&call, request)
}

/// `{base}/chat/completions` (the request's path), whatever trailing slashes the person typed.
pub fn url(base: &str, http: &HttpRequest) -> String {
    format!("{}/{}", base.trim().trim_end_matches('/'), http.path.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agon_core::{Message, Phase, Purpose};

    fn request(model: &str) -> ModelRequest {
        ModelRequest {
            id: 1,
            seat: "s".into(),
            model: model.into(),
            purpose: Purpose::Turn,
            round: 1,
            phase: Phase::Opening,
            messages: vec![Message::user("Q")],
            max_tokens: 100,
            temperature: 0.5,
            expect: None,
            reasoning: None,
            traits: Default::default(),
            cache_marks: Vec::new(),
        }
    }

    #[test]
    fn the_url_and_the_dialect_follow_the_endpoint() {
        let local = http(" http://h/v1/ ", &request("smollm2"));
        assert_eq!(url(" http://h/v1/ ", &local), "http://h/v1/chat/completions");
        let body: serde_json::Value = serde_json::from_str(&local.body).unwrap();
        assert_eq!((body["max_tokens"].as_u64(), body["temperature"].as_f64()), (Some(100), Some(0.5)));
        // OpenAI itself: the limit every current model takes, and no temperature for a model not known to take one.
        let openai = http("https://api.openai.com/v1", &request("gpt-5"));
        let body: serde_json::Value = serde_json::from_str(&openai.body).unwrap();
        assert_eq!(body["max_completion_tokens"], 100);
        assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none(), "{body}");
    }
}
