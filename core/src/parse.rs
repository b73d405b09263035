//! Structured replies, parsed once into typed values.
//!
//! Models wrap JSON in code fences, lead with prose, trail with commentary.
//! Every parser here tolerates that, never panics, and never invents a value:
//! what cannot be read is an `Err` with a reason the transcript records.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The first JSON object or array in a reply: inside a code fence, or the
/// first balanced `{…}` / `[…]` span that parses.
///
/// Linear in the reply: one pass pairs every bracket with its match (strings
/// respected), and the spans handed to the parser add up to at most a few
/// times the reply's length — a reply full of nested brackets cannot make it
/// quadratic.
pub fn extract_json(text: &str) -> Option<Value> {
    // Fenced blocks first: ```json … ``` or ``` … ```.
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_start = after.find('\n').map_or(0, |i| i + 1);
        let Some(end) = after[body_start..].find("```") else { break };
        let body = &after[body_start..body_start + end];
        if let Ok(v) = serde_json::from_str::<Value>(body.trim())
            && (v.is_object() || v.is_array())
        {
            return Some(v);
        }
        rest = &after[body_start + end + 3..];
    }
    // Then balanced spans, in order of their opening bracket, within a parsing budget.
    let mut budget = PARSE_BUDGET * text.len() + 4096;
    for (start, end) in balanced_spans(text) {
        let span = &text[start..end];
        match serde_json::from_str::<Value>(span) {
            Ok(v) => return Some(v),
            // A parser stops at its first error: charge what it read.
            Err(e) => budget = budget.checked_sub(read_until(span, e.line(), e.column()))?,
        }
    }
    None
}

/// Bytes of `text` up to line `line`, column `column` (1-based, as serde_json reports).
fn read_until(text: &str, line: usize, column: usize) -> usize {
    let mut at = 0;
    for (k, l) in text.split_inclusive('\n').enumerate() {
        if k + 1 == line {
            return (at + column).min(text.len()).max(1);
        }
        at += l.len();
    }
    text.len().max(1)
}

/// The spans [`extract_json`] parses add up to at most this many times the reply.
const PARSE_BUDGET: usize = 8;

/// Every balanced `{…}` / `[…]` span as (start, end) byte offsets, ordered by
/// start; brackets inside JSON strings do not count. One pass, with a stack.
fn balanced_spans(text: &str) -> Vec<(usize, usize)> {
    let mut open: Vec<(usize, u8)> = Vec::new();
    let mut spans = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            // A quote only opens a string inside a bracket: prose quotes stay prose.
            b'"' if !open.is_empty() => in_string = true,
            b'{' | b'[' => open.push((i, b)),
            b'}' | b']' => {
                let want = if b == b'}' { b'{' } else { b'[' };
                match open.pop() {
                    Some((start, kind)) if kind == want => spans.push((start, i + 1)),
                    // A mismatched closer ends every span still open: none of them is JSON.
                    _ => open.clear(),
                }
            }
            _ => {}
        }
    }
    spans.sort_unstable();
    spans
}

fn field_str(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.trim().to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn string_list(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items
            .iter()
            .filter_map(|x| match x {
                Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .collect(),
        Value::String(s) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

// ---------------------------------------------------------------- priorities

/// One lens's priority for one item (items numbered from 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriorityVote {
    pub item: usize,
    /// 0 for P0 (most urgent) to 3 for P3.
    pub level: u8,
    pub why: String,
}

/// `[{"item": 1, "priority": "P0", "why": "..."}]`, for items 1..=n. Every
/// item must be voted on exactly once.
pub fn priorities(text: &str, n: usize) -> Result<Vec<PriorityVote>, String> {
    let value = extract_json(text).ok_or("no JSON list of priorities in the reply")?;
    let list = match &value {
        Value::Array(a) => a.clone(),
        // The list under a conventional key, else under the first key in sorted order: never
        // "whichever the map happens to iterate first", which differs with serde_json's features.
        Value::Object(o) => ["priorities", "items", "votes", "ranking"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_array))
            .or_else(|| {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort_unstable();
                keys.into_iter().find_map(|k| o[k].as_array())
            })
            .cloned()
            .ok_or("the JSON object holds no list")?,
        _ => return Err("the reply's JSON is not a list".into()),
    };
    let mut votes: BTreeMap<usize, PriorityVote> = BTreeMap::new();
    for entry in &list {
        let item = match &entry["item"] {
            Value::Number(n) => n.as_u64().map(|n| n as usize),
            Value::String(s) => s.trim().trim_start_matches('#').parse().ok(),
            _ => None,
        }
        .ok_or_else(|| format!("an entry has no item number: {entry}"))?;
        if item == 0 || item > n {
            return Err(format!("item {item} does not exist (items are 1 to {n})"));
        }
        let p = field_str(entry, "priority").to_ascii_uppercase();
        let level = match p.trim_start_matches('P') {
            "0" => 0,
            "1" => 1,
            "2" => 2,
            "3" => 3,
            _ => return Err(format!("item {item}: priority '{p}' is not P0–P3")),
        };
        if votes.insert(item, PriorityVote { item, level, why: field_str(entry, "why") }).is_some() {
            return Err(format!("item {item} was voted on twice"));
        }
    }
    let missing: Vec<String> = (1..=n).filter(|i| !votes.contains_key(i)).map(|i| i.to_string()).collect();
    if !missing.is_empty() {
        return Err(format!("no priority for item(s) {}", missing.join(", ")));
    }
    Ok(votes.into_values().collect())
}

// ---------------------------------------------------------------- verdicts

/// A challenger's structured verdict (seed 004's format).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub verdict: VerdictKind,
    pub critique: String,
    pub evidence: String,
    pub alternative: String,
    pub confidence: Level,
    pub objection_strength: Strength,
    pub assumptions_challenged: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictKind {
    Agree,
    Partial,
    Disagree,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strength {
    Strong,
    Moderate,
    Minor,
}

fn one_of<T: Copy>(raw: &str, options: &[(&str, T)], what: &str) -> Result<T, String> {
    let lower = raw.trim().to_ascii_lowercase();
    options
        .iter()
        .find(|(name, _)| lower == *name || lower.starts_with(&format!("{name} ")))
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            format!("{what} '{raw}' is not one of {}", options.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))
        })
}

