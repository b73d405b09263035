//! The evaluation's report: per arm, per pair of arms, per field, per
//! round; Markdown for people, JSON for programs, JSONL of every item for
//! re-analysis, and pictures. Every figure names what produced it: the
//! dataset's digest, each arm's settings as its results file records them,
//! and the engine that scored.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{Value, json};

use super::Scoring;
use super::arm_score::{ArmScore, fixed, percent, usd};
use super::dataset::Item;
use super::score::Scored;
use super::stats::{bootstrap_mean, clustered, mcnemar_exact, normal};
use crate::render::results::{cell, table};

/// Draws of the bootstrap, and its seed: fixed, so every host prints the same interval.
const DRAWS: usize = 2000;
const SEED: u64 = 0x00a9_0e7a;

fn points(x: f64) -> String {
    let p = x * 100.0;
    format!("{}{}", if p >= 0.0 { "+" } else { "" }, fixed(p, 1))
}

/// Two arms on the same items: the paired difference and its intervals.
struct Pair {
    name: String,
    diff: f64,
    paired: (f64, f64),
    bootstrap: (f64, f64),
    only_a: u64,
    only_b: u64,
    /// Exact McNemar, only when both arms have one sample per item.
    p: Option<f64>,
}

fn pairs(arms: &[ArmScore]) -> Vec<Pair> {
    let mut out = Vec::new();
    for (i, a) in arms.iter().enumerate() {
        for b in &arms[i + 1..] {
            let (ma, mb) = (a.item_means(), b.item_means());
            let d: Vec<f64> = ma.iter().zip(&mb).map(|(x, y)| x - y).collect();
            let (diff, se) = clustered(&d);
            let single = a.repeats() <= 1 && b.repeats() <= 1;
            let only_a = ma.iter().zip(&mb).filter(|(x, y)| x > y).count() as u64;
            let only_b = ma.iter().zip(&mb).filter(|(x, y)| x < y).count() as u64;
            out.push(Pair {
                name: format!("{} vs {}", a.name, b.name),
                diff,
                paired: normal(diff, se, -1.0, 1.0),
                bootstrap: bootstrap_mean(&d, DRAWS, SEED),
                only_a,
                only_b,
                p: single.then(|| mcnemar_exact(only_a, only_b)),
            });
        }
    }
    out
}

/// One row of the accuracy table, as numbers.
struct Row {
    n: usize,
    right: u64,
    accuracy: f64,
    interval: (f64, f64),
    se: f64,
    repeats: usize,
    no_answer: u64,
    failed: u64,
    cut: u64,
    stale: u64,
    not_run: u64,
    any_right: u64,
    ran: u64,
    rounds: u64,
    calls: u64,
    tokens: u64,
    cost: Option<u64>,
    cost_partial: bool,
}

fn row(a: &ArmScore) -> Row {
    let ran = a.count(|s| s.ran);
    let priced = a.items.iter().any(|s| s.cost_micro_usd.is_some());
    Row {
        n: a.n(),
        right: a.count(|s| s.correct),
        accuracy: a.accuracy(),
        interval: a.interval(),
        se: clustered(&a.item_means()).1,
        repeats: a.repeats(),
        no_answer: a.count(Scored::no_answer),
        failed: a.count(|s| s.failed),
        cut: a.items.iter().map(|s| u64::from(s.cut)).sum(),
        stale: a.count(|s| s.stale),
        not_run: a.count(|s| !s.ran && !s.failed && !s.stale),
        any_right: a.count(|s| s.any_right),
        ran,
        rounds: a.items.iter().map(|s| u64::from(s.rounds)).sum(),
        calls: a.items.iter().map(|s| s.calls).sum(),
        tokens: a.items.iter().map(|s| s.tokens).sum(),
        cost: priced.then(|| a.items.iter().filter_map(|s| s.cost_micro_usd).sum()),
        cost_partial: a.cost_partial(),
    }
}

