//! The `ledger` aggregator of a protocol document: the ledger read from every
//! counted panel turn so far, listed in prompts (`{claims}`), recorded as a
//! result before the judge and again with its rulings.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::{Because, Ledger, SeatName, Standing, Turn, build, letter};
use crate::Purpose;
use crate::debate::{Debate, Seat};
use crate::plan::Note;
use crate::prompt_kit;

/// A claim ledger: `CLAIM`, `ATTACK` and `CONCEDE` lines read from every
/// counted turn, changes of position checked for a `BECAUSE`, and the judge's
/// `RULING` on each open claim; `{claims}` lists the ledger in a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LedgerAggregate {
    /// The transcript field the ledger lands in: letters, digits and `_`.
    pub result: String,
}

/// The ledger of every counted panel turn so far, with the judge's rulings when it answered.
pub(crate) fn of(debate: &Debate, ruling: Option<&str>) -> Ledger {
    let labels: Vec<String> = (0..debate.spec.panel.len()).map(|i| prompt_kit::seat_label(debate, i)).collect();
    let seats: Vec<SeatName> =
        labels.iter().enumerate().map(|(i, label)| SeatName { id: &debate.seat(i).id, label }).collect();
    let rules = debate.spec.takes_answers().then(|| debate.spec.answer_rules());
    let answers: Vec<Option<String>> = debate
        .answered_turns()
        .map(|(_, text, cut)| rules.as_ref().and_then(|r| r.take(text, cut).answer().map(str::to_string)))
        .collect();
    let turns: Vec<Turn> = debate
        .answered_turns()
        .zip(&answers)
        .filter(|((slot, _, _), _)| !slot.challenger && slot.purpose == Purpose::Turn)
        .filter_map(|((slot, text, _), answer)| match slot.seat {
            Seat::Panel(seat) => Some(Turn { seat, round: slot.round, text, answer: answer.as_deref() }),
            Seat::Judge => None,
        })
        .collect();
    build(&seats, &turns, ruling)
}

/// Record the ledger as the result `a` names.
pub(crate) fn record(a: &LedgerAggregate, ledger: &Ledger, notes: &mut Vec<Note>) {
    let value = serde_json::to_value(ledger).expect("a ledger serializes");
    notes.push(Note::Result { name: a.result.clone().into(), kind: super::KIND, value });
}

/// The ledger as a prompt lists it: the open claims, each quoted (a claim is
/// a seat's words), then, for a seat, the ids its own claims take.
pub(crate) fn listing(debate: &Debate, seat: Option<usize>) -> String {
    let ledger = of(debate, None);
    let mut out = String::new();
    let open: Vec<_> = ledger.claims.iter().filter(|c| c.standing.is_open()).collect();
    if open.is_empty() {
        out.push_str("No claim is open.\n");
    }
    for c in open {
        let who = debate.spec.panel.iter().position(|p| p.id == c.seat).map(|i| prompt_kit::seat_label(debate, i));
        let attackers: Vec<String> = c
            .attacks
            .iter()
            .filter_map(|a| debate.spec.panel.iter().position(|p| p.id == a.seat))
            .map(|i| prompt_kit::seat_label(debate, i))
            .collect();
        let state = match &c.standing {
            Standing::Attacked { .. } => format!("attacked by {}", attackers.join(", ")),
            _ => "unanswered".into(),
        };
        let _ = writeln!(out, "{} ({}, round {}), {state}:\n{}", c.id, who.unwrap_or_default(), c.round, {
            prompt_kit::quoted(&c.text)
        });
    }
    if let Some(s) = seat {
        let l = letter(s);
        let _ = writeln!(out, "Your claims take the ids {l}1, {l}2, … (declare one as CLAIM {l}1: …).");
    }
    out
}

/// Whether the ledger has no open claim: every claim raised was conceded, or none was.
pub(crate) fn settled(debate: &Debate) -> bool {
    !of(debate, None).claims.iter().any(|c| c.standing.is_open())
}

/// What the outcome adds about the agreement, when seats reached one through a change that cited nothing.
pub(crate) fn negotiated(ledger: &Ledger) -> Option<String> {
    let a = ledger.agreement.as_ref().filter(|a| a.kind == super::AgreementKind::Negotiated)?;
    let n = ledger.flips.iter().filter(|f| f.because == Because::Unexplained).count();
    Some(format!(
        "the agreement on '{}' was negotiated, not independent: {n} change{} of position cited no claim and no seat",
        a.position,
        if n == 1 { "" } else { "s" }
    ))
}