pub fn verdict(text: &str) -> Result<Verdict, String> {
    let v = extract_json(text).ok_or("no JSON verdict in the reply")?;
    if !v.is_object() {
        return Err("the verdict is not a JSON object".into());
    }
    let kind = one_of(
        &field_str(&v, "verdict"),
        &[("agree", VerdictKind::Agree), ("partial", VerdictKind::Partial), ("disagree", VerdictKind::Disagree)],
        "verdict",
    )?;
    let confidence = one_of(
        &field_str(&v, "confidence"),
        &[("high", Level::High), ("medium", Level::Medium), ("low", Level::Low)],
        "confidence",
    )
    .unwrap_or(Level::Medium);
    let strength = one_of(
        &field_str(&v, "objection_strength"),
        &[("strong", Strength::Strong), ("moderate", Strength::Moderate), ("minor", Strength::Minor)],
        "objection_strength",
    )
    .unwrap_or(Strength::Moderate);
    Ok(Verdict {
        verdict: kind,
        critique: field_str(&v, "critique"),
        evidence: field_str(&v, "evidence"),
        alternative: field_str(&v, "alternative"),
        confidence,
        objection_strength: strength,
        assumptions_challenged: string_list(&v["assumptions_challenged"]),
    })
}

/// The defender's answer to one critique.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    Accept,
    PartiallyAccept,
    Reject,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefenderResponse {
    /// Decision per challenger id.
    pub decisions: BTreeMap<String, (Decision, String)>,
    pub updated_position: String,
}

/// `{"responses": [{"challenger": "id", "decision": "accept|partial|reject", "reason": "..."}], "updated_position": "..."}`
pub fn defender_response(text: &str, challengers: &[String]) -> Result<DefenderResponse, String> {
    let v = extract_json(text).ok_or("no JSON response in the reply")?;
    let list = v["responses"].as_array().ok_or("no \"responses\" list")?;
    let mut decisions = BTreeMap::new();
    for r in list {
        let who = field_str(r, "challenger");
        let Some(id) = challengers.iter().find(|c| c.eq_ignore_ascii_case(&who)) else {
            return Err(format!("a response names an unknown challenger '{who}'"));
        };
        let decision = one_of(
            &field_str(r, "decision").replace('_', " "),
            &[
                ("accept", Decision::Accept),
                ("partially accept", Decision::PartiallyAccept),
                ("partial", Decision::PartiallyAccept),
                ("reject", Decision::Reject),
            ],
            "decision",
        )?;
        decisions.insert(id.clone(), (decision, field_str(r, "reason")));
    }
    let updated_position = field_str(&v, "updated_position");
    if updated_position.is_empty() {
        return Err("no \"updated_position\"".into());
    }
    Ok(DefenderResponse { decisions, updated_position })
}

/// A challenger's answer to the defender's rejection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Rebuttal {
    Accept,
    Maintain,
    Escalate,
}

/// The first of ACCEPT / MAINTAIN / ESCALATE written as a word in capitals,
/// else the first in any case.
pub fn rebuttal(text: &str) -> Option<Rebuttal> {
    let find = |upper: bool| {
        text.split(|c: char| !c.is_alphabetic()).find_map(|w| {
            let w2 = if upper { w.to_string() } else { w.to_ascii_uppercase() };
            match w2.as_str() {
                "ACCEPT" if !upper || w == "ACCEPT" => Some(Rebuttal::Accept),
                "MAINTAIN" if !upper || w == "MAINTAIN" => Some(Rebuttal::Maintain),
                "ESCALATE" if !upper || w == "ESCALATE" => Some(Rebuttal::Escalate),
                _ => None,
            }
        })
    };
    find(true).or_else(|| find(false))
}

