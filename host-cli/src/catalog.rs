//! The model catalog this binary carries: a pinned, trimmed snapshot of
//! models.dev (`catalog/models.json`, refreshed by
//! `scripts/refresh-catalog.py`), with agon.toml's `[models]` and `[prices]`
//! on top. The engine's builder looks models up in it (one rule for every
//! host); this module only brings the data and the user's overrides.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use agon_core::{Catalog, CatalogEntry, CatalogPrice};

use crate::config::Config;
use crate::engine::wit;

/// The snapshot, as shipped: `catalog/models.json`, copied by build.rs (a
/// packed crate carries its own copy).
pub const JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/models.json"));

/// The snapshot, parsed once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::from_json(JSON).expect("the shipped catalog is valid (a test reads it)"))
}

/// agon.toml's own facts: `[models."REF"]`, and `[prices."REF"]` as the price.
pub fn overrides(config: &Config) -> BTreeMap<String, CatalogEntry> {
    let mut out = config.models.clone();
    for (model, p) in &config.prices {
        let price =
            CatalogPrice { input: p.input, output: p.output, cache_read: p.cache_read, cache_write: p.cache_write };
        out.entry(model.clone()).or_default().price = Some(price);
    }
    out
}

/// Providers whose models the catalog is expected to know: a model of
/// theirs missing from it is sent with cautious defaults, and said so.
const HOSTED: &[&str] = &["openai", "anthropic", "gemini", "deepseek", "groq", "xai", "moonshot", "together"];

/// The hosted models of `models` (references, not chains) that neither the
/// catalog nor the user's overrides know: what to warn about before a run.
/// `at_home(provider)`: calls go to the provider's own address (a local
/// server behind `OPENAI_BASE_URL` is no model the catalog could know).
pub fn unknown<'a>(
    models: impl IntoIterator<Item = &'a str>,
    config: &Config,
    at_home: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let overrides = overrides(config);
    let mut out: Vec<String> = models
        .into_iter()
        .filter(|m| m.split_once('/').is_some_and(|(p, _)| HOSTED.contains(&p) && at_home(p)))
        .filter(|m| catalog().resolve(m, &overrides).and_then(|e| e.traits()).is_none())
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The traits the catalog knows for each model of a chain, as a request carries them.
pub fn traits_of(chain: &str) -> Vec<(String, wit::ModelTraits)> {
    agon_core::Catalog::chain(chain)
        .filter_map(|m| {
            let t = catalog().resolve(m, &BTreeMap::new())?.traits()?;
            let traits = wit::ModelTraits {
                reasoning: t.reasoning,
                temperature: t.temperature,
                context: t.context,
                max_output: t.max_output,
            };
            Some((m.to_string(), traits))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalog_reads_and_knows_the_current_models() {
        let c = catalog();
        assert!(c.snapshot.len() == 10 && c.source == "models.dev", "{} {}", c.snapshot, c.source);
        // Facts from the providers' own documentation, not from the snapshot:
        // OpenAI's reasoning models and Opus 4.7 take no temperature.
        for (model, reasoning, temperature) in [
            ("openai/gpt-5", true, false),
            ("openai/o3", true, false),
            ("openai/gpt-4o", false, true),
            ("anthropic/claude-opus-4-7", true, false),
        ] {
            let t = c.resolve(model, &BTreeMap::new()).and_then(|e| e.traits()).unwrap_or_else(|| panic!("{model}"));
            assert_eq!((t.reasoning, t.temperature), (reasoning, temperature), "{model}");
        }
        assert!(c.resolve("anthropic/claude-sonnet-4-5-20250929", &BTreeMap::new()).is_some(), "a dated name");
        // Cache rates come from the snapshot, as the spec's price carries them:
        // Anthropic bills a cache write above the input price, a read at a tenth.
        let sonnet = c.resolve("anthropic/claude-sonnet-4-5", &BTreeMap::new()).and_then(|e| e.spec_price()).unwrap();
        assert!(sonnet.cache_read.unwrap() < sonnet.input && sonnet.cache_write.unwrap() > sonnet.input, "{sonnet:?}");
    }

    #[test]
    fn agon_toml_overrides_and_unknown_hosted_models_are_named() {
        let config = Config::parse(
            "[models.\"openai/mine\"]\nreasoning = true\n[prices.\"openai/gpt-4o\"]\ninput = 1.0\noutput = 2.0\ncache_read = 0.5\n",
            std::path::Path::new("agon.toml"),
        )
        .unwrap();
        let o = overrides(&config);
        assert_eq!(o["openai/gpt-4o"].price.map(|p| (p.input, p.output, p.cache_read)), Some((1.0, 2.0, Some(0.5))));
        assert_eq!(
            unknown(["openai/mine", "openai/gpt-9-preview", "ollama/llama3.2", "openai/gpt-4o"], &config, &|_| true),
            ["openai/gpt-9-preview"]
        );
        assert!(unknown(["openai/gpt-9-preview"], &config, &|_| false).is_empty(), "a local server's model");
    }
}
