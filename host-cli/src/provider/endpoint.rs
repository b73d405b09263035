//! Where one HTTP provider lives, and the key it takes.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agon_wire::ServerModel;

use super::{BaseUrl, CallError, Target, Wire};

/// Where and how to reach one HTTP provider.
#[derive(Clone)]
pub struct Endpoint {
    pub provider: String,
    pub wire: Wire,
    /// The base URL as messages show it: no trailing slash, query values redacted.
    pub base_url: String,
    /// Where calls go, or why the configured URL cannot be used.
    pub(super) base: Result<BaseUrl, String>,
    /// What sets `base_url`: an environment variable, or agon.toml.
    pub url_var: String,
    pub api_key: Option<String>,
    pub key_var: Option<String>,
    pub key_required: bool,
    /// Shared by every call to this endpoint: connections are reused.
    pub(super) agent: ureq::Agent,
    /// The provider's own address (not one set in a variable or agon.toml).
    pub(super) default_url: bool,
    /// What a local server said of each model it was asked about, once per run.
    pub(super) server_models: Arc<Mutex<BTreeMap<String, ServerModel>>>,
}

impl Endpoint {
    /// The URL of one call: `segments` after the base's path, then `query`.
    pub fn target(&self, segments: &[&str], query: &[(&str, &str)]) -> Result<Target, CallError> {
        self.base.as_ref().map(|b| b.join(segments, query)).map_err(|e| CallError::provider(e.clone()))
    }

    /// Whether calls go to the provider's own address.
    pub fn is_default_url(&self) -> bool {
        self.default_url
    }

    /// What the server says of `model` (Ollama's `/api/show`: its context
    /// length, whether it can think), asked once per run; nothing when it
    /// cannot say, and the call goes on without it.
    pub(super) fn server_model(&self, model: &str, timeout: Duration) -> ServerModel {
        if let Some(known) = self.server_models.lock().unwrap_or_else(|e| e.into_inner()).get(model) {
            return *known;
        }
        let (path, body) = agon_wire::show_request(model);
        let segments: Vec<&str> = path.iter().map(String::as_str).collect();
        let asked = self.target(&segments, &[]).ok().and_then(|target| {
            let call = self
                .agent
                .post(target.url.as_str())
                .config()
                .timeout_global(Some(timeout.min(Duration::from_secs(10))));
            let response = call.build().header("Content-Type", "application/json").send(body.as_bytes()).ok()?;
            if !response.status().is_success() {
                return None;
            }
            let mut text = String::new();
            response.into_body().as_reader().take(1 << 20).read_to_string(&mut text).ok()?;
            Some(agon_wire::parse_show(&text))
        });
        let known = asked.unwrap_or_default();
        self.server_models.lock().unwrap_or_else(|e| e.into_inner()).insert(model.to_string(), known);
        known
    }

    /// The models a local server says it serves (Ollama's `/api/tags`, an
    /// OpenAI-compatible `/models`), or None when it does not answer in time.
    /// The names are the server's text: the caller shows them made safe.
    pub fn served_models(&self, timeout: Duration) -> Option<Vec<String>> {
        let (segments, list, name): (&[&str], &str, &str) = match self.wire {
            Wire::Ollama => (&["api", "tags"], "models", "name"),
            Wire::OpenAi => (&["models"], "data", "id"),
            _ => return None,
        };
        let target = self.target(segments, &[]).ok()?;
        let call = self.agent.get(target.url.as_str()).config().timeout_global(Some(timeout)).build();
        let response = call.call().ok()?;
        if !response.status().is_success() {
            return None;
        }
        let mut text = String::new();
        response.into_body().as_reader().take(1 << 20).read_to_string(&mut text).ok()?;
        let listed: serde_json::Value = serde_json::from_str(&text).ok()?;
        let names = listed[list].as_array()?.iter().filter_map(|m| m[name].as_str()).map(str::to_string);
        // Names go into model references: plain ones only, and not many.
        Some(names.filter(|n| !n.is_empty() && !n.chars().any(char::is_control)).take(50).collect())
    }

    /// The usable base URL, or why there is none (a message that names the variable).
    pub fn base(&self) -> Result<&BaseUrl, &str> {
        self.base.as_ref().map_err(String::as_str)
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Deliberately leaves the key out.
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("wire", &self.wire)
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}
