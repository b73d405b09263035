//! `rotating-challenger` (seed 000, done in full): blind answers, then rounds
//! in which one seat — rotating every round — must argue against the
//! position the others are settling on, with an early stop when everyone
//! else has converged.
//!
//! Improvements over the original, each deliberate:
//! - speakers see each other as "Speaker 1..N" (names return in the transcript);
//! - the round's challenger speaks last, so it challenges this round's
//!   positions, and first-speaker rights rotate with it;
//! - agreement is read by the stance reader, from each counted seat's `VOTE:`
//!   line by default, with the stricter rule of [`Rule::AllButOne`], and in
//!   judge mode the judge's model confirms before the debate stops;
//! - no prompt shows a word the reader counts, and earlier turns are quoted;
//! - the judge is not a debater and is asked for unresolved tensions and the
//!   challenger points that survived.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::consensus::{self, ConsensusCheck, ConsensusMode, Rule, confirm};
use crate::debate::{Debate, Seat, Slot};
use crate::plan::{Bounds, Conclusion, EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::{self, Prompt};
use crate::protocol::definition::{
    BASE, CONSENSUS_OPTION, Definition, OptionInfo, OptionKind, PLAIN, ProtocolOptions, Rounds, Shown, checked, typed,
};
use crate::{DebateSpec, Error, MAX_ROUNDS, Phase, SeatRef};

/// What readers of its transcripts need of it (see [`Shown`]): nothing of
/// its own.
pub(crate) const SHOWN: Shown = PLAIN;

pub(crate) const DEF: Definition = Definition {
    name: "rotating-challenger",
    summary: "Blind answers, then anonymized rounds with a rotating challenger; stops early on consensus (challenger excluded).",
    shown: SHOWN,
    rounds: Rounds { default: 2, max: MAX_ROUNDS, unit: "every seat speaks once, the challenger last" },
    options: &[
        OptionInfo {
            name: "challenger",
            kind: OptionKind::Seat,
            default: "the first seat",
            help: Cow::Borrowed("The seat that challenges in round 1; the role then rotates."),
        },
        CONSENSUS_OPTION,
        super::unchanged::INFO,
    ],
    reads_agreement: true,
    answers: true,
    check: checked::<Options>,
    // Blind answers, then one turn per seat per round; the challenger's is gated.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        // A blind answer and one turn a round each; the challenge rotates,
        // so a seat challenges at most once every n rounds.
        Bounds::new(spec, n + n * r, r, r).per_seat(1 + r, r.div_ceil(n.max(1))).in_passes()
    },
    build: |spec| {
        let o: Options = typed(spec);
        let start = o.challenger.map_or(0, |s| spec.resolve_seat(&s, "protocol.challenger").expect("validated"));
        Box::new(RotatingChallenger::new(start, o.consensus))
    },
    needs_different_models: true,
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    challenger: Option<SeatRef>,
    #[serde(default, skip_serializing_if = "ConsensusMode::is_default")]
    consensus: ConsensusMode,
    /// Stop after a round that changed no seat's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop_when_unchanged: Option<bool>,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        spec.check_consensus(self.consensus)?;
        if let Some(stop) = self.stop_when_unchanged {
            super::unchanged::check(spec, &serde_json::Value::Bool(stop))?;
        }
        if let Some(seat) = &self.challenger {
            spec.resolve_seat(seat, "protocol.challenger")?;
        }
        Ok(())
    }
}

#[derive(Clone)]
pub(crate) struct RotatingChallenger {
    /// The seat that challenges in round 1.
    start: usize,
    mode: ConsensusMode,
    stage: Stage,
}

