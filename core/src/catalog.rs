//! The model catalog: what each model costs and can do, as a host brings it
//! (agon ships a pinned, trimmed snapshot of models.dev; see `catalog/`).
//!
//! The data lives outside the engine, so it never weighs on the component;
//! how a model reference finds its entry lives here, once, for every host:
//! an exact entry; else, for a dated or suffixed name
//! (`claude-sonnet-4-5-20250929`), the longest entry it starts with up to a
//! `-`, `@` or `:`; OpenRouter's `openrouter/VENDOR/MODEL` as that vendor's
//! model; and servers on your own machine cost nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::reasoning::ModelTraits;
use crate::{Error, Price};

/// One model's entry; every field optional, so a user's override may set
/// just one and keep the rest.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<CatalogPrice>,
}

/// USD per million tokens; cached reads and cache writes where the provider
/// bills them apart.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogPrice {
    pub input: f64,
    pub output: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl CatalogEntry {
    /// This entry with every field `over` sets taken from it.
    pub fn overridden_by(self, over: &CatalogEntry) -> CatalogEntry {
        CatalogEntry {
            reasoning: over.reasoning.or(self.reasoning),
            temperature: over.temperature.or(self.temperature),
            context: over.context.or(self.context),
            max_output: over.max_output.or(self.max_output),
            price: over.price.or(self.price),
        }
    }

    /// What the engine needs to know of the model, when the entry knows anything.
    pub fn traits(&self) -> Option<ModelTraits> {
        let known = self.reasoning.is_some()
            || self.temperature.is_some()
            || self.context.is_some()
            || self.max_output.is_some();
        known.then(|| ModelTraits {
            reasoning: self.reasoning.unwrap_or(false),
            temperature: self.temperature.unwrap_or(true),
            context: self.context.filter(|&n| n > 0),
            max_output: self.max_output.filter(|&n| n > 0),
        })
    }

    /// The price as a spec carries it.
    pub fn spec_price(&self) -> Option<Price> {
        self.price.map(|p| Price {
            input: p.input,
            output: p.output,
            cache_read: p.cache_read,
            cache_write: p.cache_write,
        })
    }
}

/// A catalog: where it came from, and its entries by model reference.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Catalog {
    /// Who compiled the data (`models.dev`).
    pub source: String,
    pub licence: String,
    /// The package the snapshot was taken from, with its version.
    pub package: String,
    /// The snapshot's date, `YYYY-MM-DD`.
    pub snapshot: String,
    pub models: BTreeMap<String, CatalogEntry>,
}

/// Entries by model reference, from a JSON object; errors name the field.
pub fn entries(value: &Value, at: &str) -> Result<BTreeMap<String, CatalogEntry>, Error> {
    let object = value.as_object().ok_or_else(|| Error::spec(at, "must be an object of model references"))?;
    let mut out = BTreeMap::new();
    for (model, entry) in object {
        out.insert(model.clone(), CatalogEntry::from_value(entry, &format!("{at}.{model}"))?);
    }
    Ok(out)
}

impl CatalogEntry {
    /// One entry from JSON, `null` fields left unknown; errors name the field.
    pub fn from_value(value: &Value, at: &str) -> Result<CatalogEntry, Error> {
        let object = value.as_object().ok_or_else(|| Error::spec(at, "must be an object"))?;
        let mut entry = CatalogEntry::default();
        for (key, v) in object.iter().filter(|(_, v)| !v.is_null()) {
            let at = format!("{at}.{key}");
            let flag = || v.as_bool().ok_or_else(|| Error::spec(&at, "true or false"));
            let tokens =
                || v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| Error::spec(&at, "a number of tokens"));
            match key.as_str() {
                "reasoning" => entry.reasoning = Some(flag()?),
                "temperature" => entry.temperature = Some(flag()?),
                "context" => entry.context = Some(tokens()?),
                "max_output" => entry.max_output = Some(tokens()?),
                "price" => entry.price = Some(CatalogPrice::from_value(v, &at)?),
                // Facts the hosts' default council reads from the catalog; the engine needs none of them.
                "family" | "knowledge" | "status" | "tool_call" => {}
                _ => return Err(Error::spec(at, "unknown field (reasoning, temperature, context, max_output, price)")),
            }
        }
        Ok(entry)
    }
}

