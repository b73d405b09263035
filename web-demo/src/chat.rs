//! The page's calls, minus the network: the model it calls, how, and the
//! URL of a request. What is sent, which API the endpoint speaks, when to try
//! again and what a reply means are agon-wire's exchange, shared with the CLI
//! and the SDKs.

use agon_core::ModelRequest;
use agon_wire::{Exchange, HttpRequest, HttpTarget, RetryRule, Settings, Target, WaitLimit, Wire};

/// The largest reply accepted: the CLI's default `--max-reply`, far above
/// any real reply, far below filling the page's memory.
const MAX_REPLY: usize = 4 << 20;

/// The call of `request` to the endpoint at `base`, streamed, once: the
/// page's timeline draws a bar per call, not per attempt, so it takes no
/// second attempt (the exchange's rule would say when).
pub fn exchange(base: &str, request: &ModelRequest, timeout_seconds: u32) -> Exchange {
    // The model is what the person typed: the name the endpoint knows.
    let target = HttpTarget {
        reference: request.model.clone(),
        model: request.model.clone(),
        wire: Wire::OpenAi,
        api: None,
        base_url: base.trim().to_string(),
        server: None,
        key_var: None,
        url_var: None,
    };
    let settings = Settings {
        retry: RetryRule { attempts: 1, ..RetryRule::default() },
        stream: true,
        max_reply: MAX_REPLY,
        limits: vec![WaitLimit {
            ms: u64::from(timeout_seconds) * 1000,
            what: format!("the call's timeout of {timeout_seconds} s"),
        }],
        raise_wait: String::new(),
        raise_reply: String::new(),
    };
    Exchange::new(request.clone(), vec![Target::Http(target)], settings)
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

    /// The first request the exchange would send.
    fn http(base: &str, request: &ModelRequest) -> HttpRequest {
        match exchange(base, request, 60).next(0) {
            agon_wire::Action::Send(attempt) => attempt.request().clone(),
            other => panic!("{other:?}"),
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
