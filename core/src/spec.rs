//! The debate spec: everything that determines a debate before any model speaks.
//!
//! A spec arrives as JSON (from any host) and is checked once, here, into a
//! [`DebateSpec`] whose invariants the rest of the engine relies on: a
//! non-empty panel with unique ids, a judge whose id differs from every seat,
//! rounds ≥ 1, sane limits, and seat references that resolve.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::consensus::ConsensusMode;
use crate::reasoning::{MAX_BUDGET, ModelTraits, Reasoning};

/// The question, the panel, the protocol and the limits of one debate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DebateSpec {
    /// What the council is asked.
    pub question: String,
    /// Background every speaker receives with the question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Files every speaker receives with the question, after the context:
    /// text the host read, quoted in every prompt under its path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<crate::ContextFile>,
    /// The finished debate this one follows up: its question, outcome,
    /// synthesis and last words, quoted in every prompt's head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<crate::Parent>,
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
    /// What the model catalog knows about each model, by reference (not
    /// chain): whether it reasons, takes a temperature, and its limits. Hosts
    /// fill it from their catalog as they fill `prices`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelTraits>,
    /// The question has a checkable answer: every counted turn closes with an
    /// `ANSWER:` line, and the transcript keeps the vote over the seats' last answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<crate::answer::AnswerSpec>,
    /// Blind first answers: in round 1 no seat sees another's answer before
    /// giving its own (an adversary excepted, whose part is to answer them),
    /// and those turns go out at once. Protocols whose first answers are
    /// blind already run as they are; one where it means nothing refuses it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blind: bool,
}

/// A model's price, USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million prompt (input) tokens.
    pub input: f64,
    /// Per million completion (output) tokens.
    pub output: f64,
    /// Per million prompt tokens read from the provider's prompt cache; a
    /// cached token costs `input` when it is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Per million prompt tokens written to the provider's prompt cache
    /// (Anthropic bills a write above the input price); `input` when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl Price {
    /// A price with no cache rates: every prompt token at `input`.
    pub const fn new(input: f64, output: f64) -> Price {
        Price { input, output, cache_read: None, cache_write: None }
    }

    /// What a prompt token read from the cache costs.
    pub fn read_rate(&self) -> f64 {
        self.cache_read.unwrap_or(self.input)
    }

    /// What a prompt token written to the cache costs.
    pub fn write_rate(&self) -> f64 {
        self.cache_write.unwrap_or(self.input)
    }

    /// The most one prompt token can cost: a miss, or a write where that is
    /// dearer. A bound must not count on a cache hit, and a prompt marked
    /// for caching may be written in full.
    pub fn prompt_ceiling(&self) -> f64 {
        self.input.max(self.write_rate())
    }
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
    /// The seat's field of expertise ("security", "EU privacy law"), shown
    /// in its prompt beside the persona: one line, a panel seat's only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// What this seat asks of a reasoning model: an effort, a thinking budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
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

impl SeatRef {
    /// Whether this names a seat by the start of its id or model rather than
    /// exactly (an id or a number): then the protocol says which seat it took.
    pub(crate) fn by_name(&self, spec: &DebateSpec) -> bool {
        match self {
            SeatRef::Position(_) => false,
            SeatRef::Id(id) => !spec.panel.iter().any(|s| &s.id == id) && id.parse::<usize>().is_err(),
        }
    }
}

/// The protocol, by name, and its options (`{"name": "rotating-challenger",
/// "challenger": 2}`). Each protocol parses and checks its own options (see
/// `agon protocols`); after validation they are normalized, keys sorted.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolSpec {
    pub name: String,
    pub options: BTreeMap<String, serde_json::Value>,
}

// By hand rather than `#[serde(flatten)]`, whose buffering costs the component
// size: one JSON object, `name` first, then the options.
impl Serialize for ProtocolSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1 + self.options.len()))?;
        map.serialize_entry("name", &self.name)?;
        for (key, value) in &self.options {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ProtocolSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut options = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
        match options.remove("name") {
            Some(serde_json::Value::String(name)) => Ok(ProtocolSpec { name, options }),
            Some(_) => Err(serde::de::Error::custom("`name` must be a protocol's name, as text")),
            None => Err(serde::de::Error::missing_field("name")),
        }
    }
}

