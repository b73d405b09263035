//! One arm's answer to one item, read from its debate's results line.

use serde_json::Value;

use super::Scoring;
use super::dataset::Item;
use crate::answer::{Rules, Taken, Uncounted};

/// What one arm made of one sample of one item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    /// The arm's answer: the transcript's vote, normalised; `None` when no
    /// answer could be read or the vote tied (then the item is wrong, and counted as given no answer).
    pub answer: Option<String>,
    pub correct: bool,
    /// Whether the debate ran (a results line with a transcript, for this item's question).
    pub ran: bool,
    /// A call failed (an outage, a refusal) or the debate could not run: an
    /// arm's failure, counted apart from its wrong answers.
    pub failed: bool,
    /// The results line is for another question, choices or context than the
    /// item's now: never scored.
    pub stale: bool,
    /// Seats whose last turn was cut at its token limit: no vote.
    pub cut: u32,
    /// Some counted seat's final answer was right (the oracle a vote can at best reach).
    pub any_right: bool,
    pub rounds: u32,
    pub calls: u64,
    pub tokens: u64,
    pub cost_micro_usd: Option<u64>,
    /// Some call's model had no price: `cost_micro_usd` counts only the priced ones.
    pub cost_partial: bool,
    /// The plurality answer's correctness after each round (Du et al.'s figure).
    pub by_round: Vec<bool>,
    /// What each set of turns left (scored by the vote only), aligned with `by_round`.
    pub turn_sets: Vec<TurnSet>,
}

/// What one set of turns (a round) left: each seat's latest answer, judged,
/// and the share of the debate's spending that set took.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnSet {
    /// Each counted seat, in the order seats first spoke: `Some(right)` when
    /// its latest turn gives an answer that counts; `None` when it gives none
    /// (unreadable, cut, refused or failed: never an answer).
    pub seats: Vec<(String, Option<bool>)>,
    /// The plurality is right (a tie or no answer is not).
    pub plurality: bool,
    /// The debate's calls' share spent on this set's turns: their tokens over
    /// all the debate's tokens (over its turns when no turn reports tokens).
    pub share: f64,
}

/// Score `line` (a batch results line for `item`, or none: never ran) by
/// the seats' vote or the judge's answer.
pub(crate) fn score(item: &Item, line: Option<&Value>, scoring: Scoring) -> Scored {
    // Every item a report holds was read by `dataset::read`, which refuses one without a checker.
    let Ok(check) = item.checker() else { return Scored::never_ran() };
    let Some(line) = line else { return Scored::never_ran() };
    let Some(transcript) = line.get("transcript").filter(|t| t.is_object()) else {
        // An error line: the debate could not run.
        return Scored { failed: line.get("error").is_some(), ..Scored::never_ran() };
    };
    // The line must be this item's: the question as asked and its context.
    let asked = transcript["question"].as_str().unwrap_or_default();
    let context = transcript["context"].as_str();
    if asked != item.prompt() || context != item.context.as_deref() {
        return Scored { stale: true, ..Scored::never_ran() };
    }
    // Read again from the turns, not taken from the recorded vote: a rescore
    // after a change to the reader reads every answer anew.
    let timeline = Timeline::of(item, transcript);
    let (answer, by_round, turn_sets) = match scoring {
        Scoring::Vote => {
            let pluralities = timeline.pluralities();
            let by_round: Vec<bool> = pluralities.iter().map(|p| check.accepts(p.as_deref())).collect();
            let shares = shares(transcript, timeline.first(), by_round.len());
            let turn_sets = by_round
                .iter()
                .zip(shares)
                .enumerate()
                .map(|(k, (&plurality, share))| {
                    let latest = timeline.latest(timeline.first() + k as u64);
                    let seats = latest
                        .iter()
                        .map(|(seat, taken)| (seat.to_string(), taken.answer().map(|a| check.accepts(Some(a)))))
                        .collect();
                    TurnSet { seats, plurality, share }
                })
                .collect();
            (pluralities.last().cloned().flatten(), by_round, turn_sets)
        }
        Scoring::Judge => (judge_answer(item, transcript), Vec::new(), Vec::new()),
    };
    let total = &transcript["usage"]["total"];
    let number = |v: &Value| v.as_u64().unwrap_or(0);
    let rounds = transcript.pointer("/outcome/rounds_run").and_then(Value::as_u64).unwrap_or(0) as u32;
    let failures = transcript.pointer("/outcome/failures").and_then(Value::as_array).is_some_and(|f| !f.is_empty());
    let judge_cut = scoring == Scoring::Judge && transcript["synthesis"]["cut"].as_bool().unwrap_or(false);
    let latest = timeline.latest(u64::MAX);
    Scored {
        correct: check.accepts(answer.as_deref()),
        answer,
        ran: true,
        failed: failures,
        stale: false,
        cut: latest.iter().filter(|(_, t)| *t == Taken::NotCounted(Uncounted::Cut)).count() as u32
            + u32::from(judge_cut),
        any_right: latest.iter().any(|(_, t)| check.accepts(t.answer())),
        rounds,
        calls: number(&total["calls"]),
        tokens: number(&total["prompt_tokens"]) + number(&total["completion_tokens"]),
        cost_micro_usd: total["cost_micro_usd"].as_u64(),
        cost_partial: total["unpriced"].as_array().is_some_and(|u| !u.is_empty()),
        by_round,
        turn_sets,
    }
}

