//! The debate spec: everything that determines a debate before any model speaks.
//!
//! A spec arrives as JSON (from any host) and is checked once, here, into a
//! [`DebateSpec`] whose invariants the rest of the engine relies on: a
//! non-empty panel with unique ids, a judge whose id differs from every seat,
//! rounds ≥ 1, sane limits, and seat references that resolve.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Error;

/// The question, the panel, the protocol and the limits of one debate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DebateSpec {
    /// What the council is asked.
    pub question: String,
    /// Background every speaker receives with the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The debating seats, in panel order.
    pub panel: Vec<Participant>,
    /// The non-debating synthesizer; without one, the debate ends without a synthesis.
    #[serde(default)]
    pub judge: Option<Participant>,
    /// Who speaks when, and when to stop.
    pub protocol: ProtocolSpec,
    /// Debate rounds; each protocol documents what a round is and its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// The only source of randomness in a debate.
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub limits: Limits,
    /// What each model costs, by model reference as the panel writes it (a
    /// fallback chain is priced as one string): USD per million tokens.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prices: BTreeMap<String, Price>,
    /// The most this debate may spend, in USD: a batch whose worst case would
    /// take the spending above it is not released, and the debate ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
}

/// A model's price, USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million prompt (input) tokens.
    pub input: f64,
    /// Per million completion (output) tokens.
    pub output: f64,
}

/// One seat at the table (or the judge's chair).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Participant {
    /// Stable identifier used in transcripts, events and seat references.
    pub id: String,
    /// Display name; defaults to the id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Model reference as the user wrote it, e.g. `openai/gpt-4o`; hosts interpret it.
    pub model: String,
    /// Persona or role instructions added to this seat's system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
}

impl Participant {
    /// The name to show: the display name, or the id when none was given.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() { &self.id } else { &self.name }
    }
}

/// A seat named by its id or by its 1-based position in the panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SeatRef {
    Position(u32),
    Id(String),
}

/// The protocol and its options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "kebab-case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ProtocolSpec {
    /// Every seat speaks once per round in panel order; the judge synthesizes.
    RoundRobin,
    /// Blind answers, then rounds with a rotating challenger and early stop on consensus.
    RotatingChallenger {
        /// The seat that challenges in round 1; the role then rotates. Default: the first seat.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        challenger: Option<SeatRef>,
    },
    /// One seat is the adversary and speaks last each round.
    DevilsAdvocate {
        /// The adversary; without one, the seed picks it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        adversary: Option<SeatRef>,
    },
    /// Round-robin that stops early once the panel has converged.
    ConsensusCheck,
    /// Opening, cross-examination, rebuttal, then the judge's synthesis.
    Structured,
    /// Seats defined by role files (seed 003); the panel carries each role's instructions.
    RoleCouncil,
    /// Advocate and challenger in parallel, then the judge's competitive review.
    Adversarial {
        #[serde(default)]
        compete: CompeteMode,
        /// Auto-trigger rules: competition turns on when one matches.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        triggers: Vec<Trigger>,
        /// Earlier runs' results, newest last, to detect a competition that adds nothing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        history: Vec<CompeteHistory>,
    },
    /// Steelman and devil's advocate in parallel; the judge keeps what survived.
    Steelman,
    /// One advocate per option, then the judge's weighted scorecard.
    Comparative { options: Vec<String> },
    /// Urgency and impact lenses assign P0–P3; a Borda count orders the items.
    PriorityVote { items: Vec<String> },
    /// The first seat defends a position; the others challenge it in structured verdicts.
    Challenge {
        /// Treat first-round agreement as partial unless it is engaged and confident.
        #[serde(default = "yes")]
        skeptical_of_early_agreement: bool,
    },
    /// Blind answers, anonymized peer ranking, a Borda aggregate, the chairman's synthesis.
    Ranked,
}

fn yes() -> bool {
    true
}

/// Whether the adversarial protocol runs its competition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompeteMode {
    /// Compete when a trigger matches; otherwise a single agent answers.
    #[default]
    Auto,
    /// Always compete (`--compete`).
    Compete,
    /// Never compete (`--single`); overrides every trigger.
    Single,
}

