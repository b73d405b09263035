//! Challenge's replies: the challengers' verdicts, the defender's responses, the rebuttals.

mod markdown;

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

/// A verdict as the prompt asks for it (JSON), or as the seed displays it
/// (`**Verdict:** disagree` lines).
pub fn verdict(text: &str) -> Result<Verdict, String> {
    let v = extract_json(text)
        .filter(|v| v.get("verdict").is_some())
        .or_else(|| markdown::verdict_as_json(text))
        .ok_or("no JSON verdict and no \"Verdict:\" line in the reply")?;
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
    /// Decision per challenger label, with its reason.
    pub decisions: BTreeMap<String, (Decision, String)>,
    /// The position after this response; `None` when the defender says it is unchanged.
    pub updated_position: Option<String>,
}

/// The defender's answer: the JSON the prompt asks for
/// (`{"responses": [{"challenger", "decision", "reason"}], "updated_position"}`),
/// or the seed's own Markdown (`## RESPONSE TO Challenger N`, `[x] PARTIALLY ACCEPT`).
pub fn defender_response(text: &str, challengers: &[String]) -> Result<DefenderResponse, String> {
    match extract_json(text).filter(|v| v.get("responses").is_some()) {
        Some(v) => json_response(&v, challengers),
        None => markdown::defender_response(text, challengers)
            .map_err(|why| format!("no JSON response, and as Markdown: {why}")),
    }
}

fn json_response(v: &serde_json::Value, challengers: &[String]) -> Result<DefenderResponse, String> {
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
    let updated_position = field_str(v, "updated_position");
    if updated_position.is_empty() {
        return Err("no \"updated_position\"".into());
    }
    let unchanged = updated_position.trim().eq_ignore_ascii_case("unchanged");
    Ok(DefenderResponse { decisions, updated_position: (!unchanged).then_some(updated_position) })
}

/// A challenger's answer to the defender's rejection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Rebuttal {
    Accept,
    Maintain,
    Escalate,
}

/// The rebuttal's choice: a JSON `choice`, else a ticked box (`[x] MAINTAIN`),
/// else a `Choice:` line, else the first of ACCEPT / MAINTAIN / ESCALATE
/// written as a word in capitals, else the first in any case. Lines that
/// only echo the options (`[ ] ACCEPT`, `1. ACCEPT - …` beside `2. MAINTAIN`)
/// choose nothing.
pub fn rebuttal(text: &str) -> Option<Rebuttal> {
    let word = |w: &str, upper: bool| match w.to_ascii_uppercase().as_str() {
        _ if upper && w.chars().any(|c| c.is_lowercase()) => None,
        "ACCEPT" => Some(Rebuttal::Accept),
        "MAINTAIN" => Some(Rebuttal::Maintain),
        "ESCALATE" => Some(Rebuttal::Escalate),
        _ => None,
    };
    let first = |text: &str, upper: bool| text.split(|c: char| !c.is_alphabetic()).find_map(|w| word(w, upper));
    if let Some(v) = extract_json(text) {
        let chosen = ["choice", "decision", "rebuttal"].iter().find_map(|k| first(&field_str(&v, k), false));
        if chosen.is_some() {
            return chosen;
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    let ticked = lines.iter().find_map(|l| {
        let t = l.trim().trim_start_matches(['-', '*', ' ']);
        let rest = t.strip_prefix("[x]").or_else(|| t.strip_prefix("[X]"))?;
        first(rest, false)
    });
    let labelled = || {
        lines.iter().find_map(|l| {
            let t = l.trim().trim_start_matches(['-', '*', '#', ' ']).to_ascii_lowercase();
            let rest = ["my choice", "choice", "decision"].iter().find_map(|k| t.strip_prefix(k))?;
            first(rest.trim_start_matches(['*', ':', ' ']), false)
        })
    };
    let said = own_words(text);
    ticked.or_else(labelled).or_else(|| first(&said, true)).or_else(|| first(&said, false))
}

/// A rebuttal without the lines that only echo the options: the unticked
/// boxes (`[ ] ACCEPT`) and the prompt's numbered list copied whole
/// (`1. ACCEPT - …`, `2. MAINTAIN - …`, `3. ESCALATE - …`). What is left is
/// what the challenger said, for reading its choice and whether it still objects.
pub fn own_words(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let copied = lists_all(&lines);
    let echo = |l: &str| {
        let t = l.trim_start();
        let options = ["ACCEPT", "MAINTAIN", "ESCALATE"].iter().filter(|w| t.contains(*w)).count();
        t.starts_with("[ ]") || (copied && options == 1 && t.starts_with(|c: char| c.is_ascii_digit()))
    };
    lines.into_iter().filter(|l| !echo(l)).collect::<Vec<_>>().join("\n")
}

/// Every option appears on a numbered line of its own: the prompt's list, copied.
fn lists_all(lines: &[&str]) -> bool {
    ["ACCEPT", "MAINTAIN", "ESCALATE"]
        .iter()
        .all(|w| lines.iter().any(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(*w)))
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

    /// The seed's rebuttal prompt numbers the options; a reply that copies
    /// them before choosing, ticks a box or answers in JSON still chose one.
    #[test]
    fn rebuttals_read_the_seeds_markdown_and_json() {
        let copied = "YOUR OPTIONS:\n1. ACCEPT - the response addresses my concern\n2. MAINTAIN - I still disagree\n\
3. ESCALATE - missed the point\n\nMy choice: MAINTAIN, because the runners are still unanswered.";
        assert_eq!(rebuttal(copied), Some(Rebuttal::Maintain));
        assert_eq!(
            rebuttal("[ ] ACCEPT\n[x] ESCALATE - you missed the GPU suite\n[ ] MAINTAIN"),
            Some(Rebuttal::Escalate)
        );
        assert_eq!(rebuttal("**Choice:** accept\nThe KMS plan answers it."), Some(Rebuttal::Accept));
        assert_eq!(
            rebuttal("{\"choice\": \"maintain\", \"reasoning\": \"I ACCEPT nothing\"}"),
            Some(Rebuttal::Maintain)
        );
        // Numbered reasoning that names one option is not the copied list.
        assert_eq!(rebuttal("1. ESCALATE: the key is not the issue."), Some(Rebuttal::Escalate));
    }

    #[test]
    fn defender_responses_read_json_and_markdown_alike() {
        let labels = ["Challenger 1".to_string()];
        let json = r#"{"responses": [{"challenger": "challenger 1", "decision": "partially_accept", "reason": "r"}], "updated_position": "unchanged"}"#;
        let r = defender_response(json, &labels).unwrap();
        assert_eq!(r.decisions["Challenger 1"], (Decision::PartiallyAccept, "r".to_string()));
        assert_eq!(r.updated_position, None);
        let md = "## RESPONSE TO Challenger 1\n[x] PARTIALLY ACCEPT - r\n**Updated position:** v2";
        let r = defender_response(md, &labels).unwrap();
        assert_eq!(r.decisions["Challenger 1"], (Decision::PartiallyAccept, "r".to_string()));
        assert_eq!(r.updated_position.as_deref(), Some("v2"));
        let e = defender_response("I stand by my position.", &labels).unwrap_err();
        assert!(e.starts_with("no JSON response, and as Markdown: no ACCEPT"), "{e}");
    }
}
