//! The vote: the plurality answer over each seat's last answer.
//!
//! Choi et al. (2025, "Debate or Vote") find that most of what a debate gains
//! comes from the vote over answers; so every debate in answer mode records
//! it, beside the judge's synthesis and never inside it. Each seat's last
//! counted turn gives its answer (a challenger's turns are not counted); an
//! answer that cannot be read is no answer, never a guess; a tie is named,
//! not broken.

use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;

use crate::answer::{Taken, Uncounted};
use crate::debate::{Answer, Debate};
use crate::render::results::{name, table};
use crate::{Purpose, Transcript};

/// The vote as the transcript keeps it (result `vote`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Vote {
    /// The plurality answer; absent on a tie or when no seat gave a readable answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Every answer given, most votes first (then the first given), with its seats.
    pub counts: Vec<Count>,
    /// The answers tied for most votes, when more than one is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tie: Vec<String>,
    /// Seats whose last turn gave an answer that cannot be read, or none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// Seats whose last turn cannot count, whatever it says, and why: cut at
    /// its token limit, or a call that failed or was refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_counted: Vec<NotCounted>,
    /// How the vote is taken, in one line.
    pub rule: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NotCounted {
    pub seat: String,
    pub why: Uncounted,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Count {
    pub answer: String,
    pub seats: Vec<String>,
}

const RULE: &str = "the plurality of each seat's last answer; an answer that cannot be read counts as none, \
                    and a tie names the tied answers without choosing";

/// Take the vote over the panel's last counted turns.
pub(crate) fn take(debate: &Debate) -> Vote {
    let rules = debate.spec.answer_rules();
    let mut counts: Vec<Count> = Vec::new();
    let (mut unreadable, mut not_counted) = (Vec::new(), Vec::new());
    for (i, seat) in debate.spec.panel.iter().enumerate() {
        // The seat's last turn decides: an earlier answer does not stand in
        // for a last turn that was cut or failed.
        let last = debate.records.iter().rev().find(|r| {
            r.slot.is_panel(i)
                && r.slot.purpose == Purpose::Turn
                && !r.slot.challenger
                && !r.superseded
                && r.answer.is_some()
        });
        let taken = match last.and_then(|r| r.answer.as_ref()) {
            Some(Answer::Text { text, cut, .. }) => rules.take(text, *cut),
            Some(Answer::Failed { kind, .. }) => Taken::NotCounted(Uncounted::of_failure(*kind)),
            // A seat that was never asked has no vote to count.
            None => continue,
        };
        match taken {
            Taken::Given { normal: a, .. } => match counts.iter_mut().find(|c| c.answer == a) {
                Some(c) => c.seats.push(seat.id.clone()),
                None => counts.push(Count { answer: a, seats: vec![seat.id.clone()] }),
            },
            Taken::NotCounted(why) => not_counted.push(NotCounted { seat: seat.id.clone(), why }),
            Taken::Unreadable { .. } | Taken::Absent => unreadable.push(seat.id.clone()),
        }
    }
    // Stable: equal counts keep the order in which the answers were first given.
    crate::order::sort_by_key(&mut counts, |c| core::cmp::Reverse(c.seats.len()));
    let most = counts.first().map_or(0, |c| c.seats.len());
    let leaders: Vec<String> = counts.iter().filter(|c| c.seats.len() == most).map(|c| c.answer.clone()).collect();
    let (answer, tie) = match leaders.len() {
        1 => (leaders.into_iter().next(), Vec::new()),
        _ => (None, leaders),
    };
    Vote { answer, counts, tie, unreadable, not_counted, rule: RULE }
}

/// The vote as a person reads it: the winner (or the tie), then every answer
/// with its seats. False when `value` is not a vote (a document's own result).
/// Read from the JSON field by field: a derived reader costs the component more.
pub(crate) fn render(t: &Transcript, value: &Value, out: &mut String) -> bool {
    let texts =
        |v: &Value| -> Option<Vec<String>> { v.as_array()?.iter().map(|s| s.as_str().map(str::to_string)).collect() };
    let Some(counts) = value.get("counts").and_then(Value::as_array) else { return false };
    let Some(counts) = counts
        .iter()
        .map(|c| Some((c.get("answer")?.as_str()?.to_string(), texts(c.get("seats")?)?)))
        .collect::<Option<Vec<(String, Vec<String>)>>>()
    else {
        return false;
    };
    let Some(rule) = value.get("rule").and_then(Value::as_str) else { return false };
    let tie = value.get("tie").and_then(texts).unwrap_or_default();
    let unreadable = value.get("unreadable").and_then(texts).unwrap_or_default();
    let not_counted: Vec<(String, String)> = value
        .get("not_counted")
        .and_then(Value::as_array)
        .map(|all| {
            all.iter()
                .filter_map(|n| Some((n.get("seat")?.as_str()?.to_string(), n.get("why")?.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let seats: usize = counts.iter().map(|(_, s)| s.len()).sum::<usize>() + unreadable.len() + not_counted.len();
    let _ = writeln!(out, "### Vote\n");
    let _ = match (value.get("answer").and_then(Value::as_str), tie.as_slice()) {
        (Some(a), _) => {
            let n = counts.first().map_or(0, |(_, s)| s.len());
            writeln!(out, "**{}** — {n} of {seats} seats.\n", crate::render::results::cell(a))
        }
        (None, []) => writeln!(out, "No seat gave an answer that could be read.\n"),
        (None, tied) => writeln!(out, "A tie between {}: no answer is chosen.\n", tied.join(" and ")),
    };
    let rows: Vec<Vec<String>> = counts
        .iter()
        .map(|(a, who)| vec![a.clone(), who.iter().map(|s| name(t, s)).collect::<Vec<_>>().join(", ")])
        .collect();
    if !rows.is_empty() {
        table(out, &["answer", "seats"], &rows);
    }
    if !unreadable.is_empty() {
        let who: Vec<String> = unreadable.iter().map(|s| name(t, s)).collect();
        let _ = writeln!(out, "No readable answer: {}.\n", who.join(", "));
    }
    if !not_counted.is_empty() {
        let who: Vec<String> = not_counted
            .iter()
            .map(|(s, why)| {
                let why = match why.as_str() {
                    "cut" => "cut at its token limit",
                    "refused" => "refused",
                    _ => "its call failed",
                };
                format!("{} ({why})", name(t, s))
            })
            .collect();
        let _ = writeln!(out, "Not counted: {}.\n", who.join(", "));
    }
    let _ = writeln!(out, "*Rule: {rule}.*\n");
    true
}
