//! `provider/model` references, and a seat's fallback chain `a/x|b/y`.

use super::{PRESETS, provider_names};

/// A parsed `provider/model` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// The provider's name: a preset's, or `cmd`.
    pub provider: String,
    /// The model name as the provider knows it (for `cmd/`, the command's name).
    pub model: String,
}

impl ModelRef {
    pub fn parse(reference: &str) -> Result<ModelRef, String> {
        let reference = reference.trim();
        let Some((provider, model)) = reference.split_once('/') else {
            return Err(format!("model '{reference}' needs a provider: write provider/model, e.g. openai/{reference}"));
        };
        if model.is_empty() {
            return Err(format!("model '{reference}' has no model name after '{provider}/'"));
        }
        if provider == super::client_model::PROVIDER && model != super::client_model::MODEL {
            return Err(format!(
                "'{reference}': the only mcp/ model is mcp/client, the calling MCP client's own (agon mcp asks it through sampling)"
            ));
        }
        if provider != "cmd"
            && provider != super::human::PROVIDER
            && provider != super::client_model::PROVIDER
            && !PRESETS.iter().any(|p| p.name == provider)
        {
            return Err(format!("unknown provider '{provider}' in '{reference}' (known: {})", provider_names()));
        }
        Ok(ModelRef { provider: provider.to_string(), model: model.to_string() })
    }

    /// A seat's model: one reference, or a fallback chain `a/x|b/y` tried in order.
    /// A person (`human/NAME`) has no fallback and is no one's fallback.
    pub fn parse_chain(chain: &str) -> Result<Vec<ModelRef>, String> {
        let models: Vec<ModelRef> = chain.split('|').map(ModelRef::parse).collect::<Result<_, _>>()?;
        if models.len() > 1
            && let Some(person) = models.iter().find(|m| m.provider == super::human::PROVIDER)
        {
            return Err(format!(
                "'{}' puts {} in a fallback chain: a person answers alone; give the seat to the person or to the models",
                chain.trim(),
                person.reference()
            ));
        }
        Ok(models)
    }

    pub fn reference(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_references_and_chains() {
        assert_eq!(
            ModelRef::parse("openai/gpt-4o").unwrap(),
            ModelRef { provider: "openai".into(), model: "gpt-4o".into() }
        );
        assert_eq!(ModelRef::parse("ollama/llama3.2:3b").unwrap().model, "llama3.2:3b");
        assert_eq!(ModelRef::parse("openrouter/google/gemini-2.5-pro").unwrap().model, "google/gemini-2.5-pro");
        assert_eq!(ModelRef::parse("cmd/codex").unwrap().provider, "cmd");
        assert!(ModelRef::parse("gpt-4o").unwrap_err().contains("provider/model"));
        let err = ModelRef::parse("acme/x").unwrap_err();
        assert!(err.contains("unknown provider 'acme'") && err.contains("groq"), "{err}");
        assert!(ModelRef::parse("openai/").is_err());
        let chain = ModelRef::parse_chain("gemini/x | openrouter/y").unwrap();
        assert_eq!(chain.iter().map(ModelRef::reference).collect::<Vec<_>>(), ["gemini/x", "openrouter/y"]);
        assert!(ModelRef::parse_chain("gemini/x|nope").is_err());
        assert_eq!(ModelRef::parse("human/alice").unwrap().provider, "human");
        let err = ModelRef::parse_chain("human/alice|openai/x").unwrap_err();
        assert!(err.contains("human/alice") && err.contains("fallback"), "{err}");
    }

    #[test]
    fn the_calling_client_is_the_one_mcp_model_and_only_agon_mcp_has_it() {
        assert_eq!(ModelRef::parse("mcp/client").unwrap().provider, "mcp");
        let err = ModelRef::parse("mcp/claude").unwrap_err();
        assert!(err.contains("the only mcp/ model is mcp/client"), "{err}");
        // Outside agon mcp nobody can answer for the client: refused before anything is spent.
        let env = crate::provider::Environment::from_env();
        let err = crate::host::preflight(&["mcp/client".into()], &env).unwrap_err();
        assert!(err.contains("only `agon mcp` seats it"), "{err}");
    }
}