impl ProtocolSpec {
    /// The protocol's name as users type it.
    pub fn name(&self) -> &str {
        &self.name
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
    /// Cap on every request's prompt, in estimated tokens (see [`estimate_tokens`](crate::tokens::estimate_tokens)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_budget: Option<u32>,
    #[serde(skip_serializing_if = "is_default_gate")]
    pub quality_gate: QualityGate,
    /// What a panel of one model gets, for the protocols that need several.
    #[serde(default, skip_serializing_if = "Diversity::is_default")]
    pub diversity: Diversity,
}

fn is_default_gate(g: &QualityGate) -> bool {
    *g == QualityGate::default()
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
            diversity: Diversity::default(),
        }
    }
}

/// The largest number of rounds a spec may ask for: a guard against typos
/// such as `--rounds 1000`, which would silently buy thousands of calls.
pub const MAX_ROUNDS: u32 = 50;

impl DebateSpec {
    /// The spec as canonical JSON (the form journals record).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a spec always serializes")
    }

    /// The panel's seats and the judge: each well formed, ids unique, the
    /// judge no seat and without a domain.
    pub(crate) fn check_seats(&self) -> Result<(), Error> {
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
            if judge.domain.is_some() {
                return Err(Error::spec(
                    "judge.domain",
                    "a domain is a panel seat's field of expertise; the judge weighs every seat's answer (leave it out)",
                ));
            }
            if self.panel.iter().any(|s| s.id == judge.id) {
                return Err(Error::spec(
                    "judge.id",
                    format!("'{}' is also a panel seat; the judge must not debate", judge.id),
                ));
            }
        }
        Ok(())
    }

    /// Rounds, limits, prices, model traits, the cost cap and the quorum.
    pub(crate) fn check_limits(&self) -> Result<(), Error> {
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
            let rates = [
                ("input", Some(price.input)),
                ("output", Some(price.output)),
                ("cache_read", price.cache_read),
                ("cache_write", price.cache_write),
            ];
            for (name, value) in rates.into_iter().filter_map(|(n, v)| Some((n, v?))) {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(Error::spec(format!("prices.{model}.{name}"), "USD per million tokens, zero or more"));
                }
            }
        }
        for (model, traits) in &self.models {
            for (name, value) in [("context", traits.context), ("max_output", traits.max_output)] {
                if value == Some(0) {
                    return Err(Error::spec(format!("models.{model}.{name}"), "tokens, at least 1 (or left out)"));
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
        Ok(())
    }

    /// Check a consensus mode against the rest of the spec.
    pub(crate) fn check_consensus(&self, mode: ConsensusMode) -> Result<(), Error> {
        if mode == ConsensusMode::Judge && self.judge.is_none() {
            return Err(Error::spec(
                "protocol.consensus",
                "'judge' asks the judge's model to confirm an early stop, and this debate has no judge",
            ));
        }
        Ok(())
    }

    /// How this debate's answers are read: the spec's `answer`, and the
    /// protocol's `options` as names an answer may give.
    pub(crate) fn answer_rules(&self) -> crate::answer::Rules {
        let names = self.protocol.options.get("options").and_then(serde_json::Value::as_array);
        let options =
            names.map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default();
        crate::answer::Rules::new(self.answer.as_ref(), options)
    }

    /// The parent section as every prompt's head shows it (empty without one).
    pub(crate) fn parent_frame(&self) -> String {
        crate::parent::frame(self.parent.as_ref(), crate::parent::limit(self.limits.context_budget))
    }

    /// The protocol document the spec carries, when it brings its own protocol.
    pub(crate) fn document(&self) -> Option<&serde_json::Value> {
        self.protocol.options.get("document")
    }

    /// The panel index a seat reference names, or an error naming `field`:
    /// an id, a number from 1, or — as seed 000's `--challenger gemini` —
    /// the start of one seat's id or model name.
    pub fn resolve_seat(&self, seat: &SeatRef, field: &str) -> Result<usize, Error> {
        let exact = match seat {
            SeatRef::Position(n) => (*n as usize).checked_sub(1).filter(|&i| i < self.panel.len()),
            SeatRef::Id(id) => self.panel.iter().position(|s| &s.id == id).or_else(|| {
                // "2" typed on a command line arrives as a string.
                id.parse::<usize>().ok().and_then(|n| n.checked_sub(1)).filter(|&i| i < self.panel.len())
            }),
        };
        if let Some(i) = exact {
            return Ok(i);
        }
        let ids: Vec<&str> = self.panel.iter().map(|s| s.id.as_str()).collect();
        let SeatRef::Id(name) = seat else {
            return Err(Error::spec(
                field,
                format!(
                    "no seat {}: use an id ({}) or a number from 1 to {}",
                    seat_shown(seat),
                    ids.join(", "),
                    ids.len()
                ),
            ));
        };
        let matches: Vec<usize> = (0..self.panel.len()).filter(|&i| names_seat(&self.panel[i], name)).collect();
        match matches.as_slice() {
            [one] => Ok(*one),
            [] => Err(Error::spec(
                field,
                format!(
                    "no seat '{name}': use an id ({}), a number from 1 to {}, or the start of one seat's id or model",
                    ids.join(", "),
                    ids.len()
                ),
            )),
            several => {
                let candidates: Vec<String> =
                    several.iter().map(|&i| format!("{} ({})", self.panel[i].id, self.panel[i].model)).collect();
                Err(Error::spec(field, format!("'{name}' could be any of {}: give its id", candidates.join(", "))))
            }
        }
    }

    /// Seats that must still be answering for the debate to continue.
    pub fn quorum(&self) -> usize {
        self.limits.quorum.map(|q| q as usize).unwrap_or(self.panel.len().min(2))
    }
}

fn seat_shown(seat: &SeatRef) -> String {
    match seat {
        SeatRef::Position(n) => n.to_string(),
        SeatRef::Id(id) => format!("'{id}'"),
    }
}

/// Whether `name` begins the seat's id, its model reference, or a path
/// segment of one of its models (`gemini` for `google/gemini-2.5-pro`),
/// ASCII letters in either case.
fn names_seat(seat: &Participant, name: &str) -> bool {
    let name = name.trim();
    let starts =
        |text: &str| text.len() >= name.len() && text.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes());
    !name.is_empty()
        && (starts(&seat.id) || seat.model.split('|').map(str::trim).any(|m| starts(m) || m.split('/').any(starts)))
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
    if let Some(domain) = &p.domain {
        check_domain(domain, &format!("{at}.domain"))?;
    }
    if let Some(budget) = p.reasoning.and_then(|r| r.budget)
        && !(1..=MAX_BUDGET).contains(&budget)
    {
        return Err(Error::spec(
            format!("{at}.reasoning.budget"),
            format!("thinking tokens, from 1 to {MAX_BUDGET} (Anthropic takes at least 1,024)"),
        ));
    }
    Ok(())
}

