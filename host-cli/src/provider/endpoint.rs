//! Where one HTTP provider lives, and the key it takes.

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
}

impl Endpoint {
    /// The URL of one call: `segments` after the base's path, then `query`.
    pub fn target(&self, segments: &[&str], query: &[(&str, &str)]) -> Result<Target, CallError> {
        self.base.as_ref().map(|b| b.join(segments, query)).map_err(|e| CallError::provider(e.clone()))
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