// ---------------------------------------------------------------- rankings

/// The labels a ranker ordered, best first: from the `FINAL RANKING:` list,
/// else every label mentioned in order. Only known labels, each once.
pub fn final_ranking(text: &str, labels: &[String]) -> Vec<String> {
    let section = text.rfind("FINAL RANKING").map(|i| &text[i..]).unwrap_or(text);
    let mut order = Vec::new();
    for line in section.lines() {
        push_labels(line, labels, &mut order);
    }
    if order.is_empty() {
        push_labels(text, labels, &mut order);
    }
    order
}

/// Append the labels mentioned in `s`, in order of appearance, skipping repeats.
fn push_labels(s: &str, labels: &[String], order: &mut Vec<String>) {
    let mut found: Vec<(usize, &String)> =
        labels.iter().filter_map(|l| s.find(l.as_str()).map(|pos| (pos, l))).collect();
    found.sort_unstable();
    for (_, l) in found {
        if !order.contains(l) {
            order.push(l.clone());
        }
    }
}

// ---------------------------------------------------------------- scorecard

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    pub name: String,
    /// Relative weight, 1–100.
    pub weight: u32,
    /// Score 1–5 per option.
    pub scores: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scorecard {
    pub criteria: Vec<Criterion>,
    /// Σ weight × score per option, computed here, not taken from the model.
    pub totals: BTreeMap<String, u32>,
    pub recommendation: String,
}

/// `{"criteria": [{"name", "weight", "scores": {"A": 4, "B": 3}}], "recommendation": "A"}`
/// with options labelled A, B, … in order.
pub fn scorecard(text: &str, labels: &[String]) -> Result<Scorecard, String> {
    let v = extract_json(text).ok_or("no JSON scorecard in the reply")?;
    let list = v["criteria"].as_array().ok_or("no \"criteria\" list")?;
    if list.is_empty() {
        return Err("the scorecard has no criteria".into());
    }
    let mut criteria = Vec::new();
    for c in list {
        let name = field_str(c, "name");
        let weight = c["weight"]
            .as_u64()
            .filter(|w| (1..=100).contains(w))
            .ok_or(format!("criterion '{name}': weight must be 1–100"))?;
        let mut scores = BTreeMap::new();
        for label in labels {
            let s = c["scores"][label.as_str()]
                .as_u64()
                .filter(|s| (1..=5).contains(s))
                .ok_or(format!("criterion '{name}': no 1–5 score for option {label}"))?;
            scores.insert(label.clone(), s as u32);
        }
        criteria.push(Criterion { name, weight: weight as u32, scores });
    }
    let totals = labels.iter().map(|l| (l.clone(), criteria.iter().map(|c| c.weight * c.scores[l]).sum())).collect();
    Ok(Scorecard { criteria, totals, recommendation: field_str(&v, "recommendation") })
}

// ---------------------------------------------------------------- review

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConcernScore {
    pub concern: u32,
    /// 1 (a stretch) to 5 (a genuine, unaddressed issue).
    pub score: u32,
}

/// The judge's competitive review, as seed 001's output format asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    pub concerns: Vec<ConcernScore>,
    /// Whether the judge found the challenger pulling its punches; `None` when it did not say.
    pub pulled_punches: Option<bool>,
    pub key_narratives: Vec<String>,
    pub agreement_zones: Vec<String>,
    pub contested_zones: Vec<String>,
}