pub(crate) fn markdown(dataset: &Dataset, arms: &[ArmScore], by: &[String]) -> String {
    let mut out = String::new();
    heading(&mut out, dataset, arms);
    accuracy(&mut out, arms);
    failures(&mut out, arms);
    if arms.len() > 1 {
        arms_against_each_other(&mut out, arms);
    }
    for field in by {
        by_field(&mut out, field, dataset.items, arms);
    }
    plurality_by_round(&mut out, arms);
    super::rounds::markdown(&mut out, arms);
    settings(&mut out, arms);
    out
}

/// The title, what counts as what, the dataset's digest and any lines skipped.
fn heading(out: &mut String, dataset: &Dataset, arms: &[ArmScore]) {
    let _ = writeln!(out, "# Evaluation: {}\n", cell(dataset.name));
    let _ = writeln!(
        out,
        "{} items, {} arm(s). An item an arm gives no answer for (none could be read, or its vote tied) is wrong, \
         and counted under \"no answer\"; a debate with a failed call is counted under \"failed\", never as a wrong \
         answer of the arm's own, and a turn cut at its token limit is no vote.\n",
        dataset.items.len(),
        arms.len()
    );
    let _ = writeln!(
        out,
        "Dataset SHA-256 `{}` (as scored, {} items); scored by agon engine {}.\n",
        dataset.digest,
        dataset.items.len(),
        crate::journal::ENGINE_VERSION
    );
    if !dataset.skipped.is_empty() {
        let _ = writeln!(out, "{} dataset line(s) skipped:\n", dataset.skipped.len());
        for s in dataset.skipped {
            let _ = writeln!(out, "- {}", cell(s));
        }
        out.push('\n');
    }
}

/// Each arm's accuracy, interval, failures, calls and cost per item.
fn accuracy(out: &mut String, arms: &[ArmScore]) {
    let _ = writeln!(out, "## Accuracy\n");
    let rows: Vec<Vec<String>> = arms
        .iter()
        .map(|a| {
            let r = row(a);
            let partial = if r.cost_partial { " (partial)" } else { "" };
            let samples =
                if r.repeats > 1 { format!("{}/{}", r.right, r.n * r.repeats) } else { format!("{}/{}", r.right, r.n) };
            vec![
                a.name.to_string(),
                samples,
                if r.n == 0 { "–".into() } else { percent(r.accuracy) },
                format!("{} – {}", percent(r.interval.0), percent(r.interval.1)),
                format!("{}", r.no_answer),
                format!("{}", r.not_run),
                if r.ran == 0 { "–".into() } else { fixed(r.rounds as f64 / r.ran as f64, 2) },
                if r.ran == 0 { "–".into() } else { fixed(r.calls as f64 / r.ran as f64, 1) },
                if r.ran == 0 { "–".into() } else { fixed(r.tokens as f64 / r.ran as f64, 0) },
                match r.cost {
                    Some(c) if r.ran > 0 => format!("{}{partial}", usd(c / r.ran)),
                    _ => "–".into(),
                },
                match r.cost {
                    Some(c) if r.right > 0 => format!("{}{partial}", usd(c / r.right)),
                    _ => "–".into(),
                },
                format!("{}", r.failed),
                format!("{}", r.cut),
                format!("{}", r.stale),
                format!("{}", r.any_right),
                fixed(r.se * 100.0, 1),
                format!("{}", r.repeats.max(1)),
            ]
        })
        .collect();
    table(
        out,
        &[
            "arm",
            "right",
            "accuracy",
            "95 % interval",
            "no answer (unreadable or tied)",
            "not run",
            "rounds / item",
            "calls / item",
            "tokens / item",
            "cost / item",
            "cost / right answer",
            "failed (a call failed)",
            "seats cut at the limit",
            "stale (another question)",
            "some seat right",
            "standard error (points, clustered by item)",
            "samples / item",
        ],
        &rows,
    );
    let _ = writeln!(
        out,
        "The interval is Wilson's with one sample per item; with repeats, accuracy is the mean over items of each \
         item's share of right samples, and its interval is normal on the standard error clustered by item. \
         \"Some seat right\": items where at least one counted seat's last answer was right — what the vote could \
         at best reach. A cost marked partial leaves out calls whose model has no price.\n"
    );
}

