//! The default council: the models `agon run` seats when it is given no
//! panel, and the judge it gives a panel that names none, by one rule over
//! the model catalog — never a list of model names kept by hand.
//!
//! The rule, for one lab (a provider whose key is set):
//! 1. **Eligible**: its catalog models that are priced (input and output
//!    above zero), not marked deprecated, general chat models (they take
//!    tool calls), and not an alias (`…-latest`) or a copy of another (an id
//!    that extends another eligible one at the same price: a dated snapshot,
//!    a `-customtools` variant).
//! 2. **Current**: the newest of each family (models.dev's `family`): the
//!    latest training cut-off, then the highest version numbers in the id
//!    (the snapshot gives no release date); of those, the ones whose
//!    cut-off is known, when any is.
//! 3. **Balanced**: of the current models in order of price (three prompt
//!    tokens to one completion token, a debate's mix), the middle one — the
//!    cheaper middle of an even count: neither the lab's smallest tier nor
//!    its dearest.
//! 4. **Then**: the lab's other models, current ones first, each newest first
//!    (cut-off, then version) and, of equal age, nearest in price to the
//!    balanced one, the dearer first.
//!
//! With keys for two labs or more: the balanced model of each (at most
//! three labs), judged by the first lab's next model. Seats left go to other
//! labs through a host of others' models whose key is set (OpenRouter,
//! Together, Groq), by the same rule over that lab's models there: one
//! OpenRouter key seats three labs. With one lab's key and no host's: its
//! first three, judged by its fourth. Docs: `docs/src/providers.md`, "The
//! default council".

use std::cmp::Ordering;
use std::sync::OnceLock;

use serde_json::Value;

/// The seats and judge the rule gives, and the sentence that says why.
#[derive(Debug, Clone, PartialEq)]
pub struct Council {
    pub panel: Vec<String>,
    /// None: no model off the panel to judge (the engine's default then).
    pub judge: Option<String>,
    /// Said before the run: how these were chosen.
    pub why: String,
    /// One model plays every part, on purpose (a single local model).
    pub one_model: bool,
}

/// One eligible model of a lab.
#[derive(Debug, Clone)]
struct Candidate {
    reference: String,
    family: String,
    /// `YYYY-MM[-DD]`, empty when unknown.
    knowledge: String,
    version: Vec<u32>,
    /// USD per million tokens, three prompt tokens to one completion token.
    blended: f64,
    input: f64,
    output: f64,
}

/// The shipped catalog's models, as JSON (the council reads fields the
/// engine does not).
fn models() -> &'static serde_json::Map<String, Value> {
    static MODELS: OnceLock<serde_json::Map<String, Value>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let v: Value = serde_json::from_str(crate::catalog::json()).expect("the catalog in use was read once already");
        v["models"].as_object().cloned().unwrap_or_default()
    })
}

fn version_of(id: &str) -> Vec<u32> {
    id.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty() && s.len() <= 4)
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// Step 1: the eligible models whose reference starts with `prefix` (a
/// lab's `openai/`, or one vendor's models on a host, `openrouter/openai/`).
fn eligible(prefix: &str) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = models()
        .iter()
        .filter_map(|(reference, e)| {
            let id = reference.strip_prefix(prefix)?;
            let (input, output) = (e["price"]["input"].as_f64()?, e["price"]["output"].as_f64()?);
            let general = e["tool_call"] == true && e["status"] != "deprecated" && !id.ends_with("-latest");
            (input > 0.0 && output > 0.0 && general).then(|| Candidate {
                reference: reference.clone(),
                family: e["family"].as_str().unwrap_or(id).to_string(),
                knowledge: e["knowledge"].as_str().unwrap_or_default().to_string(),
                version: version_of(id),
                blended: (3.0 * input + output) / 4.0,
                input,
                output,
            })
        })
        .collect();
    let copies: Vec<String> = out
        .iter()
        .filter(|c| {
            out.iter().any(|o| {
                o.reference != c.reference
                    && c.reference.starts_with(&format!("{}-", o.reference))
                    && (o.input, o.output) == (c.input, c.output)
            })
        })
        .map(|c| c.reference.clone())
        .collect();
    out.retain(|c| !copies.contains(&c.reference));
    out
}

/// Newer first: the later cut-off, then the higher version, then the shorter id.
fn newer(a: &Candidate, b: &Candidate) -> Ordering {
    b.knowledge
        .cmp(&a.knowledge)
        .then_with(|| b.version.cmp(&a.version))
        .then(a.reference.len().cmp(&b.reference.len()))
}

