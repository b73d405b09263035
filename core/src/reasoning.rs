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

/// Thinking tokens reserved for a reasoning model agon knows no control for
/// (DeepSeek's reasoner, xAI's Grok, open models behind a compatible
/// server): it thinks as it does, and this is room for it.
pub const DEFAULT_ALLOWANCE: u32 = Effort::Medium.budget();

/// The effort a budget comes nearest: what a model that takes only an effort
/// is sent when its seat gave a budget.
pub fn effort_for_budget(budget: u32) -> Effort {
    match budget {
        0..=2_048 => Effort::Low,
        2_049..=8_192 => Effort::Medium,
        _ => Effort::High,
    }
}

/// How a family of reasoning models takes thinking, as its provider
/// documents it. The wire layer (agon-wire) words each for its API; the
/// engine decides from it how many tokens a call may think, so that the
/// cost bound counts exactly the output limit that is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// OpenAI's reasoning models (o-series, gpt-5 and later): `reasoning_effort`,
    /// reasoning spent against `max_completion_tokens`. `by_default`: whether it
    /// reasons when no effort is named (the o-series, gpt-5 and gpt-5.5+ at
    /// `medium`; gpt-5.1 to 5.4 at `none`: OpenAI's reference for `reasoning_effort`).
    Effort { by_default: bool },
    /// Claude 3.7 to 4.5: `thinking: {type: "enabled", budget_tokens}`, off
    /// unless asked (Anthropic's extended-thinking guide).
    Budget,
    /// Claude 4.6 and later (Opus 4.7+, Sonnet 5+ and every newer model take
    /// nothing else): `thinking: {type: "adaptive"}` with
    /// `output_config.effort`, off unless asked; `max_tokens` holds thinking
    /// and reply (Anthropic's adaptive-thinking guide).
    Adaptive,
    /// Gemini 2.5: `thinkingConfig.thinkingBudget`, spent against
    /// `maxOutputTokens`. Pro cannot stop thinking (`always`); Flash thinks
    /// by default and stops at budget 0; Flash-Lite thinks only when asked
    /// (Google's thinking guide).
    GeminiBudget { always: bool, by_default: bool },
    /// Gemini 3 and later: `thinkingConfig.thinkingLevel`; always thinks
    /// (dynamically, at `high`, when no level is named).
    GeminiLevel,
    /// Any other reasoning model: it thinks as it does; an effort is passed
    /// on where the seat asked for one.
    Own,
}

/// The family of a model reference (`anthropic/claude-opus-4-7`,
/// `openrouter/google/gemini-2.5-pro`): read from its last name, since a
/// router serves a lab's model under the lab's name.
pub fn thinking_of(model: &str) -> Thinking {
    let name = model.rsplit('/').next().unwrap_or(model).trim().to_ascii_lowercase();
    let after = |prefix: &str| name.strip_prefix(prefix).is_some_and(|r| r.is_empty() || r.starts_with(['-', '.']));
    let number = |prefix: &str| name.strip_prefix(prefix).and_then(|r| r.split(['.', '-']).next()?.parse::<u32>().ok());
    if let Some(rest) = name.strip_prefix("claude-") {
        return claude(rest);
    }
    if after("gemini-2.5-pro") {
        return Thinking::GeminiBudget { always: true, by_default: true };
    }
    if after("gemini-2.5-flash-lite") {
        return Thinking::GeminiBudget { always: false, by_default: false };
    }
    if after("gemini-2.5-flash") {
        return Thinking::GeminiBudget { always: false, by_default: true };
    }
    if number("gemini-").is_some_and(|major| major >= 3) {
        return Thinking::GeminiLevel;
    }
    // o1, o3, o4-mini…
    if name.len() >= 2 && name.starts_with('o') && name.as_bytes()[1].is_ascii_digit() {
        return Thinking::Effort { by_default: true };
    }
    if let Some(minor) = number("gpt-5.") {
        return Thinking::Effort { by_default: !(1..=4).contains(&minor) };
    }
    if after("gpt-5") {
        return Thinking::Effort { by_default: true };
    }
    if number("gpt-").is_some_and(|major| major >= 6) {
        return Thinking::Effort { by_default: true };
    }
    Thinking::Own
}

/// `opus-4-7`, `sonnet-4-5-20250929`, `3-7-sonnet-…` (after `claude-`):
/// adaptive from version 4.6 on, and for a model whose version agon cannot
/// read (a new name such as `claude-fable-5` is a new model).
fn claude(rest: &str) -> Thinking {
    let version: Vec<u32> = rest
        .split('-')
        .filter(|t| !t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|t| t.parse().ok())
        .collect();
    match version.as_slice() {
        [major, minor, ..] if (*major, *minor) < (4, 6) => Thinking::Budget,
        [major] if *major < 4 => Thinking::Budget,
        _ => Thinking::Adaptive,
    }
}

