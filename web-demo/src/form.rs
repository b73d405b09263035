//! From the page's form to a debate spec. The core validates the result; this
//! only shapes it, the way the CLI shapes its flags.

use agon_core::{DebateSpec, Limits, OptionKind, SpecRequest, build_spec};
use serde::Deserialize;
use serde_json::json;

/// The form's fields that decide the debate (the endpoint and key do not).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Form {
    /// Comma-separated model names, sent to the endpoint as typed.
    pub models: String,
    /// The judge's model; empty for a debate without synthesis.
    #[serde(default)]
    pub judge: String,
    pub protocol: String,
    /// Empty: the protocol's own default.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// One per line: the options `comparative` weighs, the items `priority-vote` ranks.
    #[serde(default)]
    pub options: String,
    pub question: String,
    /// Ceiling on every debate turn; the judge gets twice as much.
    pub max_tokens: u32,
}

/// Build and validate the spec this form describes: the core's spec builder
/// decides seat ids and the judge, as for every host. Errors are for people.
pub fn spec(form: &Form) -> Result<DebateSpec, String> {
    let models: Vec<String> =
        form.models.split(',').map(str::trim).filter(|m| !m.is_empty()).map(String::from).collect();
    if models.is_empty() {
        return Err("Models: give at least one model name".into());
    }
    let lines: Vec<&str> = form.options.lines().map(str::trim).filter(|o| !o.is_empty()).collect();
    let mut options = std::collections::BTreeMap::new();
    if !lines.is_empty() {
        // The textarea fills the protocol's list of texts, whatever the catalog calls it.
        let list = agon_core::protocols()
            .into_iter()
            .find(|p| p.name == form.protocol)
            .and_then(|p| p.options.into_iter().find(|o| o.kind == OptionKind::Texts))
            .ok_or_else(|| format!("Options: {} takes no list", form.protocol))?;
        options.insert(list.name.to_string(), json!(lines));
    }
    let judge = form.judge.trim();
    let request = SpecRequest {
        question: form.question.clone(),
        models,
        judge: Some(judge.to_string()).filter(|j| !j.is_empty()),
        no_judge: judge.is_empty(),
        protocol: form.protocol.clone(),
        options,
        rounds: form.rounds,
        limits: Limits {
            max_tokens: form.max_tokens,
            judge_max_tokens: form.max_tokens.saturating_mul(2),
            ..Limits::default()
        },
        ..SpecRequest::default()
    };
    build_spec(request).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(models: &str, judge: &str) -> Form {
        Form {
            models: models.into(),
            judge: judge.into(),
            protocol: "rotating-challenger".into(),
            rounds: Some(1),
            options: String::new(),
            question: " Tabs or spaces? ".into(),
            max_tokens: 100,
        }
    }

    #[test]
    fn repeated_models_get_numbered_seats() {
        let spec = spec(&form("smollm2, smollm2,org/smollm2", "smollm2")).unwrap();
        let ids: Vec<&str> = spec.panel.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["smollm2", "smollm2-2", "smollm2-3"]);
        assert_eq!(spec.panel[2].model, "org/smollm2");
        assert_eq!(spec.judge.unwrap().model, "smollm2");
        assert_eq!(spec.question, "Tabs or spaces?");
        assert_eq!(spec.limits.judge_max_tokens, 200);
    }

    #[test]
    fn an_empty_judge_means_no_synthesis() {
        assert!(spec(&form("a,b", " ")).unwrap().judge.is_none());
    }

    #[test]
    fn the_core_rejects_what_is_wrong_and_says_where() {
        assert!(spec(&form(" , ", "j")).unwrap_err().starts_with("Models"));
        let mut bad = form("a,b", "j");
        bad.protocol = "shouting-match".into();
        assert!(spec(&bad).unwrap_err().contains("protocol"));
        let mut stray = form("a,b", "j");
        stray.options = "x".into();
        assert!(spec(&stray).unwrap_err().starts_with("Options"));
    }

    #[test]
    fn options_go_where_the_protocol_wants_them() {
        let mut f = form("a,b", "j");
        f.protocol = "priority-vote".into();
        f.options = "fix login\n\n ship dark mode \n".into();
        f.rounds = None;
        let spec = spec(&f).unwrap();
        assert_eq!(spec.rounds, None);
        let json = serde_json::to_value(&spec.protocol).unwrap();
        assert_eq!(json["items"], json!(["fix login", "ship dark mode"]));
    }
}