/// The lab's models in the order the rule seats them: the balanced one first.
pub fn ranking(lab: &str) -> Vec<String> {
    ranking_in(&format!("{lab}/"))
}

/// [`ranking`] of the models under `prefix`.
fn ranking_in(prefix: &str) -> Vec<String> {
    let all = eligible(prefix);
    // Step 2: each family's newest.
    let mut heads: Vec<Candidate> = Vec::new();
    for c in &all {
        match heads.iter_mut().find(|h| h.family == c.family) {
            Some(h) if newer(c, h) == Ordering::Less => *h = c.clone(),
            Some(_) => {}
            None => heads.push(c.clone()),
        }
    }
    if heads.iter().any(|h| !h.knowledge.is_empty()) {
        heads.retain(|h| !h.knowledge.is_empty());
    }
    if heads.is_empty() {
        return Vec::new();
    }
    // Step 3: the middle of the price order.
    heads.sort_by(|a, b| a.blended.total_cmp(&b.blended).then_with(|| a.reference.cmp(&b.reference)));
    let balanced = heads[(heads.len() - 1) / 2].clone();
    // Step 4: the others, current first, newest first, then nearest in price (dearer first).
    let distance = |c: &Candidate| (c.blended / balanced.blended).ln().abs();
    let order = |a: &Candidate, b: &Candidate| {
        newer(a, b)
            .then_with(|| distance(a).total_cmp(&distance(b)))
            .then_with(|| b.blended.total_cmp(&a.blended))
            .then_with(|| a.reference.cmp(&b.reference))
    };
    let mut rest: Vec<Candidate> = heads.iter().filter(|h| h.reference != balanced.reference).cloned().collect();
    rest.sort_by(order);
    let mut older: Vec<Candidate> =
        all.into_iter().filter(|c| !heads.iter().any(|h| h.reference == c.reference)).collect();
    older.sort_by(order);
    std::iter::once(balanced).chain(rest).chain(older).map(|c| c.reference).collect()
}

/// Whether a provider serves other vendors' models (Groq, Together): its
/// catalog ids name their vendor (`groq/openai/gpt-oss-120b`).
fn hosts_others(provider: &str) -> bool {
    let prefix = format!("{provider}/");
    models().keys().filter_map(|k| k.strip_prefix(&prefix)).any(|id| id.contains('/'))
}

/// The vendors a host of others' models serves (the first part of its
/// ids: OpenRouter's `anthropic`, `google`), the labs agon calls itself
/// first, in the order of agon's provider list, then the rest by name.
fn vendors(host: &str) -> Vec<String> {
    let prefix = format!("{host}/");
    let mut found: Vec<String> = models()
        .keys()
        .filter_map(|k| k.strip_prefix(&prefix)?.split_once('/').map(|(vendor, _)| vendor.to_string()))
        .collect();
    let labs: Vec<&str> = crate::provider::PRESETS.iter().map(|p| p.name).filter(|p| !hosts_others(p)).collect();
    found.sort_by_cached_key(|vendor| {
        let lab = agon_core::catalog_vendor(vendor);
        (labs.iter().position(|l| *l == lab).unwrap_or(usize::MAX), vendor.clone())
    });
    found.dedup();
    found
}

/// The lab a reference's model is of: its provider's, or on a host of
/// others' models the vendor's (`openrouter/google/…` is `gemini`'s).
fn lab_of(reference: &str) -> &str {
    let (provider, id) = reference.split_once('/').unwrap_or((reference, ""));
    match id.split_once('/') {
        Some((vendor, _)) if hosts_others(provider) => agon_core::catalog_vendor(vendor),
        _ => provider,
    }
}

/// Seats for labs not yet on `panel`, through `host` (a host of others'
/// models), until the panel has three: each lab's balanced current model
/// there; with the rankings they came from, for the judge.
fn through_host(host: &str, panel: &mut Vec<String>) -> Vec<Vec<String>> {
    let mut rankings = Vec::new();
    for vendor in vendors(host) {
        if panel.len() >= 3 {
            break;
        }
        if panel.iter().any(|m| lab_of(m) == agon_core::catalog_vendor(&vendor)) {
            continue;
        }
        let ranking = ranking_in(&format!("{host}/{vendor}/"));
        if let Some(first) = ranking.first() {
            panel.push(first.clone());
            rankings.push(ranking);
        }
    }
    rankings
}

