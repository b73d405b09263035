//! What a debate costs: the worst case before it runs, the spending while it
//! runs (to stop before a limit), and the usage per seat after.
//!
//! Money is counted in micro-dollars (u64): a price is USD per million
//! tokens, so tokens × price is micro-dollars, and sums are exact and the
//! same in every host.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::protocol;
use crate::tokens::{ENTRY_TOKENS, TEMPLATE_TOKENS, estimate_tokens};
use crate::{DebateSpec, Price};

/// An amount of money in micro-dollars (millionths of a US dollar). It is the
/// one unit agon reports money in: the WIT's `cost-micro-usd` and the JSON's
/// `cost_micro_usd` are the same integer, so no host rounds a float.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Usd(pub u64);

impl Usd {
    pub fn from_dollars(dollars: f64) -> Usd {
        Usd((dollars * 1e6).round().max(0.0) as u64)
    }

    /// `$0.0123`: at least two decimals, no float formatting (integer digits only).
    pub fn display(self) -> String {
        let (dollars, micros) = (self.0 / 1_000_000, self.0 % 1_000_000);
        let mut frac = format!("{micros:06}");
        while frac.len() > 2 && frac.ends_with('0') {
            frac.pop();
        }
        format!("${dollars}.{frac}")
    }
}

impl Serialize for Usd {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Usd, D::Error> {
        u64::deserialize(d).map(Usd)
    }
}

/// What one call billed as `tokens` costs at `price`: prompt tokens missed,
/// read from the cache and written to it, each at its own rate.
pub fn cost(price: Price, tokens: &CallTokens) -> Usd {
    let (missed, read, written) = tokens.prompt_parts();
    let prompt = missed as f64 * price.input + read as f64 * price.read_rate() + written as f64 * price.write_rate();
    Usd((prompt + tokens.completion as f64 * price.output).round() as u64)
}

/// The most `prompt` and `completion` tokens can cost at `price`: no token
/// read from a cache, every prompt token at its dearest rate (a miss, or a
/// cache write where that is dearer). What bounds and limits are counted in.
pub fn bound(price: Price, prompt: u64, completion: u64) -> Usd {
    Usd((prompt as f64 * price.prompt_ceiling() + completion as f64 * price.output).round() as u64)
}

/// The price of a model as the panel writes it: its own entry, else — for a
/// fallback chain — the dearest of its alternatives (each must be priced).
pub fn price_of(spec: &DebateSpec, model: &str) -> Option<Price> {
    if let Some(p) = spec.prices.get(model) {
        return Some(*p);
    }
    if !model.contains('|') {
        return None;
    }
    model
        .split('|')
        .map(|m| spec.prices.get(m.trim()).copied())
        .try_fold(Price::new(0.0, 0.0), |acc, p| p.map(|p| dearer(acc, p)))
}