/// The most characters a seat's domain may have: a field of expertise, not
/// instructions (those are the persona's).
pub const MAX_DOMAIN_CHARS: usize = 120;

/// A domain is one short line of plain text: a field of expertise.
pub(crate) fn check_domain(domain: &str, at: &str) -> Result<(), Error> {
    if domain.trim().is_empty() {
        return Err(Error::spec(at, "must not be empty (leave it out for none)"));
    }
    if domain.chars().any(char::is_control) {
        return Err(Error::spec(at, "one line of plain text: no line breaks or control characters"));
    }
    let n = domain.trim().chars().count();
    if n > MAX_DOMAIN_CHARS {
        return Err(Error::spec(
            at,
            format!(
                "a field of expertise in at most {MAX_DOMAIN_CHARS} characters ({n} given); instructions belong in the persona"
            ),
        ));
    }
    Ok(())
}

/// A deserialization error as an invalid spec naming the field: the path
/// serde reached under `prefix`, and for a missing field that field itself,
/// so a host can point at it (`protocol`, not the empty top-level path).
pub(crate) fn field_error(prefix: &str, e: crate::json_read::Misread) -> Error {
    let reason = e.reason();
    let missing = reason.strip_prefix("missing field `").and_then(|rest| rest.strip_suffix('`'));
    let field = [prefix, e.path(), missing.unwrap_or("")]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(".");
    Error::spec(field, if missing.is_some() { "is required".to_string() } else { reason })
}

