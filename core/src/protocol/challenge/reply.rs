//! Challenge's replies: the challengers' verdicts, the defender's responses, the rebuttals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::parse::{extract_json, field_str, one_of, string_list};

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

impl VerdictKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Agree => "agree",
            VerdictKind::Partial => "partial",
            VerdictKind::Disagree => "disagree",
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