/// Each rate the dearer of two prices': what a chain is priced at, since
/// which of its models answers is known only after. A cache rate stays
/// unset only when neither price sets it.
fn dearer(a: Price, b: Price) -> Price {
    let rate = |x: Option<f64>, y: Option<f64>, a_rate: f64, b_rate: f64| {
        (x.is_some() || y.is_some()).then(|| a_rate.max(b_rate))
    };
    Price {
        input: a.input.max(b.input),
        output: a.output.max(b.output),
        cache_read: rate(a.cache_read, b.cache_read, a.read_rate(), b.read_rate()),
        cache_write: rate(a.cache_write, b.cache_write, a.write_rate(), b.write_rate()),
    }
}

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
        let thinking = crate::reasoning::request_for(seat, &spec.models, max_tokens).map_or(0, |r| r.allowance as u64);
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
    let judge_prompts: Vec<u64> =
        (0..b.judge as u64).map(|k| cap(fixed + turns * turn_entry + k * judge_entry)).collect();
    let prompt_tokens = turn_prompts.iter().sum::<u64>()
        + regenerated.iter().sum::<u64>()
        + summaries as u64 * late
        + judge_prompts.iter().sum::<u64>();

    let thinking = |seat: &crate::Participant, max_tokens: u32| {
        crate::reasoning::request_for(seat, &spec.models, max_tokens).map_or(0, |r| r.allowance as u64)
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
    let completion_tokens = turn_completion
        + (regenerations + summaries) as u64 * (limits.max_tokens as u64 + most_thinking)
        + b.judge as u64 * (limits.judge_max_tokens as u64 + judge_thinking);

    let mut models: Vec<&str> = spec.panel.iter().chain(&spec.judge).map(|p| p.model.as_str()).collect();
    crate::order::sort(&mut models);
    models.dedup();
    let unpriced: Vec<String> = models.iter().filter(|m| price_of(spec, m).is_none()).map(|m| m.to_string()).collect();
    let cost_micro_usd = unpriced.is_empty().then(|| {
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
        let outputs = vec![1.0; turns as usize];
        micro += dearest_first(&chairs, outputs, per_seat as u32, |c| c.call(0, reply));
        // Regenerations and summaries: any seat (a summary the judge's too), at the dearest.
        // Regenerations: each seat at most its gated turns again, dearest first.
        let gated_cap = b.gated_per_seat.max(1);
        let prompts = regenerated.iter().map(|&p| p as f64).collect();
        micro += dearest_first(&chairs, prompts, gated_cap, |c| c.prompt);
        let outputs = vec![1.0; regenerated.len()];
        micro += dearest_first(&chairs, outputs, gated_cap, |c| c.call(0, reply));
        let summarizer = chairs.iter().chain(judge.as_ref()).map(|c| c.call(late, reply)).fold(0.0, f64::max);
        micro += summaries as f64 * summarizer;
        if let Some(judge) = judge {
            micro += judge_prompts.iter().map(|&p| judge.call(p, limits.judge_max_tokens as u64)).sum::<f64>();
        }
        Usd(micro.round() as u64)
    });
    CostEstimate { calls, prompt_tokens, completion_tokens, cost_micro_usd, unpriced }
}

/// Tokens and money per seat, as the transcript reports them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UsageReport {
    pub seats: Vec<SeatUsage>,
    pub total: UsageTotal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatUsage {
    pub seat: String,
    pub model: String,
    /// Calls answered or failed, regenerations and summaries included.
    pub calls: u32,
    pub prompt_tokens: u64,
    /// Of the prompt tokens, those read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub cached_tokens: u64,
    /// Of the prompt tokens, those written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub cache_write_tokens: u64,
    pub completion_tokens: u64,
    /// Calls whose provider reported no usage: their tokens are estimated (characters / 4).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub estimated_calls: u32,
    /// Absent when the model has no price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<Usd>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UsageTotal {
    pub calls: u32,
    pub prompt_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub cached_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub cache_write_tokens: u64,
    pub completion_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub estimated_calls: u32,
    /// The cost of the priced seats; `unpriced` names the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<Usd>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpriced: Vec<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// One call's tokens, reported or estimated. `prompt` is every prompt
/// token; `cached` and `cache_write` are parts of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallTokens {
    pub prompt: u64,
    pub cached: u64,
    pub cache_write: u64,
    pub completion: u64,
    pub estimated: bool,
}

impl CallTokens {
    /// The tokens a provider reported for a call.
    pub fn reported(u: &crate::Usage) -> CallTokens {
        CallTokens {
            prompt: u.prompt_tokens as u64,
            cached: u.cached_tokens.unwrap_or(0) as u64,
            cache_write: u.cache_write_tokens.unwrap_or(0) as u64,
            completion: u.completion_tokens as u64,
            estimated: false,
        }
    }