#[derive(Clone)]
enum Stage {
    Blind,
    AwaitBlind,
    /// A round is about to start.
    RoundStart {
        round: u32,
    },
    /// `done` speakers of `order` have been called; the challenger is fixed for the round.
    Round {
        round: u32,
        challenger: Option<usize>,
        order: Vec<usize>,
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

/// Round `round`'s challenger (1-based rounds): seat `(start + round − 1) mod n`.
pub(crate) fn challenger_for_round(start: usize, round: u32, n: usize) -> usize {
    (start + round as usize - 1) % n
}

impl RotatingChallenger {
    pub fn new(start: usize, mode: ConsensusMode) -> Self {
        RotatingChallenger { start, mode, stage: Stage::Blind }
    }

    /// The round's challenger: the rotation's seat, or — if that seat has
    /// failed — the next seat still answering.
    fn challenger(&self, debate: &Debate, round: u32) -> Option<usize> {
        let n = debate.spec.panel.len();
        let planned = challenger_for_round(self.start, round, n);
        (0..n).map(|k| (planned + k) % n).find(|&s| !debate.is_benched(s))
    }

    /// Speaking order: the seat after the challenger opens, the challenger closes.
    fn order(&self, debate: &Debate, round: u32) -> Vec<usize> {
        let n = debate.spec.panel.len();
        let Some(c) = self.challenger(debate, round) else {
            return Vec::new();
        };
        (1..=n).map(|k| (c + k) % n).collect()
    }
}

impl Protocol for RotatingChallenger {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        loop {
            match &mut self.stage {
                // Stage 1 — blind answers: every seat at once, none sees another.
                Stage::Blind => {
                    notes.push(Note::RoundStarted { round: 0, phase: Phase::Blind, challenger: None });
                    self.stage = Stage::AwaitBlind;
                    let calls = (0..debate.spec.panel.len())
                        .map(|seat| {
                            PlannedCall::turn(
                                seat,
                                0,
                                Phase::Blind,
                                false,
                                blind_prompt(debate, seat, self.mode),
                                &debate.spec,
                            )
                        })
                        .collect();
                    return Step::Run(calls);
                }
                Stage::AwaitBlind => {
                    notes.push(Note::RoundEnded { round: 0, phase: Phase::Blind });
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, 0));
                    }
                    self.stage = Stage::RoundStart { round: 1 };
                }
                Stage::RoundStart { round } => {
                    let r = *round;
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r - 1));
                    }
                    let challenger = self.challenger(debate, r);
                    notes.push(Note::RoundStarted { round: r, phase: Phase::Deliberation, challenger });
                    let order = self.order(debate, r);
                    self.stage = Stage::Round { round: r, challenger, order, done: 0 };
                }
                // Stage 2 — deliberation: one speaker at a time, the challenger last.
                Stage::Round { round, challenger, order, done } => {
                    let (r, challenger) = (*round, *challenger);
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r - 1));
                    }
                    if let Some(k) = (*done..order.len()).find(|&k| !debate.is_benched(order[k])) {
                        let seat = order[k];
                        *done = k + 1;
                        let is_challenger = Some(seat) == challenger;
                        let prompt = deliberation_prompt(debate, seat, r, is_challenger, self.mode);
                        let call = PlannedCall::turn(seat, r, Phase::Deliberation, false, prompt, &debate.spec);
                        return Step::Run(vec![if is_challenger { call.adversarial() } else { call }]);
                    }
                    // Stage 3 — consensus check, without the challenger; in judge
                    // mode an apparent consensus goes to the judge first.
                    let check = check_round(debate, r, challenger, self.mode);
                    if check.reached && self.mode == ConsensusMode::Judge {
                        let call = confirm::call(debate, &check);
                        self.stage = Stage::Confirming { check };
                        return Step::Run(vec![call]);
                    }
                    if let Some(ending) = self.end_round(debate, check, notes) {
                        return Step::Finish(ending);
                    }
                }
                Stage::Confirming { check } => {
                    let check = confirm::settle(debate, check.clone(), notes);
                    if let Some(ending) = self.end_round(debate, check, notes) {
                        return Step::Finish(ending);
                    }
                }
                // Stage 4 — the judge synthesizes.
                Stage::Conclude { conclusion, ending } => {
                    let ending = ending.clone();
                    let round = ending.rounds_run;
                    return conclusion.step(debate, ending, round, || judge_prompt(debate));
                }
            }
        }
    }
}

