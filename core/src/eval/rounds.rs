//! What each round did to an arm's answer: the flips of each seat and of
//! the plurality from one set of turns to the next, the right answers the
//! plurality left in the pool, where accuracy stopped rising, and what each
//! round cost per point it gained.

use std::fmt::Write;

use serde_json::{Value, json};

use super::arm_score::{ArmScore, fixed, percent, usd};
use super::score::TurnSet;
use crate::render::results::{cell, table};

/// One set of turns of one arm, over its samples.
pub(crate) struct Round {
    /// From 1: the first set is the first answers.
    pub set: usize,
    pub accuracy: f64,
    /// The plurality was right after the set before and is not after this one.
    pub right_to_wrong: u64,
    pub wrong_to_right: u64,
    /// Some counted seat's latest answer is right, and the plurality is not (the oracle gap).
    pub lost_in_pool: u64,
    /// Per seat, in the order seats first spoke: (seat, right→wrong, wrong→right),
    /// between two answers that count.
    pub seats: Vec<(String, u64, u64)>,
    /// The mean spending of this set per debate that ran: micro-US dollars
    /// when every debate was priced, and tokens.
    pub cost: Option<f64>,
    pub tokens: f64,
}

/// An arm's rounds, when it debated over more than one set of turns.
pub(crate) fn rounds(arm: &ArmScore) -> Vec<Round> {
    let sets = arm.items.iter().map(|s| s.turn_sets.len()).max().unwrap_or(0);
    if sets < 2 {
        return Vec::new();
    }
    let accuracy = arm.by_round();
    let ran = arm.count(|s| s.ran).max(1) as f64;
    let priced = arm.cost_per_item().is_some();
    // A debate that stopped early keeps its last set's answers, and spends nothing more.
    let at = |sets: &[TurnSet], k: usize| sets.get(k).or(sets.last()).cloned();
    let mut seat_order: Vec<String> = Vec::new();
    for s in &arm.items {
        for (seat, _) in s.turn_sets.iter().flat_map(|t| &t.seats) {
            if !seat_order.contains(seat) {
                seat_order.push(seat.clone());
            }
        }
    }
    (0..sets)
        .map(|k| {
            let mut round = Round {
                set: k + 1,
                accuracy: accuracy.get(k).copied().unwrap_or(0.0),
                right_to_wrong: 0,
                wrong_to_right: 0,
                lost_in_pool: 0,
                seats: seat_order.iter().map(|s| (s.clone(), 0, 0)).collect(),
                cost: None,
                tokens: 0.0,
            };
            let (mut cost, mut tokens) = (0.0, 0.0);
            for s in arm.items.iter().filter(|s| !s.turn_sets.is_empty()) {
                let now = at(&s.turn_sets, k).expect("not empty");
                if let Some(spent) = s.turn_sets.get(k) {
                    cost += spent.share * s.cost_micro_usd.unwrap_or(0) as f64;
                    tokens += spent.share * s.tokens as f64;
                }
                if !now.plurality && now.seats.iter().any(|(_, right)| *right == Some(true)) {
                    round.lost_in_pool += 1;
                }
                let Some(before) = k.checked_sub(1).and_then(|b| at(&s.turn_sets, b)) else { continue };
                round.right_to_wrong += u64::from(before.plurality && !now.plurality);
                round.wrong_to_right += u64::from(!before.plurality && now.plurality);
                for (seat, right) in &now.seats {
                    let was = before.seats.iter().find(|(s, _)| s == seat).and_then(|(_, r)| *r);
                    let entry = round.seats.iter_mut().find(|(s, _, _)| s == seat).expect("every seat listed");
                    match (was, right) {
                        (Some(true), Some(false)) => entry.1 += 1,
                        (Some(false), Some(true)) => entry.2 += 1,
                        _ => {}
                    }
                }
            }
            round.cost = priced.then_some(cost / ran);
            round.tokens = tokens / ran;
            round
        })
        .collect()
}

/// The set after which accuracy stopped rising: the first that no later set beats.
pub(crate) fn peak(rounds: &[Round]) -> Option<usize> {
    let best = rounds.iter().map(|r| r.accuracy).fold(f64::NEG_INFINITY, f64::max);
    rounds.iter().find(|r| r.accuracy >= best).map(|r| r.set)
}

