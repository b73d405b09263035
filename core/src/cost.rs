//! What a debate costs: money and prices, the spending while it runs (to
//! stop before a limit), and the usage per seat after. The worst case before
//! it runs, which asks the protocol for its bound, is [`crate::worst_case`].
//!
//! Money is counted in micro-dollars (u64): a price is USD per million
//! tokens, so tokens × price is micro-dollars, and sums are exact and the
//! same in every host.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
