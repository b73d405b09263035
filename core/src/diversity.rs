//! A council of one model. Protocols whose worth is in independent views
//! (a panel's several answers, a challenger, an adversary, peer rankings)
//! mean little when every seat runs the same model: one model tends to agree
//! with itself. Seed 004 aborts its challenge outright ("debating itself
//! provides no genuine diversity"). Protocols whose seats are told which part
//! to play (roles, sides, options, lenses) do not ask for it: the parts are
//! the views. Each protocol says which it is (`needs_different_models`; a
//! document's `seats.different_models`), docs/src/protocols.md says why, and
//! the spec says how strictly to hold it: warn (the default), refuse, or say
//! nothing.

use crate::spec::Diversity;
use crate::{DebateSpec, Error};

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
            "every seat runs {model}: {} draws its worth from independent views, and one model tends to agree \
             with itself; give the panel other models for views of their own",
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

    /// What a panel of one model gets, protocol by protocol. Written here by
    /// hand, not read from the definitions: the test checks them against it.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum OneModel {
        /// Refused unless insisted on (challenge, as its seed).
        Refused,
        /// Warned about; refused when strict.
        Warned,
        /// The seats play parts they are told (roles, sides, options, lenses): allowed silently.
        PlaysEveryPart,
    }

    const DECISIONS: &[(&str, OneModel)] = &[
        ("round-robin", OneModel::Warned),
        ("rotating-challenger", OneModel::Warned),
        ("devils-advocate", OneModel::Warned),
        ("consensus-check", OneModel::Warned),
        ("structured", OneModel::Warned),
        ("role-council", OneModel::PlaysEveryPart),
        ("adversarial", OneModel::Warned),
        ("steelman", OneModel::PlaysEveryPart),
        ("comparative", OneModel::PlaysEveryPart),
        ("priority-vote", OneModel::PlaysEveryPart),
        ("challenge", OneModel::Refused),
        ("ranked", OneModel::Warned),
        ("claim-ledger", OneModel::Warned),
    ];

    /// Protocol `name`'s example spec with every seat on one model, and `diversity`.
    fn one_model_example(name: &str, seats: usize, diversity: Option<&str>) -> Value {
        let spec = crate::example_spec(name, seats, 1).unwrap();
        let mut v = serde_json::to_value(&spec).unwrap();
        for seat in v["panel"].as_array_mut().unwrap() {
            seat["model"] = json!("openai/m");
        }
        if let Some(d) = diversity {
            v["limits"]["diversity"] = json!(d);
        }
        v
    }

    /// Every protocol of the registry (a new one fails here until decided)
    /// warns, refuses or stays silent about a panel of one model as decided.
    #[test]
    fn every_protocol_treats_a_panel_of_one_model_as_decided() {
        let listed: Vec<String> = crate::protocols().into_iter().map(|p| p.name).collect();
        let decided: Vec<String> = DECISIONS.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(listed, decided, "every protocol, and only those, has its decision here");
        for info in crate::protocols() {
            let decision = DECISIONS.iter().find(|(n, _)| *n == info.name).unwrap().1;
            let seats = (info.min_seats.max(2) as usize).min(info.max_seats.map_or(usize::MAX, |m| m as usize));
            let name = info.name.as_str();
            let by_default = start(&one_model_example(name, seats, None));
            let strict = start(&one_model_example(name, seats, Some("strict")));
            match decision {
                OneModel::Refused => {
                    assert_eq!(field(by_default.err().unwrap()), "panel", "{name}");
                    assert!(strict.is_err(), "{name}");
                }
                OneModel::Warned => {
                    assert!(warned(&by_default.unwrap()), "{name}: warned in the transcript");
                    assert_eq!(field(strict.err().unwrap()), "limits.diversity", "{name}");
                }
                OneModel::PlaysEveryPart => {
                    assert!(!warned(&by_default.unwrap()), "{name}: nothing to warn about");
                    assert!(strict.is_ok(), "{name}: strict has nothing to refuse");
                }
            }
            // Off insists: every protocol runs, without a word.
            let off = start(&one_model_example(name, seats, Some("off"))).unwrap();
            assert!(!warned(&off), "{name}");
        }
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
        // Nor is one that does not say so, whatever the built-in it replaces says.
        own["protocol"]["document"]["seats"] = json!({"min": 2});
        assert!(!warned(&start(&own).unwrap()));
        // Protocols whose seats play the parts they are told do not care.
        let plain = start(&spec("steelman", &["openai/m", "openai/m"], Some("strict"))).unwrap();
        assert!(!warned(&plain));
    }
}