/// The points of accuracy set `k` (from 0) gained over the set before (over none for the first).
fn gained(rounds: &[Round], k: usize) -> f64 {
    let before = k.checked_sub(1).map_or(0.0, |b| rounds[b].accuracy);
    (rounds[k].accuracy - before) * 100.0
}

/// What one more set cost per point it gained: in dollars when priced, else tokens; none without a gain.
fn per_point(rounds: &[Round], k: usize, partial: bool) -> Option<String> {
    let points = gained(rounds, k);
    if points <= 0.0 {
        return None;
    }
    let r = &rounds[k];
    Some(match r.cost {
        Some(c) => format!("{}{}", usd((c / points).round() as u64), if partial { " (partial)" } else { "" }),
        None => format!("{} tokens", fixed(r.tokens / points, 0)),
    })
}

/// The report's section: a table per arm that debated over rounds.
pub(crate) fn markdown(out: &mut String, arms: &[ArmScore]) {
    let debated: Vec<(&ArmScore, Vec<Round>)> =
        arms.iter().map(|a| (a, rounds(a))).filter(|(_, r)| !r.is_empty()).collect();
    if debated.is_empty() {
        return;
    }
    let _ = writeln!(out, "## What each round did\n");
    for (arm, rounds) in &debated {
        let n = arm.items.len();
        let rows: Vec<Vec<String>> = rounds
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let flips = |x: u64| if k == 0 { "–".to_string() } else { x.to_string() };
                let seats: Vec<String> = r
                    .seats
                    .iter()
                    .map(|(s, lost, won)| if k == 0 { cell(s) } else { format!("{} {lost} / {won}", cell(s)) })
                    .collect();
                vec![
                    format!("{}", r.set),
                    percent(r.accuracy),
                    flips(r.right_to_wrong),
                    flips(r.wrong_to_right),
                    format!("{} ({})", r.lost_in_pool, percent(r.lost_in_pool as f64 / n.max(1) as f64)),
                    match r.cost {
                        Some(c) => {
                            format!("{}{}", usd(c.round() as u64), if arm.cost_partial() { " (partial)" } else { "" })
                        }
                        None => format!("{} tokens", fixed(r.tokens, 0)),
                    },
                    per_point(rounds, k, arm.cost_partial()).unwrap_or_else(|| "no gain".into()),
                    if k == 0 { "–".into() } else { seats.join(", ") },
                ]
            })
            .collect();
        let _ = writeln!(out, "### {}\n", cell(arm.name));
        table(
            out,
            &[
                "turn set",
                "accuracy",
                "plurality right → wrong",
                "plurality wrong → right",
                "right answer in the pool, lost by the plurality",
                "spent on this set / item",
                "per point gained",
                "each seat right → wrong / wrong → right",
            ],
            &rows,
        );
        if let Some(peak) = peak(rounds) {
            let stopped = if peak == rounds.len() {
                format!("accuracy rose, or held, to the last turn set ({peak})")
            } else {
                format!("accuracy stopped rising after turn set {peak}: no later set is higher")
            };
            let _ = writeln!(out, "{} items; {stopped}.\n", n);
        }
    }
    let _ = writeln!(
        out,
        "Turn set 1 is the first answers (a blind round, where the protocol has one); each later set is a round. \
         A flip compares each item's answer after a set with its answer after the set before; a debate that \
         stopped early keeps its answer. The plurality counts as wrong when it is wrong, tied or none; a seat's \
         flip is between two answers that count (a turn unreadable, cut at its limit, refused or failed is no \
         answer, and no flip). \"Lost by the plurality\": items where some seat's latest answer was right and the \
         plurality's was not. A set's spending is each debate's cost shared out by the tokens of that set's \
         turns; per point gained divides it by the points of accuracy the set added (the first set's, over none).\n"
    );
}