impl CatalogPrice {
    fn from_value(value: &Value, at: &str) -> Result<CatalogPrice, Error> {
        let object = value.as_object().ok_or_else(|| Error::spec(at, "must be an object"))?;
        let usd = |key: &str| -> Result<Option<f64>, Error> {
            match object.get(key).filter(|v| !v.is_null()) {
                None => Ok(None),
                Some(v) => match v.as_f64() {
                    Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
                    _ => Err(Error::spec(format!("{at}.{key}"), "USD per million tokens, zero or more")),
                },
            }
        };
        if let Some(key) =
            object.keys().find(|k| !["input", "output", "cache_read", "cache_write"].contains(&k.as_str()))
        {
            return Err(Error::spec(format!("{at}.{key}"), "unknown field (input, output, cache_read, cache_write)"));
        }
        let needed = |key: &str| usd(key)?.ok_or_else(|| Error::spec(format!("{at}.{key}"), "missing"));
        Ok(CatalogPrice {
            input: needed("input")?,
            output: needed("output")?,
            cache_read: usd("cache_read")?,
            cache_write: usd("cache_write")?,
        })
    }
}

/// Providers that run on your own machine, and people: free.
pub const LOCAL_PROVIDERS: &[&str] = &["ollama", "lmstudio", "vllm", "llamacpp", "human"];

/// OpenRouter's vendor names where agon's provider prefix differs.
const VENDOR_ALIASES: &[(&str, &str)] = &[("google", "gemini"), ("x-ai", "xai"), ("moonshotai", "moonshot")];

/// The agon provider of a vendor as hosts of others' models name it
/// (OpenRouter's `google` is `gemini`, `x-ai` is `xai`); others as given.
pub fn catalog_vendor(vendor: &str) -> &str {
    VENDOR_ALIASES.iter().find(|(from, _)| *from == vendor).map_or(vendor, |(_, to)| to)
}

impl Catalog {
    /// Read a catalog from its JSON; errors name the field.
    pub fn from_json(json: &str) -> Result<Catalog, Error> {
        let value = crate::json_read::parse(json)
            .map_err(|e| Error::spec("catalog", crate::spec::strip_position(&e.to_string())))?;
        Catalog::from_value(&value)
    }

    /// Read by hand rather than derived: the catalog passes through every
    /// host's spec builder, and its derived reader cost the component ~10 KB.
    pub fn from_value(value: &Value) -> Result<Catalog, Error> {
        let object = value.as_object().ok_or_else(|| Error::spec("catalog", "must be an object"))?;
        let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        let models = object.get("models").ok_or_else(|| Error::spec("catalog.models", "missing"))?;
        Ok(Catalog {
            source: text("source"),
            licence: text("licence"),
            package: text("package"),
            snapshot: text("snapshot"),
            models: entries(models, "catalog.models")?,
        })
    }

    /// The models of a reference: a fallback chain (`a/x|b/y`) in order.
    pub fn chain(model: &str) -> impl Iterator<Item = &str> {
        crate::reasoning::chain(model)
    }

    /// The entry for one model reference (not a chain), and the key it was found under.
    pub fn lookup(&self, reference: &str) -> Option<(&str, &CatalogEntry)> {
        if let Some((key, entry)) = self.models.get_key_value(reference) {
            return Some((key, entry));
        }
        let (provider, model) = reference.split_once('/')?;
        // OpenRouter serves other vendors' models at their prices: openrouter/openai/gpt-4o.
        if provider == "openrouter"
            && let Some((vendor, name)) = model.split_once('/')
        {
            return self.lookup(&format!("{}/{name}", catalog_vendor(vendor)));
        }
        self.models
            .iter()
            .filter(|(key, _)| {
                reference.strip_prefix(key.as_str()).is_some_and(|rest| rest.starts_with(['-', '@', ':']))
            })
            .max_by_key(|(key, _)| key.len())
            .map(|(key, entry)| (key.as_str(), entry))
    }

