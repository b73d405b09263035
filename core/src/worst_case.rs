//! The most a debate can cost, before it runs: the protocol's bound on its
//! calls (from the registry), every prompt at its longest, every reply and
//! every thinking allowance at its ceiling, each at its seat's prices.
//! Above the protocols; the money itself is [`crate::cost`].

use serde::{Deserialize, Serialize};

use crate::DebateSpec;
use crate::cost::{Usd, price_of};
use crate::plan::Bounds;
use crate::protocol;
use crate::tokens::{ENTRY_TOKENS, TEMPLATE_TOKENS, estimate_tokens};

/// The most a debate can make and spend, before it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostEstimate {
    /// Calls the protocol can make at most (turns, regenerations, summaries, the judge).
    pub calls: u32,
    /// Prompt tokens at most (estimated as characters / 4), over all calls.
    pub prompt_tokens: u64,
    /// Completion tokens at most: every call at its `max_tokens`, plus the
    /// thinking a reasoning model may spend beyond it.
    pub completion_tokens: u64,
    /// The cost at most, when every model is priced.
    pub cost_micro_usd: Option<Usd>,
    /// Models without a price (then `cost_micro_usd` is absent).
    pub unpriced: Vec<String>,
}

/// The largest prompt's text before any reply is quoted: the question, the
/// context and the files (as often as the protocol's prompts hold them), a
/// persona and domain, the protocol's own text.
pub(crate) fn fixed_prompt_tokens(spec: &DebateSpec) -> u64 {
    let mut fixed = TEMPLATE_TOKENS + estimate_tokens(&spec.question) as u64;
    // The context is quoted line by line too, and so are the files.
    fixed += spec.context.as_deref().map_or(0, |c| 2 * estimate_tokens(c) as u64);
    fixed += crate::files::prompt_tokens(&spec.files);
    // The parent section is shortened to its limit, so its framing is exact.
    fixed += estimate_tokens(&spec.parent_frame()) as u64;
    fixed += spec
        .panel
        .iter()
        .chain(&spec.judge)
        .map(|p| {
            let persona = p.persona.as_deref().map_or(0, estimate_tokens);
            (persona + estimate_tokens(&crate::prompt_kit::domain(p))) as u64
        })
        .max()
        .unwrap_or(0);
    fixed + (protocol::registry::of(spec).prompt_tokens)(spec)
}

/// What an earlier reply of at most `ceiling` tokens adds to a later prompt:
/// its text, quoted line by line (`> `, two characters a line: a quarter
/// more for lines of eight characters on average, the shortest prose and
/// lists have), under a heading and a label.
pub(crate) fn quoted_reply(ceiling: u32) -> u64 {
    let ceiling = ceiling as u64;
    ceiling + ceiling.div_ceil(4) + ENTRY_TOKENS
}

/// One chair's rates, as a bound counts them.
#[derive(Debug, Clone, Copy)]
struct Chair {
    /// USD per million prompt tokens at their dearest (a miss, or a cache write).
    prompt: f64,
    /// USD per million output tokens.
    output: f64,
    /// Thinking tokens a call may add beyond its reply (the allowance sent).
    thinking: u64,
}

impl Chair {
    fn of(spec: &DebateSpec, seat: &crate::Participant, max_tokens: u32) -> Option<Chair> {
        let price = price_of(spec, &seat.model)?;
        let thinking = crate::reasoning::request_for(&seat.model, seat.reasoning, &spec.models, max_tokens)
            .map_or(0, |r| r.allowance as u64);
        Some(Chair { prompt: price.prompt_ceiling(), output: price.output, thinking })
    }

    /// A call's most, in micro-dollars (tokens × USD per million).
    fn call(&self, prompt: u64, reply: u64) -> f64 {
        prompt as f64 * self.prompt + (reply + self.thinking) as f64 * self.output
    }
}

