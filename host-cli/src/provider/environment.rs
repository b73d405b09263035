//! Every endpoint and command model one run can call, from the environment
//! variables and agon.toml; and the secrets no message may show.

use std::collections::BTreeMap;

use super::literal_resolver::LiteralFirst;
use super::{BaseUrl, Endpoint, PRESETS, Wire, command, gate, retry};
use crate::config::Config;

/// Each HTTP connection's input and output buffer.
const BUFFER_BYTES: usize = 32 * 1024;

/// Every endpoint and command model this run can call.
#[derive(Debug, Clone)]
pub struct Environment {
    pub endpoints: BTreeMap<String, Endpoint>,
    pub commands: BTreeMap<String, command::CommandModel>,
    pub retry: retry::RetryPolicy,
    /// Limits shared with other debates (`agon batch`); none for a single run.
    pub gate: Option<std::sync::Arc<gate::CallGate>>,
    /// Calls in flight per provider, where agon.toml limits them.
    pub slots: std::sync::Arc<gate::ProviderSlots>,
    /// Who answers `mcp/client` seats: the calling MCP client, in `agon mcp` only.
    pub client: Option<std::sync::Arc<dyn super::client_model::ClientModel>>,
}

impl Environment {
    /// From the environment variables only.
    pub fn from_env() -> Environment {
        Environment::new(&Config::default())
    }

    /// From the environment variables, with agon.toml's `[providers]` and `[commands]`.
    pub fn new(config: &Config) -> Environment {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let http_config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // ureq's buffers are 128 KiB each way per connection by default,
            // and `agon batch` holds hundreds of calls in flight: 600 of them
            // were 150 MB of its peak. A response's headers must fit in the
            // input buffer (providers send a few KiB); bodies stream through
            // both buffers in pieces, so these sizes bound no prompt or reply.
            .input_buffer_size(BUFFER_BYTES)
            .output_buffer_size(BUFFER_BYTES)
            .build();
        let agent = ureq::Agent::with_parts(
            http_config,
            ureq::unversioned::transport::DefaultConnector::new(),
            LiteralFirst::default(),
        );
        let mut endpoints = BTreeMap::new();
        for p in PRESETS {
            let settings = config.providers.get(p.name);
            let (mut raw_url, url_var) = match settings.and_then(|s| s.base_url.clone()) {
                Some(url) => (url, format!("[providers.{}] base_url in agon.toml", p.name)),
                None => (var(p.url_var).unwrap_or_else(|| p.default_url.to_string()), p.url_var.to_string()),
            };
            if p.wire == Wire::Ollama && !raw_url.contains("://") {
                raw_url = format!("http://{raw_url}"); // OLLAMA_HOST is often host:port
            }
            let key_var = settings.and_then(|s| s.key_env.clone()).or(p.key_var.map(str::to_string));
            let api_key = key_var.as_deref().and_then(var);
            // A key is required by the hosted service at its own address; an
            // OpenAI-compatible URL elsewhere (a local server) may need none.
            let key_required = p.key_required && (raw_url.trim_end_matches('/') == p.default_url || p.name != "openai");
            let base = BaseUrl::parse(&raw_url, &url_var, key_var.as_deref());
            let base_url = match &base {
                Ok(b) => b.shown(),
                Err(_) => format!("(the URL in {url_var}, unusable)"),
            };
            endpoints.insert(
                p.name.to_string(),
                Endpoint {
                    provider: p.name.to_string(),
                    wire: p.wire,
                    base_url,
                    base,
                    url_var,
                    api_key,
                    key_var,
                    key_required,
                    agent: agent.clone(),
                    default_url: raw_url.trim_end_matches('/') == p.default_url,
                    server_models: Default::default(),
                },
            );
        }
        let mut commands = command::builtin();
        for (name, c) in &config.commands {
            commands.insert(name.clone(), command::CommandModel::from_settings(name, c));
        }
        let limits = config.providers.iter().filter_map(|(p, s)| Some((p.clone(), s.concurrency?))).collect();
        let slots = std::sync::Arc::new(gate::ProviderSlots::new(limits));
        let mut retry = retry::RetryPolicy::default();
        if let Some(seconds) = config.defaults.max_retry_wait {
            retry.rule.max_wait_ms = seconds.saturating_mul(1000);
        }
        Environment { endpoints, commands, retry, gate: None, slots, client: None }
    }

    pub fn endpoint(&self, provider: &str) -> Option<&Endpoint> {
        self.endpoints.get(provider)
    }

    /// Every secret a message could leak, for redaction: keys, and the
    /// values of base URLs' queries (a server may echo them).
    pub fn secrets(&self) -> Vec<String> {
        let keys = self.endpoints.values().filter_map(|e| e.api_key.clone()).filter(|k| k.len() >= 4);
        let in_urls = self.endpoints.values().filter_map(|e| e.base.as_ref().ok()).flat_map(BaseUrl::secrets);
        keys.chain(in_urls).collect()
    }
}

/// Remove every key from any text that might echo one.
pub fn redact(message: &str, secrets: &[String]) -> String {
    secrets.iter().fold(message.to_string(), |m, key| m.replace(key.as_str(), "[redacted]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agon_toml_overrides_url_and_key_variable() {
        let config = Config::parse(
            "[providers.groq]\nbase_url = \"http://127.0.0.1:9/v1/\"\nkey_env = \"AGON_TEST_UNSET_KEY_VAR\"\n",
            std::path::Path::new("agon.toml"),
        )
        .unwrap();
        let env = Environment::new(&config);
        let groq = env.endpoint("groq").unwrap();
        assert_eq!(groq.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(groq.key_var.as_deref(), Some("AGON_TEST_UNSET_KEY_VAR"));
        assert!(groq.url_var.contains("agon.toml"));
        assert_eq!(groq.api_key, None);
    }

    #[test]
    fn redacts_every_key() {
        let secrets = vec!["sk-secret-123".to_string(), "gm-key-456".to_string()];
        assert_eq!(redact("bad key sk-secret-123 and gm-key-456", &secrets), "bad key [redacted] and [redacted]");
    }
}
