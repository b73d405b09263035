//! The `review` aggregator of a protocol document: reads the findings phase
//! and the reactions phase, merges, decides, and records the [`Review`].

use serde::{Deserialize, Serialize};

use super::Review;
use super::finding::{Findings, read_findings};
use super::merge::{SeatName, merge};
use super::policy::Policy;
use super::reaction::read_reactions;
use crate::Phase;
use crate::debate::Debate;
use crate::plan::Note;
use crate::prompt_kit;

/// A code review: findings declared in one phase, confirmed or disputed in
/// another, merged across seats, and a verdict decided by a policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReviewAggregate {
    /// The phase whose replies declare findings, one `FINDING:` line each (file and line, severity, category, title, rationale).
    pub findings: Phase,
    /// The phase whose replies confirm or dispute them, one `CONFIRM:` or `DISPUTE:` line each; every round's, in order.
    pub reactions: Phase,
    /// The transcript field the review lands in: letters, digits and `_`.
    pub result: String,
    /// The policy the verdict is decided by (default: high or worse, upheld by two seats).
    #[serde(default)]
    pub policy: Policy,
}

/// Read every round up to `rounds_run`, merge, decide and record the review.
pub(crate) fn run(a: &ReviewAggregate, debate: &Debate, rounds_run: u32, notes: &mut Vec<Note>) -> Review {
    let seats = debate.spec.panel.len();
    let labels: Vec<String> = (0..seats).map(|i| prompt_kit::seat_label(debate, i)).collect();
    let names: Vec<SeatName> = (0..seats).map(|i| SeatName { id: &debate.seat(i).id, label: &labels[i] }).collect();
    let (mut raised, mut reactions, mut unread) = (Vec::new(), Vec::new(), Vec::new());
    for seat in 0..seats {
        let id = &debate.seat(seat).id;
        let mut read = false;
        for round in 1..=rounds_run.max(1) {
            let Some(text) = debate.text(seat, round, a.findings) else { continue };
            match read_findings(text) {
                Findings::Declared(found) => {
                    read = true;
                    raised.extend(found.into_iter().map(|f| (id.clone(), f)));
                }
                Findings::Unread => notes.push(Note::Warning {
                    speaker: Some(id.clone()),
                    round,
                    phase: a.findings,
                    message: "no finding and no NO FINDINGS line could be read from this reply".into(),
                }),
            }
        }
        if !read {
            unread.push(id.clone());
        }
    }
    for round in 1..=rounds_run.max(1) {
        for seat in 0..seats {
            if let Some(text) = debate.text(seat, round, a.reactions) {
                let id = &debate.seat(seat).id;
                reactions.extend(read_reactions(text).into_iter().map(|r| (id.clone(), round, r)));
            }
        }
    }
    let review = Review::decide(merge(&names, &raised, &reactions), a.policy, unread);
    let value = serde_json::to_value(&review).expect("a review serializes");
    notes.push(Note::Result { name: a.result.clone().into(), kind: super::KIND, value });
    review
}