    /// The prompt as (missed, read from the cache, written to it). The
    /// counts are the provider's, so untrusted: a read is never more than the
    /// prompt, and a write never more than what the read left (OpenRouter has
    /// reported the same tokens as both read and written).
    pub fn prompt_parts(&self) -> (u64, u64, u64) {
        let read = self.cached.min(self.prompt);
        let written = self.cache_write.min(self.prompt - read);
        (self.prompt - read - written, read, written)
    }
}

impl UsageReport {
    /// Add one call of `seat` (on `model`; answered by `answered`, one of a
    /// chain's models, priced as itself when it is priced) to the report.
    pub fn add(&mut self, spec: &DebateSpec, seat: &str, model: &str, answered: Option<&str>, tokens: CallTokens) {
        let row = match self.seats.iter().position(|s| s.seat == seat) {
            Some(i) => &mut self.seats[i],
            None => {
                self.seats.push(SeatUsage {
                    seat: seat.to_string(),
                    model: model.to_string(),
                    calls: 0,
                    prompt_tokens: 0,
                    cached_tokens: 0,
                    cache_write_tokens: 0,
                    completion_tokens: 0,
                    estimated_calls: 0,
                    cost_micro_usd: price_of(spec, model).map(|_| Usd(0)),
                });
                self.seats.last_mut().expect("just pushed")
            }
        };
        row.calls += 1;
        let (_, read, written) = tokens.prompt_parts();
        row.prompt_tokens += tokens.prompt;
        row.cached_tokens += read;
        row.cache_write_tokens += written;
        row.completion_tokens += tokens.completion;
        row.estimated_calls += tokens.estimated as u32;
        let price = answered.and_then(|m| price_of(spec, m)).or_else(|| price_of(spec, model));
        if let (Some(total), Some(price)) = (row.cost_micro_usd.as_mut(), price) {
            total.0 += cost(price, &tokens).0;
        }
    }

    /// Fill in the total from the seats.
    pub fn finish(mut self) -> UsageReport {
        let mut total = UsageTotal::default();
        let mut cost = Usd(0);
        for s in &self.seats {
            total.calls += s.calls;
            total.prompt_tokens += s.prompt_tokens;
            total.cached_tokens += s.cached_tokens;
            total.cache_write_tokens += s.cache_write_tokens;
            total.completion_tokens += s.completion_tokens;
            total.estimated_calls += s.estimated_calls;
            match s.cost_micro_usd {
                Some(c) => cost.0 += c.0,
                None if !total.unpriced.contains(&s.model) => total.unpriced.push(s.model.clone()),
                None => {}
            }
        }
        total.cost_micro_usd = Some(cost).filter(|_| self.seats.iter().any(|s| s.cost_micro_usd.is_some()));
        self.total = total;
        self
    }

    /// Spending so far, priced seats only.
    pub fn spent(&self) -> Usd {
        Usd(self.seats.iter().filter_map(|s| s.cost_micro_usd).map(|c| c.0).sum())
    }

    /// What the debate cost, when that can be told: every host reports this
    /// rather than reading the report's fields its own way.
    pub fn cost_summary(&self) -> CostSummary {
        let unpriced: Vec<UnpricedSeat> = self
            .seats
            .iter()
            .filter(|s| s.cost_micro_usd.is_none())
            .map(|s| UnpricedSeat { seat: s.seat.clone(), model: s.model.clone() })
            .collect();
        CostSummary {
            cost_micro_usd: unpriced.is_empty().then(|| self.spent()),
            unpriced,
            estimated_calls: self.seats.iter().map(|s| s.estimated_calls).sum(),
        }
    }
}

/// What a debate cost: the total when every seat that made a call had a
/// price (nothing called, nothing spent: zero), otherwise none, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostSummary {
    /// The total, when every seat was priced.
    pub cost_micro_usd: Option<Usd>,
    /// The seats whose model has no price, in seat order: why there is no total.
    pub unpriced: Vec<UnpricedSeat>,
    /// Calls whose provider reported no usage: their tokens, and so the
    /// total, are estimated (characters / 4).
    pub estimated_calls: u32,
}

