//! The evaluation's report: per arm, per pair of arms, per round; Markdown
//! for people, JSONL of every item for re-analysis, and a picture.

use std::fmt::Write;

use serde_json::{Value, json};

use super::dataset::Item;
use super::score::Scored;
use super::stats::{mcnemar_exact, wilson};
use crate::render::results::{cell, table};

/// One arm's scored items, in dataset order.
pub(crate) struct ArmScore<'a> {
    pub name: &'a str,
    pub items: Vec<Scored>,
}

impl ArmScore<'_> {
    pub(crate) fn count(&self, f: impl Fn(&Scored) -> bool) -> u64 {
        self.items.iter().filter(|s| f(s)).count() as u64
    }

    /// Right answers over items.
    pub(crate) fn accuracy(&self) -> f64 {
        let n = self.items.len() as u64;
        if n == 0 { 0.0 } else { self.count(|s| s.correct) as f64 / n as f64 }
    }

    /// The mean cost of a debate that ran, when every one that ran was priced.
    pub(crate) fn cost_per_item(&self) -> Option<f64> {
        let ran: Vec<&Scored> = self.items.iter().filter(|s| s.ran).collect();
        let costs: Option<Vec<u64>> = ran.iter().map(|s| s.cost_micro_usd).collect();
        costs.filter(|c| !c.is_empty()).map(|c| c.iter().sum::<u64>() as f64 / c.len() as f64)
    }

    /// The mean tokens of a debate that ran.
    pub(crate) fn tokens_per_item(&self) -> f64 {
        let ran = self.count(|s| s.ran).max(1);
        self.items.iter().map(|s| s.tokens).sum::<u64>() as f64 / ran as f64
    }

    /// The accuracy of the plurality after each set of turns (an item whose
    /// debate stopped earlier keeps its last answer); empty when no item has rounds.
    pub(crate) fn by_round(&self) -> Vec<f64> {
        let rounds = self.items.iter().map(|s| s.by_round.len()).max().unwrap_or(0);
        (0..rounds)
            .map(|r| {
                let right = self.items.iter().filter(|s| s.by_round.get(r).or(s.by_round.last()) == Some(&true));
                right.count() as f64 / self.items.len().max(1) as f64
            })
            .collect()
    }
}

/// `x` with `places` decimals, rounded half away from zero. Integer
/// arithmetic: float formatting would add 5 KB to the component.
pub(crate) fn fixed(x: f64, places: u32) -> String {
    let scale = 10i64.pow(places);
    let n = (x * scale as f64).round() as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (whole, frac) = (n.unsigned_abs() / scale as u64, n.unsigned_abs() % scale as u64);
    match places {
        0 => format!("{sign}{whole}"),
        _ => format!("{sign}{whole}.{frac:0width$}", width = places as usize),
    }
}

pub(crate) fn percent(x: f64) -> String {
    format!("{} %", fixed(x * 100.0, 1))
}

pub(crate) fn usd(micro: u64) -> String {
    format!("${}", fixed(micro as f64 / 1e6, 4))
}