/// The same figures as JSON, for one arm (empty when it did not debate over rounds).
pub(crate) fn json(arm: &ArmScore) -> Value {
    let rounds = rounds(arm);
    let sets: Vec<Value> = rounds
        .iter()
        .map(|r| {
            let seats: Vec<Value> = r
                .seats
                .iter()
                .map(|(s, lost, won)| json!({"seat": s, "right_to_wrong": lost, "wrong_to_right": won}))
                .collect();
            json!({
                "set": r.set,
                "accuracy": r.accuracy,
                "plurality_right_to_wrong": r.right_to_wrong,
                "plurality_wrong_to_right": r.wrong_to_right,
                "right_in_pool_lost_by_plurality": r.lost_in_pool,
                "seats": seats,
                "cost_micro_usd_per_item": r.cost,
                "tokens_per_item": r.tokens,
            })
        })
        .collect();
    json!({"turn_sets": sets, "accuracy_stopped_rising_after": peak(&rounds)})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::score::Scored;

    fn set(a: bool, b: bool, plurality: bool, share: f64) -> TurnSet {
        TurnSet { seats: vec![("a".into(), Some(a)), ("b".into(), Some(b))], plurality, share }
    }

    fn item(cost: u64, partial: bool, turn_sets: Vec<TurnSet>) -> Scored {
        Scored {
            ran: true,
            cost_micro_usd: Some(cost),
            cost_partial: partial,
            by_round: turn_sets.iter().map(|t| t.plurality).collect(),
            correct: turn_sets.last().is_some_and(|t| t.plurality),
            turn_sets,
            ..Scored::never_ran()
        }
    }

    /// Two items by hand: the first wrong, right, wrong again ($1, spent a
    /// quarter, a quarter, a half); the second right twice and stopped ($3,
    /// a quarter then three quarters; one call unpriced).
    #[test]
    fn spending_per_point_and_the_set_where_accuracy_stopped_rising() {
        let arm = ArmScore::single(
            "debate",
            vec![
                item(
                    1_000_000,
                    false,
                    vec![set(false, true, false, 0.25), set(true, true, true, 0.25), set(false, false, false, 0.5)],
                ),
                item(3_000_000, true, vec![set(true, true, true, 0.25), set(true, true, true, 0.75)]),
            ],
        );
        let rounds = rounds(&arm);
        let accuracy: Vec<f64> = rounds.iter().map(|r| r.accuracy).collect();
        assert_eq!(accuracy, [0.5, 1.0, 0.5]);
        // Set 1: ($0.25 + $0.75) / 2 = $0.50 for 50 points; set 2: ($0.25 + $2.25) / 2 = $1.25 for 50 more.
        assert_eq!(
            rounds.iter().map(|r| r.cost).collect::<Vec<_>>(),
            [Some(500_000.0), Some(1_250_000.0), Some(250_000.0)]
        );
        assert_eq!(per_point(&rounds, 0, true).as_deref(), Some("$0.0100 (partial)"));
        assert_eq!(per_point(&rounds, 1, true).as_deref(), Some("$0.0250 (partial)"));
        assert_eq!(per_point(&rounds, 2, true), None, "set 3 lost accuracy");
        assert_eq!(rounds[0].lost_in_pool, 1, "b was right, the tie was not");
        assert_eq!((rounds[1].right_to_wrong, rounds[1].wrong_to_right), (0, 1));
        assert_eq!((rounds[2].right_to_wrong, rounds[2].wrong_to_right), (1, 0));
        assert_eq!(rounds[1].seats, [("a".to_string(), 0, 1), ("b".to_string(), 0, 0)]);
        assert_eq!(rounds[2].seats, [("a".to_string(), 1, 0), ("b".to_string(), 1, 0)]);
        assert_eq!(peak(&rounds), Some(2));
        let mut out = String::new();
        markdown(&mut out, &[arm]);
        assert!(
            out.contains(
                "| 2 | 100.0 % | 0 | 1 | 0 (0.0 %) | $1.2500 (partial) | $0.0250 (partial) | a 0 / 1, b 0 / 0 |"
            ),
            "{out}"
        );
        assert!(
            out.contains("| 3 | 50.0 % | 1 | 0 | 0 (0.0 %) | $0.2500 (partial) | no gain | a 1 / 0, b 1 / 0 |"),
            "{out}"
        );
        assert!(out.contains("2 items; accuracy stopped rising after turn set 2: no later set is higher."), "{out}");
    }
}