/// The JSON block closing the judge's review.
pub fn review(text: &str) -> Result<Review, String> {
    let v = extract_json(text).ok_or("no JSON block closing the review")?;
    let list = v["concerns"].as_array().ok_or("no \"concerns\" list")?;
    let mut concerns = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let score = c["score"]
            .as_u64()
            .filter(|s| (1..=5).contains(s))
            .ok_or(format!("concern {}: score must be 1–5", i + 1))?;
        let concern = c["concern"].as_u64().unwrap_or(i as u64 + 1) as u32;
        concerns.push(ConcernScore { concern, score: score as u32 });
    }
    Ok(Review {
        concerns,
        // Never invented: a review that does not say stays silent on it.
        pulled_punches: v["pulled_punches"].as_bool(),
        key_narratives: string_list(&v["key_narratives"]),
        agreement_zones: string_list(&v["agreement_zones"]),
        contested_zones: string_list(&v["contested_zones"]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_after_many_bracketed_asides_and_inside_deep_nesting() {
        let asides = "[see above] ".repeat(500);
        assert_eq!(extract_json(&format!("{asides} {{\"a\": 1}}")), Some(serde_json::json!({"a": 1})));
        // The outermost balanced span is valid JSON: nested arrays around the object.
        let deep = format!("{}{{\"b\": [1, 2]}}{}", "[".repeat(100), "]".repeat(100));
        assert!(extract_json(&deep).unwrap().is_array());
        // Past the parser's depth limit every span fails; the budget ends the search.
        let deeper = format!("{}{{\"b\": [1, 2]}}{}", "[".repeat(50_000), "]".repeat(50_000));
        let _ = extract_json(&deeper);
        // Unbalanced brackets everywhere, and a valid object at the end.
        let noisy = format!("{}{{\"c\": true}}", "{[".repeat(20_000));
        assert_eq!(extract_json(&noisy), Some(serde_json::json!({"c": true})));
        assert_eq!(extract_json("no json [here] {or: here}"), None);
    }

    #[test]
    fn finds_json_in_fences_and_prose() {
        assert_eq!(extract_json("Sure!\n```json\n[1, 2]\n```\nDone."), Some(serde_json::json!([1, 2])));
        assert_eq!(extract_json("Here: {\"a\": \"}\"} and more"), Some(serde_json::json!({"a": "}"})));
        assert_eq!(extract_json("no json [at all"), None);
        assert_eq!(extract_json("[not json] then {\"b\": 1}"), Some(serde_json::json!({"b": 1})));
    }

    #[test]
    fn priorities_need_every_item_once() {
        let ok = "```json\n[{\"item\": 2, \"priority\": \"P1\", \"why\": \"b\"}, {\"item\": 1, \"priority\": \"p0\", \"why\": \"a\"}]\n```";
        let votes = priorities(ok, 2).unwrap();
        assert_eq!((votes[0].item, votes[0].level, votes[1].level), (1, 0, 1));
        assert!(priorities("[{\"item\": 1, \"priority\": \"P0\"}]", 2).unwrap_err().contains("item(s) 2"));
        assert!(priorities("[{\"item\": 3, \"priority\": \"P0\"}]", 2).unwrap_err().contains("does not exist"));
        assert!(priorities("[{\"item\": 1, \"priority\": \"P7\"}]", 1).unwrap_err().contains("P0–P3"));
        assert!(priorities("I think item 1 is urgent.", 1).is_err());
    }

    #[test]
    fn verdicts_parse_and_reject_nonsense() {
        let v = verdict("My verdict:\n{\"verdict\": \"disagree\", \"critique\": \"c\", \"evidence\": \"e\", \"alternative\": \"a\", \"confidence\": \"high\", \"objection_strength\": \"strong\", \"assumptions_challenged\": [\"x\"]}").unwrap();
        assert_eq!(
            (v.verdict, v.confidence, v.objection_strength),
            (VerdictKind::Disagree, Level::High, Strength::Strong)
        );
        assert_eq!(v.assumptions_challenged, vec!["x"]);
        assert!(verdict("{\"verdict\": \"maybe\"}").is_err());
    }

    #[test]
    fn rebuttals_prefer_capitalized_keywords() {
        assert_eq!(rebuttal("I accept part of it, but MAINTAIN my objection."), Some(Rebuttal::Maintain));
        assert_eq!(rebuttal("escalate: you missed the point"), Some(Rebuttal::Escalate));
        assert_eq!(rebuttal("no idea"), None);
    }

    #[test]
    fn rankings_read_the_final_list_then_fall_back() {
        let labels: Vec<String> = ["Response A", "Response B", "Response C"].iter().map(|s| s.to_string()).collect();
        let text = "Response A is thin.\nFINAL RANKING:\n1. Response C\n2. Response A\n3. Response B";
        assert_eq!(final_ranking(text, &labels), ["Response C", "Response A", "Response B"]);
        assert_eq!(final_ranking("I prefer Response B over Response A.", &labels), ["Response B", "Response A"]);
    }

    #[test]
    fn scorecards_compute_their_own_totals() {
        let labels = vec!["A".to_string(), "B".to_string()];
        let text = "{\"criteria\": [{\"name\": \"cost\", \"weight\": 60, \"scores\": {\"A\": 2, \"B\": 5}}, {\"name\": \"fit\", \"weight\": 40, \"scores\": {\"A\": 5, \"B\": 3}}], \"recommendation\": \"B\", \"totals\": {\"A\": 999}}";
        let s = scorecard(text, &labels).unwrap();
        assert_eq!(s.totals["A"], 60 * 2 + 40 * 5);
        assert_eq!(s.totals["B"], 60 * 5 + 40 * 3);
        assert!(scorecard("{\"criteria\": [{\"name\": \"x\", \"weight\": 0, \"scores\": {}}]}", &labels).is_err());
    }
}
