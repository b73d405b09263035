//! The providers agon knows out of the box: each a wire format, a default
//! address, and the variables that configure it.

/// How a provider's requests and replies are shaped: the wire layer's own
/// families, so the CLI names each as every host does. A program run per
/// call (`cmd/NAME`) is no provider: it has no preset.
pub use agon_wire::Wire;

/// A provider as agon knows it out of the box.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    pub wire: Wire,
    pub default_url: &'static str,
    pub url_var: &'static str,
    pub key_var: Option<&'static str>,
    /// Hosted services refuse calls without a key; local servers need none.
    pub key_required: bool,
}

const fn preset(name: &'static str, wire: Wire, url: &'static str, url_var: &'static str, key: &'static str) -> Preset {
    Preset { name, wire, default_url: url, url_var, key_var: Some(key), key_required: true }
}

const fn local(name: &'static str, url: &'static str, url_var: &'static str, key: &'static str) -> Preset {
    Preset { name, wire: Wire::OpenAi, default_url: url, url_var, key_var: Some(key), key_required: false }
}

/// Every HTTP provider. The presets only set a base URL and a key variable.
pub const PRESETS: &[Preset] = &[
    preset("openai", Wire::OpenAi, "https://api.openai.com/v1", "OPENAI_BASE_URL", "OPENAI_API_KEY"),
    preset("anthropic", Wire::Anthropic, "https://api.anthropic.com", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    preset(
        "gemini",
        Wire::Gemini,
        "https://generativelanguage.googleapis.com/v1beta",
        "GEMINI_BASE_URL",
        "GEMINI_API_KEY",
    ),
    Preset {
        name: "ollama",
        wire: Wire::Ollama,
        default_url: "http://127.0.0.1:11434",
        url_var: "OLLAMA_HOST",
        key_var: None,
        key_required: false,
    },
    preset("openrouter", Wire::OpenAi, "https://openrouter.ai/api/v1", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY"),
    preset("groq", Wire::OpenAi, "https://api.groq.com/openai/v1", "GROQ_BASE_URL", "GROQ_API_KEY"),
    preset("together", Wire::OpenAi, "https://api.together.xyz/v1", "TOGETHER_BASE_URL", "TOGETHER_API_KEY"),
    preset("deepseek", Wire::OpenAi, "https://api.deepseek.com/v1", "DEEPSEEK_BASE_URL", "DEEPSEEK_API_KEY"),
    preset("moonshot", Wire::OpenAi, "https://api.moonshot.ai/v1", "MOONSHOT_BASE_URL", "MOONSHOT_API_KEY"),
    preset("xai", Wire::OpenAi, "https://api.x.ai/v1", "XAI_BASE_URL", "XAI_API_KEY"),
    local("lmstudio", "http://127.0.0.1:1234/v1", "LMSTUDIO_BASE_URL", "LMSTUDIO_API_KEY"),
    local("vllm", "http://127.0.0.1:8000/v1", "VLLM_BASE_URL", "VLLM_API_KEY"),
    local("llamacpp", "http://127.0.0.1:8080/v1", "LLAMACPP_BASE_URL", "LLAMACPP_API_KEY"),
];

/// The provider names a reference may start with.
pub fn provider_names() -> String {
    let mut names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    names.extend(["cmd", "human"]);
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_its_own_variables() {
        let mut url_vars: Vec<&str> = PRESETS.iter().map(|p| p.url_var).collect();
        url_vars.sort_unstable();
        url_vars.dedup();
        assert_eq!(url_vars.len(), PRESETS.len());
        for p in PRESETS {
            assert!(p.default_url.starts_with("http"), "{}", p.name);
            assert!(!p.default_url.ends_with('/'), "{}", p.name);
        }
    }
}