    /// The entry for a reference with `overrides` on top: the catalog's, the
    /// user's, or both merged field by field. Local providers are free.
    pub fn resolve(&self, reference: &str, overrides: &BTreeMap<String, CatalogEntry>) -> Option<CatalogEntry> {
        let mut entry = self.lookup(reference).map(|(_, e)| *e);
        if entry.is_none() && reference.split_once('/').is_some_and(|(p, _)| LOCAL_PROVIDERS.contains(&p)) {
            let free = CatalogPrice { input: 0.0, output: 0.0, cache_read: None, cache_write: None };
            entry = Some(CatalogEntry { price: Some(free), ..CatalogEntry::default() });
        }
        match (entry, overrides.get(reference)) {
            (Some(e), Some(over)) => Some(e.overridden_by(over)),
            (None, Some(over)) => Some(*over),
            (e, None) => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::from_json(
            r#"{"source": "models.dev", "snapshot": "2026-08-18", "models": {
                "openai/gpt-4o": {"reasoning": false, "temperature": true, "context": 128000, "max_output": 16384, "price": {"input": 2.5, "output": 10}},
                "openai/gpt-4o-mini": {"price": {"input": 0.15, "output": 0.6}},
                "anthropic/claude-sonnet-4-5": {"reasoning": true, "price": {"input": 3, "output": 15, "cache_read": 0.3}},
                "gemini/gemini-2.5-pro": {"reasoning": true, "temperature": true}
            }}"#,
        )
        .unwrap()
    }

    #[test]
    fn finds_exact_dated_routed_and_local_models() {
        let c = catalog();
        assert_eq!(c.lookup("openai/gpt-4o").unwrap().0, "openai/gpt-4o");
        assert_eq!(c.lookup("openai/gpt-4o-mini").unwrap().0, "openai/gpt-4o-mini", "an exact entry beats a prefix");
        assert_eq!(c.lookup("openai/gpt-4o-mini-2024-07-18").unwrap().0, "openai/gpt-4o-mini", "the longest prefix");
        assert_eq!(c.lookup("anthropic/claude-sonnet-4-5-20250929").unwrap().0, "anthropic/claude-sonnet-4-5");
        assert!(c.lookup("openai/gpt-4o2").is_none(), "a prefix must end at a separator");
        assert_eq!(c.lookup("openrouter/google/gemini-2.5-pro").unwrap().0, "gemini/gemini-2.5-pro");
        assert_eq!(c.lookup("openrouter/openai/gpt-4o").unwrap().0, "openai/gpt-4o");
        assert!(c.lookup("openai/some-private-model").is_none());
        let free = c.resolve("ollama/llama3.2", &BTreeMap::new()).unwrap();
        assert_eq!(free.spec_price(), Some(Price::new(0.0, 0.0)));
        assert_eq!(free.traits(), None, "a local model's abilities are not known");
    }

    #[test]
    fn overrides_replace_single_fields() {
        let over = BTreeMap::from([
            ("openai/gpt-4o".to_string(), CatalogEntry { temperature: Some(false), ..CatalogEntry::default() }),
            (
                "openai/mine".to_string(),
                CatalogEntry { reasoning: Some(true), max_output: Some(4000), ..CatalogEntry::default() },
            ),
        ]);
        let c = catalog();
        let gpt = c.resolve("openai/gpt-4o", &over).unwrap();
        assert_eq!(gpt.traits().map(|t| (t.temperature, t.context)), Some((false, Some(128_000))));
        assert_eq!(gpt.spec_price(), Some(Price::new(2.5, 10.0)), "the price is kept");
        let mine = c.resolve("openai/mine", &over).unwrap().traits().unwrap();
        assert_eq!((mine.reasoning, mine.temperature, mine.max_output), (true, true, Some(4000)));
        assert_eq!(c.resolve("openai/gpt-4o-mini", &BTreeMap::new()).unwrap().traits(), None, "prices only");
    }

    #[test]
    fn a_bad_entry_is_named() {
        for (json, field) in [
            (r#"{"models": {"a/b": {"reasoning": "yes"}}}"#, "catalog.models.a/b.reasoning"),
            (r#"{"models": {"a/b": {"context": -1}}}"#, "catalog.models.a/b.context"),
            (r#"{"models": {"a/b": {"price": {"input": 1}}}}"#, "catalog.models.a/b.price.output"),
            (r#"{"models": {"a/b": {"price": {"input": 1, "output": -2}}}}"#, "catalog.models.a/b.price.output"),
            (r#"{"models": {"a/b": {"colour": "red"}}}"#, "catalog.models.a/b.colour"),
            (r#"{"source": "x"}"#, "catalog.models"),
        ] {
            let e = Catalog::from_json(json).unwrap_err();
            assert!(e.to_string().contains(field), "{json}: {e}");
        }
        let nulls = Catalog::from_json(
            r#"{"models": {"a/b": {"context": null, "price": {"input": 1, "output": 2, "cache_write": null}}}}"#,
        );
        assert_eq!(nulls.unwrap().models["a/b"].price.map(|p| p.cache_write), Some(None));
    }
}