/// An auto-trigger: competition turns on when the question or context
/// contains any of these words (ASCII letters match in either case; other
/// letters as written, the same in every host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    pub name: String,
    pub any_of: Vec<String>,
}

/// One earlier adversarial run, as far as the flag for useless competition needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompeteHistory {
    pub disagreements: u32,
}

impl ProtocolSpec {
    /// The protocol's name as users type it.
    pub fn name(&self) -> &'static str {
        match self {
            ProtocolSpec::RoundRobin => "round-robin",
            ProtocolSpec::RotatingChallenger { .. } => "rotating-challenger",
            ProtocolSpec::DevilsAdvocate { .. } => "devils-advocate",
            ProtocolSpec::ConsensusCheck => "consensus-check",
            ProtocolSpec::Structured => "structured",
            ProtocolSpec::RoleCouncil => "role-council",
            ProtocolSpec::Adversarial { .. } => "adversarial",
            ProtocolSpec::Steelman => "steelman",
            ProtocolSpec::Comparative { .. } => "comparative",
            ProtocolSpec::PriorityVote { .. } => "priority-vote",
            ProtocolSpec::Challenge { .. } => "challenge",
            ProtocolSpec::Ranked => "ranked",
        }
    }

    /// Rounds when the spec does not say.
    pub fn default_rounds(&self) -> u32 {
        match self {
            ProtocolSpec::RoundRobin
            | ProtocolSpec::RotatingChallenger { .. }
            | ProtocolSpec::DevilsAdvocate { .. } => 2,
            ProtocolSpec::ConsensusCheck | ProtocolSpec::RoleCouncil => 3,
            ProtocolSpec::Challenge { .. } => 5,
            ProtocolSpec::Comparative { .. } => 2,
            ProtocolSpec::Adversarial { .. }
            | ProtocolSpec::Structured
            | ProtocolSpec::Steelman
            | ProtocolSpec::PriorityVote { .. }
            | ProtocolSpec::Ranked => 1,
        }
    }
}

/// What the quality gate does with an adversarial turn that pulls its punches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QualityGate {
    Off,
    /// Record a warning, keep the turn.
    Warn,
    /// Ask once more, with the reason; keep the second answer whatever it is.
    #[default]
    Regenerate,
}

/// Per-request limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Ceiling on the reply of every debate turn.
    pub max_tokens: u32,
    /// Ceiling on the judge's reply.
    pub judge_max_tokens: u32,
    /// Sampling temperature sent with every request, 0 to 2.
    pub temperature: f64,
    /// How many seats must still be answering for the debate to go on.
    /// Default: 2 (or 1 for a one-seat panel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quorum: Option<u32>,
    /// Cap on every request's prompt, in estimated tokens (see [`estimate_tokens`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_budget: Option<u32>,
    #[serde(skip_serializing_if = "is_default_gate")]
    pub quality_gate: QualityGate,
}

fn is_default_gate(g: &QualityGate) -> bool {
    *g == QualityGate::default()
}

/// The documented token estimate used for budgets when no tokenizer is
/// configured: one token per four characters (Unicode scalars), rounded up.
pub fn estimate_tokens(text: &str) -> u32 {
    text.chars().count().div_ceil(4) as u32
}

/// The smallest context budget a spec may set: room for the fixed prompt
/// text of every protocol plus a little history.
pub const MIN_CONTEXT_BUDGET: u32 = 1000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tokens: 512,
            judge_max_tokens: 1024,
            temperature: 0.7,
            quorum: None,
            context_budget: None,
            quality_gate: QualityGate::default(),
        }
    }
}

/// The largest number of rounds a spec may ask for: a guard against typos
/// such as `--rounds 1000`, which would silently buy thousands of calls.
pub const MAX_ROUNDS: u32 = 50;

