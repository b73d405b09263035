//! The model catalog this binary uses: the one `agon models --update`
//! fetched from models.dev and kept in agon's data folder, else the pinned,
//! trimmed snapshot it carries (`catalog/models.json`, refreshed by
//! `scripts/refresh-catalog.py`), the offline fallback; with agon.toml's
//! `[models]` and `[prices]` on top. The engine's builder looks models up in
//! it (one rule for every host); this module only brings the data and the
//! user's overrides, and fetches a newer catalog when asked.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use agon_core::{Catalog, CatalogEntry, CatalogPrice};

use crate::config::Config;
use crate::engine::wit;

/// The snapshot, as shipped: `catalog/models.json`, copied by build.rs (a
/// packed crate carries its own copy).
pub const JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/models.json"));

/// Where models.dev publishes its catalog.
pub const MODELS_DEV_URL: &str = "https://models.dev/api.json";

/// The catalog in use, where it came from, and what went wrong reading a kept one.
#[derive(Debug)]
pub struct InUse {
    pub catalog: Catalog,
    /// Its JSON (the council reads fields the engine does not).
    pub json: String,
    /// The file it was read from; `None`: the shipped snapshot.
    pub file: Option<PathBuf>,
    /// A kept catalog that could not be read, and why (the snapshot is used).
    pub unreadable: Option<String>,
}

/// Where `agon models --update` keeps the catalog it fetched: beside the
/// sessions (`$AGON_DATA_DIR`, else `$XDG_DATA_HOME/agon`, else `~/.local/share/agon`).
pub fn store_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("AGON_DATA_DIR")
        .map(|d| d.join("catalog.json"))
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("agon").join("catalog.json")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/agon/catalog.json")))
}

/// The catalog in use, read once.
pub fn in_use() -> &'static InUse {
    static IN_USE: OnceLock<InUse> = OnceLock::new();
    IN_USE.get_or_init(|| {
        let snapshot = || Catalog::from_json(JSON).expect("the shipped catalog is valid (a test reads it)");
        let Some(path) = store_path().filter(|p| p.is_file()) else {
            return InUse { catalog: snapshot(), json: JSON.to_string(), file: None, unreadable: None };
        };
        let read = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| Catalog::from_json(&text).map(|c| (c, text)).map_err(|e| e.to_string()));
        match read {
            Ok((catalog, json)) => InUse { catalog, json, file: Some(path), unreadable: None },
            Err(why) => InUse {
                catalog: snapshot(),
                json: JSON.to_string(),
                unreadable: Some(format!(
                    "{} cannot be read ({why}): the shipped snapshot is used; `agon models --update` fetches it again",
                    path.display()
                )),
                file: None,
            },
        }
    })
}

/// The date of the snapshot this binary carries.
pub fn shipped_date() -> String {
    let v: serde_json::Value = serde_json::from_str(JSON).unwrap_or_default();
    v["snapshot"].as_str().unwrap_or("?").to_string()
}

/// The catalog in use, parsed once.
pub fn catalog() -> &'static Catalog {
    &in_use().catalog
}

/// The catalog in use, as JSON.
pub fn json() -> &'static str {
    &in_use().json
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
