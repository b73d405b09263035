//! From the page's form to a debate spec. The core validates the result; this
//! only shapes it, the way the CLI shapes its flags.

use agon_core::DebateSpec;
use serde::Deserialize;
use serde_json::{Value, json};

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

/// Build and validate the spec this form describes. Errors are for people.
pub fn spec(form: &Form) -> Result<DebateSpec, String> {
    let models: Vec<String> =
        form.models.split(',').map(str::trim).filter(|m| !m.is_empty()).map(String::from).collect();
    if models.is_empty() {
        return Err("Models: give at least one model name".into());
    }
    let panel: Vec<Value> =
        seat_ids(&models).into_iter().zip(&models).map(|(id, model)| json!({"id": id, "model": model})).collect();
    let judge = form.judge.trim();
    let options: Vec<&str> = form.options.lines().map(str::trim).filter(|o| !o.is_empty()).collect();
    let mut protocol = json!({"name": form.protocol});
    match (form.protocol.as_str(), options.is_empty()) {
        ("comparative", _) => protocol["options"] = json!(options),
        ("priority-vote", _) => protocol["items"] = json!(options),
        (_, true) => {}
        (other, false) => return Err(format!("Options: {other} takes none (only comparative and priority-vote do)")),
    }
    let spec = json!({
        "question": form.question.trim(),
        "panel": panel,
        "judge": (!judge.is_empty()).then(|| json!({"id": "judge", "model": judge})),
        "protocol": protocol,
        "rounds": form.rounds,
        "limits": {
            "max_tokens": form.max_tokens,
            "judge_max_tokens": form.max_tokens.saturating_mul(2),
        },
    });
    DebateSpec::from_json(&spec.to_string()).map_err(|e| e.to_string())
}

/// A seat's id is the model's last path segment; a model that sits twice gets
/// `-2`, `-3`, … (`meta/llama-3` → `llama-3`), as in the CLI.
pub fn seat_ids(models: &[String]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::with_capacity(models.len());
    for model in models {
        let base: String = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .chars()
            .map(|c| if c.is_whitespace() { '-' } else { c })
            .collect();
        let mut id = base.clone();
        let mut n = 2;
        while ids.contains(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        ids.push(id);
    }
    ids
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