/// The council for the providers whose keys are set, in the order given
/// (agon's provider list): see the module's rule. None when the catalog
/// knows no model of any of them.
pub fn from_keys(providers: &[String]) -> Option<Council> {
    let mut labs: Vec<(&str, Vec<String>)> =
        providers.iter().map(|p| (p.as_str(), ranking(p))).filter(|(_, r)| !r.is_empty()).collect();
    // Labs before hosts of others' models; otherwise the order given.
    labs.sort_by_key(|(p, _)| hosts_others(p));
    let unknown: Vec<&str> =
        providers.iter().map(String::as_str).filter(|p| !labs.iter().any(|(l, _)| l == p)).collect();
    let also = |from: usize| {
        let mut more: Vec<&str> = labs.iter().skip(from).map(|(p, _)| *p).collect();
        more.extend(&unknown);
        if more.is_empty() {
            String::new()
        } else {
            format!("; also set: {} (--panel seats their models)", more.join(", "))
        }
    };
    let own: Vec<&(&str, Vec<String>)> = labs.iter().filter(|(p, _)| !hosts_others(p)).collect();
    let host = labs.iter().map(|(p, _)| *p).find(|p| hosts_others(p));
    // Three labs at most, each its own provider's balanced model; seats left
    // go to other labs through a host of others' models (one OpenRouter key
    // alone seats three labs).
    let mut panel: Vec<String> = own.iter().take(3).map(|(_, r)| r[0].clone()).collect();
    let hosted = host.map(|host| through_host(host, &mut panel)).unwrap_or_default();
    if labs.is_empty() {
        return None;
    }
    if panel.len() < 2 {
        // One lab's key (or a host whose models are not told apart by lab): three of its models.
        let (lab, ranking) = own.first().map_or((labs[0].0, &labs[0].1), |(l, r)| (*l, r));
        let panel: Vec<String> = ranking.iter().take(3).cloned().collect();
        let judge = ranking.get(panel.len()).cloned();
        let why = if panel.len() > 1 {
            format!(
                "{} current models of {lab}, the only lab whose key is set (by the catalog's rule){}",
                panel.len(),
                also(1)
            )
        } else {
            format!("the one current model the catalog knows of {lab}, the only lab whose key is set{}", also(1))
        };
        return Some(Council { one_model: panel.len() == 1, panel, judge, why });
    }
    let judge = own.iter().take(3).map(|(_, r)| r).chain(&hosted).flat_map(|r| r.iter().skip(1)).next().cloned();
    let why = match (own.len(), host) {
        (0, Some(host)) => format!(
            "one model per lab through {host}, the only key set (each lab's balanced current model there, by the catalog's rule){}",
            also(1)
        ),
        (_, Some(host)) if !hosted.is_empty() => format!(
            "one model per lab whose key is set, and through {host} for {} more (each its balanced current model, by the catalog's rule){}",
            hosted.len(),
            also(3)
        ),
        _ => {
            format!("one model per lab whose key is set (its balanced current model, by the catalog's rule){}", also(3))
        }
    };
    Some(Council { panel, judge, why, one_model: false })
}

