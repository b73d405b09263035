//! Protocols: who speaks when, with what prompt, and when to stop.
//!
//! A protocol is a pure planner in the spirit of `planRound`/`shouldContinue`:
//! each time every released call has been answered (or has failed), the
//! session asks it to [`advance`](Protocol::advance). It answers with the next
//! batch of calls — all of which may run at once — or with the end of the
//! debate. It never performs I/O and never sees the clock; its only
//! randomness is the spec's seed.

mod prompt_kit;
mod rotating_challenger;
mod round_robin;

use crate::debate::{Answer, Debate, Seat, Slot};
use crate::{ConsensusCheck, DebateSpec, Message, Phase, ProtocolSpec, Purpose};

/// One line per protocol, for `agon protocols` and every host's picker.
pub const CATALOG: &[(&str, &str)] = &[
    (
        "round-robin",
        "Every seat speaks once per round in panel order, seeing all earlier turns; the judge synthesizes.",
    ),
    (
        "rotating-challenger",
        "Blind answers, then anonymized rounds with a rotating challenger; stops early on consensus (challenger excluded).",
    ),
];

pub(crate) trait Protocol {
    /// Plan what comes next, given everything answered so far. Called once at
    /// the start and again whenever the last batch has fully resolved.
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step;
}

/// Build the protocol a spec names.
pub(crate) fn for_spec(spec: &DebateSpec) -> Box<dyn Protocol> {
    match &spec.protocol {
        ProtocolSpec::RoundRobin => Box::new(round_robin::RoundRobin::new()),
        ProtocolSpec::RotatingChallenger { challenger } => {
            let start = challenger
                .as_ref()
                .map(|seat| {
                    spec.resolve_seat(seat, "protocol.challenger")
                        .expect("validated spec")
                })
                .unwrap_or(0);
            Box::new(rotating_challenger::RotatingChallenger::new(start))
        }
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
    pub messages: Vec<Message>,
    pub max_tokens: u32,
}

impl PlannedCall {
    pub fn turn(
        seat: usize,
        round: u32,
        phase: Phase,
        challenger: bool,
        messages: Vec<Message>,
        spec: &DebateSpec,
    ) -> Self {
        PlannedCall {
            slot: Slot {
                seat: Seat::Panel(seat),
                purpose: Purpose::Turn,
                round,
                phase,
                challenger,
            },
            messages,
            max_tokens: spec.limits.max_tokens,
        }
    }

    pub fn judge(round: u32, messages: Vec<Message>, spec: &DebateSpec) -> Self {
        PlannedCall {
            slot: Slot {
                seat: Seat::Judge,
                purpose: Purpose::Judge,
                round,
                phase: Phase::Synthesis,
                challenger: false,
            },
            messages,
            max_tokens: spec.limits.judge_max_tokens,
        }
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
    NoQuorum,
    JudgeFailed,
}

impl Ending {
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
    pub fn step(
        &mut self,
        debate: &Debate,
        ending: Ending,
        round: u32,
        prompt: impl FnOnce() -> Vec<Message>,
    ) -> Step {
        match self {
            Conclusion::NotAsked if debate.judge().is_some() => {
                *self = Conclusion::Asked(ending);
                Step::Run(vec![PlannedCall::judge(round, prompt(), &debate.spec)])
            }
            Conclusion::NotAsked => Step::Finish(ending),
            Conclusion::Asked(ending) => match debate.judge_answer() {
                Some(Answer::Failed { kind, message }) => Step::Finish(Ending {
                    kind: EndKind::JudgeFailed,
                    reason: format!(
                        "the judge failed ({}: {message}); no synthesis",
                        kind.as_str()
                    ),
                    rounds_run: ending.rounds_run,
                }),
                _ => Step::Finish(ending.clone()),
            },
        }
    }
}
