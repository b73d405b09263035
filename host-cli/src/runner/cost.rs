//! The worst case a run may spend, as one line.

use crate::bad;
use crate::engine::wit;
use anyhow::Result;

/// "worst case: 16 calls, ≤ 24,000 prompt + 8,192 completion tokens, ≤ $0.14".
pub fn worst_case_line(e: &wit::CostEstimate) -> String {
    let cost = match e.cost_micro_usd {
        Some(micro) => format!(", ≤ {}", usd(micro)),
        None => format!("; cost unknown: no price for {}", e.unpriced.join(", ")),
    };
    format!(
        "agon: worst case {} calls, ≤ {} prompt + {} completion tokens{cost}",
        e.calls,
        thousands(e.prompt_tokens),
        thousands(e.completion_tokens)
    )
}

pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Micro-dollars as `$0.0123` (at least two decimals, cents and below when they matter).
pub fn usd(micro: u64) -> String {
    let mut frac = format!("{:06}", micro % 1_000_000);
    while frac.len() > 2 && frac.ends_with('0') {
        frac.pop();
    }
    format!("${}.{frac}", micro / 1_000_000)
}

pub fn micro_usd(dollars: f64) -> u64 {
    (dollars * 1e6).round().max(0.0) as u64
}

/// Refuse a run whose worst case is above `max` US dollars; say which models
/// it cannot count (no price).
pub fn check_max_cost(max: Option<f64>, bound: &wit::CostEstimate) -> Result<()> {
    if let (Some(max), Some(micro)) = (max, bound.cost_micro_usd)
        && micro > micro_usd(max)
    {
        return Err(bad(format!(
            "the worst case, {}, is above --max-cost ${max}: lower --rounds, --max-tokens or --judge-max-tokens, set --context-budget, or raise --max-cost",
            usd(micro)
        )));
    }
    if max.is_some() && !bound.unpriced.is_empty() {
        return Err(bad(format!(
            "--max-cost cannot hold a run it cannot price: {} {} no price; give {} one in agon.toml \
(`[prices.\"{}\"]` with input and output in USD per million tokens; `agon models` lists the catalog's), \
or run without --max-cost",
            bound.unpriced.join(", "),
            if bound.unpriced.len() == 1 { "has" } else { "have" },
            if bound.unpriced.len() == 1 { "it" } else { "each" },
            bound.unpriced[0]
        )));
    }
    Ok(())
}

/// What a finished run spent, from its transcript's usage and the engine's
/// cost summary: the last line of `agon run` (and each debate's in `batch`
/// and `eval`, summed there). "agon: spent $0.1234 · 13 calls · 36,512
/// prompt (2,048 cached) + 7,210 completion tokens".
pub fn spent_line(transcript_json: &str, summary: &wit::CostSummary) -> String {
    let t: serde_json::Value = serde_json::from_str(transcript_json).unwrap_or_default();
    let total = &t["usage"]["total"];
    let n = |key: &str| total[key].as_u64().unwrap_or(0);
    spent(&Spent {
        cost_micro_usd: summary.cost_micro_usd,
        unpriced: summary.unpriced.iter().map(|u| u.model.clone()).collect(),
        estimated_calls: summary.estimated_calls as u64,
        calls: n("calls"),
        prompt_tokens: n("prompt_tokens"),
        cached_tokens: n("cached_tokens"),
        completion_tokens: n("completion_tokens"),
    })
}

/// Spending and tokens, one debate's or many added up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spent {
    /// None when some seat had no price (`unpriced` names the models).
    pub cost_micro_usd: Option<u64>,
    pub unpriced: Vec<String>,
    pub estimated_calls: u64,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub completion_tokens: u64,
}

impl Spent {
    /// The sum of two: a cost only when both have one.
    pub fn add(&mut self, other: &Spent) {
        self.cost_micro_usd = self.cost_micro_usd.zip(other.cost_micro_usd).map(|(a, b)| a + b);
        for m in &other.unpriced {
            if !self.unpriced.contains(m) {
                self.unpriced.push(m.clone());
            }
        }
        self.estimated_calls += other.estimated_calls;
        self.calls += other.calls;
        self.prompt_tokens += other.prompt_tokens;
        self.cached_tokens += other.cached_tokens;
        self.completion_tokens += other.completion_tokens;
    }

    /// From a transcript's JSON alone (a batch's kept debates), its seats'
    /// costs added up: none when any seat had no price.
    pub fn of_transcript(transcript: &serde_json::Value) -> Spent {
        let total = &transcript["usage"]["total"];
        let n = |key: &str| total[key].as_u64().unwrap_or(0);
        let unpriced: Vec<String> =
            total["unpriced"].as_array().into_iter().flatten().filter_map(|m| m.as_str().map(str::to_string)).collect();
        Spent {
            cost_micro_usd: if unpriced.is_empty() { Some(n("cost_micro_usd")) } else { None },
            unpriced,
            estimated_calls: n("estimated_calls"),
            calls: n("calls"),
            prompt_tokens: n("prompt_tokens"),
            cached_tokens: n("cached_tokens"),
            completion_tokens: n("completion_tokens"),
        }
    }
}

/// The line for `spent`.
pub fn spent(s: &Spent) -> String {
    let cost = match s.cost_micro_usd {
        Some(micro) if s.estimated_calls > 0 => {
            format!("spent about {} ({} calls without usage, estimated)", usd(micro), s.estimated_calls)
        }
        Some(micro) => format!("spent {}", usd(micro)),
        None => {
            // Each model once, however many seats it sits in.
            let mut models: Vec<&str> = Vec::new();
            for m in &s.unpriced {
                if !models.contains(&m.as_str()) {
                    models.push(m);
                }
            }
            format!("cost unknown: no price for {}", models.join(", "))
        }
    };
    let cached = if s.cached_tokens > 0 { format!(" ({} cached)", thousands(s.cached_tokens)) } else { String::new() };
    format!(
        "agon: {cost} · {} calls · {} prompt{cached} + {} completion tokens",
        s.calls,
        thousands(s.prompt_tokens),
        thousands(s.completion_tokens)
    )
}

/// What the debates of a results file (`agon batch`, an `agon eval` arm)
/// spent, line by line; unreadable lines and error lines add nothing.
pub fn spent_in_results(path: &std::path::Path) -> std::io::Result<Spent> {
    use std::io::BufRead;
    let mut total = Spent { cost_micro_usd: Some(0), ..Spent::default() };
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    for line in file.lines() {
        let Ok(line) = line else { continue };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        if v["transcript"].is_object() {
            total.add(&Spent::of_transcript(&v["transcript"]));
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unpriced_model_in_many_seats_is_named_once() {
        let unpriced = ["openai/smollm2"; 4].map(String::from).to_vec();
        let line = spent(&Spent { unpriced, calls: 7, ..Spent::default() });
        assert!(line.starts_with("agon: cost unknown: no price for openai/smollm2 · 7 calls"), "{line}");
    }
}
