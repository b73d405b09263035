//! What a protocol plans: who speaks when, with what prompt, and when to stop.
//!
//! A protocol is a pure planner in the spirit of `planRound`/`shouldContinue`:
//! each time every released call has been answered (or has failed), the
//! session asks it to [`advance`](Protocol::advance). It answers with the next
//! batch of calls — all of which may run at once — or with the end of the
//! debate. It never performs I/O and never sees the clock; its only
//! randomness is the spec's seed.
//!
//! Prompts are built by pure functions beside each protocol. The history part
//! of a prompt is handed to the session as entries, not text, so the session
//! can fit every request into the context budget in one place.

use std::borrow::Cow;

use serde_json::Value;

use crate::debate::{Answer, Debate, Seat, Slot};
use crate::prompt_kit::Prompt;
use crate::{ConsensusCheck, DebateSpec, Phase, Purpose};

pub(crate) trait Protocol: ProtocolClone {
    /// Plan what comes next, given everything answered so far. Called once at
    /// the start and again whenever the last batch has fully resolved.
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step;
}

/// Protocols are plain data, so the session can snapshot one and ask it again
/// (after fetching a summary that makes the next prompts fit their budget).
pub(crate) trait ProtocolClone {
    fn clone_box(&self) -> Box<dyn Protocol>;
}

impl<T: Protocol + Clone + 'static> ProtocolClone for T {
    fn clone_box(&self) -> Box<dyn Protocol> {
        Box::new(self.clone())
    }
}

/// The most a protocol can ask for with a spec, whatever the replies say:
/// early stops, failures and benched seats only ever ask for less.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// Panel turns.
    pub turns: u32,
    /// Of those, the turns the quality gate may ask again (once each).
    pub gated: u32,
    /// Judge calls (the synthesis, or adversarial's single-agent fallback, and
    /// in judge mode one consensus confirmation a round).
    pub judge: u32,
    /// The highest round number a turn can carry (summaries cover rounds before it).
    pub rounds: u32,
    /// The most of `turns` one seat can take (regenerations aside): what the
    /// cost bound gives each seat's prices, dearest first.
    pub per_seat: u32,
    /// The most of `gated` one seat can take.
    pub gated_per_seat: u32,
    /// The turns come in consecutive passes in which every seat speaks once
    /// (a blind round, then each round in some order): each seat's turns are
    /// then one a pass, however the order turns within a pass.
    pub passes: bool,
}

impl Bounds {
    /// `turns` panel turns (`gated` of them may be asked again), turns up to
    /// round `rounds`, and the judge: its synthesis when the spec has one, and
    /// in consensus mode `judge` one confirmation a round.
    pub fn new(spec: &DebateSpec, turns: u32, gated: u32, rounds: u32) -> Bounds {
        let confirmations = if spec.consensus_mode() == Some(crate::ConsensusMode::Judge) { spec.rounds() } else { 0 };
        let judge = spec.judge.is_some() as u32 + confirmations;
        Bounds { turns, gated, judge, rounds, per_seat: turns, gated_per_seat: gated, passes: false }
    }

    /// The same, one seat taking at most `per_seat` of the turns and
    /// `gated_per_seat` of the gated ones.
    pub fn per_seat(self, per_seat: u32, gated_per_seat: u32) -> Bounds {
        Bounds { per_seat: per_seat.min(self.turns), gated_per_seat: gated_per_seat.min(self.gated), ..self }
    }

    /// The same, its turns in passes where every seat speaks once.
    pub fn in_passes(self) -> Bounds {
        Bounds { passes: true, ..self }
    }
}

/// What the protocol wants next.
pub(crate) enum Step {
    /// Calls that depend on nothing outstanding; the host may run them all at once.
    Run(Vec<PlannedCall>),
    /// The debate is over.
    Finish(Ending),
}

/// A call as the protocol plans it; the session assigns its id.
#[derive(Debug, Clone)]
pub(crate) struct PlannedCall {
    pub slot: Slot,
    pub prompt: Prompt,
    pub max_tokens: u32,
    /// The reply shape the protocol will parse, stated in the prompt too.
    pub expect: Option<Cow<'static, str>>,
    /// Check this adversarial turn for softeners and missing disagreement.
    pub quality_gate: bool,
}

impl PlannedCall {
    pub fn turn(seat: usize, round: u32, phase: Phase, challenger: bool, prompt: Prompt, spec: &DebateSpec) -> Self {
        PlannedCall {
            slot: Slot { seat: Seat::Panel(seat), purpose: Purpose::Turn, round, phase, challenger },
            prompt,
            max_tokens: spec.limits.max_tokens,
            expect: None,
            quality_gate: false,
        }
    }

