//! Where one model of a call lives, and the one rule for which API it is
//! spoken to in: every host (the CLI, the page, the SDKs) asks it here.

use crate::request::{Api, ServerModel};

/// The family of API a provider speaks, as a host configures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI's chat completions, at OpenAI or a compatible server.
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

/// One model of a call's fallback chain.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A model behind an HTTP API: the exchange says what to send.
    Http(HttpTarget),
    /// A model the host answers itself (a program, a person, an MCP
    /// client): the exchange only counts the attempts and walks on.
    Host { reference: String },
}

/// A model behind an HTTP API, as the host resolved it.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpTarget {
    /// The reference as the spec wrote it (`openai/o3`): its traits are
    /// looked up in the request under this name.
    pub reference: String,
    /// The model's name at its provider (`o3`).
    pub model: String,
    pub wire: Wire,
    /// The API the host insists on (an SDK's `api` option), over the rule.
    pub api: Option<Api>,
    /// The base URL: which API an OpenAI endpoint speaks follows its host.
    pub base_url: String,
    /// What the server said of the model (Ollama's `/api/show`), where the host asked.
    pub server: Option<ServerModel>,
    /// What to check when the key is refused (`OPENAI_API_KEY`), if any.
    pub key_var: Option<String>,
    /// What sets the base URL (`OPENAI_BASE_URL`), named when a path is not found.
    pub url_var: Option<String>,
}

impl Target {
    pub fn reference(&self) -> &str {
        match self {
            Target::Http(t) => &t.reference,
            Target::Host { reference } => reference,
        }
    }
}

impl HttpTarget {
    /// The API this model is spoken to in: the host's, else [`Api::choose`].
    pub fn api(&self, known: bool) -> Api {
        self.api.unwrap_or_else(|| Api::choose(self.wire, &self.base_url, &self.reference, known))
    }

    /// What a failed status would have the person check.
    pub(crate) fn hint(&self, status: u16) -> String {
        match (status, &self.key_var, &self.url_var) {
            (401 | 403, Some(var), _) => format!(" (check {var})"),
            (404, _, Some(var)) => format!(" (is {var} right, and does it serve this model?)"),
            _ => String::new(),
        }
    }
}

impl Api {
    /// The one rule for an OpenAI endpoint: OpenAI's own conventions
    /// (`max_completion_tokens`, no temperature for a model not known to
    /// take one) at its address, and for an `openai/` model the catalog
    /// knows wherever it is served (a proxy in front of OpenAI); anything
    /// else is a compatible server's (`max_tokens`). `known`: the request
    /// carries the model's traits.
    pub fn choose(wire: Wire, base_url: &str, reference: &str, known: bool) -> Api {
        match wire {
            Wire::OpenAi if host(base_url).eq_ignore_ascii_case("api.openai.com") => Api::OpenAi,
            Wire::OpenAi if known && reference.starts_with("openai/") => Api::OpenAi,
            Wire::OpenAi => Api::OpenAiCompatible,
            Wire::Anthropic => Api::Anthropic,
            Wire::Gemini => Api::Gemini,
            Wire::Ollama => Api::Ollama,
        }
    }
}

/// A URL's host: no scheme, user, port, path or query.
fn host(url: &str) -> &str {
    let url = url.trim();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openais_conventions_hold_at_its_address_and_for_its_known_models() {
        let at = |url: &str, reference: &str, known: bool| Api::choose(Wire::OpenAi, url, reference, known);
        assert_eq!(at("https://api.openai.com/v1", "gpt-5", false), Api::OpenAi, "the page: what was typed");
        assert_eq!(at(" HTTPS://API.OPENAI.COM:443/v1/ ", "openai/x", false), Api::OpenAi);
        assert_eq!(at("https://user@api.openai.com/v1", "openai/x", false), Api::OpenAi);
        assert_eq!(at("http://127.0.0.1:8080/v1", "openai/gpt-4o", true), Api::OpenAi, "a proxy, a known model");
        assert_eq!(at("http://127.0.0.1:8080/v1", "openai/my-local", false), Api::OpenAiCompatible);
        assert_eq!(at("https://api.groq.com/openai/v1", "groq/llama", true), Api::OpenAiCompatible);
        assert_eq!(at("https://api.openai.com.evil.example/v1", "x", false), Api::OpenAiCompatible);
        assert_eq!(at("http://[::1]:8080/v1", "x", false), Api::OpenAiCompatible);
        assert_eq!(Api::choose(Wire::Anthropic, "https://api.openai.com", "a", true), Api::Anthropic);
    }
}