/// A judge off the panel for a panel that names none: the first seat's
/// lab's next model by the rule, when that seat's model is one the catalog
/// knows of a lab it ranks (a local or unknown model has no such judge).
pub fn judge_for(panel: &[String]) -> Option<String> {
    let primary = |m: &str| m.split('|').next().unwrap_or(m).trim().to_string();
    let first = primary(panel.first()?);
    let (lab, id) = first.split_once('/')?;
    crate::catalog::catalog().lookup(&first)?;
    let seated: Vec<String> = panel.iter().map(|m| primary(m)).collect();
    // On a host of others' models, the judge comes from the same lab there.
    let prefix = match id.split_once('/') {
        Some((vendor, _)) if hosts_others(lab) => format!("{lab}/{vendor}/"),
        _ => format!("{lab}/"),
    };
    ranking_in(&prefix).into_iter().find(|m| !seated.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalog_gives_each_lab_its_middle_tier() {
        // The rule's picks for the pinned snapshot (2026-08-18): when the catalog
        // is refreshed these move with it, and this test says to what.
        assert_eq!(ranking("anthropic")[0], "anthropic/claude-sonnet-5");
        assert_eq!(ranking("openai")[0], "openai/gpt-5.6-terra");
        assert_eq!(ranking("gemini")[0], "gemini/gemini-3.7-flash");
        assert_eq!(ranking("xai")[0], "xai/grok-4.6");
        for lab in ["openai", "anthropic", "gemini", "xai", "deepseek", "moonshot"] {
            let r = ranking(lab);
            let e = eligible(lab);
            for m in &r {
                let entry = &models()[m];
                assert!(entry["status"] != "deprecated" && entry["price"]["input"].as_f64() > Some(0.0), "{m}");
                assert!(!m.ends_with("-latest"), "{m}");
                assert!(e.iter().any(|c| &c.reference == m));
            }
            let mut unique = r.clone();
            unique.dedup();
            assert_eq!(unique.len(), r.len(), "{lab}: distinct");
        }
    }

    #[test]
    fn three_labs_give_one_model_each_and_a_judge_off_the_panel() {
        let keys: Vec<String> = ["openai", "anthropic", "gemini"].map(String::from).to_vec();
        let c = from_keys(&keys).unwrap();
        assert_eq!(c.panel, ["openai/gpt-5.6-terra", "anthropic/claude-sonnet-5", "gemini/gemini-3.7-flash"]);
        let judge = c.judge.unwrap();
        assert!(judge.starts_with("openai/") && !c.panel.contains(&judge), "{judge}");
        assert!(!c.one_model && c.why.contains("one model per lab"), "{}", c.why);
    }

    #[test]
    fn one_lab_gives_three_distinct_current_models_and_says_so() {
        let c = from_keys(&["openai".to_string()]).unwrap();
        assert_eq!(c.panel.len(), 3);
        assert_eq!(c.panel[0], "openai/gpt-5.6-terra");
        let mut distinct = c.panel.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{:?}", c.panel);
        let judge = c.judge.unwrap();
        assert!(!c.panel.contains(&judge), "{judge}");
        assert!(c.why.contains("3 current models of openai, the only lab whose key is set"), "{}", c.why);
    }

    #[test]
    fn one_openrouter_key_seats_a_council_of_three_labs() {
        // The rule's picks for the pinned snapshot, through OpenRouter's ids.
        let c = from_keys(&["openrouter".to_string()]).unwrap();
        assert_eq!(
            c.panel,
            [
                "openrouter/openai/gpt-5.6-terra",
                "openrouter/anthropic/claude-sonnet-5",
                "openrouter/google/gemini-3.7-flash"
            ]
        );
        let judge = c.judge.unwrap();
        assert!(judge.starts_with("openrouter/openai/") && !c.panel.contains(&judge), "{judge}");
        assert!(c.why.contains("one model per lab through openrouter"), "{}", c.why);
        // Each seat is priced by the catalog under its OpenRouter id.
        for m in &c.panel {
            assert!(models()[m]["price"]["input"].as_f64() > Some(0.0), "{m}");
        }
        // A lab's own key seats it through its own provider; the host seats the other labs.
        let both = from_keys(&["anthropic".to_string(), "openrouter".to_string()]).unwrap();
        assert_eq!(
            both.panel,
            ["anthropic/claude-sonnet-5", "openrouter/openai/gpt-5.6-terra", "openrouter/google/gemini-3.7-flash"]
        );
        assert!(both.judge.unwrap().starts_with("anthropic/"));
        assert!(both.why.contains("through openrouter for 2 more"), "{}", both.why);
        // Three labs' own keys leave no seat for the host, which is named as also set.
        let four = ["openai", "anthropic", "gemini", "openrouter"].map(String::from);
        let c = from_keys(&four).unwrap();
        assert!(c.panel.iter().all(|m| !m.starts_with("openrouter/")), "{:?}", c.panel);
        assert!(c.why.contains("also set: openrouter"), "{}", c.why);
        // The judge of a panel on OpenRouter is of the first seat's lab there.
        let judge = judge_for(&["openrouter/anthropic/claude-sonnet-5".to_string()]).unwrap();
        assert!(judge.starts_with("openrouter/anthropic/"), "{judge}");
    }

    #[test]
    fn a_panel_without_a_judge_is_given_one_of_the_first_seat_s_lab() {
        let panel = ["openai/gpt-5.6-terra".to_string(), "anthropic/claude-sonnet-5".to_string()];
        let judge = judge_for(&panel).unwrap();
        assert!(judge.starts_with("openai/") && judge != panel[0], "{judge}");
        assert_eq!(judge_for(&["openai/smollm2".to_string()]), None, "a model the catalog does not know");
        assert_eq!(judge_for(&["ollama/llama3.2".to_string()]), None);
    }
}
