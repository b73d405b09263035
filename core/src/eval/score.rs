//! One arm's answer to one item, read from its debate's results line.

use serde_json::Value;

use super::Scoring;
use super::dataset::Item;
use crate::answer::Rules;

/// What one arm made of one item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    /// The arm's answer: the transcript's vote, normalised; `None` when no
    /// answer could be read or the vote tied (then the item is wrong, and counted as given no answer).
    pub answer: Option<String>,
    pub correct: bool,
    /// Whether the debate ran (a results line with a transcript).
    pub ran: bool,
    pub rounds: u32,
    pub calls: u64,
    pub tokens: u64,
    pub cost_micro_usd: Option<u64>,
    /// The plurality answer's correctness after each round (Du et al.'s figure).
    pub by_round: Vec<bool>,
}

/// Score `line` (a batch results line for `item`, or none: never ran) by
/// the seats' vote or the judge's answer.
pub(crate) fn score(item: &Item, line: Option<&Value>, scoring: Scoring) -> Scored {
    // Every item a report holds was read by `dataset::read`, which refuses one without a checker.
    let Ok(check) = item.checker() else { return Scored::never_ran() };
    let Some(transcript) = line.and_then(|l| l.get("transcript")).filter(|t| t.is_object()) else {
        return Scored::never_ran();
    };
    // Read again from the turns, not taken from the recorded vote: a rescore
    // after a change to the reader reads every answer anew.
    let (answer, by_round) = match scoring {
        Scoring::Vote => {
            let pluralities = pluralities(item, transcript);
            let by_round = pluralities.iter().map(|p| check.accepts(p.as_deref())).collect();
            (pluralities.last().cloned().flatten(), by_round)
        }
        Scoring::Judge => (judge_answer(item, transcript), Vec::new()),
    };
    let total = &transcript["usage"]["total"];
    let number = |v: &Value| v.as_u64().unwrap_or(0);
    let rounds = transcript.pointer("/outcome/rounds_run").and_then(Value::as_u64).unwrap_or(0) as u32;
    Scored {
        correct: check.accepts(answer.as_deref()),
        answer,
        ran: true,
        rounds,
        calls: number(&total["calls"]),
        tokens: number(&total["prompt_tokens"]) + number(&total["completion_tokens"]),
        cost_micro_usd: total["cost_micro_usd"].as_u64(),
        by_round,
    }
}

impl Scored {
    fn never_ran() -> Scored {
        Scored {
            answer: None,
            correct: false,
            ran: false,
            rounds: 0,
            calls: 0,
            tokens: 0,
            cost_micro_usd: None,
            by_round: Vec::new(),
        }
    }
}

/// The answer line of the judge's synthesis, if there is one.
fn judge_answer(item: &Item, transcript: &Value) -> Option<String> {
    let rules = Rules::new(Some(&item.answer_spec()), Vec::new());
    rules.answer(transcript["synthesis"]["text"].as_str()?)
}

/// After each round r, the plurality of each seat's latest counted answer up
/// to r (a challenger's turns are not counted; a latest turn that cannot be
/// read is no answer): the answer, or `None` on a tie or when none is read.
/// The last is the arm's answer, as the transcript's vote takes it.
fn pluralities(item: &Item, transcript: &Value) -> Vec<Option<String>> {
    let rules = Rules::new(Some(&item.answer_spec()), Vec::new());
    let turns = transcript["turns"].as_array().map(Vec::as_slice).unwrap_or_default();
    let counted: Vec<(u64, &str, &str)> = turns
        .iter()
        .filter(|t| !t["challenger"].as_bool().unwrap_or(false))
        .filter(|t| !matches!(t["phase"].as_str(), Some("summary" | "synthesis" | "confirmation")))
        .filter_map(|t| Some((t["round"].as_u64()?, t["speaker"].as_str()?, t["text"].as_str()?)))
        .collect();
    let last = counted.iter().map(|(r, _, _)| *r).max().unwrap_or(0);
    let first = counted.iter().map(|(r, _, _)| *r).min().unwrap_or(0);
    if counted.is_empty() {
        return Vec::new();
    }
    (first..=last)
        .map(|round| {
            // Each seat's latest answer up to this round.
            let mut latest: Vec<(&str, Option<String>)> = Vec::new();
            for (_, seat, text) in counted.iter().filter(|(r, _, _)| *r <= round) {
                let answer = rules.answer(text);
                match latest.iter_mut().find(|(s, _)| s == seat) {
                    Some(entry) => entry.1 = answer,
                    None => latest.push((seat, answer)),
                }
            }
            let mut counts: Vec<(&str, usize)> = Vec::new();
            for answer in latest.iter().filter_map(|(_, a)| a.as_deref()) {
                match counts.iter_mut().find(|(a, _)| *a == answer) {
                    Some(c) => c.1 += 1,
                    None => counts.push((answer, 1)),
                }
            }
            let most = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
            let leaders: Vec<&str> = counts.iter().filter(|(_, n)| *n == most).map(|(a, _)| *a).collect();
            (leaders.len() == 1).then(|| leaders[0].to_string())
        })
        .collect()
}