pub(crate) fn markdown(dataset: &str, items: &[Item], skipped: &[String], arms: &[ArmScore]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Evaluation: {}\n", cell(dataset));
    let _ = writeln!(
        out,
        "{} items, {} arm(s). An item an arm gives no answer for (none could be read, or its vote tied) is wrong, \
         and counted under \"no answer\".\n",
        items.len(),
        arms.len()
    );
    if !skipped.is_empty() {
        let _ = writeln!(out, "{} dataset line(s) skipped:\n", skipped.len());
        for s in skipped {
            let _ = writeln!(out, "- {}", cell(s));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## Accuracy\n");
    let rows: Vec<Vec<String>> = arms
        .iter()
        .map(|a| {
            let n = a.items.len() as u64;
            let right = a.count(|s| s.correct);
            let (lo, hi) = wilson(right, n);
            let ran = a.count(|s| s.ran);
            let no_answer = a.count(|s| s.ran && s.answer.is_none());
            let calls: u64 = a.items.iter().map(|s| s.calls).sum();
            let tokens: u64 = a.items.iter().map(|s| s.tokens).sum();
            let priced = a.items.iter().any(|s| s.cost_micro_usd.is_some());
            let cost: u64 = a.items.iter().filter_map(|s| s.cost_micro_usd).sum();
            let rounds: u64 = a.items.iter().map(|s| u64::from(s.rounds)).sum();
            vec![
                a.name.to_string(),
                format!("{right}/{n}"),
                if n == 0 { "–".into() } else { percent(right as f64 / n as f64) },
                format!("{} – {}", percent(lo), percent(hi)),
                format!("{no_answer}"),
                format!("{}", n - ran),
                if ran == 0 { "–".into() } else { fixed(rounds as f64 / ran as f64, 2) },
                if ran == 0 { "–".into() } else { fixed(calls as f64 / ran as f64, 1) },
                if ran == 0 { "–".into() } else { fixed(tokens as f64 / ran as f64, 0) },
                if !priced || ran == 0 { "–".into() } else { usd(cost / ran) },
                if !priced || right == 0 { "–".into() } else { usd(cost / right) },
            ]
        })
        .collect();
    table(
        &mut out,
        &[
            "arm",
            "right",
            "accuracy",
            "95 % interval (Wilson)",
            "no answer (unreadable or tied)",
            "not run",
            "rounds / item",
            "calls / item",
            "tokens / item",
            "cost / item",
            "cost / right answer",
        ],
        &rows,
    );
    if arms.len() > 1 {
        let _ = writeln!(out, "## Arms against each other (exact McNemar test)\n");
        let mut rows = Vec::new();
        for (i, a) in arms.iter().enumerate() {
            for b in &arms[i + 1..] {
                let (mut only_a, mut only_b) = (0u64, 0u64);
                for (x, y) in a.items.iter().zip(&b.items) {
                    match (x.correct, y.correct) {
                        (true, false) => only_a += 1,
                        (false, true) => only_b += 1,
                        _ => {}
                    }
                }
                let n = a.items.len().max(1) as f64;
                rows.push(vec![
                    format!("{} vs {}", a.name, b.name),
                    {
                        let points = (only_a as f64 - only_b as f64) / n * 100.0;
                        format!("{}{} points", if points >= 0.0 { "+" } else { "" }, fixed(points, 1))
                    },
                    format!("{only_a}"),
                    format!("{only_b}"),
                    fixed(mcnemar_exact(only_a, only_b), 4),
                ]);
            }
        }
        table(&mut out, &["pair", "difference", "only the first right", "only the second right", "p"], &rows);
    }
    let rounds = arms.iter().map(|a| a.items.iter().map(|s| s.by_round.len()).max().unwrap_or(0)).max().unwrap_or(0);
    if rounds > 1 {
        let _ = writeln!(out, "## The plurality answer after each round\n");
        let mut header = vec!["arm".to_string()];
        header.extend((1..=rounds).map(|r| format!("after turn set {r}")));
        let rows: Vec<Vec<String>> = arms
            .iter()
            .filter(|a| a.items.iter().any(|s| s.by_round.len() > 1))
            .map(|a| {
                let mut row = vec![a.name.to_string()];
                let accuracy = a.by_round();
                row.extend(
                    (0..rounds).map(|r| accuracy.get(r).or(accuracy.last()).map_or("–".into(), |x| percent(*x))),
                );
                row
            })
            .collect();
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        table(&mut out, &header, &rows);
        let _ = writeln!(
            out,
            "Each column: every seat's latest answer up to that set of turns (a blind round first, where the \
             protocol has one; challengers not counted; a latest answer that cannot be read is none), and the \
             plurality of them; a tie is not right. The last column is the arm's answer.\n"
        );
    }
    out
}

/// Every item of every arm, one JSON line each.
pub(crate) fn items_jsonl(items: &[Item], arms: &[ArmScore]) -> String {
    let mut out = String::new();
    for a in arms {
        for (item, s) in items.iter().zip(&a.items) {
            let line = json!({
                "arm": a.name,
                "id": item.id,
                "gold": item.gold(),
                "answer": s.answer,
                "correct": s.correct,
                "no_answer": s.ran && s.answer.is_none(),
                "ran": s.ran,
                "rounds": s.rounds,
                "calls": s.calls,
                "tokens": s.tokens,
                "cost_micro_usd": s.cost_micro_usd,
                "by_round": s.by_round,
            });
            out.push_str(&crate::session::canonical(line).to_string());
            out.push('\n');
        }
    }
    out
}

/// The dataset's results for one arm, by item id.
pub(crate) fn lines_by_id(results: &str) -> std::collections::BTreeMap<String, Value> {
    let mut by = std::collections::BTreeMap::new();
    for line in results.lines() {
        let Ok(v) = crate::json_read::parse(line) else { continue };
        if let Some(id) = v.get("id").and_then(Value::as_str) {
            // The last line for an id wins: a rerun appends after an error line.
            by.insert(id.to_string(), v);
        }
    }
    by
}

#[cfg(test)]
mod tests {
    #[test]
    fn fixed_decimals_round_as_written() {
        for (x, places, want) in [
            (0.5, 1, "0.5"),
            (33.333, 1, "33.3"),
            (-66.666, 1, "-66.7"),
            (0.03515625, 4, "0.0352"),
            (1.0, 4, "1.0000"),
            (2.5, 0, "3"),
            (0.0, 2, "0.00"),
            (-0.04, 1, "0.0"),
        ] {
            assert_eq!(super::fixed(x, places), want, "{x}");
        }
    }
}