/// The most `n` calls cost when any `cap` of them may fall to one chair:
/// each chair's share taken dearest first (`value(chair)` for a call),
/// the rest, if the caps cannot hold them all, at the dearest chair.
fn dearest_first(chairs: &[Chair], mut values: Vec<f64>, cap: u32, per: impl Fn(&Chair) -> f64) -> f64 {
    // `values` are what each call weighs (its prompt tokens), sorted so the
    // heaviest calls go to the dearest chairs: no assignment costs more.
    values.sort_by(|a, b| b.total_cmp(a));
    let mut order: Vec<usize> = (0..chairs.len()).collect();
    order.sort_by(|&a, &b| per(&chairs[b]).total_cmp(&per(&chairs[a])));
    let mut total = 0.0;
    let mut next = 0;
    for &c in &order {
        for _ in 0..cap {
            if next == values.len() {
                return total;
            }
            total += values[next] * per(&chairs[c]);
            next += 1;
        }
    }
    let dearest = order.first().map_or(0.0, |&c| per(&chairs[c]));
    total + values[next..].iter().map(|v| v * dearest).sum::<f64>()
}

/// The worst case of `spec`, assuming providers keep replies within their
/// output limits (the reply's ceiling and the thinking allowance sent).
///
/// Calls: the protocol's own upper bound. Each prompt: the fixed text, plus
/// every earlier reply it may quote at that reply's own ceiling — a turn
/// shows at most the turns before it (a regeneration replaces the turn it
/// redoes, so it adds none), the judge every turn — and never more than the
/// context budget when one is set. Cost: every call at its own chair's
/// prices and thinking allowance; as which seat speaks when is known only
/// as the debate goes, each seat (at most the protocol's turns per seat) is
/// given the longest prompts dearest first: an upper bound, not a forecast.
pub fn worst_case(spec: &DebateSpec) -> CostEstimate {
    let b = protocol::registry::bounds(spec);
    let limits = &spec.limits;
    let summaries = if limits.context_budget.is_some() { b.rounds } else { 0 };
    let regenerations = if limits.quality_gate == crate::QualityGate::Regenerate { b.gated } else { 0 };
    let calls = b.turns + regenerations + summaries + b.judge;
    let prompts = Prompts::longest(spec, &b, regenerations);
    let prompt_tokens = prompts.turns.iter().sum::<u64>()
        + prompts.regenerated.iter().sum::<u64>()
        + summaries as u64 * prompts.late
        + prompts.judge.iter().sum::<u64>();
    let completion_tokens = completion_tokens(spec, &b, regenerations + summaries);

    let mut models: Vec<&str> = spec.panel.iter().chain(&spec.judge).map(|p| p.model.as_str()).collect();
    crate::order::sort(&mut models);
    models.dedup();
    let unpriced: Vec<String> = models.iter().filter(|m| price_of(spec, m).is_none()).map(|m| m.to_string()).collect();
    let cost_micro_usd = unpriced.is_empty().then(|| priced(spec, &b, &prompts, summaries));
    CostEstimate { calls, prompt_tokens, completion_tokens, cost_micro_usd, unpriced }
}

/// Every call's prompt at its longest, in estimated tokens.
struct Prompts {
    /// The panel's turns, in order: each quotes every turn before it.
    turns: Vec<u64>,
    /// The regenerations: at most the longest turns' prompts again.
    regenerated: Vec<u64>,
    /// A call that sees every turn (a summary).
    late: u64,
    /// The judge's calls: each quotes every turn and the judge's calls before it.
    judge: Vec<u64>,
}

impl Prompts {
    fn longest(spec: &DebateSpec, b: &Bounds, regenerations: u32) -> Prompts {
        let limits = &spec.limits;
        let cap = |prompt: u64| limits.context_budget.map_or(prompt, |budget| prompt.min(budget as u64));
        let fixed = fixed_prompt_tokens(spec);
        let turn_entry = quoted_reply(limits.max_tokens);
        let judge_entry = quoted_reply(limits.judge_max_tokens);
        // The judge's calls before its last (consensus confirmations) may be quoted by any later call.
        let judged = b.judge.saturating_sub(1) as u64 * judge_entry;
        let turns = b.turns as u64;
        let turn_prompts: Vec<u64> = (0..turns).map(|j| cap(fixed + j * turn_entry + judged)).collect();
        // A regeneration asks a turn again with the same history (and the reason,
        // within the template's room): at most the longest turns' prompts. A
        // summary sees at most every turn.
        let regenerated: Vec<u64> = turn_prompts.iter().rev().take(regenerations as usize).copied().collect();
        let late = cap(fixed + turns * turn_entry + judged);
        let judge = (0..b.judge as u64).map(|k| cap(fixed + turns * turn_entry + k * judge_entry)).collect();
        Prompts { turns: turn_prompts, regenerated, late, judge }
    }
}