/// Arms with failed calls, named apart from wrong answers.
fn failures(out: &mut String, arms: &[ArmScore]) {
    if arms.iter().any(|a| a.count(|s| s.failed) > 0) {
        let failing: Vec<String> = arms
            .iter()
            .filter(|a| a.count(|s| s.failed) > 0)
            .map(|a| format!("{} ({} of {})", a.name, a.count(|s| s.failed), a.items.len()))
            .collect();
        let _ = writeln!(
            out,
            "**Failures**: {}. Their items are scored as they ended; run the evaluation again to ask them again.\n",
            failing.join(", ")
        );
    }
}

/// Each pair of arms: the difference, McNemar's p and two intervals.
fn arms_against_each_other(out: &mut String, arms: &[ArmScore]) {
    let _ = writeln!(out, "## Arms against each other\n");
    let rows: Vec<Vec<String>> = pairs(arms)
        .iter()
        .map(|p| {
            vec![
                p.name.clone(),
                format!("{} points", points(p.diff)),
                format!("{}", p.only_a),
                format!("{}", p.only_b),
                p.p.map_or("–".into(), |p| fixed(p, 4)),
                format!("{} – {}", points(p.paired.0), points(p.paired.1)),
                format!("{} – {}", points(p.bootstrap.0), points(p.bootstrap.1)),
            ]
        })
        .collect();
    table(
        out,
        &[
            "pair",
            "difference",
            "only the first right",
            "only the second right",
            "p (exact McNemar)",
            "95 % interval (paired, normal)",
            "95 % interval (bootstrap over items)",
        ],
        &rows,
    );
    let _ = writeln!(
        out,
        "The difference is the mean over items of the first arm's share of right samples minus the second's. \
         McNemar's test needs one sample per item in both arms (– otherwise). The bootstrap resamples items \
         {DRAWS} times from a fixed seed.\n"
    );
}

/// The plurality answer's accuracy after each set of turns, where an arm has more than one.
fn plurality_by_round(out: &mut String, arms: &[ArmScore]) {
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
        table(out, &header, &rows);
        let _ = writeln!(
            out,
            "Each column: every seat's latest answer up to that set of turns (a blind round first, where the \
             protocol has one; challengers not counted; a latest answer that cannot be read, was cut or failed is \
             none), and the plurality of them; a tie is not right. The last column is the arm's answer.\n"
        );
    }
}