/// What one call sends a model about thinking, in the API's own terms
/// (agon-wire words it), and the tokens it may think beyond the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThinkingPlan {
    pub send: ThinkingParam,
    /// Tokens beyond the reply: the output limit sent is the reply's plus these.
    pub room: u32,
}

/// The thinking parameter a call carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingParam {
    /// None: the model's own default (no thinking, or thinking it cannot stop).
    Nothing,
    /// OpenAI's `reasoning_effort` (and any compatible server's).
    Effort(Effort),
    /// Anthropic's enabled thinking with `budget_tokens`, or Gemini 2.5's `thinkingBudget`.
    Budget(u32),
    /// Gemini 2.5 Flash told not to think (`thinkingBudget: 0`).
    Off,
    /// Anthropic's adaptive thinking at this `output_config.effort`.
    Adaptive(Effort),
    /// Gemini 3's `thinkingLevel`.
    Level(Effort),
}

/// Room for a model that reasons on its own and was asked nothing, at the
/// `low` effort it is sent: a debate turn at that effort thinks a few
/// hundred tokens, and what the room does not hold cuts the reply (kept,
/// marked as cut) rather than the bill growing unseen.
pub const DEFAULT_ROOM: u32 = 1_024;

/// Anthropic's smallest thinking budget (extended-thinking guide).
pub const ANTHROPIC_MIN_BUDGET: u32 = 1_024;
/// Gemini 2.5 Pro's smallest (Google's thinking guide).
pub const GEMINI_PRO_MIN_BUDGET: u32 = 128;

/// What a call to a model of family `thinking` sends, for a seat that
/// asked `asked`: the defaults a cost-aware user would pick. Nothing is sent
/// unless asked, except where the model reasons on its own: there the
/// lowest effort every model of the family takes (`low`), with room for it,
/// so that its thinking does not crowd out the answer (`docs/src/providers.md`
/// lists them per family).
pub fn plan(thinking: Thinking, asked: Reasoning) -> ThinkingPlan {
    let low = DEFAULT_ROOM;
    let room = |effort: Effort| asked.budget.unwrap_or(effort.budget());
    let effort = asked.effort.or(asked.budget.map(effort_for_budget));
    let (send, room) = match (thinking, effort) {
        (Thinking::Effort { .. } | Thinking::Own, Some(e)) => (ThinkingParam::Effort(e), room(e)),
        (Thinking::Effort { by_default: true }, None) => (ThinkingParam::Effort(Effort::Low), low),
        (Thinking::Effort { by_default: false }, None) => (ThinkingParam::Nothing, 0),
        (Thinking::Budget, Some(e)) => {
            let budget = room(e).max(ANTHROPIC_MIN_BUDGET);
            (ThinkingParam::Budget(budget), budget)
        }
        (Thinking::Adaptive, Some(e)) => (ThinkingParam::Adaptive(e), room(e)),
        (Thinking::Budget | Thinking::Adaptive, None) => (ThinkingParam::Nothing, 0),
        (Thinking::GeminiBudget { always, .. }, Some(e)) => {
            let budget = if always { room(e).max(GEMINI_PRO_MIN_BUDGET) } else { room(e) };
            (ThinkingParam::Budget(budget), budget)
        }
        (Thinking::GeminiBudget { always: true, .. }, None) => (ThinkingParam::Budget(low), low),
        (Thinking::GeminiBudget { by_default: true, .. }, None) => (ThinkingParam::Off, 0),
        (Thinking::GeminiBudget { .. }, None) => (ThinkingParam::Nothing, 0),
        (Thinking::GeminiLevel, Some(e)) => (ThinkingParam::Level(e), room(e)),
        (Thinking::GeminiLevel, None) => (ThinkingParam::Level(Effort::Low), low),
        (Thinking::Own, None) => (ThinkingParam::Nothing, DEFAULT_ALLOWANCE),
    };
    ThinkingPlan { send, room }
}