/// Every reply at its ceiling and every thinking allowance spent: the
/// panel's turns, `extra` calls (regenerations and summaries) at the most
/// thinking any seat has, and the judge's calls.
fn completion_tokens(spec: &DebateSpec, b: &Bounds, extra: u32) -> u64 {
    let limits = &spec.limits;
    let thinking = |seat: &crate::Participant, max_tokens: u32| {
        crate::reasoning::request_for(&seat.model, seat.reasoning, &spec.models, max_tokens)
            .map_or(0, |r| r.allowance as u64)
    };
    let turn_thinking: Vec<u64> = spec.panel.iter().map(|p| thinking(p, limits.max_tokens)).collect();
    let judge_thinking = spec.judge.as_ref().map_or(0, |j| thinking(j, limits.judge_max_tokens));
    let most_thinking = turn_thinking.iter().chain([&judge_thinking]).copied().max().unwrap_or(0);
    let per_seat = b.per_seat.max(1) as usize;
    // Each seat's turns at its own thinking: the most thinking goes to the most turns a seat may take.
    let mut by_thinking = turn_thinking.clone();
    by_thinking.sort_unstable_by(|a, b| b.cmp(a));
    let mut left = b.turns as usize;
    let mut turn_completion = 0;
    for t in by_thinking.iter().chain(std::iter::repeat(by_thinking.first().unwrap_or(&0))) {
        let n = left.min(per_seat);
        turn_completion += n as u64 * (limits.max_tokens as u64 + t);
        left -= n;
        if left == 0 {
            break;
        }
    }
    turn_completion
        + extra as u64 * (limits.max_tokens as u64 + most_thinking)
        + b.judge as u64 * (limits.judge_max_tokens as u64 + judge_thinking)
}

/// The most every call costs when every model is priced: each at its
/// chair's prices, each seat's share of the prompts dearest first.
fn priced(spec: &DebateSpec, b: &Bounds, prompts: &Prompts, summaries: u32) -> Usd {
    let limits = &spec.limits;
    let per_seat = b.per_seat.max(1) as usize;
    let turn_prompts = &prompts.turns;
    let regenerated = &prompts.regenerated;
    let chairs: Vec<Chair> = spec.panel.iter().filter_map(|p| Chair::of(spec, p, limits.max_tokens)).collect();
    let judge = spec.judge.as_ref().and_then(|j| Chair::of(spec, j, limits.judge_max_tokens));
    let reply = limits.max_tokens as u64;
    // Turns: prompts and outputs, each seat its share dearest first (in
    // passes of the panel, one a pass: the longest prompt of each pass to
    // the dearest seat).
    let mut micro = if b.passes && !chairs.is_empty() {
        turn_prompts
            .chunks(chairs.len())
            .map(|pass| dearest_first(&chairs, pass.iter().map(|&p| p as f64).collect(), 1, |c| c.prompt))
            .sum()
    } else {
        let prompts = turn_prompts.iter().map(|&p| p as f64).collect();
        dearest_first(&chairs, prompts, per_seat as u32, |c| c.prompt)
    };
    let outputs = vec![1.0; b.turns as usize];
    micro += dearest_first(&chairs, outputs, per_seat as u32, |c| c.call(0, reply));
    // Regenerations and summaries: any seat (a summary the judge's too), at the dearest.
    // Regenerations: each seat at most its gated turns again, dearest first.
    let gated_cap = b.gated_per_seat.max(1);
    let prompts_again = regenerated.iter().map(|&p| p as f64).collect();
    micro += dearest_first(&chairs, prompts_again, gated_cap, |c| c.prompt);
    let outputs = vec![1.0; regenerated.len()];
    micro += dearest_first(&chairs, outputs, gated_cap, |c| c.call(0, reply));
    let summarizer = chairs.iter().chain(judge.as_ref()).map(|c| c.call(prompts.late, reply)).fold(0.0, f64::max);
    micro += summaries as f64 * summarizer;
    if let Some(judge) = judge {
        micro += prompts.judge.iter().map(|&p| judge.call(p, limits.judge_max_tokens as u64)).sum::<f64>();
    }
    Usd(micro.round() as u64)
}
