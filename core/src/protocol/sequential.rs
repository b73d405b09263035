//! The shape four protocols share: rounds of sequential turns, each speaker
//! seeing everything said before, an optional adversary, an optional early
//! stop after a round, then the judge. Each protocol is a [`RoundPolicy`].

use crate::Phase;
use crate::consensus::{ConsensusCheck, ConsensusMode, confirm};
use crate::debate::Debate;
use crate::plan::{Conclusion, EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::Prompt;

pub(crate) trait RoundPolicy: Clone + 'static {
    /// Called once before round 1 (a seeded pick, say).
    fn start(&mut self, _debate: &Debate, _notes: &mut Vec<Note>) {}
    /// Who speaks in `round`, in order.
    fn order(&self, debate: &Debate, round: u32) -> Vec<usize> {
        let _ = round;
        (0..debate.spec.panel.len()).collect()
    }
    /// The seat holding the adversarial role in `round`, if any.
    fn adversary(&self, _debate: &Debate, _round: u32) -> Option<usize> {
        None
    }
    fn turn_prompt(&self, debate: &Debate, seat: usize, round: u32, adversary: bool) -> Prompt;
    fn judge_prompt(&self, debate: &Debate) -> Prompt;
    /// Policies that stop on agreement: the round's convergence check. A
    /// reached check ends the debate early (it still goes to the judge) — in
    /// judge mode, only once the judge confirms it.
    fn check_round(&self, _debate: &Debate, _round: u32) -> Option<ConsensusCheck> {
        None
    }
}

#[derive(Clone)]
pub(crate) struct Sequential<P: RoundPolicy> {
    policy: P,
    stage: Stage,
}

#[derive(Clone)]
enum Stage {
    Start,
    Round {
        round: u32,
        order: Vec<usize>,
        adversary: Option<usize>,
        done: usize,
    },
    /// The judge is confirming the round's apparent consensus (judge mode).
    Confirming {
        check: ConsensusCheck,
    },
    Conclude {
        conclusion: Conclusion,
        ending: Ending,
    },
}

impl<P: RoundPolicy> Sequential<P> {
    pub fn new(policy: P) -> Self {
        Sequential { policy, stage: Stage::Start }
    }

    fn begin_round(&self, debate: &Debate, round: u32, notes: &mut Vec<Note>) -> Stage {
        let adversary = self.policy.adversary(debate, round);
        notes.push(Note::RoundStarted { round, phase: Phase::Deliberation, challenger: adversary });
        Stage::Round { round, order: self.policy.order(debate, round), adversary, done: 0 }
    }

    /// The round is over: record its check, then stop early, go on, or conclude.
    fn end_round(
        &self,
        debate: &Debate,
        round: u32,
        check: Option<ConsensusCheck>,
        notes: &mut Vec<Note>,
    ) -> Result<Stage, Ending> {
        let rounds = debate.spec.rounds();
        let early = check.as_ref().filter(|c| c.reached).map(|c| Ending {
            kind: EndKind::Consensus,
            reason: format!("consensus in round {round} of {rounds}: {}", c.reason),
            rounds_run: round,
        });
        if let Some(check) = check {
            notes.push(Note::Consensus(check));
        }
        notes.push(Note::RoundEnded { round, phase: Phase::Deliberation });
        if !debate.has_quorum() {
            return Err(Ending::no_quorum(debate, round));
        }
        Ok(match early {
            Some(ending) => Stage::Conclude { conclusion: Conclusion::NotAsked, ending },
            None if round < rounds => self.begin_round(debate, round + 1, notes),
            None => Stage::Conclude {
                conclusion: Conclusion::NotAsked,
                ending: Ending { kind: EndKind::Completed, reason: rounds_ran(rounds), rounds_run: rounds },
            },
        })
    }
}

impl<P: RoundPolicy> Protocol for Sequential<P> {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        loop {
            match &mut self.stage {
                Stage::Start => {
                    self.policy.start(debate, notes);
                    self.stage = self.begin_round(debate, 1, notes);
                }
                Stage::Round { round, order, adversary, done } => {
                    let (r, adversary) = (*round, *adversary);
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r - 1));
                    }
                    // Stage 1 — turns. Blind, round 1's turns (an adversary's
                    // excepted: it answers them) go out at once, none seeing another.
                    if crate::prompt_kit::blind(debate, r) {
                        let seats: Vec<usize> = order[*done..]
                            .iter()
                            .copied()
                            .filter(|&s| !debate.is_benched(s) && adversary != Some(s))
                            .collect();
                        if !seats.is_empty() {
                            order.retain(|s| !seats.contains(s));
                            order.splice(*done..*done, seats.iter().copied());
                            *done += seats.len();
                            let calls = seats.iter().map(|&seat| {
                                let prompt = self.policy.turn_prompt(debate, seat, r, false);
                                PlannedCall::turn(seat, r, Phase::Deliberation, false, prompt, &debate.spec)
                            });
                            return Step::Run(calls.collect());
                        }
                    }
                    // The next speaker still answering.
                    if let Some(k) = (*done..order.len()).find(|&k| !debate.is_benched(order[k])) {
                        let seat = order[k];
                        *done = k + 1;
                        let is_adversary = adversary == Some(seat);
                        let prompt = self.policy.turn_prompt(debate, seat, r, is_adversary);
                        let call = PlannedCall::turn(seat, r, Phase::Deliberation, false, prompt, &debate.spec);
                        return Step::Run(vec![if is_adversary { call.adversarial() } else { call }]);
                    }
                    // Stage 2 — the round's end: a convergence check (confirmed by the
                    // judge in judge mode), then an early stop, the next round, or the judge.
                    let check = self.policy.check_round(debate, r);
                    if let Some(check) = check.clone().filter(|c| c.reached && c.mode == ConsensusMode::Judge) {
                        let call = confirm::call(debate, &check);
                        self.stage = Stage::Confirming { check };
                        return Step::Run(vec![call]);
                    }
                    match self.end_round(debate, r, check, notes) {
                        Ok(stage) => self.stage = stage,
                        Err(ending) => return Step::Finish(ending),
                    }
                }
                Stage::Confirming { check } => {
                    let check = confirm::settle(debate, check.clone(), notes);
                    match self.end_round(debate, check.round, Some(check), notes) {
                        Ok(stage) => self.stage = stage,
                        Err(ending) => return Step::Finish(ending),
                    }
                }
                // Stage 3 — the judge reads the whole debate.
                Stage::Conclude { conclusion, ending } => {
                    let ending = ending.clone();
                    let round = ending.rounds_run;
                    let policy = &self.policy;
                    return conclusion.step(debate, ending, round, || policy.judge_prompt(debate));
                }
            }
        }
    }
}

/// "all 3 rounds ran", or "the one round ran".
pub(crate) fn rounds_ran(rounds: u32) -> String {
    if rounds == 1 { "the one round ran".into() } else { format!("all {rounds} rounds ran") }
}