impl RotatingChallenger {
    /// The round is over: record its check, then stop early, go on, or
    /// conclude. `Some` ends the debate at once (no quorum).
    fn end_round(&mut self, debate: &Debate, check: ConsensusCheck, notes: &mut Vec<Note>) -> Option<Ending> {
        let (r, rounds) = (check.round, debate.spec.rounds());
        let reached = check.reached;
        let reason = check.reason.clone();
        notes.push(Note::Consensus(check));
        notes.push(Note::RoundEnded { round: r, phase: Phase::Deliberation });
        if !debate.has_quorum() {
            return Some(Ending::no_quorum(debate, r));
        }
        self.stage = if reached {
            let ending = Ending {
                kind: EndKind::Consensus,
                reason: format!("consensus in round {r} of {rounds}: {reason}"),
                rounds_run: r,
            };
            Stage::Conclude { conclusion: Conclusion::NotAsked, ending }
        } else if let Some(ending) =
            (r < rounds).then(|| super::unchanged::stop(debate, r, &[Phase::Blind, Phase::Deliberation])).flatten()
        {
            Stage::Conclude { conclusion: Conclusion::NotAsked, ending }
        } else if r < rounds {
            Stage::RoundStart { round: r + 1 }
        } else {
            let ending = Ending {
                kind: EndKind::Completed,
                reason: format!("{} without consensus", super::sequential::rounds_ran(rounds)),
                rounds_run: rounds,
            };
            Stage::Conclude { conclusion: Conclusion::NotAsked, ending }
        };
        None
    }
}

/// Read this round's replies from every seat but the challenger.
fn check_round(debate: &Debate, round: u32, challenger: Option<usize>, mode: ConsensusMode) -> ConsensusCheck {
    // In panel order, whatever the speaking order was.
    let replies: Vec<consensus::Reply> = (0..debate.spec.panel.len())
        .filter(|&i| Some(i) != challenger)
        .filter_map(|i| debate.reply(i, round, Phase::Deliberation))
        .collect();
    let excluded = challenger.map(|c| debate.seat(c).id.as_str());
    consensus::evaluate(round, &replies, excluded, mode, Rule::AllButOne, &debate.spec.answer_rules())
}

/// The debaters' view of a speaker: always "Speaker N" (seed 000 is
/// anonymous, whatever names the seats have), and no challenger mark.
fn debater_label(slot: &Slot) -> String {
    match slot.seat {
        Seat::Panel(i) => prompt_kit::speaker(i),
        Seat::Judge => "Judge".to_string(),
    }
}

/// The judge's view of a speaker: the challenger is marked, so the judge can
/// weigh which challenger points survived. The debaters never see the mark
/// (seed 000 marks it in the output only): shown to them, it would invite
/// dismissing the objections as role-play.
fn judge_label(slot: &Slot) -> String {
    match slot.seat {
        Seat::Panel(i) if slot.challenger => format!("{} (challenger)", prompt_kit::speaker(i)),
        Seat::Panel(i) => prompt_kit::speaker(i),
        Seat::Judge => "Judge".to_string(),
    }
}

/// A blind first answer. Output: position, reasoning, confidence, in prose.
fn blind_prompt(debate: &Debate, seat: usize, mode: ConsensusMode) -> Prompt {
    let system = format!(
        "You are one of {n} experts answering the same question independently. \
You cannot see the other answers, and they cannot see yours.\n\n\
Give your own best answer: state your position first, then the reasoning behind it, \
then your confidence (high, medium or low) and what would change your mind. \
Two or three short paragraphs.",
        n = debate.spec.panel.len(),
    );
    // In answer mode the blind answers carry the line too: they are each seat's first answer.
    let closing = if mode.asks_for_answer() { consensus::closing(mode) } else { String::new() };
    let after = prompt_kit::turn_block(&[&prompt_kit::persona(debate.seat(seat)), &closing]);
    Prompt { system, before: prompt_kit::question(debate), after, ..Prompt::default() }
}

