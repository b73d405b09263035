//! The debate so far: every planned call and what became of it.
//!
//! Protocols read this to decide what comes next; only the session writes it.

use crate::{DebateSpec, FailureKind, Participant, Phase, Purpose, RequestId, Usage};

/// Who a call is addressed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Seat {
    /// A panel seat, by index.
    Panel(usize),
    Judge,
}

/// Where a call sits in the debate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub seat: Seat,
    pub purpose: Purpose,
    pub round: u32,
    pub phase: Phase,
    pub challenger: bool,
}

impl Slot {
    /// Whether this is panel seat `index`.
    pub fn is_panel(&self, index: usize) -> bool {
        self.seat == Seat::Panel(index)
    }

    /// The panel seat's index, or `None` for the judge.
    pub fn panel_index(&self) -> Option<usize> {
        match self.seat {
            Seat::Panel(i) => Some(i),
            Seat::Judge => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// `cut`: the model ran into its token limit; the text is kept, and marked.
    /// `model`: the fallback chain's model that answered, when not the first.
    Text { text: String, usage: Option<Usage>, cut: bool, model: Option<String> },
    /// `usage`: what the provider billed all the same, when it said.
    Failed { kind: FailureKind, message: String, usage: Option<Usage> },
}

#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub id: RequestId,
    pub slot: Slot,
    pub answer: Option<Answer>,
    /// Replaced by a regenerated turn (quality gate); kept for the record only.
    pub superseded: bool,
    /// For summaries: the last round the summary covers.
    pub covers_round: u32,
    /// The prompt's estimated tokens, for usage when the provider reports none.
    pub prompt_tokens: u32,
    /// The model reference the request named (a chain as written).
    pub model: String,
    /// The reply's token limit, and the thinking tokens allowed beyond it.
    pub max_tokens: u32,
    pub allowance: u32,
}

pub(crate) struct Debate {
    pub spec: DebateSpec,
    pub records: Vec<Record>,
}

impl Debate {
    pub fn seat(&self, index: usize) -> &Participant {
        &self.spec.panel[index]
    }

    pub fn judge(&self) -> Option<&Participant> {
        self.spec.judge.as_ref()
    }

    /// Answered panel turns, in plan order, each with whether it was cut at its token limit.
    pub fn answered_turns(&self) -> impl Iterator<Item = (Slot, &str, bool)> {
        self.records.iter().filter_map(|r| match (&r.answer, r.slot.seat) {
            (Some(Answer::Text { text, cut, .. }), Seat::Panel(_))
                if r.slot.purpose == Purpose::Turn && !r.superseded =>
            {
                Some((r.slot, text.as_str(), *cut))
            }
            _ => None,
        })
    }

    /// The answer seat `seat` gave in this round and phase, if it was asked.
    pub fn answer(&self, seat: usize, round: u32, phase: Phase) -> Option<&Answer> {
        self.records
            .iter()
            .rev()
            .find(|r| {
                r.slot.seat == Seat::Panel(seat) && r.slot.round == round && r.slot.phase == phase && !r.superseded
            })
            .and_then(|r| r.answer.as_ref())
    }

    /// Whether seat `seat` spoke in `round` as its challenger (or a document's adversary).
    pub fn challenged(&self, seat: usize, round: u32) -> bool {
        self.records.iter().any(|r| r.slot.is_panel(seat) && r.slot.round == round && r.slot.challenger)
    }

    /// The text seat `seat` gave in this round and phase, if it answered.
    pub fn text(&self, seat: usize, round: u32, phase: Phase) -> Option<&str> {
        match self.answer(seat, round, phase) {
            Some(Answer::Text { text, .. }) => Some(text),
            _ => None,
        }
    }

    /// The reply seat `seat` gave in this round and phase, if it answered,
    /// as a consensus check reads it.
    pub fn reply(&self, seat: usize, round: u32, phase: Phase) -> Option<crate::consensus::Reply<'_>> {
        match self.answer(seat, round, phase) {
            Some(Answer::Text { text, cut, .. }) => {
                Some(crate::consensus::Reply { seat: self.seat(seat).id.as_str(), text, cut: *cut })
            }
            _ => None,
        }
    }

    /// The newest answered summary: (last round covered, text).
    pub fn latest_summary(&self) -> Option<(u32, &str)> {
        self.records.iter().rev().find_map(|r| match (&r.answer, r.slot.purpose) {
            (Some(Answer::Text { text, .. }), Purpose::Summary) => Some((r.covers_round, text.as_str())),
            _ => None,
        })
    }

    /// Whether a summary covering `round` has been asked for already (answered or not).
    pub fn summary_attempted(&self, round: u32) -> bool {
        self.records.iter().any(|r| r.slot.purpose == Purpose::Summary && r.covers_round >= round)
    }

    /// A seat that failed once is out for the rest of the debate: the host has
    /// already retried, and calling a dead provider every round only adds delay.
    pub fn is_benched(&self, seat: usize) -> bool {
        self.records.iter().any(|r| {
            r.slot.seat == Seat::Panel(seat)
                && r.slot.purpose == Purpose::Turn
                && matches!(r.answer, Some(Answer::Failed { .. }))
        })
    }

    /// Seats still answering, in panel order.
    pub fn active_seats(&self) -> Vec<usize> {
        (0..self.spec.panel.len()).filter(|&i| !self.is_benched(i)).collect()
    }

    pub fn has_quorum(&self) -> bool {
        self.active_seats().len() >= self.spec.quorum()
    }

    /// The judge's synthesis, once it has answered.
    pub fn judge_answer(&self) -> Option<&Answer> {
        self.records.iter().rev().find(|r| r.slot.purpose == Purpose::Judge).and_then(|r| r.answer.as_ref())
    }

    /// The judge's answer to round `round`'s consensus confirmation.
    pub fn confirmation(&self, round: u32) -> Option<&Answer> {
        self.records
            .iter()
            .rev()
            .find(|r| r.slot.purpose == Purpose::Confirmation && r.slot.round == round)
            .and_then(|r| r.answer.as_ref())
    }
}
