//! Reasoning models: what a seat asks of one (an effort, or a thinking
//! budget), what the catalog says a model can do, and the tokens a request
//! reserves for thinking beyond its visible reply.
//!
//! The engine never talks to a provider, so it decides only the numbers: how
//! many tokens a call may spend thinking ([`ReasoningRequest::allowance`]),
//! which counts in the worst-case bound and in `max_cost`. How each provider
//! is asked for it (`reasoning_effort`, `thinking`, `thinkingConfig`, `think`)
//! is the wire layer's business (agon-wire).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::Participant;

/// How hard a reasoning model should think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    Low,
    Medium,
    High,
}

impl Effort {
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }

    /// The thinking tokens reserved for this effort, where a provider takes a
    /// budget rather than a word (Anthropic, Gemini): Anthropic's minimum is
    /// 1,024; OpenAI's reasoning models use a few thousand at `medium`.
    pub const fn budget(self) -> u32 {
        match self {
            Effort::Low => 2_048,
            Effort::Medium => 8_192,
            Effort::High => 24_576,
        }
    }
}

/// A seat's reasoning setting, as the spec writes it: `{"effort": "low"}`,
/// `{"budget": 4096}`, or both (the budget then sets the tokens, the effort
/// the word for providers that take one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reasoning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// Thinking tokens, beyond the reply's `max_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
}

/// The most thinking tokens a seat may ask for: far above any model's output
/// limit today, far below a typo's `--thinking 10000000000`.
pub const MAX_BUDGET: u32 = 1_000_000;

/// Thinking tokens reserved for a reasoning model whose seat asked for
/// nothing: its provider's own default effort is used, and this is room for
/// it (OpenAI's reasoning models spend a few thousand at their default).
pub const DEFAULT_ALLOWANCE: u32 = Effort::Medium.budget();

/// What the model catalog knows about one model: whether it reasons, whether
/// it takes a temperature, and how long its context and reply may be. Hosts
/// put the facts for a spec's models into the spec (as they do prices), so a
/// journal replays with the facts it ran with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelTraits {
    /// It thinks before it answers, and bills that as output.
    #[serde(default)]
    pub reasoning: bool,
    /// It accepts a `temperature` (newer reasoning models refuse one).
    #[serde(default = "yes")]
    pub temperature: bool,
    /// Its context window, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u32>,
    /// The most it may write in one reply, thinking included, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output: Option<u32>,
}

fn yes() -> bool {
    true
}

impl Default for ModelTraits {
    fn default() -> Self {
        ModelTraits { reasoning: false, temperature: true, context: None, max_output: None }
    }
}

/// What one request asks of a reasoning model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningRequest {
    /// The seat's effort, when it set one (else the provider's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// The seat's thinking budget, when it set one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u32>,
    /// Tokens this call may spend thinking beyond `max_tokens`: the output
    /// limit a provider is sent is `max_tokens + allowance`, and the cost
    /// bound counts it.
    pub allowance: u32,
}

impl ReasoningRequest {
    /// Whether the seat asked for thinking itself (rather than a model that
    /// reasons by default being given room for it).
    pub fn asked(&self) -> bool {
        self.effort.is_some() || self.budget.is_some()
    }
}

/// The models of a reference, a fallback chain (`a/x|b/y`) in order.
pub fn chain(model: &str) -> impl Iterator<Item = &str> {
    model.split('|').map(str::trim).filter(|m| !m.is_empty())
}

/// What a request of `seat` asks of reasoning, with `max_tokens` for its
/// reply: `None` for a seat that asked nothing on a model not known to reason.
pub fn request_for(
    seat: &Participant,
    models: &BTreeMap<String, ModelTraits>,
    max_tokens: u32,
) -> Option<ReasoningRequest> {
    let traits: Vec<&ModelTraits> = chain(&seat.model).filter_map(|m| models.get(m)).collect();
    let reasons = traits.iter().any(|t| t.reasoning);
    let asked = seat.reasoning.unwrap_or_default();
    if asked == Reasoning::default() && !reasons {
        return None;
    }
    let wanted = match (asked.budget, asked.effort) {
        (Some(budget), _) => budget,
        (None, Some(effort)) => effort.budget(),
        (None, None) => DEFAULT_ALLOWANCE,
    };
    // Within the largest reply any model of the chain may write.
    let room = traits.iter().filter_map(|t| t.max_output).max().map(|most| most.saturating_sub(max_tokens));
    let allowance = room.map_or(wanted, |room| wanted.min(room));
    Some(ReasoningRequest { effort: asked.effort, budget: asked.budget, allowance })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(model: &str, reasoning: Option<Reasoning>) -> Participant {
        Participant { id: "s".into(), name: String::new(), model: model.into(), persona: None, reasoning }
    }

    fn catalog() -> BTreeMap<String, ModelTraits> {
        let reasoning =
            ModelTraits { reasoning: true, temperature: false, context: Some(200_000), max_output: Some(10_000) };
        BTreeMap::from([("openai/o3".to_string(), reasoning), ("openai/gpt-4o".to_string(), ModelTraits::default())])
    }

    #[test]
    fn a_plain_model_asked_nothing_reserves_nothing() {
        assert_eq!(request_for(&seat("openai/gpt-4o", None), &catalog(), 512), None);
        assert_eq!(request_for(&seat("unknown/x", None), &catalog(), 512), None);
    }

    #[test]
    fn a_reasoning_model_gets_room_to_think_within_its_output_limit() {
        let r = request_for(&seat("openai/o3", None), &catalog(), 512).unwrap();
        assert_eq!((r.effort, r.budget, r.allowance, r.asked()), (None, None, 8_192, false));
        let high = Some(Reasoning { effort: Some(Effort::High), budget: None });
        let r = request_for(&seat("openai/o3", high), &catalog(), 512).unwrap();
        assert_eq!(r.allowance, 10_000 - 512, "capped so that reply and thinking fit the model's output limit");
        assert!(r.asked());
    }

    #[test]
    fn an_explicit_budget_wins_and_a_chain_counts_any_reasoning_model() {
        let budget = Some(Reasoning { effort: Some(Effort::Low), budget: Some(3_000) });
        let r = request_for(&seat("openai/gpt-4o|openai/o3", budget), &catalog(), 100).unwrap();
        assert_eq!((r.allowance, r.effort), (3_000, Some(Effort::Low)));
        let r = request_for(&seat("openai/gpt-4o | openai/o3", None), &catalog(), 100).unwrap();
        assert_eq!(r.allowance, 8_192);
    }
}