/// Accuracy by the values of one dataset field, arm by arm.
fn by_field(out: &mut String, field: &str, items: &[Item], arms: &[ArmScore]) {
    let _ = writeln!(out, "## By {}\n", cell(field));
    let mut values: Vec<String> = items.iter().map(|i| value_of(i, field)).collect();
    crate::order::sort(&mut values);
    values.dedup();
    let mut header = vec![cell(field), "items".to_string()];
    header.extend(arms.iter().map(|a| a.name.to_string()));
    let rows: Vec<Vec<String>> = values
        .iter()
        .map(|v| {
            let members: Vec<usize> = (0..items.len()).filter(|&i| &value_of(&items[i], field) == v).collect();
            let mut row = vec![cell(v), members.len().to_string()];
            for a in arms {
                let means = a.item_means();
                let mean = members.iter().map(|&i| means.get(i).copied().unwrap_or(0.0)).sum::<f64>()
                    / members.len().max(1) as f64;
                row.push(percent(mean));
            }
            row
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    table(out, &header, &rows);
}

/// An item's value of `field`: one of agon's own (`kind`) or a kept field; "(none)" without it.
fn value_of(item: &Item, field: &str) -> String {
    match field {
        "kind" => item.kind.as_str().to_string(),
        _ => item.fields.get(field).cloned().unwrap_or_else(|| "(none)".to_string()),
    }
}

/// What produced each arm: the settings its results file records.
fn settings(out: &mut String, arms: &[ArmScore]) {
    let _ = writeln!(out, "## Settings\n");
    let rows: Vec<Vec<String>> = arms
        .iter()
        .map(|a| {
            let summary = a.settings.as_ref().map(summary);
            let get = |k: &str| summary.as_ref().and_then(|s| s[k].as_str().map(cell)).unwrap_or_else(|| "–".into());
            vec![
                a.name.to_string(),
                match a.scoring {
                    Scoring::Vote => "the seats' vote".into(),
                    Scoring::Judge => "the judge's answer".into(),
                },
                get("protocol"),
                get("models"),
                get("judge"),
                get("parameters"),
                get("engine"),
                get("key"),
            ]
        })
        .collect();
    table(
        out,
        &["arm", "scored on", "protocol", "models (seats)", "judge", "parameters", "engine", "settings key"],
        &rows,
    );
    if arms.iter().any(|a| a.settings.is_none()) {
        let _ = writeln!(
            out,
            "An arm with – throughout has no settings recorded in its results file (written by another tool, \
             or before agon kept them).\n"
        );
    }
}

/// The settings a person reads: protocol, models, judge, parameters, engine, key.
pub(crate) fn summary(settings: &Value) -> Value {
    let spec = &settings["spec"];
    let models: Vec<String> = spec["panel"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["model"].as_str().map(str::to_string))
        .collect();
    let judge = spec["judge"]["model"].as_str().unwrap_or("none");
    let limits = &spec["limits"];
    let mut parameters = Vec::new();
    for (key, name) in [("max_tokens", "max tokens"), ("temperature", "temperature")] {
        if let Some(v) = limits.get(key).filter(|v| !v.is_null()) {
            parameters.push(format!("{name} {v}"));
        }
    }
    if let Some(r) = spec.get("rounds").filter(|v| !v.is_null()) {
        parameters.push(format!("rounds {r}"));
    }
    if let Some(c) = spec["protocol"]["consensus"].as_str() {
        parameters.push(format!("consensus {c}"));
    }
    if let Some(s) = spec.get("seed") {
        parameters.push(format!("seed {s}"));
    }
    json!({
        "protocol": spec["protocol"]["name"].as_str().unwrap_or("?"),
        "models": models.join(", "),
        "judge": judge,
        "parameters": parameters.join(", "),
        "engine": settings["engine"].as_str().unwrap_or("?"),
        "key": settings["key"].as_str().map(|k| k.chars().take(12).collect::<String>()).unwrap_or_default(),
    })
}

/// The dataset as scored.
pub(crate) struct Dataset<'a> {
    pub name: &'a str,
    pub items: &'a [Item],
    pub skipped: &'a [String],
    pub digest: String,
}

/// The report as JSON: every figure of the Markdown, with what produced it.
pub(crate) fn json(dataset: &Dataset, arms: &[ArmScore], by: &[String]) -> String {
    let arms_json: Vec<Value> = arms
        .iter()
        .map(|a| {
            let r = row(a);
            json!({
                "name": a.name,
                "scored_on": match a.scoring { Scoring::Vote => "vote", Scoring::Judge => "judge" },
                "items": r.n,
                "samples_per_item": r.repeats.max(1),
                "right": r.right,
                "accuracy": r.accuracy,
                "interval_95": [r.interval.0, r.interval.1],
                "standard_error_clustered": r.se,
                "no_answer": r.no_answer,
                "failed": r.failed,
                "seats_cut": r.cut,
                "stale": r.stale,
                "not_run": r.not_run,
                "some_seat_right": r.any_right,
                "calls": r.calls,
                "tokens": r.tokens,
                "cost_micro_usd": r.cost,
                "cost_partial": r.cost_partial,
                "settings": a.settings,
                "rounds": super::rounds::json(a),
            })
        })
        .collect();
    let pairs_json: Vec<Value> = pairs(arms)
        .iter()
        .map(|p| {
            json!({
                "pair": p.name,
                "difference": p.diff,
                "interval_95_paired": [p.paired.0, p.paired.1],
                "interval_95_bootstrap": [p.bootstrap.0, p.bootstrap.1],
                "only_first_right": p.only_a,
                "only_second_right": p.only_b,
                "mcnemar_p": p.p,
            })
        })
        .collect();
    let mut breakdowns = serde_json::Map::new();
    for field in by {
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, item) in dataset.items.iter().enumerate() {
            groups.entry(value_of(item, field)).or_default().push(i);
        }
        let per: Vec<Value> = groups
            .iter()
            .map(|(value, members)| {
                let accuracy: serde_json::Map<String, Value> = arms
                    .iter()
                    .map(|a| {
                        let means = a.item_means();
                        let mean = members.iter().map(|&i| means.get(i).copied().unwrap_or(0.0)).sum::<f64>()
                            / members.len().max(1) as f64;
                        (a.name.to_string(), json!(mean))
                    })
                    .collect();
                json!({"value": value, "items": members.len(), "accuracy": accuracy})
            })
            .collect();
        breakdowns.insert(field.clone(), Value::from(per));
    }
    let report = json!({
        "dataset": {"name": dataset.name, "sha256": dataset.digest, "items": dataset.items.len(), "skipped": dataset.skipped},
        "engine": crate::journal::ENGINE_VERSION,
        "arms": arms_json,
        "pairs": pairs_json,
        "by": breakdowns,
    });
    let mut text = serde_json::to_string_pretty(&crate::order::canonical(report)).expect("a report serializes");
    text.push('\n');
    text
}