/// serde_json appends " at line 1 column 42"; the field path says more.
pub(crate) fn strip_position(message: &str) -> String {
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
    fn refuses_a_field_given_twice() {
        let text = base().to_string().replacen('{', r#"{"rounds": 1, "rounds": 3, "#, 1);
        let e = DebateSpec::from_json(&text).unwrap_err().to_string();
        assert!(e.contains("duplicate field `rounds`"), "{e}");
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
    fn a_missing_field_is_named_with_its_path() {
        let mut v = base();
        v.as_object_mut().unwrap().remove("protocol");
        assert_eq!(err(v), Error::spec("protocol", "is required"));
        let mut v = base();
        v["panel"][1].as_object_mut().unwrap().remove("model");
        assert_eq!(err(v), Error::spec("panel[1].model", "is required"));
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

    /// Seed 000's `--challenger gemini`: the start of one seat's id or model
    /// (or of a segment of its model) names it; two candidates are refused, named.
    #[test]
    fn resolves_a_seat_by_the_start_of_its_id_or_model() {
        let mut v = base();
        v["panel"] = serde_json::json!([
            {"id": "gpt-5", "model": "openai/gpt-5"},
            {"id": "gemini-2.5-pro", "model": "openrouter/google/gemini-2.5-pro"},
            {"id": "sonnet", "model": "anthropic/claude-sonnet-4-5"},
            {"id": "gpt-4o", "model": "openai/gpt-4o"},
        ]);
        let spec = DebateSpec::from_json(&v.to_string()).unwrap();
        let seat = |name: &str| spec.resolve_seat(&SeatRef::Id(name.into()), "protocol.challenger");
        assert_eq!(seat("gemini").unwrap(), 1);
        assert_eq!(seat("Google").unwrap(), 1, "a segment of the model, in either case");
        assert_eq!(seat("claude").unwrap(), 2, "the model's name, not only the id");
        assert_eq!(seat("anthropic/").unwrap(), 2);
        assert!(SeatRef::Id("gemini".into()).by_name(&spec) && !SeatRef::Id("sonnet".into()).by_name(&spec));
        let e = seat("gpt").unwrap_err().to_string();
        assert!(
            e.contains("gpt-5 (openai/gpt-5)") && e.contains("gpt-4o (openai/gpt-4o)") && e.contains("give its id"),
            "{e}"
        );
        let e = seat("llama").unwrap_err().to_string();
        assert!(e.contains("no seat 'llama'") && e.contains("gpt-5, gemini-2.5-pro"), "{e}");
        assert!(seat(" ").is_err(), "nothing names no seat");
    }

    #[test]
    fn protocol_options_are_checked_by_their_protocol_and_errors_name_them() {
        let cases = [
            (
                serde_json::json!({"name": "round-robin", "challenger": 1}),
                "protocol.challenger",
                "unknown field `challenger`",
            ),
            (serde_json::json!({"name": "comparative", "options": "x"}), "protocol.options", "expected a sequence"),
            (
                serde_json::json!({"name": "comparative", "options": ["x", ""]}),
                "protocol.options[1]",
                "must not be empty",
            ),
            (
                serde_json::json!({"name": "rotating-challenger", "consensus": "vibes"}),
                "protocol.consensus",
                "unknown variant",
            ),
            (serde_json::json!({"challenger": 1}), "protocol.name", "is required"),
            (serde_json::json!({"name": "steelman"}), "panel", "at most 2"),
        ];
        for (protocol, field, words) in cases {
            let mut v = base();
            v["protocol"] = protocol.clone();
            if protocol["name"] == "steelman" {
                v["panel"] = serde_json::json!([{"id": "a", "model": "m/a"}, {"id": "b", "model": "m/b"}, {"id": "c", "model": "m/c"}]);
            }
            match err(v) {
                Error::InvalidSpec { field: f, reason } => {
                    assert_eq!(f, field, "{protocol}: {reason}");
                    assert!(reason.contains(words), "{protocol}: {reason}");
                }
                other => panic!("{other}"),
            }
        }
    }

    #[test]
    fn options_are_normalized_in_the_spec_json() {
        let mut v = base();
        v["protocol"] = serde_json::json!({"consensus": "judge", "challenger": "b", "name": "rotating-challenger"});
        let spec = DebateSpec::from_json(&v.to_string()).unwrap();
        assert!(
            spec.to_json()
                .contains(r#""protocol":{"name":"rotating-challenger","challenger":"b","consensus":"judge"}"#)
        );
        assert_eq!(spec.consensus_mode(), Some(ConsensusMode::Judge));
    }

    #[test]
    fn round_trips_through_json() {
        let spec = DebateSpec::from_json(&base().to_string()).unwrap();
        assert_eq!(DebateSpec::from_json(&spec.to_json()).unwrap(), spec);
    }
}
