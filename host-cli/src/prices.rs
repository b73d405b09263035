//! What models cost, for the worst-case bound before a run and the spending
//! reported after it. The engine computes both from the prices the spec
//! carries; this table is where the CLI finds them.
//!
//! USD per million tokens, as the providers published them in 2025. Prices
//! change: check before relying on them, and override any entry in agon.toml
//! (`[prices."provider/model"]`). Local servers cost nothing.

use std::collections::BTreeMap;

use crate::config::PriceSettings;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// (reference, input, output). A dated model name (`claude-sonnet-4-5-20250929`)
/// takes the price of the longest entry it starts with.
const BUILTIN: &[(&str, f64, f64)] = &[
    ("openai/gpt-5", 1.25, 10.0),
    ("openai/gpt-5-mini", 0.25, 2.0),
    ("openai/gpt-5-nano", 0.05, 0.40),
    ("openai/gpt-4.1", 2.0, 8.0),
    ("openai/gpt-4.1-mini", 0.40, 1.60),
    ("openai/gpt-4.1-nano", 0.10, 0.40),
    ("openai/gpt-4o", 2.50, 10.0),
    ("openai/gpt-4o-mini", 0.15, 0.60),
    ("openai/o3", 2.0, 8.0),
    ("openai/o4-mini", 1.10, 4.40),
    ("anthropic/claude-opus-4-1", 15.0, 75.0),
    ("anthropic/claude-opus-4", 15.0, 75.0),
    ("anthropic/claude-sonnet-4-5", 3.0, 15.0),
    ("anthropic/claude-sonnet-4", 3.0, 15.0),
    ("anthropic/claude-3-7-sonnet", 3.0, 15.0),
    ("anthropic/claude-haiku-4-5", 1.0, 5.0),
    ("anthropic/claude-3-5-haiku", 0.80, 4.0),
    ("gemini/gemini-2.5-pro", 1.25, 10.0),
    ("gemini/gemini-2.5-flash", 0.30, 2.50),
    ("gemini/gemini-2.5-flash-lite", 0.10, 0.40),
    ("gemini/gemini-2.0-flash", 0.10, 0.40),
    ("deepseek/deepseek-chat", 0.27, 1.10),
    ("deepseek/deepseek-reasoner", 0.55, 2.19),
    ("groq/llama-3.3-70b-versatile", 0.59, 0.79),
    ("groq/llama-3.1-8b-instant", 0.05, 0.08),
    ("xai/grok-4", 3.0, 15.0),
    ("xai/grok-3-mini", 0.30, 0.50),
    ("moonshot/kimi-k2", 0.60, 2.50),
];

/// Providers that run on your own machine, and people (`human/`).
const LOCAL: &[&str] = &["ollama", "lmstudio", "vllm", "llamacpp", "human"];

/// The built-in prices with agon.toml's on top.
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    overrides: BTreeMap<String, Price>,
}

impl PriceTable {
    pub fn new(overrides: &BTreeMap<String, PriceSettings>) -> PriceTable {
        PriceTable {
            overrides: overrides.iter().map(|(k, p)| (k.clone(), Price { input: p.input, output: p.output })).collect(),
        }
    }

    /// The price of one model reference (not a chain), if known.
    pub fn lookup(&self, reference: &str) -> Option<Price> {
        if let Some(p) = self.overrides.get(reference) {
            return Some(*p);
        }
        let (provider, model) = reference.split_once('/')?;
        if LOCAL.contains(&provider) {
            return Some(Price { input: 0.0, output: 0.0 });
        }
        // OpenRouter serves other providers' models at their prices: openrouter/openai/gpt-4o.
        if provider == "openrouter" && model.contains('/') {
            return self.lookup(model);
        }
        BUILTIN
            .iter()
            .filter(|(r, _, _)| {
                reference.strip_prefix(r).is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '@', ':']))
            })
            .max_by_key(|(r, _, _)| r.len())
            .map(|&(_, input, output)| Price { input, output })
    }

    /// Prices for every model of `models` (each a reference or a fallback chain),
    /// as the spec's `prices` object; the unknown ones are left out.
    pub fn for_spec(&self, models: &[String]) -> serde_json::Map<String, serde_json::Value> {
        let mut prices = serde_json::Map::new();
        for chain in models {
            for m in chain.split('|').map(str::trim) {
                if let Some(p) = self.lookup(m) {
                    prices.insert(m.to_string(), serde_json::json!({"input": p.input, "output": p.output}));
                }
            }
        }
        prices
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_exact_dated_local_and_routed_models() {
        let t = PriceTable::default();
        assert_eq!(t.lookup("openai/gpt-4o"), Some(Price { input: 2.5, output: 10.0 }));
        assert_eq!(t.lookup("openai/gpt-4o-mini"), Some(Price { input: 0.15, output: 0.60 }), "the longer entry wins");
        assert_eq!(t.lookup("anthropic/claude-sonnet-4-5-20250929"), Some(Price { input: 3.0, output: 15.0 }));
        assert_eq!(t.lookup("openai/gpt-4o2"), None, "a prefix must end at a separator");
        assert_eq!(t.lookup("ollama/llama3.2"), Some(Price { input: 0.0, output: 0.0 }));
        assert_eq!(t.lookup("human/alice"), Some(Price { input: 0.0, output: 0.0 }));
        assert_eq!(t.lookup("openrouter/anthropic/claude-sonnet-4"), Some(Price { input: 3.0, output: 15.0 }));
        assert_eq!(t.lookup("openai/some-private-model"), None);
    }

    #[test]
    fn agon_toml_overrides_and_adds() {
        let mut o = BTreeMap::new();
        o.insert("openai/gpt-4o".to_string(), PriceSettings { input: 1.0, output: 2.0 });
        o.insert("openai/mine".to_string(), PriceSettings { input: 0.5, output: 0.5 });
        let t = PriceTable::new(&o);
        assert_eq!(t.lookup("openai/gpt-4o"), Some(Price { input: 1.0, output: 2.0 }));
        assert_eq!(t.lookup("openai/mine"), Some(Price { input: 0.5, output: 0.5 }));
        let spec = t.for_spec(&["openai/mine|ollama/x".into(), "openai/unknown".into()]);
        assert_eq!(spec.keys().collect::<Vec<_>>(), ["ollama/x", "openai/mine"]);
    }
}