    pub fn judge(round: u32, prompt: Prompt, spec: &DebateSpec) -> Self {
        PlannedCall {
            slot: Slot {
                seat: Seat::Judge,
                purpose: Purpose::Judge,
                round,
                phase: Phase::Synthesis,
                challenger: false,
            },
            prompt,
            max_tokens: spec.limits.judge_max_tokens,
            expect: None,
            quality_gate: false,
        }
    }

    /// The turn holds the adversarial seat: marked in the transcript, checked by the quality gate.
    pub fn adversarial(mut self) -> Self {
        self.slot.challenger = true;
        self.quality_gate = true;
        self
    }

    /// The turn holds an adversarial seat but may legitimately agree (a verdict, a
    /// rebuttal): marked in the transcript, not checked by the quality gate.
    pub fn challenger_seat(mut self) -> Self {
        self.slot.challenger = true;
        self
    }

    pub fn expecting(mut self, shape: impl Into<Cow<'static, str>>) -> Self {
        self.expect = Some(shape.into());
        self
    }
}

/// Things worth an event that are not calls.
#[derive(Debug, Clone)]
pub(crate) enum Note {
    RoundStarted {
        round: u32,
        phase: Phase,
        challenger: Option<usize>,
    },
    Consensus(ConsensusCheck),
    RoundEnded {
        round: u32,
        phase: Phase,
    },
    /// A protocol-specific result, stored under `name` in the transcript
    /// with its kind (coded protocols make it from their [`Declared`](crate::result_kind::Declared) list).
    Result {
        name: Cow<'static, str>,
        kind: crate::ResultKind,
        value: Value,
    },
    /// A choice the seed made, recorded so the run can be explained.
    Choice {
        what: String,
        value: String,
    },
    /// Something a reader should know: an unparseable reply, a weak challenger turn.
    Warning {
        speaker: Option<String>,
        round: u32,
        phase: Phase,
        message: String,
    },
}

/// How the protocol ended the debate; the session turns it into an outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ending {
    pub kind: EndKind,
    pub reason: String,
    pub rounds_run: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndKind {
    Completed,
    Consensus,
    /// Finished, but not as a full council (a fallback, a lost side): degraded.
    Degraded,
    NoQuorum,
    JudgeFailed,
    /// Set by the session, never a protocol: the spending limit was reached.
    CostLimit,
}

impl Ending {
    pub fn completed(reason: impl Into<String>, rounds_run: u32) -> Ending {
        Ending { kind: EndKind::Completed, reason: reason.into(), rounds_run }
    }

    pub fn no_quorum(debate: &Debate, rounds_run: u32) -> Ending {
        Ending {
            kind: EndKind::NoQuorum,
            reason: format!(
                "only {} of {} seats still answering; {} needed",
                debate.active_seats().len(),
                debate.spec.panel.len(),
                debate.spec.quorum()
            ),
            rounds_run,
        }
    }
}

/// The common last stage: the judge synthesizes, or the debate ends without one.
#[derive(Debug, Clone)]
pub(crate) enum Conclusion {
    NotAsked,
    Asked(Ending),
}

impl Conclusion {
    /// Ask the judge (once), then end with `ending` — or with judge-failed.
    pub fn step(&mut self, debate: &Debate, ending: Ending, round: u32, prompt: impl FnOnce() -> Prompt) -> Step {
        match self {
            Conclusion::NotAsked if debate.judge().is_some() => {
                *self = Conclusion::Asked(ending);
                Step::Run(vec![PlannedCall::judge(round, prompt(), &debate.spec)])
            }
            Conclusion::NotAsked => Step::Finish(ending),
            Conclusion::Asked(ending) => match debate.judge_answer() {
                Some(Answer::Failed { kind, message, .. }) => Step::Finish(Ending {
                    kind: EndKind::JudgeFailed,
                    reason: format!("the judge failed ({}: {message}); no synthesis", kind.as_str()),
                    rounds_run: ending.rounds_run,
                }),
                _ => Step::Finish(ending.clone()),
            },
        }
    }

    /// The judge answered, but the protocol's named result could not be read
    /// from it: the run ends degraded with `reason`, never as a normal answer
    /// with nothing behind it.
    pub fn degrade(&mut self, reason: impl Into<String>) {
        if let Conclusion::Asked(ending) = self {
            ending.kind = EndKind::Degraded;
            ending.reason = reason.into();
        }
    }

    /// The judge's reply text, once it has answered.
    pub fn verdict<'d>(&self, debate: &'d Debate) -> Option<&'d str> {
        match (self, debate.judge_answer()) {
            (Conclusion::Asked(_), Some(Answer::Text { text, .. })) => Some(text),
            _ => None,
        }
    }
}