impl DebateSpec {
    /// Parse and validate a spec from JSON. Errors name the offending field.
    pub fn from_json(json: &str) -> Result<DebateSpec, Error> {
        let mut de = serde_json::Deserializer::from_str(json);
        let spec: DebateSpec = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let field = e.path().to_string();
            let field = if field == "." { String::new() } else { field };
            Error::spec(field, strip_position(&e.into_inner().to_string()))
        })?;
        spec.validate()?;
        Ok(spec)
    }

    /// The spec as canonical JSON (the form journals record).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a spec always serializes")
    }

    /// Check every invariant the engine relies on.
    pub fn validate(&self) -> Result<(), Error> {
        if self.question.trim().is_empty() {
            return Err(Error::spec("question", "must not be empty"));
        }
        if self.panel.is_empty() {
            return Err(Error::spec("panel", "must have at least one participant"));
        }
        for (i, seat) in self.panel.iter().enumerate() {
            check_participant(seat, &format!("panel[{i}]"))?;
            if let Some(first) = self.panel[..i].iter().position(|s| s.id == seat.id) {
                return Err(Error::spec(
                    format!("panel[{i}].id"),
                    format!("duplicate id '{}' (also panel[{first}])", seat.id),
                ));
            }
        }
        if let Some(judge) = &self.judge {
            check_participant(judge, "judge")?;
            if self.panel.iter().any(|s| s.id == judge.id) {
                return Err(Error::spec(
                    "judge.id",
                    format!("'{}' is also a panel seat; the judge must not debate", judge.id),
                ));
            }
        }
        if self.rounds == Some(0) {
            return Err(Error::spec("rounds", "must be at least 1"));
        }
        if self.rounds.is_some_and(|r| r > MAX_ROUNDS) {
            return Err(Error::spec("rounds", format!("must be at most {MAX_ROUNDS}")));
        }
        if let Some(b) = self.limits.context_budget
            && b < MIN_CONTEXT_BUDGET
        {
            return Err(Error::spec("limits.context_budget", format!("must be at least {MIN_CONTEXT_BUDGET} tokens")));
        }
        let limits = &self.limits;
        if limits.max_tokens == 0 {
            return Err(Error::spec("limits.max_tokens", "must be at least 1"));
        }
        if limits.judge_max_tokens == 0 {
            return Err(Error::spec("limits.judge_max_tokens", "must be at least 1"));
        }
        if !(0.0..=2.0).contains(&limits.temperature) {
            return Err(Error::spec("limits.temperature", "must be between 0 and 2"));
        }
        for (model, price) in &self.prices {
            for (name, value) in [("input", price.input), ("output", price.output)] {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(Error::spec(format!("prices.{model}.{name}"), "USD per million tokens, zero or more"));
                }
            }
        }
        if let Some(c) = self.max_cost
            && !(c.is_finite() && c >= 0.0)
        {
            return Err(Error::spec("max_cost", "USD, zero or more"));
        }
        if let Some(q) = limits.quorum
            && (q == 0 || q as usize > self.panel.len())
        {
            return Err(Error::spec(
                "limits.quorum",
                format!("must be between 1 and the panel size ({})", self.panel.len()),
            ));
        }
        self.validate_protocol()
    }

    fn validate_protocol(&self) -> Result<(), Error> {
        let n = self.panel.len();
        let need_seats = |min: usize, why: &str| {
            if n < min {
                Err(Error::spec(
                    "panel",
                    format!("{} needs at least {min} seats ({why}); it has {n}", self.protocol.name()),
                ))
            } else {
                Ok(())
            }
        };
        match &self.protocol {
            ProtocolSpec::RoundRobin
            | ProtocolSpec::ConsensusCheck
            | ProtocolSpec::Structured
            | ProtocolSpec::RoleCouncil => Ok(()),
            ProtocolSpec::RotatingChallenger { challenger } => match challenger {
                Some(seat) => self.resolve_seat(seat, "protocol.challenger").map(|_| ()),
                None => Ok(()),
            },
            ProtocolSpec::DevilsAdvocate { adversary } => {
                need_seats(2, "an adversary and someone to challenge")?;
                match adversary {
                    Some(seat) => self.resolve_seat(seat, "protocol.adversary").map(|_| ()),
                    None => Ok(()),
                }
            }
            ProtocolSpec::Adversarial { triggers, .. } => {
                need_seats(2, "the advocate is seat 1, the challenger seat 2")?;
                for (i, t) in triggers.iter().enumerate() {
                    if t.any_of.iter().all(|w| w.trim().is_empty()) {
                        return Err(Error::spec(format!("protocol.triggers[{i}].any_of"), "needs at least one word"));
                    }
                }
                Ok(())
            }
            ProtocolSpec::Steelman => need_seats(2, "the steelman is seat 1, the devil's advocate seat 2"),
            ProtocolSpec::Comparative { options } => {
                if options.len() < 2 {
                    return Err(Error::spec("protocol.options", "give at least two options to compare"));
                }
                if let Some(i) = options.iter().position(|o| o.trim().is_empty()) {
                    return Err(Error::spec(format!("protocol.options[{i}]"), "must not be empty"));
                }
                if n != options.len() {
                    return Err(Error::spec(
                        "panel",
                        format!("comparative needs one seat per option: {} options, {n} seats", options.len()),
                    ));
                }
                Ok(())
            }
            ProtocolSpec::PriorityVote { items } => {
                if items.is_empty() {
                    return Err(Error::spec("protocol.items", "give at least one item to prioritize"));
                }
                if let Some(i) = items.iter().position(|o| o.trim().is_empty()) {
                    return Err(Error::spec(format!("protocol.items[{i}]"), "must not be empty"));
                }
                if n != 2 {
                    return Err(Error::spec(
                        "panel",
                        format!("priority-vote needs exactly 2 seats (urgency, impact); it has {n}"),
                    ));
                }
                Ok(())
            }
            ProtocolSpec::Challenge { .. } => need_seats(2, "a defender and at least one challenger"),
            ProtocolSpec::Ranked => need_seats(2, "each seat ranks the others"),
        }
    }

    /// The rounds this debate runs: the spec's, or the protocol's default.
    pub fn rounds(&self) -> u32 {
        self.rounds.unwrap_or_else(|| self.protocol.default_rounds())
    }

    /// The panel index a seat reference names, or an error naming `field`.
    pub fn resolve_seat(&self, seat: &SeatRef, field: &str) -> Result<usize, Error> {
        let found = match seat {
            SeatRef::Position(n) => (*n as usize).checked_sub(1).filter(|&i| i < self.panel.len()),
            SeatRef::Id(id) => self.panel.iter().position(|s| &s.id == id).or_else(|| {
                // "2" typed on a command line arrives as a string.
                id.parse::<usize>().ok().and_then(|n| n.checked_sub(1)).filter(|&i| i < self.panel.len())
            }),
        };
        found.ok_or_else(|| {
            let ids: Vec<&str> = self.panel.iter().map(|s| s.id.as_str()).collect();
            let shown = match seat {
                SeatRef::Position(n) => n.to_string(),
                SeatRef::Id(id) => format!("'{id}'"),
            };
            Error::spec(
                field,
                format!("no seat {shown}: use an id ({}) or a number from 1 to {}", ids.join(", "), ids.len()),
            )
        })
    }

    /// Seats that must still be answering for the debate to continue.
    pub fn quorum(&self) -> usize {
        self.limits.quorum.map(|q| q as usize).unwrap_or(self.panel.len().min(2))
    }
}

