//! A council of one model. Protocols whose worth is in different minds
//! disagreeing (a challenger, an adversary, peer rankings) mean little when
//! every seat runs the same model; seed 004 aborts its challenge outright
//! ("debating itself provides no genuine diversity"). The spec says how
//! strictly to hold that: warn (the default), refuse, or say nothing.

use serde::{Deserialize, Serialize};

use crate::{DebateSpec, Error};

/// How a spec treats a panel whose every seat runs one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Diversity {
    /// A warning in the transcript; challenge, as its seed, refuses.
    #[default]
    Warn,
    /// Refused, for every protocol that needs different models.
    Strict,
    /// Allowed without a word (one model on purpose: a test, a local demo),
    /// the judge's seat on the panel too.
    Off,
}

impl Diversity {
    pub(crate) fn is_default(&self) -> bool {
        *self == Diversity::default()
    }
}

/// The one model every seat of a panel of two or more runs (a fallback
/// chain's first model), when the protocol needs different ones.
fn one_model(spec: &DebateSpec) -> Option<&str> {
    let needs = match spec.document() {
        // A document of one's own says so itself (`seats.different_models`).
        Some(doc) => doc["seats"]["different_models"] == true,
        None => crate::protocol::registry::of(spec).needs_different_models,
    };
    if !needs {
        return None;
    }
    fn primary(model: &str) -> &str {
        model.split('|').next().unwrap_or(model).trim()
    }
    let first = primary(&spec.panel.first()?.model);
    (spec.panel.len() > 1 && spec.panel.iter().all(|s| primary(&s.model) == first)).then_some(first)
}

/// Refuse a one-model council where the spec (or challenge's seed) says so.
pub(crate) fn check(spec: &DebateSpec) -> Result<(), Error> {
    let Some(model) = one_model(spec) else { return Ok(()) };
    let protocol = spec.protocol.name();
    match spec.limits.diversity {
        Diversity::Off => Ok(()),
        Diversity::Warn if protocol != "challenge" => Ok(()),
        Diversity::Warn => Err(Error::spec(
            "panel",
            format!(
                "the defender and every challenger run {model}: a model debating itself provides no genuine \
                 diversity, so challenge stops here rather than fake a debate; give the challengers other models, or \
                 insist (limits.diversity = \"off\", the CLI's --allow-one-model)"
            ),
        )),
        Diversity::Strict => Err(Error::spec(
            "limits.diversity",
            format!(
                "every seat runs {model}, and {protocol} needs different models to mean anything (strict); give \
                 the panel other models"
            ),
        )),
    }
}

/// The warning a one-model council carries when it is allowed to run.
pub(crate) fn warning(spec: &DebateSpec) -> Option<String> {
    let model = one_model(spec)?;
    (spec.limits.diversity == Diversity::Warn).then(|| {
        format!(
            "every seat runs {model}: {} draws its worth from different models disagreeing, and one model tends \
             to agree with itself; give the panel other models for a real challenge",
            spec.protocol.name()
        )
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::{Error, Session};

    fn spec(protocol: &str, models: &[&str], diversity: Option<&str>) -> Value {
        let panel: Vec<Value> =
            models.iter().enumerate().map(|(i, m)| json!({"id": format!("s{i}"), "model": m})).collect();
        let mut spec = json!({"question": "Q?", "panel": panel, "judge": {"id": "j", "model": "openai/j"},
            "protocol": {"name": protocol}});
        if let Some(d) = diversity {
            spec["limits"] = json!({"max_tokens": 100, "judge_max_tokens": 100, "temperature": 0.5, "diversity": d});
        }
        spec
    }

    fn start(spec: &Value) -> Result<Session, Error> {
        Session::from_spec_json(&spec.to_string())
    }

    fn field(e: Error) -> String {
        match e {
            Error::InvalidSpec { field, .. } => field,
            other => panic!("{other}"),
        }
    }

    fn warned(session: &Session) -> bool {
        session.transcript().warnings.iter().any(|w| w.message.starts_with("every seat runs openai/m:"))
    }

    /// Seed 004: challenge aborts when the defender is also every challenger;
    /// `off` insists, and a fallback chain counts by its first model.
    #[test]
    fn challenge_of_one_model_is_refused_unless_insisted_on() {
        let one = spec("challenge", &["openai/m", "openai/m|openai/n", "openai/m"], None);
        let e = start(&one).err().unwrap();
        assert!(e.to_string().contains("stops here rather than fake a debate"), "{e}");
        assert_eq!(field(e), "panel");
        let insisted = start(&spec("challenge", &["openai/m", "openai/m"], Some("off"))).unwrap();
        assert!(!warned(&insisted), "insisted on: nothing to say");
        assert!(start(&spec("challenge", &["openai/m", "openai/x"], None)).is_ok());
    }

    #[test]
    fn other_protocols_that_need_different_models_warn_or_refuse_as_told() {
        for protocol in ["rotating-challenger", "adversarial", "ranked"] {
            let session = start(&spec(protocol, &["openai/m", "openai/m"], None)).unwrap();
            assert!(warned(&session), "{protocol}: warned in the transcript");
            let e = start(&spec(protocol, &["openai/m", "openai/m"], Some("strict"))).err().unwrap();
            assert_eq!(field(e), "limits.diversity", "{protocol}");
            let mixed = start(&spec(protocol, &["openai/m", "openai/x"], Some("strict"))).unwrap();
            assert!(!warned(&mixed));
        }
        // A document of one's own that says it needs them is held to it too.
        let mut own = spec("round-robin", &["openai/m", "openai/m"], Some("strict"));
        own["protocol"] = json!({"name": "mine", "document": {"version": 1, "name": "mine",
            "seats": {"min": 2, "different_models": true},
            "phases": [{"phase": "deliberation", "turns": [{"speakers": "each", "prompt": {"system": "S", "user": "{question}"}}]}]}});
        assert_eq!(field(start(&own).err().unwrap()), "limits.diversity");
        // Protocols whose seats are alike (or roles) do not care.
        let plain = start(&spec("round-robin", &["openai/m", "openai/m"], Some("strict"))).unwrap();
        assert!(!warned(&plain));
    }
}