/// A deliberation turn. Output: prose, closed by the `VOTE:` line (or a plain
/// statement of where the speaker stands, in read mode); the challenger
/// argues instead and is not asked where it stands.
fn deliberation_prompt(debate: &Debate, seat: usize, round: u32, challenger: bool, mode: ConsensusMode) -> Prompt {
    let rounds = debate.spec.rounds();
    // The same for every seat and round; who speaks and the challenger's role come last.
    let system = format!(
        "You are one of {n} experts in a council debate of {rounds} deliberation rounds. \
The experts are shown only as numbered speakers; their earlier turns are quoted line by line with \"> \".\n\n\
How to take your turn:\n\
- Respond to specific points by speaker number: which hold up, which do not, and why.\n\
- Change your position when an argument warrants it, and say so; keep it when it does not.\n\
- Add what the discussion is missing. Two or three short paragraphs.",
        n = debate.spec.panel.len(),
    );
    let me = prompt_kit::speaker(seat);
    let (role, closing) = if challenger { (CHALLENGER_ROLE, String::new()) } else { ("", consensus::closing(mode)) };
    let after = prompt_kit::turn_block(&[
        &format!("You are {me}. This is deliberation round {round} of {rounds}."),
        &prompt_kit::persona(debate.seat(seat)),
        role,
        &format!("Your turn, {me}{}.", if challenger { ", as this round's challenger" } else { "" }),
        &closing,
    ]);
    Prompt {
        system,
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, debater_label),
        history_title: "THE DISCUSSION SO FAR".into(),
        after,
    }
}

/// The strengthened challenger role (seed 000, step 1), in our own words.
const CHALLENGER_ROLE: &str = "\n\n\
YOUR ROLE THIS ROUND: CHALLENGER. The council relies on you to keep it from settling too soon.\n\
1. Contradict, explicitly and by speaker number, at least one major point another speaker made.\n\
2. Find the weakest assumption under the position the others are settling on, and attack it.\n\
3. Name one concrete fact or scenario that, if true, would make that position wrong.\n\
4. No softeners: do not write \"building on\", \"adding nuance\" or anything like them.\n\
5. A fast meeting of minds is a warning sign: look for the complexity the others skipped.\n\
You may still end up backing the direction, but only after making the strongest counter-argument you can. \
If you find nothing real to contradict, explain why the shared view may be groupthink.";

/// The judge's synthesis. Output: Markdown under four fixed headings.
fn judge_prompt(debate: &Debate) -> Prompt {
    let system = "You are the judge of a council debate. You did not take part in it. \
The speakers are anonymous; in every deliberation round one of them held the challenger role, \
marked \"(challenger)\", and was required to argue against the position the others were settling on.\n\n\
Answer in Markdown with exactly these headings:\n\
## Synthesis\n(the answer the debate supports, in a few sentences)\n\
## Unresolved tensions\n(where the speakers still disagree, and why)\n\
## Challenger points that survived\n(objections from challengers that no one answered convincingly)\n\
## Confidence\n(high, medium or low, and what would change it)"
        .to_string();
    Prompt {
        system,
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, judge_label),
        history_title: "COMPLETE DEBATE TRANSCRIPT".into(),
        after: "Write the synthesis now.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::challenger_for_round;

    #[test]
    fn rotation_starts_at_the_named_seat_and_wraps() {
        let seen: Vec<usize> = (1..=6).map(|r| challenger_for_round(2, r, 5)).collect();
        assert_eq!(seen, vec![2, 3, 4, 0, 1, 2]);
    }
}