/// The plan for one model of a seat's chain, or none when it neither reasons
/// (by the catalog; a model the catalog does not know reasons only if the
/// seat asked) nor was asked to. `room` stays within what the model may
/// write beyond a reply of `max_tokens`.
pub fn plan_for(model: &str, traits: Option<&ModelTraits>, asked: Reasoning, max_tokens: u32) -> Option<ThinkingPlan> {
    let reasons = traits.map_or(asked != Reasoning::default(), |t| t.reasoning);
    if !reasons {
        return None;
    }
    let mut plan = plan(thinking_of(model), asked);
    if let Some(most) = traits.and_then(|t| t.max_output) {
        plan.room = plan.room.min(most.saturating_sub(max_tokens));
    }
    Some(plan)
}

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
    /// The seat's effort, when it set one (else its family's default, chosen when the call is planned).
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

    /// What the seat asked, as the spec wrote it.
    pub fn asked_for(&self) -> Reasoning {
        Reasoning { effort: self.effort, budget: self.budget }
    }
}

/// The models of a reference, a fallback chain (`a/x|b/y`) in order.
pub fn chain(model: &str) -> impl Iterator<Item = &str> {
    model.split('|').map(str::trim).filter(|m| !m.is_empty())
}

/// What a request of a seat asks of reasoning — the seat runs `model` (a
/// reference or a fallback chain) and asked for `asked` — with `max_tokens`
/// for its reply: `None` for a seat that asked nothing on a model not known
/// to reason.
pub fn request_for(
    model: &str,
    asked: Option<Reasoning>,
    models: &BTreeMap<String, ModelTraits>,
    max_tokens: u32,
) -> Option<ReasoningRequest> {
    let asked = asked.unwrap_or_default();
    // Each model of a chain gets its own family's plan; the call may think
    // as long as the most any of them is given.
    let allowance = chain(model).filter_map(|m| plan_for(m, models.get(m), asked, max_tokens)).map(|p| p.room).max()?;
    Some(ReasoningRequest { effort: asked.effort, budget: asked.budget, allowance })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> BTreeMap<String, ModelTraits> {
        let reasoning =
            |max_output| ModelTraits { reasoning: true, temperature: false, context: Some(200_000), max_output };
        BTreeMap::from([
            ("openai/o3".to_string(), reasoning(Some(10_000))),
            ("openai/gpt-5.1".to_string(), reasoning(None)),
            ("anthropic/claude-sonnet-4-5".to_string(), reasoning(None)),
            ("gemini/gemini-2.5-pro".to_string(), reasoning(None)),
            ("gemini/gemini-2.5-flash".to_string(), reasoning(None)),
            ("deepseek/deepseek-reasoner".to_string(), reasoning(None)),
            ("openai/gpt-4o".to_string(), ModelTraits::default()),
        ])
    }

    fn effort(e: Effort) -> Option<Reasoning> {
        Some(Reasoning { effort: Some(e), budget: None })
    }

    #[test]
    fn families_are_read_from_the_model_s_own_name() {
        for (model, family) in [
            ("openai/o3", Thinking::Effort { by_default: true }),
            ("openai/o4-mini", Thinking::Effort { by_default: true }),
            ("openai/gpt-5", Thinking::Effort { by_default: true }),
            ("openai/gpt-5-mini", Thinking::Effort { by_default: true }),
            ("openai/gpt-5.1", Thinking::Effort { by_default: false }),
            ("openai/gpt-5.4-mini", Thinking::Effort { by_default: false }),
            ("openai/gpt-5.5", Thinking::Effort { by_default: true }),
            ("anthropic/claude-3-7-sonnet-20250219", Thinking::Budget),
            ("anthropic/claude-sonnet-4-5-20250929", Thinking::Budget),
            ("anthropic/claude-opus-4-5", Thinking::Budget),
            ("anthropic/claude-opus-4-6", Thinking::Adaptive),
            ("anthropic/claude-opus-4-7", Thinking::Adaptive),
            ("anthropic/claude-sonnet-5", Thinking::Adaptive),
            ("anthropic/claude-opus-5", Thinking::Adaptive),
            ("anthropic/claude-fable-5", Thinking::Adaptive),
            ("gemini/gemini-2.5-pro", Thinking::GeminiBudget { always: true, by_default: true }),
            ("openrouter/google/gemini-2.5-flash", Thinking::GeminiBudget { always: false, by_default: true }),
            ("gemini/gemini-2.5-flash-lite", Thinking::GeminiBudget { always: false, by_default: false }),
            ("gemini/gemini-3-pro-preview", Thinking::GeminiLevel),
            ("gemini/gemini-3.7-flash", Thinking::GeminiLevel),
            ("deepseek/deepseek-reasoner", Thinking::Own),
            ("xai/grok-4.6", Thinking::Own),
        ] {
            assert_eq!(thinking_of(model), family, "{model}");
        }
    }

    #[test]
    fn nothing_is_sent_unless_asked_or_the_model_thinks_on_its_own() {
        let none = Reasoning::default();
        // Claude thinks only when asked; gpt-5.1 reasons at `none` by default.
        assert_eq!(plan(Thinking::Budget, none), ThinkingPlan { send: ThinkingParam::Nothing, room: 0 });
        assert_eq!(plan(Thinking::Adaptive, none), ThinkingPlan { send: ThinkingParam::Nothing, room: 0 });
        assert_eq!(plan(Thinking::Effort { by_default: false }, none).room, 0);
        // Gemini 2.5 Flash is told not to think; Flash-Lite needs no word.
        let flash = Thinking::GeminiBudget { always: false, by_default: true };
        assert_eq!(plan(flash, none), ThinkingPlan { send: ThinkingParam::Off, room: 0 });
        // Models that reason on their own get the low effort and room for it.
        let low = ThinkingPlan { send: ThinkingParam::Effort(Effort::Low), room: DEFAULT_ROOM };
        assert_eq!(plan(Thinking::Effort { by_default: true }, none), low);
        let pro = Thinking::GeminiBudget { always: true, by_default: true };
        assert_eq!(plan(pro, none), ThinkingPlan { send: ThinkingParam::Budget(1_024), room: 1_024 });
        assert_eq!(
            plan(Thinking::GeminiLevel, none),
            ThinkingPlan { send: ThinkingParam::Level(Effort::Low), room: 1_024 }
        );
    }

    #[test]
    fn what_a_seat_asks_is_sent_in_its_family_s_terms() {
        let asked = |effort, budget| Reasoning { effort, budget };
        // Adaptive Claude takes an effort, never a budget: a budget picks the nearest effort and sets the room.
        assert_eq!(
            plan(Thinking::Adaptive, asked(None, Some(4_000))),
            ThinkingPlan { send: ThinkingParam::Adaptive(Effort::Medium), room: 4_000 }
        );
        assert_eq!(plan(Thinking::Adaptive, asked(Some(Effort::Low), None)).send, ThinkingParam::Adaptive(Effort::Low));
        // Budgeted Claude: at least Anthropic's minimum.
        assert_eq!(
            plan(Thinking::Budget, asked(None, Some(500))),
            ThinkingPlan { send: ThinkingParam::Budget(1_024), room: 1_024 }
        );
        // Gemini 3 a level; Gemini 2.5 Pro a budget of at least 128.
        assert_eq!(
            plan(Thinking::GeminiLevel, asked(Some(Effort::High), None)).send,
            ThinkingParam::Level(Effort::High)
        );
        let pro = Thinking::GeminiBudget { always: true, by_default: true };
        assert_eq!(plan(pro, asked(None, Some(64))).send, ThinkingParam::Budget(128));
    }

    #[test]
    fn a_plain_model_asked_nothing_reserves_nothing() {
        assert_eq!(request_for("openai/gpt-4o", None, &catalog(), 512), None);
        assert_eq!(request_for("unknown/x", None, &catalog(), 512), None);
        // Claude reasons, but thinks only when asked: nothing is reserved.
        assert_eq!(request_for("anthropic/claude-sonnet-4-5", None, &catalog(), 512).map(|r| r.allowance), Some(0));
        assert_eq!(request_for("openai/gpt-5.1", None, &catalog(), 512).map(|r| r.allowance), Some(0));
    }

    #[test]
    fn a_reasoning_model_gets_room_to_think_within_its_output_limit() {
        let r = request_for("openai/o3", None, &catalog(), 512).unwrap();
        assert_eq!((r.effort, r.budget, r.allowance, r.asked()), (None, None, DEFAULT_ROOM, false));
        let r = request_for("openai/o3", effort(Effort::High), &catalog(), 512).unwrap();
        assert_eq!(r.allowance, 10_000 - 512, "capped so that reply and thinking fit the model's output limit");
        assert!(r.asked());
        let r = request_for("deepseek/deepseek-reasoner", None, &catalog(), 512).unwrap();
        assert_eq!(r.allowance, DEFAULT_ALLOWANCE, "a model that thinks with no control agon knows");
    }

    #[test]
    fn an_explicit_budget_wins_and_a_chain_takes_its_largest_room() {
        let budget = Some(Reasoning { effort: Some(Effort::Low), budget: Some(3_000) });
        let r = request_for("openai/gpt-4o|openai/o3", budget, &catalog(), 100).unwrap();
        assert_eq!((r.allowance, r.effort), (3_000, Some(Effort::Low)));
        let r = request_for("anthropic/claude-sonnet-4-5 | gemini/gemini-2.5-pro", None, &catalog(), 100).unwrap();
        assert_eq!(r.allowance, DEFAULT_ROOM, "Claude thinks not; Gemini 2.5 Pro must");
    }
}