/// A seat that made calls on a model without a price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnpricedSeat {
    pub seat: String,
    pub model: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_exact_and_printed_without_floats() {
        assert_eq!(Usd(1_234).display(), "$0.001234");
        assert_eq!(Usd(1_500_000).display(), "$1.50");
        assert_eq!(Usd(0).display(), "$0.00");
        assert_eq!(Usd(120_000).display(), "$0.12");
        assert_eq!(Usd::from_dollars(0.25), Usd(250_000));
        // 1,000 prompt tokens at $2.50/M and 500 completion tokens at $10/M: $0.0025 + $0.005.
        let tokens = CallTokens { prompt: 1_000, completion: 500, ..CallTokens::default() };
        assert_eq!(cost(Price::new(2.5, 10.0), &tokens), Usd(7_500));
        assert_eq!(bound(Price::new(2.5, 10.0), 1_000, 500), Usd(7_500));
        // In JSON, the integer itself: one unit everywhere.
        assert_eq!(serde_json::to_string(&Usd(7_500)).unwrap(), "7500");
    }

    #[test]
    fn cache_rates_price_what_was_cached_and_the_bound_counts_on_no_hit() {
        // Anthropic's shape: $3 in, $0.30 a cache read, $3.75 a cache write, $15 out.
        let sonnet = Price { cache_read: Some(0.3), cache_write: Some(3.75), ..Price::new(3.0, 15.0) };
        let tokens = CallTokens { prompt: 1_000, cached: 600, cache_write: 300, completion: 10, ..Default::default() };
        // 100 missed at 3, 600 read at 0.3, 300 written at 3.75, 10 out at 15.
        assert_eq!(cost(sonnet, &tokens), Usd(300 + 180 + 1_125 + 150));
        // Without cache rates a cached token costs the input price: never less than billed.
        assert_eq!(cost(Price::new(3.0, 15.0), &tokens), Usd(3_000 + 150));
        // The bound: every prompt token at the dearer of a miss and a write.
        assert_eq!(bound(sonnet, 1_000, 10), Usd(3_750 + 150));
        // A chain is priced at each rate's dearest; a rate no model sets stays unset.
        let gpt = Price { cache_read: Some(1.25), ..Price::new(2.5, 10.0) };
        let chain = dearer(sonnet, gpt);
        assert_eq!((chain.input, chain.cache_read, chain.cache_write), (3.0, Some(1.25), Some(3.75)));
        assert_eq!(dearer(Price::new(1.0, 2.0), Price::new(2.0, 1.0)), Price::new(2.0, 2.0));
    }

    #[test]
    fn a_cost_is_told_only_when_every_seat_was_priced() {
        let seat = |seat: &str, cost: Option<u64>, estimated_calls| SeatUsage {
            seat: seat.into(),
            model: format!("openai/{seat}"),
            calls: 1,
            prompt_tokens: 10,
            cached_tokens: 0,
            cache_write_tokens: 0,
            completion_tokens: 5,
            estimated_calls,
            cost_micro_usd: cost.map(Usd),
        };
        let priced = UsageReport { seats: vec![seat("a", Some(3), 0), seat("j", Some(4), 1)], ..Default::default() };
        assert_eq!(
            priced.cost_summary(),
            CostSummary { cost_micro_usd: Some(Usd(7)), unpriced: vec![], estimated_calls: 1 }
        );
        let partly = UsageReport { seats: vec![seat("a", Some(3), 0), seat("b", None, 0)], ..Default::default() };
        let summary = partly.cost_summary();
        assert_eq!(summary.cost_micro_usd, None, "a part of the cost is not the cost");
        assert_eq!(summary.unpriced, [UnpricedSeat { seat: "b".into(), model: "openai/b".into() }]);
        assert_eq!(UsageReport::default().cost_summary().cost_micro_usd, Some(Usd(0)), "nothing called");
    }
}