fn check_participant(p: &Participant, at: &str) -> Result<(), Error> {
    if p.id.is_empty() {
        return Err(Error::spec(format!("{at}.id"), "must not be empty"));
    }
    // Ids name seats in prompts, transcripts and every host's display: plain
    // names only, never markup or escape codes.
    if !p.id.chars().all(|c| c.is_alphanumeric() || "-_.:/@+".contains(c)) {
        return Err(Error::spec(
            format!("{at}.id"),
            format!("{:?} may use letters, digits and - _ . : / @ + only", p.id),
        ));
    }
    if p.model.trim().is_empty() {
        return Err(Error::spec(format!("{at}.model"), "must not be empty"));
    }
    Ok(())
}

/// serde_json appends " at line 1 column 42"; the field path says more.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> serde_json::Value {
        serde_json::json!({
            "question": "Should we rewrite it in Rust?",
            "panel": [
                {"id": "a", "model": "openai/a"},
                {"id": "b", "model": "openai/b"},
            ],
            "judge": {"id": "j", "model": "openai/j"},
            "protocol": {"name": "round-robin"},
        })
    }

    fn err(v: serde_json::Value) -> Error {
        DebateSpec::from_json(&v.to_string()).unwrap_err()
    }

    #[test]
    fn accepts_a_minimal_spec_with_defaults() {
        let spec = DebateSpec::from_json(&base().to_string()).unwrap();
        assert_eq!(spec.rounds(), 2);
        assert_eq!(spec.limits.max_tokens, 512);
        assert_eq!(spec.panel[0].display_name(), "a");
        assert_eq!(spec.quorum(), 2);
    }

    #[test]
    fn names_the_field_of_a_type_error() {
        let mut v = base();
        v["panel"][1]["model"] = serde_json::json!(7);
        let e = err(v);
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "panel[1].model"), "{e}");
    }

    #[test]
    fn names_unknown_protocols() {
        let mut v = base();
        v["protocol"] = serde_json::json!({"name": "shouting-match"});
        let e = err(v).to_string();
        assert!(e.contains("protocol") && e.contains("shouting-match"), "{e}");
    }

    #[test]
    fn rejects_an_empty_panel() {
        let mut v = base();
        v["panel"] = serde_json::json!([]);
        assert_eq!(err(v), Error::spec("panel", "must have at least one participant"));
    }

    #[test]
    fn ids_are_plain_names() {
        for bad in ["a b", "<svg/onload=alert(1)>", "x\u{1b}[2J", "a\"b"] {
            let mut v = base();
            v["panel"][0]["id"] = serde_json::json!(bad);
            assert!(matches!(err(v), Error::InvalidSpec { field, .. } if field == "panel[0].id"), "{bad:?}");
        }
        let mut v = base();
        v["panel"][0]["id"] = serde_json::json!("google/gemini-2.5-pro:free@v1+x_y");
        assert!(DebateSpec::from_json(&v.to_string()).is_ok());
    }

    #[test]
    fn rejects_duplicate_ids_and_a_debating_judge() {
        let mut v = base();
        v["panel"][1]["id"] = serde_json::json!("a");
        assert!(matches!(err(v), Error::InvalidSpec { field, .. } if field == "panel[1].id"));
        let mut v = base();
        v["judge"]["id"] = serde_json::json!("b");
        assert!(matches!(err(v), Error::InvalidSpec { field, .. } if field == "judge.id"));
    }

    #[test]
    fn rejects_unknown_fields() {
        let mut v = base();
        v["rouns"] = serde_json::json!(3);
        let e = err(v).to_string();
        assert!(e.contains("rouns"), "{e}");
    }

    #[test]
    fn rejects_bad_limits_and_rounds() {
        let mut v = base();
        v["rounds"] = serde_json::json!(0);
        assert!(matches!(err(v), Error::InvalidSpec { field, .. } if field == "rounds"));
        let mut v = base();
        v["limits"] = serde_json::json!({"temperature": 3.5});
        assert!(matches!(err(v), Error::InvalidSpec { field, .. } if field == "limits.temperature"));
    }

    #[test]
    fn resolves_challenger_by_id_or_position() {
        let mut v = base();
        v["protocol"] = serde_json::json!({"name": "rotating-challenger", "challenger": "b"});
        let spec = DebateSpec::from_json(&v.to_string()).unwrap();
        assert_eq!(spec.resolve_seat(&SeatRef::Id("b".into()), "x").unwrap(), 1);
        assert_eq!(spec.resolve_seat(&SeatRef::Id("2".into()), "x").unwrap(), 1);
        assert_eq!(spec.resolve_seat(&SeatRef::Position(1), "x").unwrap(), 0);
        v["protocol"]["challenger"] = serde_json::json!(3);
        let e = err(v);
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "protocol.challenger"), "{e}");
    }

    #[test]
    fn round_trips_through_json() {
        let spec = DebateSpec::from_json(&base().to_string()).unwrap();
        assert_eq!(DebateSpec::from_json(&spec.to_json()).unwrap(), spec);
    }
}