/// Each of `sets` rounds' share of the debate's spending, from round `first`:
/// its turns' tokens over every turn's and the synthesis's; by the count of
/// calls when no reply reported its tokens.
fn shares(transcript: &Value, first: u64, sets: usize) -> Vec<f64> {
    let tokens = |v: &Value| {
        let u = &v["usage"];
        u["prompt_tokens"].as_u64().unwrap_or(0) + u["completion_tokens"].as_u64().unwrap_or(0)
    };
    let turns = transcript["turns"].as_array().map(Vec::as_slice).unwrap_or_default();
    let synthesis = transcript.get("synthesis").filter(|s| s.is_object());
    let counted = turns.iter().chain(synthesis).map(tokens).sum::<u64>();
    let weigh = |t: &Value| if counted > 0 { tokens(t) as f64 } else { 1.0 };
    let whole = turns.iter().chain(synthesis).map(weigh).sum::<f64>();
    (0..sets as u64)
        .map(|k| {
            let part: f64 = turns.iter().filter(|t| t["round"].as_u64() == Some(first + k)).map(weigh).sum();
            if whole > 0.0 { part / whole } else { 0.0 }
        })
        .collect()
}

impl Scored {
    pub(crate) fn never_ran() -> Scored {
        Scored {
            answer: None,
            correct: false,
            ran: false,
            failed: false,
            stale: false,
            cut: 0,
            any_right: false,
            rounds: 0,
            calls: 0,
            tokens: 0,
            cost_micro_usd: None,
            cost_partial: false,
            by_round: Vec::new(),
            turn_sets: Vec::new(),
        }
    }

    /// Ran, and gave no answer that counts: none could be read, the vote tied, or every seat was cut.
    pub(crate) fn no_answer(&self) -> bool {
        self.ran && self.answer.is_none() && !self.failed
    }
}

/// The answer line of the judge's synthesis, if there is one; none from a synthesis cut at its limit.
fn judge_answer(item: &Item, transcript: &Value) -> Option<String> {
    let rules = Rules::new(Some(&item.answer_spec()), Vec::new());
    let cut = transcript["synthesis"]["cut"].as_bool().unwrap_or(false);
    rules.take(transcript["synthesis"]["text"].as_str()?, cut).answer().map(str::to_string)
}

/// Every counted seat's turns and failed calls, in order: what each seat
/// last said by any round.
struct Timeline<'a> {
    /// (round, seat, what the turn gives); a failed call gives nothing that counts.
    events: Vec<(u64, &'a str, Taken)>,
}

impl<'a> Timeline<'a> {
    fn of(item: &Item, transcript: &'a Value) -> Timeline<'a> {
        let rules = Rules::new(Some(&item.answer_spec()), Vec::new());
        let counted = |t: &Value| {
            !t["challenger"].as_bool().unwrap_or(false)
                && !matches!(t["phase"].as_str(), Some("summary" | "synthesis" | "confirmation"))
        };
        let turns = transcript["turns"].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut events: Vec<(u64, &str, Taken)> = turns
            .iter()
            .filter(|t| counted(t))
            .filter_map(|t| {
                let taken = rules.take(t["text"].as_str()?, t["cut"].as_bool().unwrap_or(false));
                Some((t["round"].as_u64()?, t["speaker"].as_str()?, taken))
            })
            .collect();
        // A seat whose call failed has no reply to count in that round.
        let failures = transcript.pointer("/outcome/failures").and_then(Value::as_array).map(Vec::as_slice);
        for f in failures.unwrap_or_default().iter().filter(|f| counted(f)) {
            let (Some(round), Some(seat)) = (f["round"].as_u64(), f["speaker"].as_str()) else { continue };
            let why = if f["kind"] == "refused" { Uncounted::Refused } else { Uncounted::Failed };
            let at = events.iter().position(|(r, _, _)| *r > round).unwrap_or(events.len());
            events.insert(at, (round, seat, Taken::NotCounted(why)));
        }
        Timeline { events }
    }

    /// Each seat's latest turn up to `round`, in the order seats first spoke.
    fn latest(&self, round: u64) -> Vec<(&'a str, Taken)> {
        let mut latest: Vec<(&str, Taken)> = Vec::new();
        for (_, seat, taken) in self.events.iter().filter(|(r, _, _)| *r <= round) {
            match latest.iter_mut().find(|(s, _)| s == seat) {
                Some(entry) => entry.1 = taken.clone(),
                None => latest.push((seat, taken.clone())),
            }
        }
        latest
    }

    /// The first round a counted seat spoke in (0 when none did).
    fn first(&self) -> u64 {
        self.events.iter().map(|e| e.0).min().unwrap_or(0)
    }

    /// After each round r, the plurality of each seat's latest counted answer
    /// up to r (a challenger's turns are not counted; a latest turn that
    /// cannot be read, was cut or failed is no answer): the answer, or `None`
    /// on a tie or when none is read. The last is the arm's answer, as the
    /// transcript's vote takes it.
    fn pluralities(&self) -> Vec<Option<String>> {
        let (Some(first), Some(last)) = (self.events.iter().map(|e| e.0).min(), self.events.iter().map(|e| e.0).max())
        else {
            return Vec::new();
        };
        (first..=last)
            .map(|round| {
                let latest = self.latest(round);
                let mut counts: Vec<(&str, usize)> = Vec::new();
                for answer in latest.iter().filter_map(|(_, t)| t.answer()) {
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
}
