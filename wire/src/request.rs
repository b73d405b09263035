//! What to send: one engine request as the HTTP request a provider's API takes.

use agon_core::{ModelRequest, ModelTraits, Reasoning, Role, ThinkingParam, ThinkingPlan};
use serde_json::{Value, json};

/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI's own chat completions: `max_completion_tokens` (the only
    /// output limit its reasoning models take), `reasoning_effort`, and no
    /// temperature for a model not known to take one.
    OpenAi,
    /// A server that speaks OpenAI's chat completions (OpenRouter, Groq, a
    /// local llama.cpp or vLLM): the long-standing `max_tokens` and a
    /// temperature unless the model is known to refuse one.
    OpenAiCompatible,
    /// Anthropic's Messages API.
    Anthropic,
    /// Google's Gemini API (`generateContent`, `streamGenerateContent?alt=sse`).
    Gemini,
    /// Ollama's native `/api/chat` (NDJSON when streamed).
    Ollama,
}

/// One call: which API, which model, how.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub api: Api,
    /// The model reference as the spec wrote it (`openai/o3`): its traits
    /// are looked up in the request under this name.
    pub reference: &'a str,
    /// The model's name as its provider knows it (`o3`).
    pub model: &'a str,
    pub stream: bool,
    /// What the server said of the model, where a host asked it (Ollama's `/api/show`).
    pub server: Option<ServerModel>,
}

/// What a local server said of a model (`/api/show`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerModel {
    /// Its context window, in tokens.
    pub context: Option<u32>,
    /// Whether it can think (`capabilities` lists `thinking`), when the server said.
    pub thinking: Option<bool>,
}

/// The HTTP request to send: path segments under the provider's base URL
/// (each one percent-encoded by the host), the query, headers besides the
/// key's, and the JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub api: Api,
    pub path: Vec<String>,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub stream: bool,
    /// The output limit sent (reply and thinking): what a cut reply ran into.
    pub output_limit: u32,
    /// Something the person should know before the call (a prompt that
    /// cannot fit a local model's context); the call is made all the same.
    pub note: Option<String>,
}

/// The header that carries an API key for `api`.
pub fn auth_header(api: Api, key: &str) -> (&'static str, String) {
    match api {
        Api::OpenAi | Api::OpenAiCompatible | Api::Ollama => ("Authorization", format!("Bearer {key}")),
        Api::Anthropic => ("x-api-key", key.to_string()),
        // A header, never the URL: it cannot end up in a log that quotes the URL.
        Api::Gemini => ("x-goog-api-key", key.to_string()),
    }
}

/// What every API's body is made of, decided once: the limits, the
/// temperature, the thinking.
pub(crate) struct Shape {
    pub traits: Option<ModelTraits>,
    /// Tokens for the visible reply.
    pub reply: u32,
    /// What this model is sent about thinking, and the room it may think in
    /// beyond the reply: the engine's plan for its family
    /// ([`agon_core::thinking_plan`]), so the cost bound counts what is sent.
    pub plan: Option<ThinkingPlan>,
    /// The seat asked for thinking itself (an effort or a budget): what
    /// Ollama's `think` follows (read only where that API is built in).
    #[cfg_attr(not(feature = "ollama"), allow(dead_code))]
    pub asked: bool,
}

impl Shape {
    pub(crate) fn new(call: &Call<'_>, request: &ModelRequest, traits: Option<ModelTraits>) -> Shape {
        let asked = request.reasoning.map(|r| r.asked_for()).unwrap_or_default();
        let plan = request
            .reasoning
            .and_then(|_| agon_core::thinking_plan(call.reference, traits.as_ref(), asked, request.max_tokens));
        Shape { traits, reply: request.max_tokens, plan, asked: asked != Reasoning::default() }
    }

    /// The parameter to send about thinking.
    pub fn param(&self) -> ThinkingParam {
        self.plan.map_or(ThinkingParam::Nothing, |p| p.send)
    }

    /// Tokens the call may think beyond the reply (0: none reserved).
    pub fn thinking(&self) -> u32 {
        self.plan.map_or(0, |p| p.room)
    }

    /// The output limit: the reply plus the thinking reserved, within what
    /// the model may write at all.
    pub fn output_limit(&self) -> u32 {
        let limit = self.reply.saturating_add(self.thinking());
        match self.traits.and_then(|t| t.max_output) {
            Some(most) => limit.min(most),
            None => limit,
        }
    }

    /// Whether to send a temperature: only to a model known to take one, or
    /// (`lenient`) to one not known to refuse it.
    pub fn temperature(&self, lenient: bool) -> bool {
        match self.traits {
            Some(t) => t.temperature,
            None => lenient,
        }
    }
}

/// A chat message's role as OpenAI and Ollama name it.
pub(crate) fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The request's messages in the `{"role", "content"}` shape OpenAI and Ollama share.
pub(crate) fn chat_messages(request: &ModelRequest) -> Vec<Value> {
    request.messages.iter().map(|m| json!({"role": role(m.role), "content": m.content})).collect()
}

/// The system prompt, joined, when the API takes it apart from the messages.
#[cfg_attr(not(any(feature = "anthropic", feature = "gemini")), allow(dead_code))]
pub(crate) fn system_text(request: &ModelRequest) -> Option<String> {
    let parts: Vec<&str> =
        request.messages.iter().filter(|m| m.role == Role::System).map(|m| m.content.as_str()).collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

pub(crate) fn http(path: &[&str], query: &[(&str, &str)], body: Value, shape: &Shape) -> HttpRequest {
    HttpRequest {
        api: Api::OpenAi,
        path: path.iter().map(|s| s.to_string()).collect(),
        query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        headers: vec![("Content-Type".to_string(), "application/json".to_string())],
        body: body.to_string(),
        stream: false,
        output_limit: shape.output_limit(),
        note: None,
    }
}