/// Every item of every arm, one JSON line each (a line per sample).
pub(crate) fn items_jsonl(items: &[Item], arms: &[ArmScore]) -> String {
    let mut out = String::new();
    for a in arms {
        let mut sample = vec![0u32; items.len()];
        for (s, &i) in a.items.iter().zip(&a.item) {
            let item = &items[i];
            sample[i] += 1;
            let line = json!({
                "arm": a.name,
                "id": item.id,
                "sample": sample[i],
                "gold": item.gold(),
                "answer": s.answer,
                "correct": s.correct,
                "no_answer": s.no_answer(),
                "failed": s.failed,
                "stale": s.stale,
                "seats_cut": s.cut,
                "some_seat_right": s.any_right,
                "ran": s.ran,
                "rounds": s.rounds,
                "calls": s.calls,
                "tokens": s.tokens,
                "cost_micro_usd": s.cost_micro_usd,
                "cost_partial": s.cost_partial,
                "by_round": s.by_round,
                "seats_by_round": seats_by_round(s),
                "fields": item.fields,
            });
            out.push_str(&crate::order::canonical(line).to_string());
            out.push('\n');
        }
    }
    out
}

/// Each set of turns' seats, judged: `{"seat": true | false | null}` (null: no answer that counts).
fn seats_by_round(s: &Scored) -> Value {
    let sets: Vec<Value> = s
        .turn_sets
        .iter()
        .map(|t| Value::Object(t.seats.iter().map(|(seat, right)| (seat.clone(), json!(right))).collect()))
        .collect();
    Value::from(sets)
}

/// An arm's results file: the last line of each id (a rerun appends after
/// an error line, and the last wins), and the settings line, if any.
pub(crate) struct Results {
    pub by_id: BTreeMap<String, Value>,
    pub settings: Option<Value>,
}

impl Results {
    pub(crate) fn read(text: &str) -> Results {
        let mut by_id = BTreeMap::new();
        let mut settings = None;
        for line in text.lines() {
            let Ok(v) = crate::json_read::parse(line) else { continue };
            if let Some(s) = v.get(super::SETTINGS_FIELD) {
                settings = Some(s.clone());
            } else if let Some(id) = v.get("id").and_then(Value::as_str) {
                by_id.insert(id.to_string(), v);
            }
        }
        Results { by_id, settings }
    }

    /// The lines of item `id`'s samples: `ID`, then `ID~2`, `ID~3`, … (repeats), in order.
    pub(crate) fn samples(&self, id: &str) -> Vec<&Value> {
        let mut out: Vec<&Value> = self.by_id.get(id).into_iter().collect();
        for k in 2.. {
            match self.by_id.get(&super::sample_id(id, k)) {
                Some(v) => out.push(v),
                None => break,
            }
        }
        out
    }
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
