//! The worst case a run may spend, as one line.

use crate::engine::wit;
use crate::{bad, safe_eprintln};
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
        safe_eprintln!(
            "agon: --max-cost cannot count {} (no price): add [prices.\"MODEL\"] to agon.toml",
            bound.unpriced.join(", ")
        );
    }
    Ok(())
}
